// Surviving the network, on a real control plane of its own (so restarting its apiserver
// disturbs no other test file): kube-apiserver killed and restarted mid-rollout, 410 Gone
// forced on the watch, streaming lists refused, a silent half-open watch, and 403 on watch for a restricted user.
// A loopback HTTPS proxy (test/support/api-proxy.ts) injects the network faults. Each
// test prints its recovery time.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../src/errors/api.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { provision$ } from '../../src/workload/operations/provision.js';
import type { ProvisionEvent, ProvisionResult } from '../../src/index.js';
import { startCluster, type LocalCluster } from '../../scripts/control-plane/cluster.js';
import { ApiProxy, GONE_STATUS, type ProxiedRequest } from '../support/api-proxy.js';
import { sampleSpec } from '../support/kube.js';

const POD_READY_DELAY_MS = 4000;
let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startCluster({ podReadyDelayMs: POD_READY_DELAY_MS, log: () => {} });
}, 300_000);
afterAll(async () => {
  await cluster?.stop();
});

/** Provisions, resolving with the result and every event; `onEvent` may inject faults. */
function run(
  api: KubernetesApi,
  registry: InformerRegistry,
  onEvent: (event: ProvisionEvent) => void = () => {},
  input = sampleSpec(),
): Promise<{ result: ProvisionResult; events: ProvisionEvent[]; resolvedAt: number }> {
  const events: ProvisionEvent[] = [];
  return new Promise((resolve, reject) =>
    provision$(api, input, { timeoutMs: 120_000, informers: registry }).subscribe({
      next: (event) => {
        events.push(event);
        onEvent(event);
      },
      error: reject,
      complete: () => {
        const ready = events.at(-1);
        if (ready?.type !== 'ready') return reject(new Error('completed without ready'));
        resolve({
          result: {
            providerId: ready.providerId,
            namespace: ready.namespace,
            name: ready.name,
            adopted: ready.adopted,
            durationMs: ready.durationMs,
            address: ready.address,
            service: ready.service,
          },
          events,
          resolvedAt: Date.now(),
        });
      },
    }),
  );
}

const isStreamingList = (request: ProxiedRequest): boolean => request.watch && request.query.get('sendInitialEvents') === 'true';

/** What kube-apiserver answers when the WatchList feature is off. */
const STREAMING_LIST_REFUSED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Invalid value: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
  reason: 'Invalid',
  details: {
    causes: [
      {
        reason: 'FieldValueForbidden',
        message: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
        field: 'sendInitialEvents',
      },
    ],
  },
  code: 422,
};

const quickRetries = () => new InformerRegistry({ backoff: { initialMs: 200, maxMs: 2000, factor: 2, jitter: 0.2 } });

