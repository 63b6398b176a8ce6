// The duration table: 0, negative, NaN, 2^31, 2^53 and Infinity for every duration option,
// in the library (timeoutMs, cleanupTimeoutMs, requestTimeoutMs, the five grace windows, inactivityMs, the
// backoff delays, progressDeadlineSeconds) and on the command line (--timeout,
// --request-timeout, --progress-deadline). One rule decides (src/input/duration.ts); this
// checks every entry point applies it. Then the timers: a long bound fires when it says,
// however long (vitest's fake timers reproduce Node's 2^31-1 ms limit, where a longer
// delay fires after 1 ms), and Infinity never fires. Unit test: FakeKubernetes, fake clock.
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncScheduler, NEVER, Subject } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseCreateArgs } from '../../src/cli/args.js';
import { runCli } from '../../src/cli/run.js';
import { ApiTimeoutError, WatchInactiveError } from '../../src/errors/api.js';
import { InvalidOptionError, UsageError } from '../../src/errors/input.js';
import { RolloutFailedError, RolloutTimeoutError } from '../../src/errors/rollout.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { resolveFailurePolicy } from '../../src/rollout/failure-policy.js';
import { MAX_TIMER_DELAY_MS, scheduleAfter, setLongTimeout } from '../../src/rx/long-timer.js';
import { watchdog } from '../../src/rx/watchdog.js';
import { MAX_DURATION_MS } from '../../src/input/duration.js';
import { provision$, type ProvisionOptions } from '../../src/workload/operations/provision.js';
import { FakeKubernetes, completeRollout, podOf, startRollout } from '../support/fake-kube.js';

const SPEC = { containerId: 1, nodeId: 1, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 64 };
const TABLE = [
  ['0', 0],
  ['negative', -1],
  ['NaN', Number.NaN],
  ['2^31', 2 ** 31],
  ['2^53', 2 ** 53],
  ['Infinity', Infinity],
] as const;
type Row = (typeof TABLE)[number][0];
type Outcome = 'accepted' | RegExp;

// What each kind of option makes of each row.
const TIMEOUT: Record<Row, Outcome> = {
  '0': /must be at least 1 ms \(got 0\); Infinity means no bound/,
  negative: /must not be negative \(got -1\)/,
  NaN: /must be a number of milliseconds \(got NaN\)/,
  '2^31': 'accepted',
  '2^53': /must be at most 31536000000 ms \(365 days; got 9007199254740992\)/,
  Infinity: 'accepted',
};
const BOUNDED: Record<Row, Outcome> = { ...TIMEOUT, '0': /must be at least 1 ms \(got 0\)$/, Infinity: /must be finite \(got Infinity\)/ };
const GRACE: Record<Row, Outcome> = { ...TIMEOUT, '0': 'accepted' };
/** From 0 and always bounded. */
const CLEANUP: Record<Row, Outcome> = { ...BOUNDED, '0': 'accepted' };
const SECONDS: Record<Row, Outcome> = {
  '0': /must be at least 1 second \(got 0\)/,
  negative: /must be at least 1 second \(got -1\)/,
  NaN: /must be a whole number of seconds \(got NaN\)/,
  '2^31': /must be at most 2147483647 seconds/,
  '2^53': /must be at most 2147483647 seconds/,
  Infinity: /must be a whole number of seconds \(got Infinity\)/,
};

let kubeconfigPath: string | undefined;
function kubeconfig(): string {
  if (kubeconfigPath) return kubeconfigPath;
  const dir = mkdtempSync(join(tmpdir(), 'kp-durations-'));
  kubeconfigPath = join(dir, 'config');
  writeFileSync(
    kubeconfigPath,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: c',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
      'users: [{name: u, user: {token: t0ken-for-durations}}]',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
    ].join('\n'),
  );
  return kubeconfigPath;
}

/** Starts a provisioning with `options`; 'accepted' once it created the Deployment, else the error. */
async function provisionWith(options: ProvisionOptions): Promise<'accepted' | Error> {
  const fake = new FakeKubernetes();
  return new Promise((resolve) => {
    const subscription = provision$(fake, SPEC, { informers: new InformerRegistry(), ...options }).subscribe({
      next: (event) => {
        if (event.type === 'created') {
          resolve('accepted');
          queueMicrotask(() => subscription.unsubscribe());
        }
      },
      error: (error: Error) => resolve(error),
    });
  });
}

function outcomeOf(attempt: () => unknown): 'accepted' | Error {
  try {
    attempt();
    return 'accepted';
  } catch (error) {
    return error as Error;
  }
}

