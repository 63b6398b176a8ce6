// Unit tests of the Kubernetes provider with an injected fake provision$ and a fake client
// factory (no cluster): the record's mapping to the workload spec, the node config
// defaults, and that the library's events pass through unchanged.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncScheduler, lastValueFrom, of, throwError, toArray } from 'rxjs';
import type { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { InvalidSpecError, RolloutFailedError } from '../../../../src/errors.js';
import type { KubernetesClient } from '../../../../src/kube/client.js';
import { createKubernetesProvider, kubernetesNodeConfig, workloadInput } from '../../../../src/manager/providers/kubernetes.js';
import type { KubernetesNodeConfig, ProvisionFunction } from '../../../../src/manager/providers/kubernetes.js';
import { parseWorkloadSpec } from '../../../../src/spec/workload-spec.js';
import type { ProvisionEvent, RolloutStatus } from '../../../../src/rollout/events.js';
import { containerRecord } from './fixtures.js';

const kubeNode = {
  id: 3,
  name: 'k8s-east',
  nodeType: 'kubernetes',
  kubeconfigPath: '/etc/manager/east.kubeconfig',
  kubeContext: 'east-admin',
  kubeNamespace: 'team-a',
};

const status: RolloutStatus = {
  state: 'InProgress',
  reason: 'WaitingForAvailable',
  message: '0 of 1 replicas available',
  generation: 1,
  observedGeneration: 1,
  replicas: { desired: 1, total: 1, updated: 1, ready: 0, available: 0 },
};

function libraryEvents(providerId = 'team-a/web-42'): ProvisionEvent[] {
  const base = { namespace: 'team-a', name: 'web-42', providerId };
  return [
    { type: 'created', at: '2025-01-01T00:00:00.000Z', uid: 'uid-1', ...base },
    { type: 'progress', at: '2025-01-01T00:00:01.000Z', status, message: '0/1 ready', ...base },
    { type: 'ready', at: '2025-01-01T00:00:05.000Z', adopted: false, durationMs: 5000, ...base },
  ];
}

/** A stand-in KubernetesClient: the provider only hands it to provision$. */
const fakeApi = { namespace: 'team-a', server: 'https://east.example:6443' } as KubernetesClient;

interface ProvisionCall {
  api: KubernetesClient;
  input: unknown;
  options: Parameters<ProvisionFunction>[2];
}

function fakeProvision(result: () => Observable<ProvisionEvent>, calls: ProvisionCall[]): ProvisionFunction {
  return (api, input, options) => {
    calls.push({ api, input, options });
    return result();
  };
}

describe('kubernetesNodeConfig', () => {
  it("defaults the namespace to 'default' and keeps TLS verification on", () => {
    expect(kubernetesNodeConfig({ id: 1, name: 'k', nodeType: 'kubernetes' })).toEqual({
      kubeconfigPath: undefined,
      kubeContext: undefined,
      kubeNamespace: 'default',
      tlsVerify: true,
    });
  });

  it('turns TLS verification off only for an explicit false', () => {
    expect(kubernetesNodeConfig({ ...kubeNode, tlsVerify: false }).tlsVerify).toBe(false);
    expect(kubernetesNodeConfig({ ...kubeNode, tlsVerify: null }).tlsVerify).toBe(true);
  });
});

describe('workloadInput', () => {
  it('maps the record onto a spec that parseWorkloadSpec accepts', () => {
    const record = containerRecord({
      node: kubeNode,
      nvidiaRequested: true,
      entrypoint: 'python -m http.server 8080',
      environment: { APP_MODE: 'production', TZ: 'Europe/Berlin' },
    });
    const spec = parseWorkloadSpec(workloadInput(record, kubernetesNodeConfig(record.node)));
    expect(spec).toEqual({
      containerId: '42',
      nodeId: '3',
      hostname: 'web-42',
      image: 'docker.io/library/nginx:latest',
      cpus: 2,
      memoryMb: 2048,
      // system default < NVIDIA defaults < user: the user's TZ wins.
      env: {
        TZ: 'Europe/Berlin',
        NVIDIA_VISIBLE_DEVICES: 'all',
        NVIDIA_DRIVER_CAPABILITIES: 'utility compute',
        APP_MODE: 'production',
      },
      entrypoint: ['python', '-m', 'http.server', '8080'],
      namespace: 'team-a',
    });
  });

  it("leaves a blank entrypoint out, so the image's own Entrypoint runs", () => {
    const record = containerRecord({ node: kubeNode, entrypoint: '   ' });
    expect(parseWorkloadSpec(workloadInput(record, kubernetesNodeConfig(record.node)))).not.toHaveProperty('entrypoint');
  });
});

describe('kubernetes provider', () => {
  it('passes the library events through unchanged and ends with the Deployment provider ID', async () => {
    const events = libraryEvents();
    const calls: ProvisionCall[] = [];
    const configs: KubernetesNodeConfig[] = [];
    const provider = createKubernetesProvider({
      provision$: fakeProvision(() => of(...events), calls),
      clientFor: (config) => {
        configs.push(config);
        return fakeApi;
      },
      timeoutMs: 60_000,
    });
    const controller = new AbortController();
    const record = containerRecord({ node: kubeNode });

    const emitted = await lastValueFrom(provider.provision$(record, { clock: asyncScheduler, signal: controller.signal }).pipe(toArray()));

    expect(emitted.slice(0, 3)).toEqual(events);
    emitted.slice(0, 3).forEach((event, index) => expect(event).toBe(events[index]));
    expect(emitted[3]).toEqual({
      type: 'provisioned',
      at: '2025-01-01T00:00:05.000Z',
      provider: 'kubernetes',
      providerId: 'team-a/web-42',
      macAddress: null,
      ipAddress: null,
    });
    expect(emitted).toHaveLength(4);
    expect(configs).toEqual([
      { kubeconfigPath: '/etc/manager/east.kubeconfig', kubeContext: 'east-admin', kubeNamespace: 'team-a', tlsVerify: true },
    ]);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.api).toBe(fakeApi);
    expect(calls[0]?.input).toEqual(workloadInput(record, kubernetesNodeConfig(record.node)));
    expect(calls[0]?.options).toEqual({ timeoutMs: 60_000, signal: controller.signal, scheduler: asyncScheduler });
  });

  it('is cold: nothing is built or provisioned until subscribed', () => {
    const calls: ProvisionCall[] = [];
    let clients = 0;
    const provider = createKubernetesProvider({
      provision$: fakeProvision(() => of(...libraryEvents()), calls),
      clientFor: () => {
        clients += 1;
        return fakeApi;
      },
    });
    provider.provision$(containerRecord({ node: kubeNode }), { clock: asyncScheduler });
    expect(clients).toBe(0);
    expect(calls).toEqual([]);
  });

  it("rethrows provision$'s typed error as it is", async () => {
    const failure = new RolloutFailedError({ namespace: 'team-a', name: 'web-42' }, 'ImagePullBackOff', 'not found');
    const provider = createKubernetesProvider({
      provision$: fakeProvision(() => throwError(() => failure), []),
      clientFor: () => fakeApi,
    });
    await expect(lastValueFrom(provider.provision$(containerRecord({ node: kubeNode }), { clock: asyncScheduler }))).rejects.toBe(failure);
  });

  it("rethrows the client factory's error (e.g. a missing kubeconfig) without provisioning", async () => {
    const calls: ProvisionCall[] = [];
    const missing = new Error('kubeconfig missing');
    const provider = createKubernetesProvider({
      provision$: fakeProvision(() => of(...libraryEvents()), calls),
      clientFor: () => Promise.reject(missing),
    });
    await expect(lastValueFrom(provider.provision$(containerRecord({ node: kubeNode }), { clock: asyncScheduler }))).rejects.toBe(missing);
    expect(calls).toEqual([]);
  });

  it("uses the library's provision$ by default: a record without an image fails validation, no request sent", async () => {
    // A client whose every method throws: validation must fail before any request.
    const untouchable = new Proxy({ namespace: 'team-a', server: 'https://east.example:6443' } as KubernetesClient, {
      get(target, property) {
        if (property in target || property === 'then') return Reflect.get(target, property);
        return () => {
          throw new Error(`unexpected request: ${String(property)}`);
        };
      },
    });
    const provider = createKubernetesProvider({ clientFor: () => untouchable });
    const failure = lastValueFrom(provider.provision$(containerRecord({ node: kubeNode, template: null }), { clock: asyncScheduler }));
    await expect(failure).rejects.toBeInstanceOf(InvalidSpecError);
    await expect(failure).rejects.toMatchObject({ issues: [expect.objectContaining({ path: 'image' })] });
  });
});

describe('kubernetes provider: one client per node config', () => {
  it('reuses one KubernetesApi for every provisioning on the same node, so they share informers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kp-provider-'));
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfigPath,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'east-admin',
        clusters: [{ name: 'east', cluster: { server: 'https://east.example:6443' } }],
        users: [{ name: 'admin', user: { token: 'kp-test-token' } }],
        contexts: [{ name: 'east-admin', context: { cluster: 'east', user: 'admin' } }],
      }),
    );
    const calls: ProvisionCall[] = [];
    const provider = createKubernetesProvider({ provision$: fakeProvision(() => of(...libraryEvents()), calls) });
    const node = { ...kubeNode, kubeconfigPath };
    const otherNamespace = { ...node, kubeNamespace: 'team-b' };
    for (const n of [node, node, otherNamespace]) {
      await lastValueFrom(provider.provision$(containerRecord({ node: n }), { clock: asyncScheduler }).pipe(toArray()));
    }
    expect(calls[0]?.api).toBe(calls[1]?.api);
    expect(calls[2]?.api).not.toBe(calls[0]?.api);
    expect(calls[0]?.api.namespace).toBe('team-a');
    expect(calls[2]?.api.namespace).toBe('team-b');
  });
});
