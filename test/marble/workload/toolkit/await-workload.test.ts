// Marble tests (RxJS TestScheduler, virtual time) for the waits of the lifecycle
// operations: the generation guard (stale caches, superseded waiters), stop's "no Pod
// left" (with and without replica counts), reconfigure-while-stopped's "observed", remove's
// "gone", and a start's rollout with the Pods of the previous revision left out. The
// informer streams are hot marbles of fixtures shaped like the controllers' writes.
import type { V1Deployment, V1Pod } from '../../../../src/kube/objects.js';
import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { WorkloadSupersededError } from '../../../../src/workload/toolkit/guard-generation.js';
import type { WorkloadOperation } from '../../../../src/workload/toolkit/operation.js';
import type { ProgressEvent } from '../../../../src/rollout/events.js';
import { awaitObserved, awaitRemoved, awaitStopped } from '../../../../src/workload/toolkit/await-workload.js';
import { guardGeneration, type GenerationTarget } from '../../../../src/workload/toolkit/guard-generation.js';
import { awaitGenerationRollout } from '../../../../src/workload/toolkit/workload-streams.js';
import { operationContext } from '../../../../src/workload/toolkit/operation.js';
import type { OwnedWorkload } from '../../../../src/workload/toolkit/ownership.js';
import type { WaitingEvent } from '../../../../src/workload/toolkit/lifecycle-events.js';
import { FakeKubernetes } from '../../../support/fake-kube.js';
import { MEMBERS, MemberTable } from '../../../../src/members/set.js';
import {
  OLD_HASH,
  conditions,
  deployment,
  kubeletMessages,
  pendingPod,
  progressingDeployment,
  readyPod,
  replicaSetName,
  waitingPod,
} from '../../../support/fixtures.js';

const UID = 'uid-web';
const where = { namespace: 'default', name: 'web', providerId: 'default/web' };

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** The Deployment at `generation` with `replicas`, rolled out (counts and conditions as the controller writes them). */
function at(generation: number, replicas: number, options: Parameters<typeof deployment>[0] = {}): V1Deployment {
  return deployment({ uid: UID, generation, replicas, ...options });
}

/** A 0-replica Deployment as kube-apiserver returns it: observedGeneration and conditions, no replica counts at all. */
function stoppedWithoutCounts(generation: number): V1Deployment {
  const stopped = at(generation, 0);
  const { observedGeneration, conditions: kept } = stopped.status!;
  stopped.status = { observedGeneration, conditions: kept };
  return stopped;
}

const terminating = (pod: V1Pod): V1Pod => ({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date('2025-01-15T10:00:05Z') } });

const waitingMessage = (event: WaitingEvent): string => event.message;
const superseded = (target: GenerationTarget, by: WorkloadSupersededError['supersededBy'], operation: WorkloadOperation = 'start') =>
  new WorkloadSupersededError(operation, target, target.generation, by);

describe('guardGeneration (marble)', () => {
  const target: GenerationTarget = { namespace: 'default', name: 'web', uid: UID, generation: 2, replicas: 1 };

  it('skips what the cache holds of an older generation, passes the target generation on', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const old = at(1, 1);
      const mine = at(2, 1, { observedGeneration: 1 });
      const source = hot('-o-m-', { o: [old], m: [mine] });
      expectObservable(source.pipe(guardGeneration('start', target))).toBe('---m-', { m: [mine] });
    });
  });

  it('a newer generation with another replica count is a conflicting scale: fails at once, naming it', () => {
    newScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-m-s', { m: [at(2, 1)], s: [at(3, 0)] });
      expectObservable(source.pipe(guardGeneration('start', target))).toBe(
        '-m-#',
        { m: [at(2, 1)] },
        superseded(target, { by: 'scale', replicas: 0, generation: 3 }),
      );
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('a newer generation with the same replica count is another spec change (a second reconfigure)', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const source = hot('-n', { n: [at(3, 1)] });
      expectObservable(source.pipe(guardGeneration('reconfigure', target))).toBe(
        '-#',
        undefined,
        superseded(target, { by: 'spec', generation: 3 }, 'reconfigure'),
      );
    });
  });

  it('a deletion, a deletionTimestamp or a replacement by another UID ends the wait', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const gone = hot('-m-g', { m: [at(2, 1)], g: [] });
      expectObservable(gone.pipe(guardGeneration('start', target))).toBe('-m-#', { m: [at(2, 1)] }, superseded(target, { by: 'deletion' }));
      const deleting = hot('-d', { d: [at(2, 1, { deletionTimestamp: new Date() })] });
      expectObservable(deleting.pipe(guardGeneration('start', target))).toBe('-#', undefined, superseded(target, { by: 'deletion' }));
      const replaced = hot('-m-r', { m: [at(2, 1)], r: [deployment({ uid: 'other', generation: 1 })] });
      expectObservable(replaced.pipe(guardGeneration('start', target))).toBe(
        '-m-#',
        { m: [at(2, 1)] },
        superseded(target, { by: 'replacement' }),
      );
    });
  });

  it('keeps waiting while the cache has not seen the object at all', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const source = hot('-e-m', { e: [], m: [at(2, 1)] });
      expectObservable(source.pipe(guardGeneration('start', target))).toBe('---m', { m: [at(2, 1)] });
    });
  });
});

