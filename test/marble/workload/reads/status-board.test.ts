// Marble tests (TestScheduler, virtual time) for the StatusBoard behind statuses$ and
// status$: informer notices go in as hot marbles (a fake of the two shared informers),
// status events come out. Covers: nothing before both informers listed, one event per
// change and none for a non-change, routing by container-id, the failure policy's grace
// windows over time (Infinity arms no timer; 2^31 ms fires once, on time), deletion, the
// API server unreachable and back, and status$'s `missing`. No API server is involved.
import type { V1Deployment, V1PersistentVolumeClaim, V1Pod } from '../../../../src/kube/objects.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Observable, map, type SchedulerAction, type SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { ApiUnreachableError } from '../../../../src/errors/api.js';
import type { InformerNotice } from '../../../../src/informers/shared-informer.js';
import { DEFAULT_FAILURE_POLICY, resolveFailurePolicy } from '../../../../src/rollout/failure-policy.js';
import { MAX_TIMER_DELAY_MS } from '../../../../src/rx/long-timer.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL, NODE_ID_LABEL } from '../../../../src/input/labels.js';
import {
  STATUS_EVALUATIONS_CHANNEL,
  StatusBoard,
  type StatusBoardOptions,
  type StatusEvent,
} from '../../../../src/workload/reads/status-board.js';
import {
  conditions,
  containerCreatingPod,
  deployment,
  kubeletMessages,
  progressingDeployment,
  readyPod,
  replicaSetName,
  waitingPod,
} from '../../../support/fixtures.js';
import { noticedCaches } from '../../../support/noticed-caches.js';

const labels = (containerId: string) => ({ [MANAGED_LABEL]: 'true', [NODE_ID_LABEL]: '7', [CONTAINER_ID_LABEL]: containerId });

/** Workload `name` with container-id `id`: a Deployment rolling out, complete, or scaled to 0. */
const creating = (name: string, id: string, rv = '10'): V1Deployment =>
  progressingDeployment({ name, labels: labels(id), resourceVersion: rv, uid: `uid-${name}` });
const complete = (name: string, id: string, rv = '11'): V1Deployment =>
  deployment({ name, labels: labels(id), resourceVersion: rv, uid: `uid-${name}` });
const podOf = (name: string, id: string, make: typeof readyPod = readyPod): V1Pod =>
  make({ deployment: name, name: `${replicaSetName(name)}-p`, labels: labels(id) });

type DeploymentNotice = InformerNotice<V1Deployment>;
type PodNotice = InformerNotice<V1Pod>;
type ClaimNotice = InformerNotice<V1PersistentVolumeClaim>;
const changedD = (name: string, d?: V1Deployment): DeploymentNotice => ({ type: 'changed', key: name, objects: d ? [d] : [] });
const changedP = (id: string, ...pods: V1Pod[]): PodNotice => ({ type: 'changed', key: id, objects: pods });
const SYNCED = { type: 'synced' } as const;
const DOWN = new ApiUnreachableError('https://api.test:6443', 'connect ECONNREFUSED 127.0.0.1:6443');

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

function board$(
  scheduler: TestScheduler,
  deployments$: Observable<DeploymentNotice>,
  pods$: Observable<PodNotice>,
  { claims$, ...options }: Partial<StatusBoardOptions> & { readonly claims$?: Observable<ClaimNotice> } = {},
): Observable<StatusEvent> {
  return new Observable<StatusEvent>((subscriber) => {
    const caches = noticedCaches();
    const board = new StatusBoard({
      namespace: 'default',
      scheduler,
      policy: DEFAULT_FAILURE_POLICY,
      emit: (event) => subscriber.next(event),
      members: caches.members,
      cached: caches.cached,
      ...options,
    });
    // No Services in these timelines: their informers have listed nothing (the network has its own tests).
    caches.syncMembers(board, 'persistentvolumeclaims');
    // Claims: listed nothing unless a timeline feeds some (options.claims$).
    const claims = (claims$ ?? new Observable<ClaimNotice>((s) => s.next(SYNCED))).subscribe((notice) =>
      caches.feed(board, 'persistentvolumeclaims', 0, notice),
    );
    const pods = pods$.subscribe((notice) => board.onPods(caches.notePods(notice)));
    const deployments = deployments$.subscribe((notice) => board.onDeployments(notice));
    return () => {
      board.close();
      claims.unsubscribe();
      pods.unsubscribe();
      deployments.unsubscribe();
    };
  });
}