function expectOutcome(result: 'accepted' | Error, expected: Outcome, option: string): void {
  if (expected === 'accepted') {
    expect(result).toBe('accepted');
    return;
  }
  expect(result).toBeInstanceOf(InvalidOptionError);
  expect((result as InvalidOptionError).option).toBe(option);
  expect((result as Error).message).toMatch(new RegExp(`^${option.replace(/[.]/g, '\\.')} `));
  expect((result as Error).message).toMatch(expected);
}

describe('the duration table, library options', () => {
  describe.each(TABLE)('%s', (row, value) => {
    it('provision timeoutMs', async () => expectOutcome(await provisionWith({ timeoutMs: value }), TIMEOUT[row], 'timeoutMs'));

    it('provision cleanupTimeoutMs', async () =>
      expectOutcome(await provisionWith({ cleanupTimeoutMs: value }), CLEANUP[row], 'cleanupTimeoutMs'));

    it('provision progressDeadlineSeconds', async () =>
      expectOutcome(await provisionWith({ progressDeadlineSeconds: value }), SECONDS[row], 'progressDeadlineSeconds'));

    it.each(['imagePull', 'crashLoop', 'unschedulable', 'containerError', 'createFailure'] as const)(
      'failure policy %s.graceMs (through provision and resolveFailurePolicy)',
      async (kind) => {
        const option = `failurePolicy.${kind}.graceMs`;
        expectOutcome(await provisionWith({ failurePolicy: { [kind]: { graceMs: value } } }), GRACE[row], option);
        expectOutcome(
          outcomeOf(() => resolveFailurePolicy({ [kind]: { graceMs: value } })),
          GRACE[row],
          option,
        );
      },
    );

    it('KubernetesApi requestTimeoutMs', () =>
      expectOutcome(
        outcomeOf(() => KubernetesApi.fromConfig({ kubeconfigPath: kubeconfig(), requestTimeoutMs: value })),
        BOUNDED[row],
        'requestTimeoutMs',
      ));

    it('informers inactivityMs', () =>
      expectOutcome(
        outcomeOf(() => new InformerRegistry({ inactivityMs: value })),
        BOUNDED[row],
        'inactivityMs',
      ));

    it('informers backoff.initialMs and backoff.maxMs', () => {
      expectOutcome(
        outcomeOf(() => new InformerRegistry({ backoff: { initialMs: value, maxMs: MAX_DURATION_MS, factor: 2, jitter: 0 } })),
        BOUNDED[row],
        'backoff.initialMs',
      );
      expectOutcome(
        outcomeOf(() => new InformerRegistry({ backoff: { initialMs: 1, maxMs: value, factor: 2, jitter: 0 } })),
        BOUNDED[row],
        'backoff.maxMs',
      );
    });
  });

  it('refuses what is not a number at all, and fractions of a millisecond, naming the option', async () => {
    expectOutcome(
      await provisionWith({ timeoutMs: '5000' as unknown as number }),
      /must be a number of milliseconds \(got "5000"\)/,
      'timeoutMs',
    );
    expectOutcome(await provisionWith({ timeoutMs: 1.5 }), /whole number of milliseconds/, 'timeoutMs');
    expectOutcome(
      await provisionWith({ failurePolicy: { imagePull: { maxBackOffs: -1 } } }),
      /whole number from 0/,
      'failurePolicy.imagePull.maxBackOffs',
    );
  });

  it('refuses unknown option keys instead of ignoring a typo', async () => {
    const result = await provisionWith({ timeout: 5000 } as ProvisionOptions);
    expect(result).toBeInstanceOf(InvalidOptionError);
    expect((result as Error).message).toMatch(/timeout is not a provision option/);
    expect(outcomeOf(() => resolveFailurePolicy({ imagepull: {} } as never))).toMatchObject({ option: 'failurePolicy.imagepull' });
  });
});

