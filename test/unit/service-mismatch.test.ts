// A Service under our name and labels that can never route to the Deployment's Pods (its
// selector is another one, or a port is aimed at another target: someone else's Service,
// or ours edited by hand) is found and named within the step that sees it, never waited
// out to the timeout: serviceMismatch() on its own, then provision$, restart and status()
// against FakeKubernetes (an in-memory stand-in for the API server; publishEndpoints plays
// the EndpointSlice controller). test/integration/network.test.ts does the same on the
// real control plane.
import { lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { RolloutFailedError, RolloutTimeoutError } from '../../src/errors/rollout.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import type { V1Pod, V1Service } from '../../src/kube/objects.js';
import type { ProvisionEvent } from '../../src/rollout/events.js';
import { serviceMismatch } from '../../src/rollout/service-gate.js';
import { WorkloadDriftError } from '../../src/members/drift.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { provision$ } from '../../src/workload/operations/provision.js';
import { restart } from '../../src/workload/operations/restart.js';
import { status } from '../../src/workload/reads/status.js';
import { FakeKubernetes, completeRollout, podOf, publishEndpoints } from '../support/fake-kube.js';

const input = { containerId: 42, nodeId: 7, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 256, ports: [{ port: 22 }] };
const ID = 'default/web';
const fastInformers = () => new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });

function readyPod(fake: FakeKubernetes, suffix: string): V1Pod {
  const deployment = fake.get('deployments', 'web');
  if (!deployment) throw new Error('no Deployment');
  return fake.addPod(podOf(deployment, { phase: 'Running', podIP: '10.244.0.7', conditions: [{ type: 'Ready', status: 'True' }] }, suffix));
}

/** A provisioned workload, its Service routing to its Pod. */
async function running(spec: object = input): Promise<FakeKubernetes> {
  const fake = new FakeKubernetes();
  const events: ProvisionEvent[] = [];
  const done = lastValueFrom(provision$(fake, spec, { informers: fastInformers() }).pipe(toArray())).then((all) => events.push(...all));
  await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
  const ported = 'ports' in spec && spec.ports !== undefined;
  if (ported) await vi.waitFor(() => expect(fake.get('services', 'web')).toBeDefined());
  completeRollout(fake, 'web');
  const pod = readyPod(fake, 'a1');
  if (ported) publishEndpoints(fake, 'web', [{ pod, ready: true }]);
  await done;
  expect(events.at(-1)?.type).toBe('ready');
  return fake;
}

/** A restart whose rollout completes at once, with the time it took. */
async function restartTimed(fake: FakeKubernetes): Promise<{ error: unknown; ms: number }> {
  const began = Date.now();
  const pending = restart(fake, ID, { informers: fastInformers(), timeoutMs: 60_000 }).catch((error: unknown) => error);
  await vi.waitFor(() => expect(fake.calls.some((call) => call.method === 'patch' && call.kind === 'deployments')).toBe(true));
  completeRollout(fake, 'web');
  readyPod(fake, 'b1');
  const error = await pending;
  return { error, ms: Date.now() - began };
}

describe('serviceMismatch(): can this Service ever route to the Deployment’s Pods?', () => {
  const deployment = buildDeployment(parseWorkloadSpec(input));
  const selector = deployment.spec?.selector.matchLabels ?? {};
  const service = (spec: V1Service['spec']): V1Service => ({ metadata: { name: 'web' }, spec });

  it('ours (the Deployment’s selector, each port to the same number, or no target) can', () => {
    expect(serviceMismatch(service({ selector, ports: [{ port: 22, targetPort: 22 }, { port: 53 }] }), deployment)).toEqual([]);
  });

  it('another selector, one more label, or none selects other Pods (or none): named with both sides', () => {
    const wanted = Object.entries(selector)
      .map(([key, value]) => `${key}=${value}`)
      .sort()
      .join(',');
    expect(serviceMismatch(service({ selector: { app: 'other' }, ports: [{ port: 22 }] }), deployment)).toEqual([
      { field: 'selector', live: 'app=other', desired: wanted },
    ]);
    expect(serviceMismatch(service({ selector: { ...selector, extra: 'x' }, ports: [{ port: 22 }] }), deployment)).toMatchObject([
      { field: 'selector' },
    ]);
    expect(serviceMismatch(service({ ports: [{ port: 22 }] }), deployment)).toMatchObject([{ field: 'selector', live: '(none)' }]);
  });

  it('a port aimed at another number or at a named port: named with every port’s target', () => {
    expect(
      serviceMismatch(
        service({
          selector,
          ports: [
            { port: 22, targetPort: 2222 },
            { port: 80, targetPort: 'http', protocol: 'TCP' },
          ],
        }),
        deployment,
      ),
    ).toEqual([{ field: 'ports', live: '22/tcp → 2222, 80/tcp → http', desired: '22/tcp → 22, 80/tcp → 80' }]);
  });
});

describe('a wait never runs out its timeout on a Service that cannot route', () => {
  it('ours edited to another selector: restart fails within the step with ServiceMismatch naming the Service and the selector; status() says failed', async () => {
    const fake = await running();
    fake.update('services', 'web', (live) => {
      live.spec = { ...live.spec, selector: { app: 'something-else' } };
    });
    const { error, ms } = await restartTimed(fake);
    expect(error).toBeInstanceOf(RolloutFailedError);
    expect(error).not.toBeInstanceOf(RolloutTimeoutError);
    expect(error).toMatchObject({ reason: 'ServiceMismatch', kind: 'Service', object: 'web' });
    expect((error as Error).message).toMatch(
      /ServiceMismatch: Service web: it can never route to the Deployment's Pods: selector \(live app=something-else, needed .*container-id=42/,
    );
    expect(ms).toBeLessThan(5_000);
    await expect(status(fake, ID)).resolves.toMatchObject({ state: 'failed', reason: 'ServiceMismatch' });
  });

  it('a foreign Service with our name and labels and a port aimed elsewhere (the container had none): restart names its ports', async () => {
    const fake = await running({ ...input, ports: undefined });
    const labels = fake.get('deployments', 'web')?.metadata?.labels ?? {};
    const selector = fake.get('deployments', 'web')?.spec?.selector.matchLabels ?? {};
    await fake.create('services', 'default', {
      metadata: { name: 'web', labels },
      spec: { selector, ports: [{ port: 22, targetPort: 2222 }] },
    });
    const { error, ms } = await restartTimed(fake);
    expect(error).toMatchObject({ name: 'RolloutFailedError', reason: 'ServiceMismatch', kind: 'Service' });
    expect((error as Error).message).toContain('ports (live 22/tcp → 2222, needed 22/tcp → 22)');
    expect(ms).toBeLessThan(5_000);
  });

  it('provision adopting our Service with a port aimed elsewhere: drift on ports, nothing changed', async () => {
    const fake = await running();
    fake.update('services', 'web', (live) => {
      live.spec = { ...live.spec, ports: [{ name: 'tcp-22', port: 22, protocol: 'TCP', targetPort: 2222 }] };
    });
    const before = fake.get('services', 'web')?.metadata?.resourceVersion;
    const error = await lastValueFrom(provision$(fake, input, { informers: fastInformers(), timeoutMs: 60_000 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkloadDriftError);
    expect((error as WorkloadDriftError).fields).toEqual([{ field: 'ports', live: '22/tcp tcp-22 → 2222', desired: '22/tcp tcp-22' }]);
    expect(fake.get('services', 'web')?.metadata?.resourceVersion).toBe(before);
  });
});
