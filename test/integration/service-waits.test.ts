// The waits on a container's Service, on the real control plane: the route judged from
// the Service version written (with informers already running, as a long-lived caller's
// are), a LoadBalancer named before the timeout whatever the grace, and a delete that
// waits for the Service's EndpointSlices. The real kube-apiserver and controller manager
// write the Service and its slices from KWOK's Pod readiness; kubectl cross-checks. For
// the route, our informers get the Service's watch events half a second late, as on a busy
// machine: the cache then holds the Service before the write when the wait begins.
import type { Subscription } from 'rxjs';
import type { V1EndpointSlice, V1Service } from '../../src/kube/objects.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InformerRegistry } from '../../src/informers/registry.js';
import type { KubernetesClient } from '../../src/kube/client.js';
import type { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { provision } from '../../src/workload/operations/provision.js';
import { remove } from '../../src/workload/operations/remove.js';
import { endpointSliceSnapshots, serviceSnapshots } from '../../src/members/service/member.js';
import { setPorts } from '../../src/workload/operations/set-ports.js';
import { status } from '../../src/workload/reads/status.js';
import { clusterEnv } from '../support/cluster-env.js';
import { apiFor, createNamespace, kubectl, kubectlJson, sampleSpec, uniqueName } from '../support/kube.js';
import { runNode } from '../support/run-process.js';

const TIMEOUT = { timeoutMs: 60_000 };

let namespace: string;
let api: KubernetesApi;
beforeAll(() => {
  namespace = createNamespace('it-service-waits');
  api = apiFor();
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

function liveService(name: string): V1Service {
  return kubectlJson<V1Service>(['get', 'service', name, '-n', namespace]);
}

function slicesOf(name: string): V1EndpointSlice[] {
  return kubectlJson<{ items: V1EndpointSlice[] }>(['get', 'endpointslices', '-n', namespace, '-l', `kubernetes.io/service-name=${name}`])
    .items;
}

/** The ports the real EndpointSlice controller lists for the Service now. */
function slicePorts(name: string): number[] {
  return slicesOf(name)
    .flatMap((slice) => (slice.ports ?? []).map((port) => port.port ?? 0))
    .sort((a, b) => a - b);
}

/**
 * The same API server, its Service watch events handed to our informers `lagMs` late (in
 * order): the moment, on a busy machine, when a running informer still holds the Service
 * as it was before our write. Everything else goes straight through.
 */
function laggingServiceWatch(client: KubernetesApi, lagMs: number): KubernetesClient {
  const watch: KubernetesClient['watch'] = (kind, ns, params, handlers) => {
    if (kind !== 'services') return client.watch(kind, ns, params, handlers);
    const timers = new Set<ReturnType<typeof setTimeout>>();
    const later = (deliver: () => void) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        deliver();
      }, lagMs);
      timers.add(timer);
    };
    const handle = client.watch(kind, ns, params, {
      ...handlers,
      onEvent: (type, object) => later(() => handlers.onEvent(type, object)),
      onClose: (error) => later(() => handlers.onClose(error)),
    });
    return {
      abort: () => {
        timers.forEach(clearTimeout);
        handle.abort();
      },
    };
  };
  return new Proxy(client, {
    get: (target, property) => {
      if (property === 'watch') return watch;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The Service and slice informers of `name`, running from now on: a long-lived caller's. */
function warmInformers(informers: InformerRegistry, client: KubernetesClient, name: string): Subscription[] {
  return [
    serviceSnapshots(informers, client, namespace, name).subscribe(),
    endpointSliceSnapshots(informers, client, namespace, name).subscribe(),
  ];
}

describe('the route wait judges the Service version written, with informers already running (real control plane)', () => {
  it('setPorts: routed only on the new ports; NodePort gets its node address; LoadBalancer without a controller fails by name', async () => {
    const informers = new InformerRegistry();
    const spec = sampleSpec({ namespace, ports: [{ port: 80 }] });
    const name = String(spec.hostname);
    const client = laggingServiceWatch(api, 500);
    const warm = warmInformers(informers, client, name);
    try {
      const created = await provision(client, spec, { ...TIMEOUT, informers });
      const clusterIp = liveService(name).spec?.clusterIP;
      expect(created.address).toBe(clusterIp);

      // A port added: resolved only once the controller's slice carries it (kubectl says so).
      const ported = await setPorts(client, created.providerId, [{ port: 80 }, { port: 8080 }], { ...TIMEOUT, informers });
      expect(ported.service?.ports.map((port) => port.port)).toEqual([80, 8080]);
      expect(slicePorts(name)).toEqual([80, 8080]);

      // NodePort: the node address of the routed Pod, recorded, never the ClusterIP.
      const nodePort = await setPorts(client, created.providerId, [{ port: 80 }, { port: 8080 }], {
        ...TIMEOUT,
        informers,
        serviceType: 'NodePort',
      });
      expect(nodePort.service?.type).toBe('NodePort');
      expect(nodePort.address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(nodePort.address).not.toBe(clusterIp);
      expect(liveService(name).metadata?.annotations?.['org.mieweb.opensource-server.node-address']).toBe(nodePort.address);
      expect(await status(client, created.providerId)).toMatchObject({ address: nodePort.address });

      // LoadBalancer, no load-balancer controller in this cluster: named, after its grace.
      const began = Date.now();
      const failure = await setPorts(client, created.providerId, [{ port: 80 }], {
        ...TIMEOUT,
        informers,
        serviceType: 'LoadBalancer',
        failurePolicy: { loadBalancer: { graceMs: 2_000 } },
      }).catch((error: unknown) => error);
      expect(failure).toMatchObject({ name: 'RolloutFailedError', reason: 'LoadBalancerPending', kind: 'Service' });
      expect(Date.now() - began).toBeGreaterThanOrEqual(2_000);
    } finally {
      warm.forEach((subscription) => subscription.unsubscribe());
    }
  });

  it('a provisioning that rewrites only the Service on drift is ready once the slice carries the new ports', async () => {
    const informers = new InformerRegistry();
    const spec = sampleSpec({ namespace, ports: [{ port: 80 }] });
    const name = String(spec.hostname);
    const client = laggingServiceWatch(api, 500);
    const warm = warmInformers(informers, client, name);
    try {
      await provision(client, spec, { ...TIMEOUT, informers });
      const fixed = await provision(
        client,
        { ...spec, ports: [{ port: 80 }, { port: 9090 }] },
        { ...TIMEOUT, informers, onDrift: 'reconfigure' },
      );
      expect(fixed.service?.ports.map((port) => port.port)).toEqual([80, 9090]);
      expect(slicePorts(name)).toEqual([80, 9090]);
    } finally {
      warm.forEach((subscription) => subscription.unsubscribe());
    }
  });
});

describe('a LoadBalancer that gets no address is named before the timeout, whatever the grace (real control plane)', () => {
  it('kube-provision create --timeout 20s, default grace (60 s): LoadBalancerPending, exit 3, not a timeout (exit 4)', async () => {
    const hostname = uniqueName('lb');
    const began = Date.now();
    const run = await runNode(
      [
        'dist/cli/main.js',
        'create',
        '--container-id',
        String(sampleSpec().containerId),
        '--node-id',
        '9',
        '--hostname',
        hostname,
        '--image',
        'nginx:1.27',
        '--cpus',
        '0.5',
        '--memory-mb',
        '128',
        '--port',
        '80',
        '--service-type',
        'LoadBalancer',
        '-n',
        namespace,
        '--timeout',
        '20s',
      ],
      { env: { ...process.env, KUBECONFIG: clusterEnv().kubeconfigPath } },
    );
    expect(run.stderr).toContain('LoadBalancerPending');
    expect(run.code).toBe(3);
    expect(Date.now() - began).toBeLessThan(20_000 + 15_000);
  });

  it('provision with a grace longer than the timeout: RolloutFailedError LoadBalancerPending before the deadline', async () => {
    const spec = sampleSpec({ namespace, ports: [{ port: 80 }], serviceType: 'LoadBalancer' });
    const began = Date.now();
    const failure = await provision(api, spec, { timeoutMs: 15_000, failurePolicy: { loadBalancer: { graceMs: 600_000 } } }).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ name: 'RolloutFailedError', reason: 'LoadBalancerPending', kind: 'Service' });
    expect(Date.now() - began).toBeLessThan(15_000);
  });
});

describe("delete waits for the Service's EndpointSlices (real control plane)", () => {
  it('does not return while a finalizer holds a slice of the deleted Service; returns once it is gone', async () => {
    const spec = sampleSpec({ namespace, ports: [{ port: 80 }] });
    const name = String(spec.hostname);
    const { providerId } = await provision(api, spec, TIMEOUT);
    const [slice] = slicesOf(name);
    const sliceName = slice?.metadata?.name ?? '';
    expect(sliceName).not.toBe('');
    kubectl([
      'patch',
      'endpointslice',
      sliceName,
      '-n',
      namespace,
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":["example.com/hold"]}}',
    ]);
    let settled = false;
    const removal = remove(api, providerId, { ...TIMEOUT, containerId: String(spec.containerId) }).finally(() => (settled = true));
    // kubectl: the Service goes, its slice stays, terminating, held by the finalizer.
    await expect
      .poll(() => kubectl(['get', 'service', name, '-n', namespace, '--ignore-not-found', '-o', 'name']).trim(), { timeout: 30_000 })
      .toBe('');
    await expect
      .poll(() => kubectlJson<V1EndpointSlice>(['get', 'endpointslice', sliceName, '-n', namespace]).metadata?.deletionTimestamp, {
        timeout: 30_000,
      })
      .toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(settled).toBe(false);
    kubectl(['patch', 'endpointslice', sliceName, '-n', namespace, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await expect(removal).resolves.toMatchObject({ changed: true });
    expect(slicesOf(name)).toEqual([]);
  });
});
