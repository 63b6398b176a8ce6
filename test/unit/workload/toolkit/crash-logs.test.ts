// A crash's last log lines, as the tracker names the crash and its callers read and show
// them: the reader (crashLogReader, against a fake client: bounded, masked, one line each,
// nothing when the log cannot be read), the tracker's `crash` and `logs`, awaitRollout
// (the progress event and the RolloutFailedError carry the lines, one read per crash) and
// the StatusBoard (the status shows at once, then with the lines). Fakes and virtual time
// (TestScheduler); the real kubelet's logs are in test/realnode/failures.test.ts.
import type { Observable } from 'rxjs';
import { asyncScheduler, firstValueFrom, map, of, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import type { InformerNotice } from '../../../../src/informers/shared-informer.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL } from '../../../../src/input/labels.js';
import type { KubernetesClient, PodLogParams } from '../../../../src/kube/client.js';
import type { V1Deployment, V1Pod } from '../../../../src/kube/objects.js';
import { awaitRollout } from '../../../../src/rollout/await-rollout.js';
import type { CrashLogReader, CrashRef } from '../../../../src/rollout/crash-lines.js';
import type { ProgressEvent } from '../../../../src/rollout/events.js';
import { DEFAULT_FAILURE_POLICY } from '../../../../src/rollout/failure-policy.js';
import { INITIAL_TRACKER_STATE, trackRollout } from '../../../../src/rollout/tracker.js';
import { LOG_TAIL_LINES, MAX_LOG_LINE_CHARS, crashLogReader } from '../../../../src/workload/toolkit/crash-logs.js';
import { StatusBoard, type StatusEvent } from '../../../../src/workload/reads/status-board.js';
import { kubeletMessages, progressingDeployment, readyPod, replicaSetName, waitingPod } from '../../../support/fixtures.js';
import { noticedCaches } from '../../../support/noticed-caches.js';

const POD = `${replicaSetName()}-a1`;
const target = { namespace: 'default', name: 'web', uid: 'uid-web', providerId: 'default/web' };
const labels = { [MANAGED_LABEL]: 'true', [CONTAINER_ID_LABEL]: '1' };
const rolling = progressingDeployment({ uid: 'uid-web', labels });
const crash = (restartCount: number): V1Pod =>
  waitingPod('CrashLoopBackOff', kubeletMessages.crashLoop(POD), { name: POD, restartCount, labels });
const pullFailure = (): V1Pod => waitingPod('ImagePullBackOff', kubeletMessages.backOffPulling(), { name: POD, labels });

function fakeClient(
  answer: (params: PodLogParams) => Promise<string>,
  live: () => Promise<V1Deployment> = async () => withEnv,
): KubernetesClient & { reads: PodLogParams[] } {
  const reads: PodLogParams[] = [];
  return {
    reads,
    namespace: 'default',
    read: (kind: string, _namespace: string, name: string) =>
      kind === 'deployments' && name === 'web' ? live() : Promise.reject(new Error(`no ${kind} ${name}`)),
    readPodLog: (_namespace: string, _pod: string, params: PodLogParams) => {
      reads.push(params);
      return answer(params);
    },
  } as unknown as KubernetesClient & { reads: PodLogParams[] };
}

const withEnv: V1Deployment = {
  ...rolling,
  spec: {
    ...rolling.spec!,
    template: {
      spec: {
        containers: [
          {
            name: 'manager',
            image: 'x',
            env: [
              { name: 'DB_PASSWORD', value: 'hunter2-long' },
              { name: 'GREETING', value: 'hello there' },
            ],
          },
        ],
      },
    },
  },
};
const ref: CrashRef = { key: `${POD}/manager/1`, pod: POD, container: 'manager' };

/** A reader that answers as `answer` does and records the crashes it was asked for. */
function countingReader(answer: (crash: CrashRef) => Observable<readonly string[]>): CrashLogReader & { keys: string[] } {
  const keys: string[] = [];
  const read: CrashLogReader = (crash) => {
    keys.push(crash.key);
    return answer(crash);
  };
  return Object.assign(read, { keys });
}

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('crashLogReader', () => {
  it('reads the last lines once, bounded, masking the values of secret-named env vars', async () => {
    const api = fakeClient(async () => 'starting\nconnecting to db with hunter2-long\ngiving up: hello there\n');
    const masked = ['starting', 'connecting to db with ***', 'giving up: hello there'];
    // As written (provision): its env says what to mask.
    expect(await firstValueFrom(crashLogReader(api, 'default', asyncScheduler, withEnv)!(ref, rolling))).toEqual(masked);
    expect(api.reads).toEqual([{ container: 'manager', tailLines: LOG_TAIL_LINES, limitBytes: 16 * 1024 }]);
    // A cached Deployment (no env): the live one is read for the mask.
    expect(await firstValueFrom(crashLogReader(api, 'default', asyncScheduler)!(ref, rolling))).toEqual(masked);
  });

  it('gives no lines when the Deployment that says what to mask cannot be read', async () => {
    const api = fakeClient(
      async () => 'connecting to db with hunter2-long\n',
      async () => {
        throw new Error('Forbidden (403): cannot get deployments');
      },
    );
    expect(await firstValueFrom(crashLogReader(api, 'default', asyncScheduler)!(ref, rolling))).toEqual([]);
    expect(api.reads).toEqual([]);
  });

  it('keeps each line one line and bounded: terminal codes removed, other control characters escaped, long lines cut', async () => {
    const long = 'x'.repeat(MAX_LOG_LINE_CHARS + 50);
    const read = crashLogReader(
      fakeClient(async () => `\u001b[31mred\u001b[0m\tand a tab\u0007\r\n${long}\n`),
      'default',
      asyncScheduler,
      withEnv,
    )!;
    const lines = await firstValueFrom(read(ref, withEnv));
    expect(lines[0]).toBe('red and a tab\\u0007');
    expect(lines[1]).toHaveLength(MAX_LOG_LINE_CHARS);
    expect(lines[1]?.endsWith('…')).toBe(true);
  });

  it('is no lines when the log cannot be read, and no reader for a client without pods/log', async () => {
    const refusing = fakeClient(async () => {
      throw new Error('Forbidden (403): cannot get pods/log');
    });
    expect(await firstValueFrom(crashLogReader(refusing, 'default', asyncScheduler)!(ref, withEnv))).toEqual([]);
    expect(crashLogReader({ namespace: 'default' } as unknown as KubernetesClient, 'default', asyncScheduler)).toBeUndefined();
  });
});

describe('the tracker names a crash and puts its lines on the diagnosis', () => {
  it('names a crash until its lines are in, then carries them; a pull failure is no crash', () => {
    const input = { deployment: rolling, pods: [crash(1)], now: 0 };
    const first = trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, input);
    expect(first.crash).toEqual(ref);
    expect(first.pod?.logs).toBeUndefined();
    const second = trackRollout(DEFAULT_FAILURE_POLICY, first.state, { ...input, logs: { key: ref.key, lines: ['giving up'] } });
    expect(second.crash).toBeUndefined();
    expect(second.pod?.logs).toEqual(['giving up']);
    // The next restart is another crash: its lines are read again.
    expect(
      trackRollout(DEFAULT_FAILURE_POLICY, first.state, { ...input, pods: [crash(2)], logs: second.pod && { key: ref.key, lines: ['x'] } })
        .crash?.key,
    ).toBe(`${POD}/manager/2`);
    expect(trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, { ...input, pods: [pullFailure()] }).crash).toBeUndefined();
  });
});

