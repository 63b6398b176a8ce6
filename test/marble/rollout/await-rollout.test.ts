// Marble tests (RxJS TestScheduler, virtual time) for the readiness pipeline. The informer
// streams are hot marbles carrying Deployment and Pod objects from test/support/fixtures.ts,
// shaped like the deployment controller's and kubelet's writes; no cluster is involved.
import type { V1Pod } from '../../../src/kube/objects.js';
import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { RolloutFailedError } from '../../../src/errors/rollout.js';
import { awaitRollout, type RolloutTarget } from '../../../src/rollout/await-rollout.js';
import type { ProgressEvent } from '../../../src/rollout/events.js';
import { resolveFailurePolicy } from '../../../src/rollout/failure-policy.js';
import {
  API_SERVER_RESTART_CREATE_ERROR,
  OLD_HASH,
  UNSCHEDULABLE_MESSAGE,
  conditions,
  deployment,
  progressingDeployment,
  quotaMessage,
  readyPod,
  replicaSetName,
  unschedulablePod,
  waitingPod,
} from '../../support/fixtures.js';

const UID = 'uid-web';
const target: RolloutTarget = { namespace: 'default', name: 'web', uid: UID, providerId: 'default/web' };
const RS = replicaSetName();
const POD = `${RS}-a1`;
const CONTAINER = 'manager';

const notReady = { uid: UID, readyReplicas: 0, availableReplicas: 0 };
const inProgress = progressingDeployment({ uid: UID });
const complete = deployment({ uid: UID });
const staleComplete = deployment({ uid: UID, generation: 2, observedGeneration: 1 });
const otherUidComplete = deployment({ uid: 'uid-old' });

/** One pod of the current ReplicaSet (or, with `hash`, of an older one), by the kubelet's state. */
function pod(
  state: { reason: string; message?: string } | 'ready',
  restartCount = 0,
  options: { name?: string; hash?: string } = {},
): V1Pod {
  const name = options.name ?? POD;
  if (state === 'ready') return readyPod({ name });
  return waitingPod(state.reason, state.message, { name, restartCount, ...(options.hash ? { hash: options.hash } : {}) });
}

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** Reduces progress events to what the marble assertions compare. */
const summary = (event: ProgressEvent): string => `${event.status.state}:${event.pod?.reason ?? event.status.reason}`;

