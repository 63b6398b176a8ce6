// Status while the API server is down, on a real control plane of its own (so stopping its
// kube-apiserver disturbs no other test file): statuses$ turns every workload `unknown`
// with the reason and recovers once the apiserver answers again; status() says `unknown`
// instead of throwing; list() rejects with the typed error; the CLI prints the unknown
// status and exits 5. Each step prints how long it took.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type LocalCluster } from '../../scripts/control-plane/cluster.js';
import { ApiUnreachableError } from '../../src/errors/api.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { list } from '../../src/workload/reads/list.js';
import { provision } from '../../src/workload/operations/provision.js';
import type { StatusEvent } from '../../src/workload/reads/status-board.js';
import { status } from '../../src/workload/reads/status.js';
import { statuses$ } from '../../src/workload/reads/statuses.js';
import { sampleSpec } from '../support/kube.js';
import { runNode, type ProcessRun } from '../support/run-process.js';

let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startCluster({ podReadyDelayMs: 1000, log: () => {} });
}, 300_000);
afterAll(async () => {
  await cluster?.stop();
});

async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function cli(args: string[]): Promise<ProcessRun> {
  return runNode(['dist/cli/main.js', ...args], { env: { ...process.env, KUBECONFIG: cluster.kubeconfigPath }, killAfterMs: 60_000 });
}

describe('status with the API server down (real control plane)', () => {
  it('statuses$: running -> unknown (with the reason) -> running; status() unknown, list() rejects, the CLI exits 5', async () => {
    const api = KubernetesApi.fromConfig({ kubeconfigPath: cluster.kubeconfigPath, namespace: 'default' });
    const informers = new InformerRegistry({ backoff: { initialMs: 200, maxMs: 1000, factor: 2, jitter: 0.2 } });
    const specs = [sampleSpec(), sampleSpec()];
    const names = await Promise.all(specs.map(async (spec) => (await provision(api, spec, { timeoutMs: 60_000, informers })).name));
    const events: StatusEvent[] = [];
    const errors: unknown[] = [];
    const last = (name: string) => events.filter((event) => event.name === name).at(-1)?.status;
    const subscription = statuses$(api, { informers }).subscribe({
      next: (event) => events.push(event),
      error: (error) => errors.push(error),
    });
    await until('both running', () => names.every((name) => last(name)?.state === 'running' && last(name)?.podIp));
    const ipsBefore = names.map((name) => last(name)?.podIp);

    const stoppedAt = Date.now();
    await cluster.stopApiserver();
    await until('both unknown', () => names.every((name) => last(name)?.state === 'unknown'));
    const unknownAfterMs = Date.now() - stoppedAt;
    for (const name of names) {
      const value = last(name)!;
      expect(value.reason).toMatch(/^(ApiUnreachable|ApiTimeout)$/);
      expect(value.message).toContain(cluster.server);
      expect(value.message).not.toMatch(/\n/);
      expect(value.podIp).toBeNull();
      expect(value.image).toBe('docker.io/library/nginx:1.27');
    }

    const oneShotStarted = Date.now();
    const oneShot = await status(api, `default/${names[0]}`, { timeoutMs: 10_000 });
    const oneShotMs = Date.now() - oneShotStarted;
    expect(oneShot).toMatchObject({ state: 'unknown', podIp: null });
    expect(oneShot.reason).toMatch(/^(ApiUnreachable|ApiTimeout|Timeout)$/);
    await expect(list(api, { timeoutMs: 10_000 })).rejects.toBeInstanceOf(ApiUnreachableError);
    const printed = await cli(['status', `default/${names[0]}`, '--timeout', '10s']);
    expect(printed.code).toBe(5);
    expect(printed.stdout).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} default/${names[0]} unknown: `));

    await cluster.startApiserver();
    const restartedAt = Date.now();
    await until('both running again', () => names.every((name) => last(name)?.state === 'running' && last(name)?.podIp), 90_000);
    const recoveredAfterMs = Date.now() - restartedAt;
    expect(names.map((name) => last(name)?.podIp)).toEqual(ipsBefore);
    expect(errors).toEqual([]);
    expect((await status(api, `default/${names[0]}`)).state).toBe('running');
    // Each workload: running, unknown, running. While down, a new event only when the
    // reason's words change (the watch was reset, then refused): never a repeat.
    for (const name of names) {
      const mine = events.filter((event) => event.name === name).map((event) => event.status);
      const path = mine.map((value) => value.state).filter((state, index, all) => state !== all[index - 1]);
      expect(path).toEqual(['running', 'unknown', 'running']);
      const unknowns = mine.filter((value) => value.state === 'unknown').map((value) => value.message);
      expect(new Set(unknowns).size).toBe(unknowns.length);
    }
    subscription.unsubscribe();
    process.stderr.write(
      `[status-outage] unknown ${unknownAfterMs} ms after the apiserver stopped; status() answered unknown in ${oneShotMs} ms; ` +
        `running again ${recoveredAfterMs} ms after /readyz\n`,
    );
  });
});