describe('awaitRollout with readCrashLog', () => {
  const summary = (event: ProgressEvent) => `${event.pod?.restartCount}:${event.pod?.logs?.join(',') ?? '-'}:${event.message}`;

  it('says a crash at once and again with its lines (one read per crash), and fails with them', () => {
    const scheduler = newScheduler();
    const read = countingReader(() => scheduler.createColdObservable('--(l|)', { l: ['starting', 'giving up'] }));
    scheduler.run(({ hot, expectObservable }) => {
      const pods = hot('-1---1-2---3', { 1: [crash(1)], 2: [crash(2)], 3: [crash(3)] });
      const events$ = awaitRollout(target, hot('a', { a: [rolling] }), pods, { readCrashLog: read }).pipe(map(summary));
      const crashing = (restarts: number) =>
        `the container keeps crashing (CrashLoopBackOff, ${restarts} restarts): ${kubeletMessages.crashLoop(POD)}`;
      // The same crash seen again (frame 5) is no news; the third restart fails (maxRestarts).
      expectObservable(events$).toBe(
        'ab-c---d-e---#',
        {
          a: 'undefined:-:0/1 ready',
          b: `1:-:${crashing(1)}`,
          c: `1:starting,giving up:${crashing(1)}; last log line: giving up`,
          d: `2:-:${crashing(2)}`,
          e: `2:starting,giving up:${crashing(2)}; last log line: giving up`,
        },
        expect.objectContaining({
          name: 'RolloutFailedError',
          reason: 'CrashLoopBackOff',
          logs: ['starting', 'giving up'],
          message: expect.stringMatching(/; its last log lines: starting \| giving up$/),
        }),
      );
    });
    expect(read.keys).toEqual([`${POD}/manager/1`, `${POD}/manager/2`, `${POD}/manager/3`]);
  });

  it('keeps a failure decided while its lines are read, though the Pod looks ready a moment later', () => {
    const scheduler = newScheduler();
    const read = countingReader(() => scheduler.createColdObservable('----(l|)', { l: ['giving up'] }));
    scheduler.run(({ hot, expectObservable }) => {
      // Restart 3 fails at frame 1; at frame 2 the container runs and is ready again.
      const pods = hot('-3r', { 3: [crash(3)], r: [readyPod({ name: POD, labels })] });
      const events$ = awaitRollout(target, hot('a', { a: [rolling] }), pods, { readCrashLog: read }).pipe(map(summary));
      expectObservable(events$).toBe(
        'a----#',
        { a: 'undefined:-:0/1 ready' },
        expect.objectContaining({ reason: 'CrashLoopBackOff', logs: ['giving up'] }),
      );
    });
  });

  it('reads nothing for a failure that is not a crash, and says the same without lines when none could be read', () => {
    const pulls = countingReader(() => of(['never read']));
    newScheduler().run(({ hot, expectObservable }) => {
      const pods = hot('-p', { p: [pullFailure()] });
      expectObservable(awaitRollout(target, hot('a', { a: [rolling] }), pods, { readCrashLog: pulls }).pipe(map(summary))).toBe(
        'ap 119999ms #',
        {
          a: 'undefined:-:0/1 ready',
          p: `0:-:cannot pull the image yet (ImagePullBackOff): ${kubeletMessages.backOffPulling()}`,
        },
        expect.objectContaining({ reason: 'ImagePullBackOff', logs: [] }),
      );
    });
    expect(pulls.keys).toEqual([]);
    newScheduler().run(({ hot, expectObservable }) => {
      const read = countingReader(() => of([]));
      const pods = hot('-1', { 1: [crash(1)] });
      const events$ = awaitRollout(target, hot('a', { a: [rolling] }), pods, { readCrashLog: read }).pipe(map(summary), take(2));
      expectObservable(events$).toBe('a(1|)', {
        a: 'undefined:-:0/1 ready',
        1: `1:-:the container keeps crashing (CrashLoopBackOff, 1 restarts): ${kubeletMessages.crashLoop(POD)}`,
      });
    });
  });
});

