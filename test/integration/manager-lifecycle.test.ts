// The Manager adapter's lifecycle on the real control plane, for a Kubernetes node: a
// container created through the provider, then stopped, started and removed through
// containerLifecycle(registry), with kubectl as the independent witness.
import { asyncScheduler, lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerLifecycle } from '../../src/manager/lifecycle.js';
import { createKubernetesProvider } from '../../src/manager/providers/kubernetes.js';
import { ProviderRegistry } from '../../src/manager/providers/registry.js';
import type { ContainerRecord, ProvisionedEvent } from '../../src/manager/providers/types.js';
import { kubernetesRecord } from '../support/manager-record.js';
import { createNamespace, kubectl, kubectlJson } from '../support/kube.js';

let namespace: string;

beforeAll(() => {
  namespace = createNamespace('it-mgr-life');
});

afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

/** A Manager container row on this cluster's node, not yet provisioned. */
function kubeRecord(id: number, environment: Record<string, string> = {}): ContainerRecord {
  return kubernetesRecord(
    {
      id,
      hostname: `life-${id}`,
      environment,
      resources: { cpus: 1, memoryMb: 256, swapMb: 0, rootfsGb: 1 },
      // An HTTP service on 80: the container gets a Service, and its address is the row's ipv4Address.
      services: [{ id: 1, type: 'http', internalPort: 80 }],
    },
    { namespace },
  );
}

describe('containerLifecycle on a Kubernetes node (real control plane)', () => {
  it('stop, status, start, reconfigure, remove: one call each, whatever the node type; the row keeps the Service address throughout', async () => {
    const provider = createKubernetesProvider({ timeoutMs: 60_000 });
    const registry = new ProviderRegistry([provider]);
    const record = kubeRecord(901, { APP_MODE: 'test' });
    const provisioned = (await lastValueFrom(provider.provision$(record, { clock: asyncScheduler }))) as ProvisionedEvent;
    const saved = { ...record, providerId: provisioned.providerId };
    expect(saved.providerId).toBe(`${namespace}/life-901`);
    const clusterIp = kubectlJson<{ spec: { clusterIP: string } }>(['get', 'service', 'life-901', '-n', namespace]).spec.clusterIP;
    expect(provisioned.ipAddress).toBe(clusterIp);

    const lifecycle = containerLifecycle(registry);
    const running = await lifecycle.status(saved);
    expect(running.state).toBe('running');

    expect(await lifecycle.stop(saved)).toMatchObject({ operation: 'stop', changed: true });
    expect(kubectlJson<{ spec: { replicas: number } }>(['get', 'deployment', 'life-901', '-n', namespace]).spec.replicas).toBe(0);
    // Stopped: no Pod, but the Service and its address stay.
    expect(await lifecycle.status(saved)).toMatchObject({ state: 'offline', ipAddress: clusterIp, podIp: null });

    const started = await lifecycle.start(saved);
    expect(started).toMatchObject({ operation: 'start', changed: true, network: { macAddress: null, ipAddress: clusterIp } });
    const pods = kubectlJson<{ items: { status: { podIP?: string } }[] }>([
      'get',
      'pods',
      '-n',
      namespace,
      '-l',
      'org.mieweb.opensource-server.container-id=901',
    ]);
    // The Pod IP (new with the new Pod) is only shown beside the address.
    const afterStart = await lifecycle.status(saved);
    expect(afterStart).toMatchObject({ state: 'running', ipAddress: clusterIp });
    expect(pods.items.map((pod) => pod.status.podIP)).toContain(afterStart.podIp);

    // Reconfigure applies the row as it now is: a variable removed from it is removed.
    const edited = { ...saved, environment: { NEW_FLAG: 'on' } };
    expect(await lifecycle.reconfigure(edited)).toMatchObject({
      operation: 'reconfigure',
      changed: true,
      network: { macAddress: null, ipAddress: clusterIp },
    });
    const env = kubectlJson<{ spec: { template: { spec: { containers: { env?: { name: string; value: string }[] }[] } } } }>([
      'get',
      'deployment',
      'life-901',
      '-n',
      namespace,
    ]).spec.template.spec.containers[0]?.env;
    expect(env).toEqual([{ name: 'NEW_FLAG', value: 'on' }]);

    expect(await lifecycle.remove(saved)).toMatchObject({ operation: 'remove', changed: true });
    expect((await lifecycle.status(saved)).state).toBe('missing');
  }, 120_000);

  it('rollbackOnFailure: a reconfigure the cluster cannot schedule is named, and the container runs on its old settings again', async () => {
    const provider = createKubernetesProvider({ timeoutMs: 60_000, rollbackOnFailure: true });
    const record = kubeRecord(902);
    const provisioned = (await lastValueFrom(provider.provision$(record, { clock: asyncScheduler }))) as ProvisionedEvent;
    const saved = { ...record, providerId: provisioned.providerId };
    const lifecycle = containerLifecycle(new ProviderRegistry([provider]));

    // More CPU than the node has: the new Pod stays Pending, Unschedulable.
    const failure = await lifecycle.reconfigure({ ...saved, resources: { ...saved.resources, cpus: 1024 } }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: 'ReconfigureFailedError', reason: 'Unschedulable', restored: true });
    const container = kubectlJson<{ spec: { template: { spec: { containers: { resources: { requests: { cpu: string } } }[] } } } }>([
      'get',
      'deployment',
      'life-902',
      '-n',
      namespace,
    ]).spec.template.spec.containers[0];
    expect(container?.resources.requests.cpu).toBe('1');
    expect((await lifecycle.status(saved)).state).toBe('running');
  }, 120_000);
});