describe('awaitStopped (marble)', () => {
  it('a 0-replica Deployment without any replica counts and no Pod left is stopped: completes at once, never hangs', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const deployments = hot('-a', { a: [stoppedWithoutCounts(2)] });
      const pods = hot('-p', { p: [] as V1Pod[] });
      expectObservable(awaitStopped(where, deployments, pods)).toBe('-|');
    });
  });

  it('waits while a Pod of the workload is still there, and ends when the last one is gone', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const pod = readyPod({ name: 'web-7c9f5d-a1' });
      const deployments = hot('-a', { a: [stoppedWithoutCounts(2)] });
      const pods = hot('-r-t--e', { r: [pod], t: [terminating(pod)], e: [] });
      expectObservable(awaitStopped(where, deployments, pods).pipe(map(waitingMessage))).toBe('-r-t--|', {
        r: 'waiting for 1 pod to go (web-7c9f5d-a1: Running)',
        t: 'waiting for 1 pod to go (web-7c9f5d-a1: Terminating)',
      });
    });
  });

  it('waits for the controller to observe the scale-down before trusting "no Pods"', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const behind = stoppedWithoutCounts(2);
      behind.status = { ...behind.status, observedGeneration: 1 };
      const deployments = hot('-b--o', { b: [behind], o: [stoppedWithoutCounts(2)] });
      const pods = hot('-p', { p: [] as V1Pod[] });
      expectObservable(awaitStopped(where, deployments, pods).pipe(map(waitingMessage))).toBe('-b--|', {
        b: 'waiting for the deployment controller to observe generation 2',
      });
    });
  });

  it('a start during the stop supersedes it (through the guard) instead of leaving it waiting', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const target: GenerationTarget = { namespace: 'default', name: 'web', uid: UID, generation: 2, replicas: 0 };
      const pod = readyPod({ name: 'web-7c9f5d-a1' });
      const deployments = hot('-a--s', { a: [stoppedWithoutCounts(2)], s: [at(3, 1, { observedGeneration: 2 })] });
      const pods = hot('-p', { p: [terminating(pod)] });
      expectObservable(awaitStopped(where, deployments.pipe(guardGeneration('stop', target)), pods).pipe(map(waitingMessage))).toBe(
        '-w--#',
        { w: 'waiting for 1 pod to go (web-7c9f5d-a1: Terminating)' },
        new WorkloadSupersededError('stop', target, 2, { by: 'scale', replicas: 1, generation: 3 }),
      );
    });
  });
});

describe('awaitObserved and awaitRemoved (marble)', () => {
  it('reconfigure of a stopped workload ends once the controller has observed the new generation', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const behind = stoppedWithoutCounts(4);
      behind.status = { ...behind.status, observedGeneration: 3 };
      const deployments = hot('-b-o', { b: [behind], o: [stoppedWithoutCounts(4)] });
      expectObservable(awaitObserved(where, deployments).pipe(map(waitingMessage))).toBe('-b-|', {
        b: 'waiting for the deployment controller to observe generation 4',
      });
    });
  });

  it('remove waits for the Deployment (being deleted, foreground) and its Pods to be gone, never for a Pod to start', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const deleting = at(2, 1, { deletionTimestamp: new Date() });
      const pending = pendingPod({ name: 'web-7c9f5d-p1' });
      const deployments = hot('-d----g', { d: [deleting], g: [] });
      const pods = hot('-p--e', { p: [pending], e: [] });
      expectObservable(
        awaitRemoved(where, [{ kind: 'Deployment', uid: UID, snapshots$: deployments }], pods).pipe(map(waitingMessage)),
      ).toBe('-p--d-|', {
        p: 'waiting for 1 pod to go (web-7c9f5d-p1: Pending)',
        d: 'waiting for the Deployment to be deleted',
      });
    });
  });

  it('another object that took the name is not the one removed', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const deployments = hot('-r', { r: [deployment({ uid: 'new-one' })] });
      const pods = hot('-e', { e: [] as V1Pod[] });
      expectObservable(awaitRemoved(where, [{ kind: 'Deployment', uid: UID, snapshots$: deployments }], pods)).toBe('-|');
    });
  });
});