describe('the StatusBoard with readCrashLog', () => {
  it('shows a crash at once, then with its last lines', () => {
    const scheduler = newScheduler();
    const seen: string[] = [];
    const read = countingReader(() => scheduler.createColdObservable('--(l|)', { l: ['giving up'] }));
    scheduler.run(({ hot }) => {
      const caches = noticedCaches();
      const board = new StatusBoard({
        namespace: 'default',
        scheduler,
        policy: DEFAULT_FAILURE_POLICY,
        members: caches.members,
        cached: caches.cached,
        readCrashLog: read,
        emit: (event: StatusEvent) => seen.push(`${scheduler.now()} ${event.status.pod?.logs?.join(',') ?? '-'} ${event.status.message}`),
      });
      const changed = <T>(key: string, objects: T[]): InformerNotice<T> => ({ type: 'changed', key, objects });
      hot<InformerNotice<V1Deployment>>('(as)', { a: changed('web', [rolling]), s: { type: 'synced' } }).subscribe((n) =>
        board.onDeployments(n),
      );
      hot<InformerNotice<V1Pod>>('(ps)', { p: changed('1', [crash(1)]), s: { type: 'synced' } }).subscribe((n) =>
        board.onPods(caches.notePods(n)),
      );
      // A workload without ports or storage: the Service, EndpointSlice and claim informers sync with nothing.
      hot<InformerNotice<never>>('s', { s: { type: 'synced' } }).subscribe(() => caches.syncMembers(board));
    });
    const crashing = `the container keeps crashing (CrashLoopBackOff, 1 restarts): ${kubeletMessages.crashLoop(POD)}`;
    // At the crash-loop grace window's end the failed status carries them too.
    const failed = `CrashLoopBackOff (container manager in pod ${POD}): ${kubeletMessages.crashLoop(POD)}; last log line: giving up`;
    expect(seen).toEqual([`0 - ${crashing}`, `2 giving up ${crashing}; last log line: giving up`, `180000 giving up ${failed}`]);
    expect(read.keys).toEqual([`${POD}/manager/1`]);
  });
});