describe('awaitRollout (marble)', () => {
  it('completes on the event that completes the rollout, emitting progress on the way', () => {
    newScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const deployments = hot('-a--b--c', { a: [inProgress], b: [inProgress], c: [complete] });
      const pods = hot<V1Pod[]>('------');
      const result = awaitRollout(target, deployments, pods);
      expectObservable(result.pipe(map(summary))).toBe('-a-----(c|)', {
        a: 'InProgress:WaitingForReady',
        c: 'Complete:NewReplicaSetAvailable',
      });
      expectSubscriptions(deployments.subscriptions).toBe('^------!');
      expectSubscriptions(pods.subscriptions).toBe('^------!');
    });
  });

  it('never completes on a status whose observedGeneration is behind (stale)', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const deployments = hot('-s--s--c', { s: [staleComplete], c: [complete] });
      const result = awaitRollout(target, deployments, hot<V1Pod[]>('-'));
      expectObservable(result.pipe(map(summary))).toBe('-s-----(c|)', {
        s: 'InProgress:ObservedGenerationBehind',
        c: 'Complete:NewReplicaSetAvailable',
      });
    });
  });

  it('ignores a cached object of the same name with another UID (an older, deleted Deployment)', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const deployments = hot('-o--a--c', { o: [otherUidComplete], a: [inProgress], c: [complete] });
      const result = awaitRollout(target, deployments, hot<V1Pod[]>('-'));
      expectObservable(result.pipe(map(summary))).toBe('----a--(c|)', {
        a: 'InProgress:WaitingForReady',
        c: 'Complete:NewReplicaSetAvailable',
      });
    });
  });

  it('errors with the controller message on ProgressDeadlineExceeded, and unsubscribes', () => {
    newScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const failed = deployment({ ...notReady, conditions: [conditions.unavailable(), conditions.progressDeadlineExceeded(RS)] });
      const deployments = hot('-a--f', { a: [inProgress], f: [failed] });
      const pods = hot<V1Pod[]>('-');
      expectObservable(awaitRollout(target, deployments, pods).pipe(map(summary))).toBe(
        '-a--#',
        { a: 'InProgress:WaitingForReady' },
        new RolloutFailedError(target, 'ProgressDeadlineExceeded', `ReplicaSet "${RS}" has timed out progressing.`),
      );
      expectSubscriptions(deployments.subscriptions).toBe('^---!');
      expectSubscriptions(pods.subscriptions).toBe('^---!');
    });
  });

  describe('create failures (ReplicaFailure, ReplicaSetCreateError)', () => {
    const replicaFailure = (message: string) =>
      deployment({
        ...notReady,
        updatedReplicas: 0,
        conditions: [conditions.unavailable(), conditions.replicaSetUpdated(RS), conditions.replicaFailure(message)],
      });

    it('errors at once on FailedCreate from a quota, which kubectl never stops on', () => {
      newScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
        const deployments = hot('-f', { f: [replicaFailure(quotaMessage())] });
        const pods = hot<V1Pod[]>('-');
        expectObservable(awaitRollout(target, deployments, pods)).toBe(
          '-#',
          undefined,
          new RolloutFailedError(target, 'FailedCreate', quotaMessage()),
        );
        expectSubscriptions(deployments.subscriptions).toBe('^!');
      });
    });

    it('errors at once on ReplicaSetCreateError from a quota on ReplicaSets', () => {
      newScheduler().run(({ hot, expectObservable }) => {
        const condition = conditions.replicaSetCreateError(RS);
        const failed = deployment({ ...notReady, updatedReplicas: 0, conditions: [conditions.unavailable(), condition] });
        expectObservable(awaitRollout(target, hot('-f', { f: [failed] }), hot<V1Pod[]>('-'))).toBe(
          '-#',
          undefined,
          new RolloutFailedError(target, 'ReplicaSetCreateError', condition.message ?? ''),
        );
      });
    });

    it('rides out a transient FailedCreate (control plane restarting) and completes once the controller recovers', () => {
      newScheduler().run(({ hot, expectObservable }) => {
        const deployments = hot('-a-f 10s c', { a: [inProgress], f: [replicaFailure(API_SERVER_RESTART_CREATE_ERROR)], c: [complete] });
        expectObservable(awaitRollout(target, deployments, hot<V1Pod[]>('-')).pipe(map(summary))).toBe('-a-f 10s (c|)', {
          a: 'InProgress:WaitingForReady',
          f: 'InProgress:ReplicaFailure',
          c: 'Complete:NewReplicaSetAvailable',
        });
      });
    });

    it('says what the controller reports while it retries', () => {
      newScheduler().run(({ hot, expectObservable }) => {
        const deployments = hot('-f', { f: [replicaFailure(API_SERVER_RESTART_CREATE_ERROR)] });
        expectObservable(awaitRollout(target, deployments, hot<V1Pod[]>('-')).pipe(map((event) => event.message)), '^--!').toBe('-m', {
          m: `the ReplicaSet cannot create pods yet (FailedCreate): ${API_SERVER_RESTART_CREATE_ERROR}`,
        });
      });
    });

    it('fails a transient-looking FailedCreate that lasts the grace window, on a timer (no new event needed)', () => {
      newScheduler().run(({ hot, expectObservable }) => {
        const deployments = hot('-f 10s f', { f: [replicaFailure(API_SERVER_RESTART_CREATE_ERROR)] });
        expectObservable(awaitRollout(target, deployments, hot<V1Pod[]>('-')).pipe(map(summary))).toBe(
          '-f 29999ms #',
          { f: 'InProgress:ReplicaFailure' },
          new RolloutFailedError(target, 'FailedCreate', API_SERVER_RESTART_CREATE_ERROR),
        );
      });
    });

    it('starts the grace window over when the failure clears and comes back', () => {
      newScheduler().run(({ hot, expectObservable }) => {
        const policy = resolveFailurePolicy({ createFailure: { graceMs: 100 } });
        const deployments = hot('-f 50ms a 98ms f', { f: [replicaFailure(API_SERVER_RESTART_CREATE_ERROR)], a: [inProgress] });
        expectObservable(awaitRollout(target, deployments, hot<V1Pod[]>('-'), { failurePolicy: policy }).pipe(map(summary))).toBe(
          '-f 50ms a 98ms f 99ms #',
          { f: 'InProgress:ReplicaFailure', a: 'InProgress:WaitingForReady' },
          new RolloutFailedError(target, 'FailedCreate', API_SERVER_RESTART_CREATE_ERROR),
        );
      });
    });
  });

  it('errors when the Deployment is deleted while waiting (gone from the cache, or being deleted)', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const gone = hot('-a--g', { a: [inProgress], g: [] });
      expectObservable(awaitRollout(target, gone, hot<V1Pod[]>('-')).pipe(map(summary))).toBe(
        '-a--#',
        { a: 'InProgress:WaitingForReady' },
        new RolloutFailedError(target, 'Deleted', 'the Deployment was deleted while waiting for its rollout'),
      );
      const deleting = hot('-d', { d: [deployment({ ...notReady, deletionTimestamp: new Date(0) })] });
      expectObservable(awaitRollout(target, deleting, hot<V1Pod[]>('-'))).toBe(
        '-#',
        undefined,
        new RolloutFailedError(target, 'Deleting', 'the Deployment is being deleted'),
      );
    });
  });

  it('does not treat "not in the cache yet" as deleted before the Deployment was ever seen', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const deployments = hot('-e--c', { e: [], c: [complete] });
      expectObservable(awaitRollout(target, deployments, hot<V1Pod[]>('-')).pipe(map(summary))).toBe('----(c|)', {
        c: 'Complete:NewReplicaSetAvailable',
      });
    });
  });

  it('passes the informer error through (e.g. a fatal 403) and unsubscribes the other stream', () => {
    newScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const forbidden = new Error('forbidden');
      const deployments = hot('-a', { a: [inProgress] });
      const pods = hot<V1Pod[]>('---#', undefined, forbidden);
      expectObservable(awaitRollout(target, deployments, pods).pipe(map(summary))).toBe(
        '-a-#',
        { a: 'InProgress:WaitingForReady' },
        forbidden,
      );
      expectSubscriptions(deployments.subscriptions).toBe('^--!');
    });
  });

  it('unsubscribes from both streams when the consumer unsubscribes (timeout, abort)', () => {
    newScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const deployments = hot('-a------', { a: [inProgress] });
      const pods = hot<V1Pod[]>('--------');
      expectObservable(awaitRollout(target, deployments, pods).pipe(map(summary)), '^--!').toBe('-a-', { a: 'InProgress:WaitingForReady' });
      expectSubscriptions(deployments.subscriptions).toBe('^--!');
      expectSubscriptions(pods.subscriptions).toBe('^--!');
    });
  });

  describe('failure policy timing, from pod events', () => {
    const policy = resolveFailurePolicy({
      imagePull: { maxBackOffs: 3, graceMs: 100_000 },
      unschedulable: { graceMs: 15_000 },
      crashLoop: { maxRestarts: 3, graceMs: 100_000 },
    });
    const pull = pod({ reason: 'ErrImagePull', message: 'rpc error: dial tcp 10.0.0.1:443: i/o timeout' });
    const backOff = pod({ reason: 'ImagePullBackOff', message: 'Back-off pulling image "registry.example/app:1"' });

    it('fails image pulls at the third back-off, naming reason, pod and container', () => {
      newScheduler().run(({ hot, expectObservable }) => {
        const deployments = hot('a', { a: [inProgress] });
        const pods = hot('-p-b-p-b-p-b', { p: [pull], b: [backOff] });
        expectObservable(awaitRollout(target, deployments, pods, { failurePolicy: policy }).pipe(map(summary))).toBe(
          'ap-b-p-b-p-#',
          { a: 'InProgress:WaitingForReady', p: 'InProgress:ErrImagePull', b: 'InProgress:ImagePullBackOff' },
          new RolloutFailedError(target, 'ImagePullBackOff', 'Back-off pulling image "registry.example/app:1"', {
            pod: POD,
            container: CONTAINER,
          }),
        );
      });
    });

    it('a single transient back-off followed by a running pod still completes', () => {
      newScheduler().run(({ hot, expectObservable }) => {
        const deployments = hot('a------c', { a: [inProgress], c: [complete] });
        const pods = hot('-p-b-r', { p: [pull], b: [backOff], r: [pod('ready')] });
        expectObservable(awaitRollout(target, deployments, pods, { failurePolicy: policy }).pipe(map(summary))).toBe('ap-b-r-(c|)', {
          a: 'InProgress:WaitingForReady',
          p: 'InProgress:ErrImagePull',
          b: 'InProgress:ImagePullBackOff',
          r: 'InProgress:WaitingForReady',
          c: 'Complete:NewReplicaSetAvailable',
        });
      });
    });

    it('fails at once when the image does not exist', () => {
      newScheduler().run(({ hot, expectObservable }) => {
        const notFound = pod({ reason: 'ErrImagePull', message: 'failed to resolve reference "registry.example/app:1": not found' });
        expectObservable(
          awaitRollout(target, hot('a', { a: [inProgress] }), hot('--n', { n: [notFound] }), { failurePolicy: policy }),
        ).toBe('a-#', { a: expect.anything() }, expect.objectContaining({ name: 'RolloutFailedError', reason: 'ErrImagePull' }));
      });
    });

    it('fails Unschedulable only after its grace window, with the scheduler message, on a timer (no new event needed)', () => {
      newScheduler().run(({ hot, expectObservable }) => {
        const pods = hot('-u', { u: [unschedulablePod(UNSCHEDULABLE_MESSAGE, { name: POD })] });
        expectObservable(awaitRollout(target, hot('a', { a: [inProgress] }), pods, { failurePolicy: policy }).pipe(map(summary))).toBe(
          'au 14999ms #',
          { a: 'InProgress:WaitingForReady', u: 'InProgress:Unschedulable' },
          new RolloutFailedError(target, 'Unschedulable', UNSCHEDULABLE_MESSAGE, { pod: POD }),
        );
      });
    });

    it('an Unschedulable pod that gets scheduled within the window cancels the timer', () => {
      newScheduler().run(({ hot, expectObservable }) => {
        const pods = hot('-u 5s r', { u: [unschedulablePod(UNSCHEDULABLE_MESSAGE, { name: POD })], r: [pod('ready')] });
        const deployments = hot('a 10s c', { a: [inProgress], c: [complete] });
        expectObservable(awaitRollout(target, deployments, pods, { failurePolicy: policy }).pipe(map(summary))).toBe(
          'au 5s r 4998ms (c|)',
          {
            a: 'InProgress:WaitingForReady',
            u: 'InProgress:Unschedulable',
            r: 'InProgress:WaitingForReady',
            c: 'Complete:NewReplicaSetAvailable',
          },
        );
      });
    });

    it('fails a crash loop at maxRestarts', () => {
      newScheduler().run(({ hot, expectObservable }) => {
        const crash = (restarts: number): V1Pod[] => [
          pod({ reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=web' }, restarts),
        ];
        const pods = hot('-1-2-3', { 1: crash(1), 2: crash(2), 3: crash(3) });
        expectObservable(awaitRollout(target, hot('a', { a: [inProgress] }), pods, { failurePolicy: policy }).pipe(map(summary))).toBe(
          'a1-2-#',
          { a: 'InProgress:WaitingForReady', 1: 'InProgress:CrashLoopBackOff', 2: 'InProgress:CrashLoopBackOff' },
          expect.objectContaining({ reason: 'CrashLoopBackOff', pod: POD, container: CONTAINER }),
        );
      });
    });

    it('ignores a failing pod of an older ReplicaSet', () => {
      newScheduler().run(({ hot, expectObservable }) => {
        const oldCrash = pod({ reason: 'CrashLoopBackOff', message: 'crashing' }, 9, {
          name: `${replicaSetName('web', OLD_HASH)}-zz`,
          hash: OLD_HASH,
        });
        const deployments = hot('a---c', { a: [inProgress], c: [complete] });
        const pods = hot('-o', { o: [oldCrash, pod({ reason: 'ContainerCreating' })] });
        expectObservable(awaitRollout(target, deployments, pods, { failurePolicy: policy }).pipe(map(summary))).toBe('ao--(c|)', {
          a: 'InProgress:WaitingForReady',
          o: 'InProgress:ContainerCreating',
          c: 'Complete:NewReplicaSetAvailable',
        });
      });
    });
  });
});