describe('resilience on a real control plane', () => {
  it('kube-apiserver killed and restarted mid-rollout: the provisioning still resolves correctly', async () => {
    const api = KubernetesApi.fromConfig({ kubeconfigPath: cluster.kubeconfigPath });
    let restartedAt = 0;
    let firstEventAfterRestart = 0;
    let restart: Promise<void> | undefined;
    const outcome = await run(api, quickRetries(), (event) => {
      if (restartedAt && !firstEventAfterRestart) firstEventAfterRestart = Date.now();
      if (event.type === 'created' && !restart) {
        restart = (async () => {
          await cluster.stopApiserver();
          await new Promise((resolve) => setTimeout(resolve, 1500));
          await cluster.startApiserver();
          restartedAt = Date.now();
        })();
      }
    });
    await restart;
    expect(outcome.result.providerId).toMatch(/^default\/ct-/);
    expect(outcome.events.at(-2)).toMatchObject({ type: 'progress', status: { state: 'Complete' } });
    // The controllers may fail to create the Pod while the apiserver is down (FailedCreate):
    // a transient create failure is ridden out, not reported as the rollout's failure.
    const createFailures = outcome.events.filter((event) => event.type === 'progress' && event.status.createFailure).length;
    process.stderr.write(
      `[resilience] apiserver restart: first event ${firstEventAfterRestart - restartedAt} ms after /readyz, resolved ${outcome.resolvedAt - restartedAt} ms after (pods become ready ${POD_READY_DELAY_MS} ms after scheduling); transient create failures ridden out: ${createFailures}\n`,
    );
    expect(restartedAt).toBeGreaterThan(0);
  });

  it('410 Gone on the watch (HTTP status and in-band ERROR event): starts over with a streaming list and resolves', async () => {
    const proxy = await ApiProxy.start(cluster.kubeconfigPath);
    try {
      let gone = 0;
      // Resumed watches (not streaming lists) of Deployments answer 410, twice.
      proxy.intercept = (request) => {
        if (!request.watch || !request.path.endsWith('/deployments') || isStreamingList(request) || gone >= 2) return undefined;
        gone += 1;
        return gone === 1 ? { status: 410, body: GONE_STATUS } : { watchEvents: [{ type: 'ERROR', object: GONE_STATUS }] };
      };
      const api = KubernetesApi.fromConfig({ kubeconfigPath: proxy.writeKubeconfig(cluster.kubeconfigPath) });
      // The server ends every watch after 1 s, so the informer resumes (and meets the 410s) mid-rollout.
      const registry = new InformerRegistry({
        watchTimeoutSeconds: () => 1,
        backoff: { initialMs: 200, maxMs: 2000, factor: 2, jitter: 0.2 },
      });
      const started = Date.now();
      const outcome = await run(api, registry);
      expect(outcome.result.providerId).toMatch(/^default\/ct-/);
      expect(gone).toBe(2);
      // Every 410 was followed by a fresh streaming list before the next resumed watch.
      const sequence = proxy.log
        .filter((r) => r.watch && r.path.endsWith('/deployments'))
        .map((r) => (isStreamingList(r) ? 'streaming list' : `watch from ${r.query.get('resourceVersion')}`));
      expect(sequence.slice(0, 5).map((step) => step.replace(/\d+$/, 'N'))).toEqual([
        'streaming list',
        'watch from N',
        'streaming list',
        'watch from N',
        'streaming list',
      ]);
      expect(proxy.counts.lists).toBe(0);
      process.stderr.write(`[resilience] 410: resolved in ${Date.now() - started} ms; Deployment requests: ${sequence.join(', ')}\n`);
    } finally {
      await proxy.close();
    }
  });

  it('a server that refuses streaming lists (422): falls back to list and watch and resolves', async () => {
    const proxy = await ApiProxy.start(cluster.kubeconfigPath);
    try {
      proxy.intercept = (request) => (isStreamingList(request) ? { status: 422, body: STREAMING_LIST_REFUSED } : undefined);
      const api = KubernetesApi.fromConfig({ kubeconfigPath: proxy.writeKubeconfig(cluster.kubeconfigPath) });
      const outcome = await run(api, quickRetries());
      expect(outcome.result.providerId).toMatch(/^default\/ct-/);
      const deploymentRequests = proxy.log
        .filter((r) => r.path.endsWith('/deployments') && r.method === 'GET')
        .map((r) => (isStreamingList(r) ? 'streaming list' : r.watch ? 'watch' : 'list'));
      expect(deploymentRequests.slice(0, 3)).toEqual(['streaming list', 'list', 'watch']);
      expect(proxy.counts.lists).toBe(2); // one Deployment list and one Pod list
    } finally {
      await proxy.close();
    }
  });

  it('a silent, half-open watch is noticed by the watchdog and replaced', async () => {
    const proxy = await ApiProxy.start(cluster.kubeconfigPath);
    try {
      const api = KubernetesApi.fromConfig({ kubeconfigPath: proxy.writeKubeconfig(cluster.kubeconfigPath) });
      const registry = new InformerRegistry({ inactivityMs: 2000, backoff: { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 } });
      let silencedAt = 0;
      const outcome = await run(api, registry, (event) => {
        if (event.type === 'created' && !silencedAt) {
          // Let the watches open, then cut them silently; new connections work again.
          setTimeout(() => {
            proxy.goSilent();
            silencedAt = Date.now();
            setTimeout(() => proxy.recover(), 100);
          }, 300);
        }
      });
      expect(silencedAt).toBeGreaterThan(0);
      expect(outcome.result.providerId).toMatch(/^default\/ct-/);
      const watches = proxy.log.filter((r) => r.watch && /\/deployments$/.test(r.path)).length;
      expect(watches).toBeGreaterThanOrEqual(2);
      process.stderr.write(
        `[resilience] silent drop: resolved ${outcome.resolvedAt - silencedAt} ms after the watch went silent (watchdog 2000 ms)\n`,
      );
    } finally {
      await proxy.close();
    }
  });

  it('403 on watch for a restricted user fails every waiter at once, naming the missing verb', async () => {
    const api = KubernetesApi.fromConfig({ kubeconfigPath: cluster.kubeconfigFor('restricted') });
    const kubectl = (...args: string[]) => execFileSync('kubectl', ['--kubeconfig', cluster.kubeconfigPath, ...args], { encoding: 'utf8' });
    kubectl('create', 'role', 'create-no-watch', '--verb=create,get,list', '--resource=deployments', '--resource=pods');
    kubectl('create', 'rolebinding', 'create-no-watch', '--role=create-no-watch', '--user=restricted');
    const registry = quickRetries();
    const started = Date.now();
    const outcomes = await Promise.allSettled([run(api, registry), run(api, registry), run(api, registry)]);
    const elapsed = Date.now() - started;
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason as Error;
      expect(reason).toBeInstanceOf(ForbiddenError);
      expect(reason.message).toMatch(/may not watch (deployments|pods) in namespace default/);
    }
    expect(elapsed).toBeLessThan(10_000);
    process.stderr.write(`[resilience] 403 on watch: 3 waiters failed in ${elapsed} ms\n`);
  });
});
