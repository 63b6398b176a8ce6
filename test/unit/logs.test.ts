// logs$() against a FAKE API server on 127.0.0.1 (test/support/fake-pod-api.ts) whose
// pods/log answers as each test makes it: a follow that ends while the container still
// runs (the kubelet's log rotation), a reopen that repeats the last second's lines (the
// API server passes sinceTime on to the second), a container restarted in place, a Pod
// replaced. The real transport, KubernetesApi and library code run; pure parts
// (log-lines.ts, consoleLine) are tested directly.
import type http from 'node:http';
import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../src/errors/api.js';
import { KubeletUnreachableError, NoRunningContainerError } from '../../src/errors/exec.js';
import { InvalidOptionError } from '../../src/errors/input.js';
import type { V1Pod } from '../../src/kube/objects.js';
import { consoleLine } from '../../src/text.js';
import { DeliveredMark, LineSplitter, sinceTimeOf, splitTimestamp, timestampNanos } from '../../src/workload/reads/log-lines.js';
import { logs$, type LogLine } from '../../src/workload/reads/logs.js';
import { NS, WORKLOAD, startFakePodApi, workloadPod, type FakePodApi } from '../support/fake-pod-api.js';

const PROVIDER_ID = `${NS}/${WORKLOAD}`;
let fake: FakePodApi;

beforeEach(async () => {
  fake = await startFakePodApi();
});
afterEach(async () => {
  await fake.close();
});

const T = (second: number, nanos = 0): string => `2026-12-05T05:00:${String(second).padStart(2, '0')}.${String(nanos).padStart(9, '0')}Z`;
const line = (time: string, text: string): string => `${time} ${text}\n`;
const texts = (lines: readonly LogLine[]): string[] => lines.map((item) => item.text);

function answer(res: http.ServerResponse, body: string, end = true): void {
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.write(body);
  if (end) res.end();
}