/** Each event as "<virtual ms> <label>", for timelines easier to read than grouped marbles. */
function timeline(scheduler: TestScheduler, events$: Observable<StatusEvent>, label: (event: StatusEvent) => string): string[] {
  const seen: string[] = [];
  events$.subscribe((event) => seen.push(`${scheduler.now()} ${label(event)}`));
  return seen;
}

describe('StatusBoard (marble)', () => {
  it('says nothing until both informers listed, then each workload once, then only its changes', () => {
    const scheduler = newScheduler();
    let seen: string[] = [];
    scheduler.run(({ hot }) => {
      const d = hot<DeploymentNotice>('a-s---c---', {
        a: changedD('web', creating('web', '1')),
        s: SYNCED,
        c: changedD('web', complete('web', '1')),
      });
      const p = hot<PodNotice>('--ps-r-r--', {
        p: changedP('1', podOf('web', '1', containerCreatingPod)),
        s: SYNCED,
        r: changedP('1', podOf('web', '1')),
      });
      seen = timeline(scheduler, board$(scheduler, d, p), (e) => `${e.status.state}/${e.status.message}`);
    });
    // 3: both listed; 5: the Pod is ready, the Deployment lags; 6: complete; 7: the same Pod again, nothing.
    expect(seen).toEqual([
      '3 creating/pulling the image and starting the container',
      '5 creating/container ready, waiting for the Deployment to count it available',
      '6 running/1/1 ready',
    ]);
  });

  it('an event carries the labels, the provider ID and the resourceVersion it was computed from', () => {
    const scheduler = newScheduler();
    const events: StatusEvent[] = [];
    scheduler.run(({ hot }) => {
      const d = hot<DeploymentNotice>('(as)', { a: changedD('web', complete('web', '42', '77')), s: SYNCED });
      const p = hot<PodNotice>('(ps)', { p: changedP('42', podOf('web', '42')), s: SYNCED });
      board$(scheduler, d, p).subscribe((event) => events.push(event));
    });
    expect(events).toEqual([
      {
        type: 'status',
        at: new Date(0).toISOString(),
        namespace: 'default',
        name: 'web',
        providerId: 'default/web',
        containerId: '42',
        nodeId: '7',
        resourceVersion: '77',
        status: expect.objectContaining({ state: 'running', podIp: '10.244.1.17', nodeName: 'worker-1' }),
      },
    ]);
  });

  it('routes a Pod change to the workload of its container-id only', () => {
    const scheduler = newScheduler();
    let seen: string[] = [];
    scheduler.run(({ hot }) => {
      const d = hot<DeploymentNotice>('(abs)', { a: changedD('a', complete('a', '1')), b: changedD('b', complete('b', '2')), s: SYNCED });
      const p = hot<PodNotice>('(xys)-u-y-x', {
        x: changedP('1', podOf('a', '1')),
        y: changedP('2', podOf('b', '2')),
        u: changedP('2', podOf('b', '2', containerCreatingPod)),
        s: SYNCED,
      });
      seen = timeline(scheduler, board$(scheduler, d, p), (e) => `${e.name}:${e.status.podIp ?? 'none'}`);
    });
    // b's Pod is replaced (6: no IP) and ready again (8); a's same Pod again (10) is no change.
    expect(seen).toEqual(['0 a:10.244.1.17', '0 b:10.244.1.17', '6 b:none', '8 b:10.244.1.17']);
  });

  it('routes a Pod change to every workload carrying its container-id, before and after one of them goes', () => {
    const scheduler = newScheduler();
    let seen: string[] = [];
    scheduler.run(({ hot }) => {
      const d = hot<DeploymentNotice>('(abs)---x', {
        a: changedD('a', creating('a', '1')),
        b: changedD('b', creating('b', '1')),
        x: changedD('a'),
        s: SYNCED,
      });
      const p = hot<PodNotice>('(ps)-u---r', {
        p: changedP('1', podOf('a', '1', containerCreatingPod), podOf('b', '1', containerCreatingPod)),
        u: changedP('1', podOf('a', '1'), podOf('b', '1')),
        r: changedP('1', podOf('b', '1', containerCreatingPod)),
        s: SYNCED,
      });
      seen = timeline(scheduler, board$(scheduler, d, p), (e) => `${e.name} ${e.status.state}/${e.status.message}`);
    });
    // Both follow their Pods (5: ready); b still does after a's deletion (8; 9: replaced).
    expect(seen).toEqual([
      '0 a creating/pulling the image and starting the container',
      '0 b creating/pulling the image and starting the container',
      '5 a creating/container ready, waiting for the Deployment to count it available',
      '5 b creating/container ready, waiting for the Deployment to count it available',
      '8 a missing/the Deployment was deleted, or lost its ownership labels',
      '9 b creating/pulling the image and starting the container',
    ]);
  });

  it('a deleted workload ends with one missing event (reason Deleted); the others are unaffected', () => {
    const scheduler = newScheduler();
    let seen: string[] = [];
    scheduler.run(({ hot }) => {
      const d = hot<DeploymentNotice>('(abs)--x-x', {
        a: changedD('a', complete('a', '1')),
        b: changedD('b', complete('b', '2')),
        s: SYNCED,
        x: changedD('a'),
      });
      const p = hot<PodNotice>('s', { s: SYNCED });
      seen = timeline(scheduler, board$(scheduler, d, p), (e) => `${e.name}:${e.status.state}:${e.status.reason}`);
    });
    expect(seen).toEqual(['0 a:running:NewReplicaSetAvailable', '0 b:running:NewReplicaSetAvailable', '7 a:missing:Deleted']);
  });

  it('a Deployment that loses its container-id label is no longer reported (one final missing)', () => {
    const scheduler = newScheduler();
    let seen: string[] = [];
    scheduler.run(({ hot }) => {
      const unlabelled = deployment({ name: 'a', labels: { [MANAGED_LABEL]: 'true' }, uid: 'uid-a' });
      const d = hot<DeploymentNotice>('(as)-u-u', { a: changedD('a', complete('a', '1')), s: SYNCED, u: changedD('a', unlabelled) });
      const p = hot<PodNotice>('s', { s: SYNCED });
      seen = timeline(scheduler, board$(scheduler, d, p), (e) => `${e.name}:${e.status.state}`);
    });
    expect(seen).toEqual(['0 a:running', '5 a:missing']);
  });

  it('a registry failing for good: creating with ImagePullBackOff, then failed when the 120 s grace window ends (virtual time)', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const d = hot<DeploymentNotice>('(as)', { a: changedD('web', creating('web', '1')), s: SYNCED });
      const backOff = waitingPod('ImagePullBackOff', kubeletMessages.registryUnavailable(), {
        deployment: 'web',
        name: `${replicaSetName('web')}-p`,
        labels: labels('1'),
      });
      const p = hot<PodNotice>('(ps)', { p: changedP('1', backOff), s: SYNCED });
      expectObservable(board$(scheduler, d, p).pipe(map((e) => `${e.status.state}:${e.status.reason}`)), '^ 121s !').toBe('a 119999ms b', {
        a: 'creating:ImagePullBackOff',
        b: 'failed:ImagePullBackOff',
      });
    });
  });

  it('while an informer is disconnected every workload is unknown (with the reason), and recovers when it connects', () => {
    const scheduler = newScheduler();
    let seen: string[] = [];
    scheduler.run(({ hot }) => {
      const d = hot<DeploymentNotice>('(abs)-x-x---c', {
        a: changedD('a', complete('a', '1')),
        b: changedD('b', creating('b', '2')),
        s: SYNCED,
        x: { type: 'disconnected', error: DOWN, retryInMs: 500 },
        c: { type: 'connected' },
      });
      const p = hot<PodNotice>('(xs)-----y', {
        x: changedP('1', podOf('a', '1')),
        y: changedP('2', podOf('b', '2', containerCreatingPod)),
        s: SYNCED,
      });
      seen = timeline(scheduler, board$(scheduler, d, p), (e) => `${e.name}:${e.status.state}:${e.status.reason}:${e.status.podIp ?? '-'}`);
    });
    // 6: both unknown; 8: a second retry says nothing new; 9: a Pod event while down changes
    // nothing; 12: connected, each evaluated afresh (b has its Pod now).
    expect(seen).toEqual([
      '0 a:running:NewReplicaSetAvailable:10.244.1.17',
      '0 b:creating:WaitingForReady:-',
      '6 a:unknown:ApiUnreachable:-',
      '6 b:unknown:ApiUnreachable:-',
      '12 a:running:NewReplicaSetAvailable:10.244.1.17',
      '12 b:creating:ContainerCreating:-',
    ]);
  });

  it('the unknown status says why, in one line, and keeps what the Deployment asks for', () => {
    const scheduler = newScheduler();
    const events: StatusEvent[] = [];
    scheduler.run(({ hot }) => {
      const d = hot<DeploymentNotice>('(as)-x', {
        a: changedD('a', complete('a', '1')),
        s: SYNCED,
        x: { type: 'disconnected', error: DOWN, retryInMs: 500 },
      });
      const p = hot<PodNotice>('(ps)', { p: changedP('1', podOf('a', '1')), s: SYNCED });
      board$(scheduler, d, p).subscribe((event) => events.push(event));
    });
    expect(events.map((event) => event.status)).toEqual([
      expect.objectContaining({ state: 'running' }),
      expect.objectContaining({
        state: 'unknown',
        reason: 'ApiUnreachable',
        message: 'Kubernetes API at https://api.test:6443 is unreachable: connect ECONNREFUSED 127.0.0.1:6443',
        podIp: null,
        image: expect.any(String),
        generation: 1,
      }),
    ]);
  });

  it('a stop and a start through the informers: stopping, offline, starting, running', () => {
    const scheduler = newScheduler();
    const scaled = (generation: number, replicas: number, statusReplicas: number, ready: number, rv: string) =>
      deployment({
        name: 'web',
        labels: labels('1'),
        uid: 'uid-web',
        generation,
        replicas,
        statusReplicas,
        updatedReplicas: statusReplicas,
        readyReplicas: ready,
        availableReplicas: ready,
        resourceVersion: rv,
        conditions:
          ready >= replicas
            ? [conditions.available(), conditions.newReplicaSetAvailable()]
            : [conditions.unavailable(), conditions.newReplicaSetAvailable()],
      });
    let seen: string[] = [];
    scheduler.run(({ hot }) => {
      const d = hot<DeploymentNotice>('(as)-b-c----d-----e', {
        a: changedD('web', complete('web', '1')),
        s: SYNCED,
        b: changedD('web', scaled(2, 0, 1, 1, '20')), // scaled to 0, the Pod still counted
        c: changedD('web', scaled(2, 0, 0, 0, '21')), // the controller counts 0
        d: changedD('web', scaled(3, 1, 0, 0, '30')), // scaled to 1
        e: changedD('web', scaled(3, 1, 1, 1, '31')), // available
      });
      const p = hot<PodNotice>('(ps)----x-----y--r', {
        p: changedP('1', podOf('web', '1')),
        s: SYNCED,
        x: changedP('1'), // the Pod is gone
        y: changedP('1', podOf('web', '1', containerCreatingPod)),
        r: changedP('1', podOf('web', '1')),
      });
      seen = timeline(scheduler, board$(scheduler, d, p), (e) => `${e.status.state}: ${e.status.message}`);
    });
    expect(seen).toEqual([
      '0 running: 1/1 ready',
      '5 stopping: scaled to 0, 1 pod left',
      '7 stopping: scaled to 0, 1 pod left', // the counts changed, the Pod is still there
      '8 offline: scaled to 0, no pod left',
      '12 starting: waiting for the new pods to be created (0/1 updated)',
      '14 starting: pulling the image and starting the container',
      '17 starting: container ready, waiting for the Deployment to count it available',
      '18 running: 1/1 ready',
    ]);
  });
});