describe('awaitGenerationRollout (marble): start, restart and reconfigure waits', () => {
  const owned = { uid: UID, containerId: '42', deployment: {} } as OwnedWorkload;
  const summary = (event: { type: string }): string => {
    const progress = event as ProgressEvent;
    return `${progress.status.state}:${progress.pod?.reason ?? progress.status.reason}`;
  };
  // The Deployment alone: these waits are about its rollout; the members' gates have their
  // own marble specs, over marbles instead of the shared informers (which run on real time).
  const members = new MemberTable([MEMBERS.rulesOf('deployments')]);
  const context = (scheduler: TestScheduler, operation: 'start' | 'reconfigure' = 'start') =>
    operationContext(operation, new FakeKubernetes(), { namespace: 'default', name: 'web' }, { scheduler, members });

  it('a cached "complete" of the previous generation never completes a start waiting for its own', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const deployments$ = hot('-o--p--c', { o: [at(1, 1)], p: [progressingDeployment({ uid: UID, generation: 2 })], c: [at(2, 1)] });
      const pods$ = hot<V1Pod[]>('-');
      expectObservable(
        awaitGenerationRollout(context(scheduler), owned, { generation: 2, replicas: 1 }, { deployments$, pods$ }).pipe(map(summary)),
      ).toBe('----p--(c|)', { p: 'InProgress:WaitingForReady', c: 'Complete:NewReplicaSetAvailable' });
    });
  });

  it('stop while a start waits: the start fails at once, naming the scale to 0', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const deployments$ = hot('-p--s', {
        p: [progressingDeployment({ uid: UID, generation: 2 })],
        s: [at(3, 0, { observedGeneration: 2 })],
      });
      const pods$ = hot('--x', { x: [pendingPod()] });
      expectObservable(
        awaitGenerationRollout(context(scheduler), owned, { generation: 2, replicas: 1 }, { deployments$, pods$ }).pipe(map(summary)),
      ).toBe(
        '-px-#',
        { p: 'InProgress:WaitingForReady', x: 'InProgress:Pending' },
        new WorkloadSupersededError('start', where, 2, { by: 'scale', replicas: 0, generation: 3 }),
      );
    });
  });

  it('two reconfigures: the first waiter fails at once when the second one’s generation appears', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const deployments$ = hot('-p--n', {
        p: [progressingDeployment({ uid: UID, generation: 4 })],
        n: [progressingDeployment({ uid: UID, generation: 5 })],
      });
      const pods$ = hot<V1Pod[]>('-');
      expectObservable(
        awaitGenerationRollout(context(scheduler, 'reconfigure'), owned, { generation: 4, replicas: 1 }, { deployments$, pods$ }).pipe(
          map(summary),
        ),
      ).toBe(
        '-p--#',
        { p: 'InProgress:WaitingForReady' },
        new WorkloadSupersededError('reconfigure', where, 4, { by: 'spec', generation: 5 }),
      );
    });
  });

  it('the crash-looping Pod of the previous revision does not fail the new one while the condition still names the old ReplicaSet', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const oldRs = replicaSetName('web', OLD_HASH);
      const crashing = waitingPod('CrashLoopBackOff', kubeletMessages.crashLoop('web-old'), {
        name: 'web-old',
        hash: OLD_HASH,
        restartCount: 5,
      });
      // The controller has observed generation 3 but its Progressing condition still names the old ReplicaSet.
      const stale = deployment({
        uid: UID,
        generation: 3,
        readyReplicas: 0,
        availableReplicas: 0,
        updatedReplicas: 0,
        conditions: [conditions.unavailable(), conditions.replicaSetUpdated(oldRs)],
      });
      const deployments$ = hot('-s---c', { s: [stale], c: [at(3, 1)] });
      const pods$ = hot('-x', { x: [crashing] });
      const olderPods = new Set([crashing.metadata!.uid!]);
      expectObservable(
        awaitGenerationRollout(
          context(scheduler, 'reconfigure'),
          owned,
          { generation: 3, replicas: 1 },
          { deployments$, pods$ },
          olderPods,
        ).pipe(map(summary)),
      ).toBe('-s---(c|)', { s: 'InProgress:WaitingForUpdatedReplicas', c: 'Complete:NewReplicaSetAvailable' });
      // Without leaving it out, the old Pod's crash loop would be read as the new revision's.
      const unguarded = awaitGenerationRollout(
        context(scheduler, 'reconfigure'),
        owned,
        { generation: 3, replicas: 1 },
        { deployments$, pods$ },
      );
      expectObservable(unguarded.pipe(map(summary))).toBe(
        '-(s#)',
        { s: 'InProgress:WaitingForUpdatedReplicas' },
        expect.objectContaining({ name: 'RolloutFailedError', reason: 'CrashLoopBackOff', pod: 'web-old' }),
      );
    });
  });
});