const until = async (check: () => boolean, ms = 3_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('the pure parts', () => {
  it('cuts streamed text into lines across chunks, bounding each', () => {
    const splitter = new LineSplitter(5);
    expect(splitter.push('ab')).toEqual([]);
    expect(splitter.push('c\nlonger than five\nx')).toEqual([
      { line: 'abc', truncated: false },
      { line: 'longe', truncated: true },
    ]);
    expect(splitter.end()).toEqual({ line: 'x', truncated: false });
  });

  it('reads the kubelet timestamp, orders by nanoseconds whatever their digits, and asks from the second', () => {
    expect(splitTimestamp(`${T(1, 5)} hello world`, false)).toEqual({ time: T(1, 5), text: 'hello world', truncated: false });
    expect(splitTimestamp('no stamp', false)).toEqual({ time: undefined, text: 'no stamp', truncated: false });
    expect(timestampNanos('2026-12-05T05:00:01.5Z')! > timestampNanos('2026-12-05T05:00:01.123456789Z')!).toBe(true);
    expect(timestampNanos('2026-12-05T06:00:01+01:00')).toBe(timestampNanos('2026-12-05T05:00:01Z'));
    expect(sinceTimeOf(timestampNanos(T(7, 999))!)).toBe('2026-12-05T05:00:07Z');
  });

  it('drops on a reopen what was delivered, keeping a line written again in the same nanosecond', () => {
    const mark = new DeliveredMark();
    for (const [time, text] of [
      [T(1), 'a'],
      [T(2), 'b'],
      [T(2), 'b'],
    ] as const)
      mark.note({ time, text, truncated: false });
    const keep = mark.repeatFilter();
    const again = [
      [T(1), 'a'],
      [T(2), 'b'],
      [T(2), 'b'],
      [T(2), 'b'],
      [T(3), 'c'],
    ] as const;
    expect(again.filter(([time, text]) => keep({ time, text, truncated: false })).map(([, text]) => text)).toEqual(['b', 'c']);
  });

  it('a console line comes clean: no escape codes, no carriage return, no other controls', () => {
    expect(consoleLine('\u001b[0;32m  OK  \u001b[0m] Started \u001b]0;title\u0007Journal.\r')).toBe('  OK  ] Started Journal.');
    expect(consoleLine('progress 10%\rprogress 100%')).toBe('progress 100%');
    expect(consoleLine('tab\tkept\u0007')).toBe('tab\tkept');
  });
});

describe('logs$', () => {
  it('reads the log of the current Pod as lines, with timestamps when asked and the reads options passed on', async () => {
    fake.log = (_pod, _query, res) => answer(res, line(T(1), 'one') + line(T(2), 'two'));
    const lines = await lastValueFrom(
      logs$(fake.client, PROVIDER_ID, { timestamps: true, tailLines: 2, sinceSeconds: 60 }).pipe(toArray()),
    );
    expect(lines).toEqual([
      { text: 'one', time: T(1), pod: 'web-7c9f5d-aaaaa', container: 'manager', truncated: false },
      { text: 'two', time: T(2), pod: 'web-7c9f5d-aaaaa', container: 'manager', truncated: false },
    ]);
    const query = fake.seen.logs[0]!.query;
    expect(Object.fromEntries(query)).toEqual({ container: 'manager', timestamps: 'true', tailLines: '2', sinceSeconds: '60' });
  });

  it('without timestamps the lines carry none, and a long line is cut to maxLineChars', async () => {
    fake.log = (_pod, _query, res) => answer(res, line(T(1), 'x'.repeat(50)));
    const [only] = await lastValueFrom(logs$(fake.client, PROVIDER_ID, { maxLineChars: 10 }).pipe(toArray()));
    expect(only).toEqual({ text: 'x'.repeat(10), pod: 'web-7c9f5d-aaaaa', container: 'manager', truncated: true });
  });

  it('previous reads the run before the current one', async () => {
    fake.pods = [workloadPod('web-7c9f5d-aaaaa', 'containerd://run-2', { restartedFrom: 'containerd://run-1' })];
    fake.log = (_pod, query, res) => answer(res, query.get('previous') === 'true' ? line(T(1), 'panic: boom') : '');
    expect(texts(await lastValueFrom(logs$(fake.client, PROVIDER_ID, { previous: true }).pipe(toArray())))).toEqual(['panic: boom']);
  });

  it('previous without an earlier run says so', async () => {
    await expect(lastValueFrom(logs$(fake.client, PROVIDER_ID, { previous: true }))).rejects.toThrow(NoRunningContainerError);
  });

  it('follows across the log rotation: reopened from the last second, nothing lost or repeated', async () => {
    fake.log = (_pod, query, res) => {
      if (!query.has('sinceTime')) {
        // The kubelet ends a follow at rotation while the container runs on.
        answer(res, line(T(1), 'a') + line(T(2, 100), 'b') + line(T(2, 100), 'b'));
        return;
      }
      expect(query.get('sinceTime')).toBe('2026-12-05T05:00:02Z');
      expect(query.get('follow')).toBe('true');
      // From the second: the lines seen again, a third b written in that nanosecond, and new ones.
      answer(res, line(T(2, 50), 'early') + line(T(2, 100), 'b') + line(T(2, 100), 'b') + line(T(2, 100), 'b') + line(T(3), 'c'), false);
    };
    const lines = await firstValueFrom(logs$(fake.client, PROVIDER_ID, { follow: true }).pipe(take(5), toArray()));
    expect(texts(lines)).toEqual(['a', 'b', 'b', 'b', 'c']);
    expect(fake.seen.logs).toHaveLength(2);
    await until(() => fake.seen.openLogs === 0);
  });

  it('a follow that goes quiet at a rotation without ending is reopened once behind, not while idle', async () => {
    let newest = line(T(2), 'b');
    fake.log = (_pod, query, res) => {
      if (query.get('tailLines') === '1') {
        // The kubelet's look at the log's last line.
        expect(query.has('follow')).toBe(false);
        answer(res, newest);
        return;
      }
      if (!query.has('sinceTime')) {
        // The real kubelet keeps reading the renamed file: quiet, never ended.
        answer(res, line(T(1), 'a') + line(T(2), 'b'), false);
        // Quiet while nothing is written; then the container writes to the new file.
        setTimeout(() => (newest = line(T(3), 'c')), 2_500);
        return;
      }
      expect(query.get('sinceTime')).toBe('2026-12-05T05:00:02Z');
      answer(res, line(T(2), 'b') + line(T(3), 'c'), false);
    };
    const lines = await firstValueFrom(logs$(fake.client, PROVIDER_ID, { follow: true }).pipe(take(3), toArray()));
    expect(texts(lines)).toEqual(['a', 'b', 'c']);
    const looks = fake.seen.logs.filter((request) => request.query.get('tailLines') === '1');
    const follows = fake.seen.logs.filter((request) => request.query.get('follow') === 'true');
    // An idle follow was looked at, not reopened; the one behind was reopened once.
    expect(looks.length).toBeGreaterThanOrEqual(2);
    expect(follows).toHaveLength(2);
    await until(() => fake.seen.openLogs === 0);
  }, 20_000);

  it('follows a container restarted in place: the end of the run that ended, then the new run from its start', async () => {
    fake.log = (_pod, query, res) => {
      if (fake.seen.logs.length === 1) {
        // The first run's follow ends when it exits; it is restarted with a new id.
        fake.pods = [workloadPod('web-7c9f5d-aaaaa', 'containerd://run-2', { restartedFrom: 'containerd://web-7c9f5d-aaaaa-1' })];
        answer(res, line(T(1), 'first run'));
        return;
      }
      if (query.get('previous') === 'true') {
        answer(res, line(T(1), 'first run') + line(T(1, 5), 'last words'));
        return;
      }
      answer(res, line(T(5), 'second run'), false);
    };
    const lines = await firstValueFrom(logs$(fake.client, PROVIDER_ID, { follow: true }).pipe(take(3), toArray()));
    expect(texts(lines)).toEqual(['first run', 'last words', 'second run']);
  });

  it('follows across a replaced Pod, waiting for the new one to start', async () => {
    fake.log = (pod, _query, res) => {
      if (pod === 'web-7c9f5d-aaaaa') {
        fake.pods = [];
        answer(res, line(T(1), 'old pod'));
        // The new Pod starts a little later.
        setTimeout(() => {
          const next = workloadPod('web-8d0e6f-bbbbb', 'containerd://new');
          fake.pods = [next];
          fake.podEvent('ADDED', next);
        }, 100);
        return;
      }
      answer(res, line(T(9), 'new pod'), false);
    };
    const lines = await firstValueFrom(logs$(fake.client, PROVIDER_ID, { follow: true }).pipe(take(2), toArray()));
    expect(lines.map((item) => `${item.pod}: ${item.text}`)).toEqual(['web-7c9f5d-aaaaa: old pod', 'web-8d0e6f-bbbbb: new pod']);
  });

  it('bounds the wait for a next container', async () => {
    fake.log = (_pod, _query, res) => {
      fake.pods = [];
      answer(res, line(T(1), 'gone'));
    };
    const error = await lastValueFrom(logs$(fake.client, PROVIDER_ID, { follow: true, nextContainerWaitMs: 200 })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(NoRunningContainerError);
    expect((error as Error).message).toContain('no container started within 200 ms after web-7c9f5d-aaaaa');
  });

  it('unsubscribing ends the follow at once: the request is aborted', async () => {
    fake.log = (_pod, _query, res) => answer(res, line(T(1), 'hello'), false);
    const lines: string[] = [];
    const subscription = logs$(fake.client, PROVIDER_ID, { follow: true }).subscribe((item) => lines.push(item.text));
    await until(() => lines.length === 1 && fake.seen.openLogs === 1);
    subscription.unsubscribe();
    await until(() => fake.seen.openLogs === 0, 1_000);
  });

  it("a tty container's console lines come clean", async () => {
    const pod = workloadPod('web-7c9f5d-aaaaa') as V1Pod & { spec: { containers: { tty?: boolean }[] } };
    pod.spec.containers[0]!.tty = true;
    fake.pods = [pod];
    fake.log = (_pod, _query, res) => answer(res, line(T(1), '[\u001b[0;32m  OK  \u001b[0m] Reached target Multi-User System.\r'));
    expect(texts(await lastValueFrom(logs$(fake.client, PROVIDER_ID).pipe(toArray())))).toEqual([
      '[  OK  ] Reached target Multi-User System.',
    ]);
  });

  it('refuses bad options by name before any request', async () => {
    await expect(lastValueFrom(logs$(fake.client, PROVIDER_ID, { tailLines: -1 }))).rejects.toThrow(
      'tailLines must be a whole number >= 0 (got -1)',
    );
    await expect(lastValueFrom(logs$(fake.client, PROVIDER_ID, { previous: true, follow: true }))).rejects.toThrow(InvalidOptionError);
    await expect(lastValueFrom(logs$(fake.client, PROVIDER_ID, { sinceTime: 'yesterday' }))).rejects.toThrow(
      /sinceTime must be an RFC 3339 time/,
    );
    expect(fake.seen.logs).toHaveLength(0);
  });

  it('names RBAC and an unreachable kubelet', async () => {
    fake.log = (_pod, _query, res) =>
      res
        .writeHead(403, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' }));
    await expect(lastValueFrom(logs$(fake.client, PROVIDER_ID))).rejects.toThrow(ForbiddenError);
    fake.log = (_pod, _query, res) =>
      res.writeHead(500, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          kind: 'Status',
          code: 500,
          message: 'Get "https://10.0.0.11:10250/containerLogs/default/web/manager": dial tcp 10.0.0.11:10250: connect: connection refused',
        }),
      );
    await expect(lastValueFrom(logs$(fake.client, PROVIDER_ID))).rejects.toThrow(KubeletUnreachableError);
  });
});