describe('StatusBoard for one workload (status$, marble)', () => {
  it('missing while absent (after both listed), then its statuses, then missing once more when deleted', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const d = hot<DeploymentNotice>('s-o-a-b-x', {
        s: SYNCED,
        o: changedD('other', complete('other', '9')),
        a: changedD('web', creating('web', '1')),
        b: changedD('web', complete('web', '1')),
        x: changedD('web'),
      });
      const p = hot<PodNotice>('-s---p', { s: SYNCED, p: changedP('1', podOf('web', '1')) });
      expectObservable(board$(scheduler, d, p, { only: { name: 'web' } }).pipe(map((e) => `${e.status.state}:${e.status.reason}`))).toBe(
        '-m--cdr-g',
        {
          m: 'missing:NotFound',
          c: 'creating:WaitingForReady',
          d: 'creating:WaitingForReady',
          r: 'running:NewReplicaSetAvailable',
          g: 'missing:Deleted',
        },
      );
    });
  });

  it('another container-id than expected is missing (OtherContainer); unreachable before the first list is unknown', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const d = hot<DeploymentNotice>('x-c-(as)', {
        x: { type: 'disconnected', error: DOWN, retryInMs: 500 },
        c: { type: 'connected' },
        a: changedD('web', complete('web', '1')),
        s: SYNCED,
      });
      const p = hot<PodNotice>('----s', { s: SYNCED });
      expectObservable(
        board$(scheduler, d, p, { only: { name: 'web', containerId: '2' } }).pipe(map((e) => `${e.status.state}:${e.status.reason}`)),
      ).toBe('u---o', { u: 'unknown:ApiUnreachable', o: 'missing:OtherContainer' });
    });
  });
});

