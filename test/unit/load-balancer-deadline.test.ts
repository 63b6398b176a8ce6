// A LoadBalancer that gets no address is named (LoadBalancerPending) before the operation's
// timeout, whatever the grace and the timeout: against FakeKubernetes (an in-memory stand-in
// for the API server, with no load-balancer controller; the EndpointSlice controller's part
// is played by publishEndpoints). The real control plane plays it in the integration suite.
import { describe, expect, it, vi } from 'vitest';
import { RolloutFailedError } from '../../src/errors/rollout.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import type { ProvisionEvent } from '../../src/rollout/events.js';
import { loadBalancerGraceEndsBy } from '../../src/rollout/failure-policy.js';
import { provision$ } from '../../src/workload/operations/provision.js';
import { setPorts } from '../../src/workload/operations/set-ports.js';
import { FakeKubernetes, completeRollout, podOf, publishEndpoints } from '../support/fake-kube.js';

const input = { containerId: 42, nodeId: 7, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 256, ports: [{ port: 22 }] };
const informers = () => new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });

/** Provisions `spec` with `options`, completing the rollout and routing its Pod as the controllers would. */
function provisioned(fake: FakeKubernetes, spec: object, options: Parameters<typeof provision$>[2]) {
  const events: ProvisionEvent[] = [];
  const outcome = new Promise<unknown>((resolve) => {
    provision$(fake, spec, { informers: informers(), ...options }).subscribe({
      next: (event) => events.push(event),
      error: (error: unknown) => resolve(error),
      complete: () => resolve(undefined),
    });
  });
  return { events, outcome };
}

async function routeWhenCreated(fake: FakeKubernetes, events: ProvisionEvent[]) {
  await vi.waitFor(() => expect(events.map((event) => event.type)).toContain('created'));
  completeRollout(fake, 'web');
  const deployment = fake.get('deployments', 'web');
  if (!deployment) throw new Error('no Deployment');
  const pod = fake.addPod(
    podOf(deployment, { phase: 'Running', podIP: '10.244.0.7', hostIP: '172.30.0.10', conditions: [{ type: 'Ready', status: 'True' }] }),
  );
  publishEndpoints(fake, 'web', [{ pod, ready: true }]);
  return pod;
}

describe('a LoadBalancer without an address fails by name before the timeout', () => {
  it('the rule: the grace ends a tenth of the timeout (at most 5 s) before the deadline; no deadline, no cut', () => {
    expect(loadBalancerGraceEndsBy({ at: 160_000, timeoutMs: 60_000 })).toBe(155_000);
    expect(loadBalancerGraceEndsBy({ at: 1_000, timeoutMs: 1_000 })).toBe(900);
    expect(loadBalancerGraceEndsBy({ at: 600_000, timeoutMs: 600_000 })).toBe(595_000);
    expect(loadBalancerGraceEndsBy({ at: Infinity, timeoutMs: Infinity })).toBeUndefined();
    expect(loadBalancerGraceEndsBy(undefined)).toBeUndefined();
  });

  it('provision with a grace as long as the timeout: LoadBalancerPending, not RolloutTimeoutError', async () => {
    const fake = new FakeKubernetes();
    const began = Date.now();
    const run = provisioned(
      fake,
      { ...input, serviceType: 'LoadBalancer' },
      { timeoutMs: 1_500, failurePolicy: { loadBalancer: { graceMs: 1_500 } } },
    );
    await routeWhenCreated(fake, run.events);
    const failure = await run.outcome;
    expect(failure).toBeInstanceOf(RolloutFailedError);
    expect(failure).toMatchObject({ reason: 'LoadBalancerPending', kind: 'Service' });
    expect((failure as Error).message).toContain('or less, to end before the timeout');
    expect(Date.now() - began).toBeLessThan(1_500);
  });

  it('setPorts to LoadBalancer with the default grace (longer than its timeout): LoadBalancerPending', async () => {
    const fake = new FakeKubernetes();
    const run = provisioned(fake, input, {});
    await routeWhenCreated(fake, run.events);
    expect(await run.outcome).toBeUndefined();
    const failure = await setPorts(fake, 'default/web', [{ port: 22 }], {
      informers: informers(),
      serviceType: 'LoadBalancer',
      timeoutMs: 1_000,
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'RolloutFailedError', reason: 'LoadBalancerPending' });
  });
});