describe('the duration table, command-line flags', () => {
  // The flag's text for each row (milliseconds written with a unit, as a user would).
  const CLI_TEXT: Record<Row, string> = {
    '0': '0s',
    negative: '-1ms',
    NaN: 'NaN',
    '2^31': '2147483648ms',
    '2^53': '9007199254740992ms',
    Infinity: 'infinity',
  };
  // --progress-deadline is in seconds: the same rows, in seconds.
  const DEADLINE_TEXT: Record<Row, string> = { ...CLI_TEXT, negative: '-1s', '2^31': '2147483648s', '2^53': '9007199254740992s' };
  const BASE = ['--container-id', '1', '--node-id', '1', '--hostname', 'web', '--image', 'nginx', '--cpus', '1', '--memory-mb', '64'];
  const CLI_NAN = /must be a duration like/;

  function flagOutcome(flag: string, text: string): 'accepted' | Error {
    return outcomeOf(() => parseCreateArgs([...BASE, `${flag}=${text}`]));
  }

  function expectFlag(result: 'accepted' | Error, expected: Outcome, flag: string): void {
    if (expected === 'accepted') {
      expect(result).toBe('accepted');
      return;
    }
    expect(result).toBeInstanceOf(UsageError);
    expect((result as Error).message.startsWith(`${flag} `)).toBe(true);
    expect((result as Error).message).toMatch(expected);
  }

  describe.each(TABLE)('%s', (row) => {
    const text = CLI_TEXT[row];
    it(`--timeout=${text}`, () => expectFlag(flagOutcome('--timeout', text), row === 'NaN' ? CLI_NAN : TIMEOUT[row], '--timeout'));
    it(`--request-timeout=${text}`, () =>
      expectFlag(flagOutcome('--request-timeout', text), row === 'NaN' ? CLI_NAN : BOUNDED[row], '--request-timeout'));
    it(`--progress-deadline=${DEADLINE_TEXT[row]}`, () =>
      expectFlag(flagOutcome('--progress-deadline', DEADLINE_TEXT[row]), row === 'NaN' ? CLI_NAN : SECONDS[row], '--progress-deadline'));
  });

  it('passes the accepted values on unchanged (no rounding, no clamping)', () => {
    expect(parseCreateArgs([...BASE, '--timeout=2147483648ms'])).toMatchObject({ timeoutMs: 2 ** 31 });
    expect(parseCreateArgs([...BASE, '--timeout=infinity'])).toMatchObject({ timeoutMs: Infinity });
    expect(parseCreateArgs([...BASE, '--request-timeout=1.1s'])).toMatchObject({ api: { requestTimeoutMs: 1100 } });
    expect(parseCreateArgs([...BASE, '--progress-deadline=2147483647s'])).toMatchObject({ progressDeadlineSeconds: 2147483647 });
    expect(outcomeOf(() => parseCreateArgs([...BASE, '--progress-deadline=1500ms']))).toMatchObject({
      message: expect.stringMatching(/--progress-deadline must be a whole number of seconds \(got 1.5\)/),
    });
  });

  it('exits 2 for a refused duration, before reading any kubeconfig', async () => {
    const err: string[] = [];
    const code = await runCli(['create', ...BASE, '--timeout=0s', '--kubeconfig', '/nonexistent'], {
      stdout: () => {},
      stderr: (line) => err.push(line),
    });
    expect(code).toBe(2);
    expect(err[0]).toMatch(/^error: UsageError: --timeout must be at least 1 ms/);
  });
});