// The grace windows' timers, watched through a scheduler that records every delay it is
// asked for, and the board's own count of the statuses it computes (its diagnostics
// channel): a window that never ends arms nothing; one past a Node timer's 32-bit limit is
// armed in steps that timer can hold and ends once, on time.
describe('StatusBoard grace windows of any length (marble)', () => {
  const backOff = () =>
    waitingPod('ImagePullBackOff', kubeletMessages.registryUnavailable(), {
      deployment: 'web',
      name: `${replicaSetName('web')}-p`,
      labels: labels('1'),
    });

  function recording(scheduler: TestScheduler): { scheduler: SchedulerLike; delays: number[] } {
    const delays: number[] = [];
    return {
      delays,
      scheduler: {
        now: () => scheduler.now(),
        schedule: (work: (this: SchedulerAction<unknown>, state?: unknown) => void, delay?: number, state?: unknown) => {
          delays.push(delay ?? 0);
          return scheduler.schedule(work, delay, state);
        },
      },
    };
  }

  function countingEvaluations(): { count: () => number; stop: () => void } {
    let evaluations = 0;
    const listener = (message: unknown): void => {
      if ((message as { event?: string }).event === 'evaluation') evaluations += 1;
    };
    subscribe(STATUS_EVALUATIONS_CHANNEL, listener);
    return { count: () => evaluations, stop: () => unsubscribe(STATUS_EVALUATIONS_CHANNEL, listener) };
  }

  /** One workload in ImagePullBackOff under `graceMs`, watched for `watchMs`: its statuses, evaluations and armed delays. */
  function pullBackOffFor(graceMs: number, watchMs: number, expected: { marbles: string; values: Record<string, string> }) {
    const scheduler = newScheduler();
    const policy = resolveFailurePolicy({ imagePull: { graceMs } });
    const clock = recording(scheduler);
    const evaluations = countingEvaluations();
    let evaluated = 0;
    try {
      scheduler.run(({ hot, expectObservable, flush }) => {
        const d = hot<DeploymentNotice>('(as)', { a: changedD('web', creating('web', '1')), s: SYNCED });
        const p = hot<PodNotice>('(ps)', { p: changedP('1', backOff()), s: SYNCED });
        const events$ = board$(scheduler, d, p, { policy, scheduler: clock.scheduler }).pipe(
          map((e) => `${e.status.state}:${e.status.reason}`),
        );
        expectObservable(events$, `^ ${watchMs}ms !`).toBe(expected.marbles, expected.values);
        flush();
        evaluated = evaluations.count();
      });
    } finally {
      evaluations.stop();
    }
    return { evaluated, delays: clock.delays };
  }

  it('graceMs: Infinity arms no timer: creating with ImagePullBackOff for ten virtual days: one status, no re-evaluation', () => {
    const run = pullBackOffFor(Infinity, 10 * 24 * 3_600_000, { marbles: 'a', values: { a: 'creating:ImagePullBackOff' } });
    // Once when both informers have listed, and never again.
    expect(run.evaluated).toBe(1);
    expect(run.delays).toEqual([]);
  });

  it('graceMs: 2^31 ms is armed in steps a 32-bit timer holds and fails the workload once, on time', () => {
    const run = pullBackOffFor(2 ** 31, 2 ** 31 + 1000, {
      marbles: `a ${2 ** 31 - 1}ms b`,
      values: { a: 'creating:ImagePullBackOff', b: 'failed:ImagePullBackOff' },
    });
    // Once when both informers have listed, then the one recheck when the window ends.
    expect(run.evaluated).toBe(2);
    expect(run.delays.every((delay) => delay <= MAX_TIMER_DELAY_MS)).toBe(true);
    expect(run.delays).toEqual([MAX_TIMER_DELAY_MS]);
  });
});
