// withCrashLogs() with a fake client (no cluster): the crash's progress event and the
// RolloutFailedError carry the container's last lines, bounded, masked and one line each;
// one read per crash; a log that cannot be read changes nothing. Real time, fake client.
import type { Observable } from 'rxjs';
import { asyncScheduler, lastValueFrom, of, throwError, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';

import { RolloutFailedError } from '../../src/errors/rollout.js';
import type { KubernetesClient, PodLogParams } from '../../src/kube/client.js';
import type { V1Deployment } from '../../src/kube/objects.js';
import type { PodDiagnosis, ProgressEvent } from '../../src/rollout/events.js';
import { LOG_TAIL_LINES, MAX_LOG_LINE_CHARS, withCrashLogs } from '../../src/workload/crash-logs.js';

const WHERE = { namespace: 'team', name: 'web' };

function client(answer: (params: PodLogParams) => Promise<string>): KubernetesClient & { reads: PodLogParams[] } {
  const reads: PodLogParams[] = [];
  return {
    reads,
    namespace: 'team',
    readPodLog: (_namespace: string, _pod: string, params: PodLogParams) => {
      reads.push(params);
      return answer(params);
    },
  } as unknown as KubernetesClient & { reads: PodLogParams[] };
}

const deployment: V1Deployment = {
  metadata: { name: 'web' },
  spec: {
    selector: {},
    template: {
      spec: {
        containers: [
          {
            name: 'web',
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

function progress(pod: Partial<PodDiagnosis> | undefined): ProgressEvent {
  return {
    type: 'progress',
    at: '2026-12-01T00:00:00.000Z',
    namespace: 'team',
    name: 'web',
    providerId: 'team/web',
    status: {
      state: 'InProgress',
      reason: 'WaitingForAvailable',
      message: '0/1 available',
      generation: 1,
      observedGeneration: 1,
      replicas: { desired: 1, total: 1, updated: 1, ready: 0, available: 0 },
    },
    message: 'the container keeps crashing',
    ...(pod
      ? { pod: { severity: 'failed', reason: 'CrashLoopBackOff', message: 'back-off', pod: 'web-1', container: 'web', ...pod } }
      : {}),
  };
}

const run = <T extends { type: string }>(api: KubernetesClient, source$: Observable<T>) =>
  source$.pipe(withCrashLogs<T>({ client: api, namespace: 'team', deployment, scheduler: asyncScheduler }));

describe('withCrashLogs', () => {
  it('adds the last lines to a crash event, reading once per crash, and names the last one in the message', async () => {
    const api = client(async () => 'starting\nconnecting to db with hunter2-long\ngiving up: hello there\n');
    const events = await lastValueFrom(
      run(api, of(progress(undefined), progress({ restartCount: 1 }), progress({ restartCount: 1 }), progress({ restartCount: 2 }))).pipe(
        toArray(),
      ),
    );
    expect(events[0]?.pod).toBeUndefined();
    expect(events[1]?.pod?.logs).toEqual(['starting', 'connecting to db with ***', 'giving up: hello there']);
    expect(events[1]?.message).toBe('the container keeps crashing; last log line: giving up: hello there');
    expect(events[2]?.pod?.logs).toEqual(events[1]?.pod?.logs);
    // One read for restart 1, one for restart 2, none for the event that had no crash.
    expect(api.reads).toEqual([
      { container: 'web', tailLines: LOG_TAIL_LINES, limitBytes: 16 * 1024 },
      { container: 'web', tailLines: LOG_TAIL_LINES, limitBytes: 16 * 1024 },
    ]);
  });

  it('keeps each line one line and bounded: control characters escaped, long lines cut', async () => {
    const long = 'x'.repeat(MAX_LOG_LINE_CHARS + 50);
    const api = client(async () => `\u001b[31mred\u001b[0m\tand a tab\r\n${long}\n`);
    const [event] = await lastValueFrom(run(api, of(progress({ restartCount: 1 }))).pipe(toArray()));
    const logs = event?.pod?.logs ?? [];
    expect(logs[0]).toBe('\\u001b[31mred\\u001b[0m and a tab');
    expect(logs[1]).toHaveLength(MAX_LOG_LINE_CHARS);
    expect(logs[1]?.endsWith('…')).toBe(true);
    expect(logs.every((line) => !/[\n\r]/.test(line))).toBe(true);
  });

  it('gives the crash’s RolloutFailedError the lines, in its message too', async () => {
    const api = client(async () => 'starting\ngiving up\n');
    const failure = new RolloutFailedError(WHERE, 'CrashLoopBackOff', 'back-off 5s restarting failed container=web', {
      pod: 'web-1',
      container: 'web',
    });
    const error = await lastValueFrom(
      run(
        api,
        throwError(() => failure),
      ),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RolloutFailedError);
    const failed = error as RolloutFailedError;
    expect(failed.logs).toEqual(['starting', 'giving up']);
    expect(failed.reason).toBe('CrashLoopBackOff');
    expect(failed.pod).toBe('web-1');
    expect(failed.message).toBe(
      'Rollout of team/web failed: CrashLoopBackOff (container web in pod web-1): back-off 5s restarting failed container=web; its last log lines: starting | giving up',
    );
  });

  it('reads nothing for failures that are not a crash, and changes nothing when the log cannot be read', async () => {
    const api = client(async () => 'never read');
    const pull = new RolloutFailedError(WHERE, 'ErrImagePull', 'not found', { pod: 'web-1', container: 'web' });
    expect(
      await lastValueFrom(
        run(
          api,
          throwError(() => pull),
        ),
      ).catch((e: unknown) => e),
    ).toBe(pull);
    const [event] = await lastValueFrom(run(api, of(progress({ reason: 'ImagePullBackOff' }))).pipe(toArray()));
    expect(event?.pod?.logs).toBeUndefined();
    expect(api.reads).toEqual([]);

    const refusing = client(async () => {
      throw new Error('Forbidden (403): cannot get pods/log');
    });
    const crash = new RolloutFailedError(WHERE, 'Error', 'the container exited with code 1', { pod: 'web-1', container: 'web' });
    expect(
      await lastValueFrom(
        run(
          refusing,
          throwError(() => crash),
        ),
      ).catch((e: unknown) => e),
    ).toBe(crash);
    const [unread] = await lastValueFrom(run(refusing, of(progress({ restartCount: 1 }))).pipe(toArray()));
    expect(unread).toEqual(progress({ restartCount: 1 }));
  });
});