describe("long timers fire when they say (fake clock with Node's 2^31-1 ms limit)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('the fake clock does reproduce the limit: a plain 2^31 ms timer fires after 1 ms', () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    setTimeout(fired, 2 ** 31);
    vi.advanceTimersByTime(2);
    expect(fired).toHaveBeenCalled();
  });

  it.each([2 ** 31, MAX_TIMER_DELAY_MS * 3 + 5, MAX_DURATION_MS])('setLongTimeout(%d) fires at that time, not before', (delay) => {
    vi.useFakeTimers();
    const fired = vi.fn();
    setLongTimeout(fired, delay);
    vi.advanceTimersByTime(delay - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('scheduleAfter on the async scheduler: 2^31 ms, and Infinity never', () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    const never = vi.fn();
    scheduleAfter(asyncScheduler, 2 ** 31, fired);
    const forever = scheduleAfter(asyncScheduler, Infinity, never);
    vi.advanceTimersByTime(2 ** 31 - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(MAX_DURATION_MS);
    expect(never).not.toHaveBeenCalled();
    forever.unsubscribe();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a cancelled long timer leaves no timer behind', () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    const timer = setLongTimeout(fired, 2 ** 33);
    vi.advanceTimersByTime(2 ** 32);
    timer.clear();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(2 ** 33);
    expect(fired).not.toHaveBeenCalled();
  });

  it('the watchdog with inactivityMs 2^33 is not early', () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    const subscription = NEVER.pipe(watchdog(2 ** 33, () => new WatchInactiveError('pods', 'default', 2 ** 33), asyncScheduler)).subscribe({
      error: (error: unknown) => errors.push(error),
    });
    vi.advanceTimersByTime(2 ** 33 - 1);
    expect(errors).toEqual([]);
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS + 1);
    expect(errors).toEqual([expect.any(WatchInactiveError)]);
    subscription.unsubscribe();
  });

  // The informers' own watchdog is set to 30 days, so the fake clock does not wake it every 37 s.
  const quietInformers = () => new InformerRegistry({ inactivityMs: 30 * 24 * 3600 * 1000 });

  /** Starts a provisioning; `until(ms)` advances the fake clock to `ms` after its start. */
  async function provisioning(fake: FakeKubernetes, options: ProvisionOptions) {
    const startedAt = Date.now();
    const outcome = new Subject<'ready' | Error>();
    let result: 'ready' | Error | undefined;
    outcome.subscribe((value) => (result = value));
    const subscription = provision$(fake, SPEC, { informers: quietInformers(), ...options }).subscribe({
      next: (event) => event.type === 'ready' && outcome.next('ready'),
      error: (error: Error) => outcome.next(error),
    });
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
    const until = (ms: number) => vi.advanceTimersByTimeAsync(startedAt + ms - Date.now());
    return { result: () => result, subscription, until };
  }

  it('requestTimeoutMs = 2^31 against a server that never answers: ApiTimeoutError at 2^31 ms, not after 1 ms', async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'kp-durations-'));
    const path = join(dir, 'config');
    const { port } = silent.address() as AddressInfo;
    writeFileSync(
      path,
      `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]\n` +
        'users: [{name: u, user: {token: t0ken}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n',
    );
    try {
      const api = KubernetesApi.fromConfig({ kubeconfigPath: path, tlsVerify: false, requestTimeoutMs: 2 ** 31 });
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      let settled: unknown;
      api.read('deployments', 'default', 'web').then(
        () => (settled = 'answered'),
        (error: unknown) => (settled = error),
      );
      await vi.waitFor(() => expect(vi.getTimerCount()).toBeGreaterThan(0));
      await vi.advanceTimersByTimeAsync(2 ** 31 - 60);
      expect(settled).toBeUndefined();
      await vi.advanceTimersByTimeAsync(60);
      await vi.waitFor(() => expect(settled).toBeInstanceOf(ApiTimeoutError));
    } finally {
      vi.useRealTimers();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('provision timeoutMs = 2^31: no timeout before 2^31 ms, RolloutTimeoutError at 2^31 ms', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const fake = new FakeKubernetes();
    const run = await provisioning(fake, { timeoutMs: 2 ** 31 });
    startRollout(fake, 'web');
    await run.until(2 ** 31 - 1);
    expect(run.result()).toBeUndefined();
    await run.until(2 ** 31);
    expect(run.result()).toBeInstanceOf(RolloutTimeoutError);
    expect(run.result()).toMatchObject({ timeoutMs: 2 ** 31 });
  });

  it('provision timeoutMs = Infinity: still waiting after 365 days, ready when the rollout completes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const fake = new FakeKubernetes();
    const run = await provisioning(fake, { timeoutMs: Infinity });
    startRollout(fake, 'web');
    await vi.advanceTimersByTimeAsync(MAX_DURATION_MS);
    expect(run.result()).toBeUndefined();
    completeRollout(fake, 'web');
    await vi.waitFor(() => expect(run.result()).toBe('ready'));
    run.subscription.unsubscribe();
  });

  it('a grace window of 2^31 ms fails the rollout at 2^31 ms, not after 1 ms; Infinity never on time alone', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    for (const graceMs of [2 ** 31, Infinity]) {
      const fake = new FakeKubernetes();
      const run = await provisioning(fake, { timeoutMs: Infinity, failurePolicy: { unschedulable: { graceMs } } });
      const deployment = startRollout(fake, 'web');
      fake.addPod(
        podOf(deployment, {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available' }],
        }),
      );
      // The grace window starts when the Pod problem is first seen, a moment after the start.
      await run.until(2 ** 31 - 1);
      expect(run.result()).toBeUndefined();
      await run.until(2 ** 31 + 100);
      if (graceMs === Infinity) {
        await vi.advanceTimersByTimeAsync(MAX_DURATION_MS);
        expect(run.result()).toBeUndefined();
        run.subscription.unsubscribe();
      } else {
        expect(run.result()).toBeInstanceOf(RolloutFailedError);
        expect(run.result()).toMatchObject({ reason: 'Unschedulable' });
      }
    }
  });
});
