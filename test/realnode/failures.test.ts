// Failures on a real kubelet, named by the same failure policy as on KWOK (the defaults, no
// overrides) and in the kubelet's and containerd's own words: a real pull failure (an image
// the local registry does not have), a real crash loop (a process that exits 1) and a real
// OOM kill (a memory limit below what the process takes). Each must be named long before
// the 5-minute timeout and the Deployment's 10-minute progress deadline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RolloutFailedError, provision$, statuses$ } from '../../src/index.js';
import type { ProvisionEvent, StatusEvent } from '../../src/index.js';
import { apiFor, kubectl, kubectlJson } from '../support/kube.js';
import { MISSING_IMAGE, createRealNodeNamespace, realNodeEnv, realSpec } from '../support/real-node.js';

let namespace: string;
beforeAll(() => {
  namespace = createRealNodeNamespace('rn-fail');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const FAR_TIMEOUT_MS = 300_000;

interface Failure {
  readonly error: RolloutFailedError;
  readonly events: readonly ProvisionEvent[];
  readonly elapsedMs: number;
}

async function expectFailure(spec: Record<string, unknown>, reason: string, withinMs: number): Promise<Failure> {
  const events: ProvisionEvent[] = [];
  const started = Date.now();
  const error = await new Promise<unknown>((resolve) => {
    provision$(apiFor(), { namespace, ...spec }, { timeoutMs: FAR_TIMEOUT_MS }).subscribe({
      next: (event) => events.push(event),
      error: resolve,
      complete: () => resolve(new Error('the provisioning succeeded')),
    });
  });
  const elapsedMs = Date.now() - started;
  expect(error).toBeInstanceOf(RolloutFailedError);
  const failed = error as RolloutFailedError;
  expect(failed.reason).toBe(reason);
  expect(elapsedMs).toBeLessThan(withinMs);
  process.stderr.write(`[realnode] ${reason}: named in ${(elapsedMs / 1000).toFixed(1)} s: ${failed.message}\n`);
  return { error: failed, events, elapsedMs };
}

/** The failed run's Deployment is deleted with its pods (the default), on the real node too. */
function expectCleanedUp(hostname: unknown): void {
  const left = kubectlJson<{ items: unknown[] }>([
    'get',
    'deployments',
    '-n',
    namespace,
    '--field-selector',
    `metadata.name=${String(hostname)}`,
  ]);
  expect(left.items).toEqual([]);
}

interface EventJson {
  readonly reason: string;
  readonly message: string;
  readonly source?: { readonly component?: string; readonly host?: string };
}

/** What the real node's kubelet reported about the failed pod (Events outlive the pod). */
function kubeletEvents(failure: Failure): EventJson[] {
  const pod = failure.error.pod ?? '';
  const events = kubectlJson<{ items: EventJson[] }>(['get', 'events', '-n', namespace, '--field-selector', `involvedObject.name=${pod}`]);
  return events.items.filter((event) => event.source?.component === 'kubelet' && event.source.host === realNodeEnv().nodeName);
}

describe('failures on the real node, named in seconds in the kubelet’s words', () => {
  it('an image the registry does not have is ErrImagePull with containerd’s "not found"', async () => {
    const spec = realSpec({ image: MISSING_IMAGE });
    const failure = await expectFailure(spec, 'ErrImagePull', 30_000);
    const { error } = failure;
    expect(error.detail).toContain(`failed to resolve reference "${MISSING_IMAGE}"`);
    expect(error.detail).toContain(`${MISSING_IMAGE}: not found`);
    expect(error.pod).toMatch(new RegExp(`^${String(spec.hostname)}-`));
    // The pod got as far as the real node, whose kubelet asked containerd to pull.
    expect(kubeletEvents(failure).some((event) => event.reason === 'Failed' && event.message.includes('not found'))).toBe(true);
    expectCleanedUp(spec.hostname);
  });

  it('a process that exits 1 is CrashLoopBackOff after three real restarts, with its last exit and its last log lines', async () => {
    const spec = realSpec({
      env: { API_TOKEN: 'a-secret-value-42' },
      entrypoint: ['sh', '-c', 'echo starting; echo "using token $API_TOKEN"; echo giving up >&2; exit 1'],
    });
    // A live list of the namespace beside the provisioning: its statuses carry the lines too.
    const statuses: StatusEvent[] = [];
    const live = statuses$(apiFor(), { namespace }).subscribe((event) => statuses.push(event));
    const failure = await expectFailure(spec, 'CrashLoopBackOff', 60_000).finally(() => live.unsubscribe());
    const { error, events } = failure;
    expect(error.detail).toMatch(/back-off \d+s restarting failed container=/);
    expect(error.detail).toContain('last exit: Error (exit code 1)');
    const restarts = events.flatMap((event) =>
      event.type === 'progress' && event.pod?.restartCount !== undefined ? [event.pod.restartCount] : [],
    );
    expect(Math.max(...restarts)).toBeGreaterThanOrEqual(3);
    expect(kubeletEvents(failure).map((event) => event.reason)).toEqual(expect.arrayContaining(['Started', 'BackOff']));

    // What the container wrote, read back through the API server and the kubelet: on the
    // error, and on the progress events that reported the crashes; the secret-named env
    // var's value is masked. (stdout and stderr are two pipes: their lines may interleave.)
    const written = ['giving up', 'starting', 'using token ***'];
    expect([...error.logs].sort()).toEqual(written);
    expect(error.message).toContain(`its last log lines: ${error.logs.join(' | ')}`);
    expect(error.message).not.toContain('a-secret-value-42');
    const withLogs = events.filter((event) => event.type === 'progress' && event.pod?.logs !== undefined);
    expect(withLogs.length).toBeGreaterThan(0);
    for (const event of withLogs) {
      if (event.type !== 'progress') continue;
      expect([...(event.pod?.logs ?? [])].sort()).toEqual(written);
      expect(event.message.endsWith(`; last log line: ${event.pod?.logs?.at(-1) ?? ''}`)).toBe(true);
      expect(JSON.stringify(event)).not.toContain('a-secret-value-42');
    }
    const liveWithLogs = statuses.filter((event) => event.name === spec.hostname && event.status.pod?.logs !== undefined);
    expect(liveWithLogs.length).toBeGreaterThan(0);
    for (const event of liveWithLogs) {
      expect([...(event.status.pod?.logs ?? [])].sort()).toEqual(written);
      expect(event.status.message.endsWith(`; last log line: ${event.status.pod?.logs?.at(-1) ?? ''}`)).toBe(true);
      expect(JSON.stringify(event)).not.toContain('a-secret-value-42');
    }
    expectCleanedUp(spec.hostname);
  });

  it('a process over its memory limit is OOM-killed by the kernel and named CrashLoopBackOff, out of memory at its limit', async () => {
    // dd holds a 64 MiB buffer; the limit is 16 MiB. exec: dd is the container's process.
    const spec = realSpec({
      memoryMb: 16,
      entrypoint: ['sh', '-c', 'echo allocating 64 MiB; exec dd if=/dev/zero of=/dev/null bs=64M count=1'],
    });
    const failure = await expectFailure(spec, 'CrashLoopBackOff', 60_000);
    // The runtime names the OOM kill (OOMKilled) or, as often, only its exit code (Error,
    // 137): both forms are accepted, and each must be worded exactly as we print it.
    expect(failure.error.detail).toMatch(
      /; last exit: (?:OOMKilled \(exit code 137\)|killed \(exit 137\), most likely out of memory at its 16Mi limit)(?:;|$)/,
    );
    // The kernel killed dd before it could write; the shell's line before it is there.
    expect(failure.error.logs).toEqual(['allocating 64 MiB']);
    expect(kubeletEvents(failure).map((event) => event.reason)).toEqual(expect.arrayContaining(['Started', 'BackOff']));
    expectCleanedUp(spec.hostname);
  });
});
