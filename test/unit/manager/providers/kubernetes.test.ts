// Unit tests of the Kubernetes provider with an injected fake provision$ and a fake client
// factory (no cluster): the record's mapping to the workload spec, the node config
// defaults, and that the library's events pass through unchanged.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncScheduler, lastValueFrom, of, throwError, toArray } from 'rxjs';
import type { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { InvalidSpecError } from '../../../../src/errors/input.js';
import { KubeconfigNotFoundError } from '../../../../src/errors/kubeconfig.js';
import { RolloutFailedError } from '../../../../src/errors/rollout.js';
import type { KubernetesClient } from '../../../../src/kube/client.js';
import { createKubernetesProvider, workloadInput } from '../../../../src/manager/providers/kubernetes.js';
import { kubernetesNodeConfig } from '../../../../src/manager/node-config.js';
import type { ProvisionFunction } from '../../../../src/manager/providers/kubernetes.js';
import { KubernetesNodeConfigError, NodeSettingError } from '../../../../src/manager/errors.js';
import { NotFoundError, UnauthorizedError } from '../../../../src/errors/api.js';
import { NoDefaultStorageClassError, StorageClassNotFoundError } from '../../../../src/workload/operations/storage-class-choice.js';
import type { NodeRecord } from '../../../../src/manager/providers/types.js';
import { parseWorkloadSpec } from '../../../../src/input/workload-spec.js';
import type { ProvisionEvent, RolloutStatus } from '../../../../src/rollout/events.js';
import { containerRecord, recordingOperations } from './fixtures.js';

const kubeNode = {
  id: 3,
  name: 'k8s-east',
  nodeType: 'kubernetes',
  kubeconfigPath: '/etc/manager/east.kubeconfig',
  kubeContext: 'east-admin',
  kubeNamespace: 'team-a',
  kubePersistence: 'off',
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
    { type: 'ready', at: '2025-01-01T00:00:05.000Z', adopted: false, durationMs: 5000, address: '10.96.0.9', service: null, ...base },
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

describe('kubernetesNodeConfig: the cluster comes from the node record only', () => {
  it("a kubeconfig node: its path and context; namespace 'default' and TLS verification on unless set", () => {
    expect(kubernetesNodeConfig({ id: 1, name: 'k', nodeType: 'kubernetes', kubeconfigPath: '/etc/k.kubeconfig' })).toEqual({
      credentials: 'kubeconfig',
      kubeconfigPath: '/etc/k.kubeconfig',
      kubeContext: undefined,
      kubeNamespace: 'default',
      tlsVerify: true,
      gpu: { resource: 'nvidia.com/gpu', runtimeClass: undefined },
    });
    expect(kubernetesNodeConfig(kubeNode)).toMatchObject({ kubeContext: 'east-admin', kubeNamespace: 'team-a' });
  });

  it("a token node: Manager's apiUrl and secret columns (the secret stays out of the config)", () => {
    const node = { id: 2, name: 'k8s-west', nodeType: 'kubernetes', apiUrl: 'https://west.example:6443', secret: 's3cr3t-token' };
    expect(kubernetesNodeConfig(node)).toEqual({
      credentials: 'token',
      apiUrl: 'https://west.example:6443',
      kubeNamespace: 'default',
      tlsVerify: true,
      gpu: { resource: 'nvidia.com/gpu', runtimeClass: undefined },
    });
    expect(JSON.stringify(kubernetesNodeConfig(node))).not.toContain('s3cr3t');
  });

  it('turns TLS verification off only for an explicit false', () => {
    expect(kubernetesNodeConfig({ ...kubeNode, tlsVerify: false }).tlsVerify).toBe(false);
    expect(kubernetesNodeConfig({ ...kubeNode, tlsVerify: null }).tlsVerify).toBe(true);
  });

  it.each([
    ['kubeconfigPath', { kubeconfigPath: null, kubeContext: null }, /kubeconfigPath is missing: .*never uses the process's \$KUBECONFIG/],
    ['kubeconfigPath', { kubeconfigPath: '', kubeContext: null, apiUrl: '' }, /kubeconfigPath is missing/],
    [
      'secret',
      { kubeconfigPath: null, kubeContext: null, apiUrl: 'https://east.example:6443' },
      /secret is missing: apiUrl needs the bearer token/,
    ],
    ['apiUrl', { apiUrl: 'https://east.example:6443', secret: 't' }, /apiUrl is set as well as kubeconfigPath/],
    [
      'kubeContext',
      { kubeconfigPath: null, apiUrl: 'https://east.example:6443', secret: 't' },
      /kubeContext applies only with kubeconfigPath/,
    ],
  ])('refuses a node without a usable config, naming the node and the column (%s)', (field, change, message) => {
    let error: unknown;
    try {
      kubernetesNodeConfig({ ...kubeNode, ...change });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(KubernetesNodeConfigError);
    expect(error).toMatchObject({ nodeName: 'k8s-east', nodeId: 3, field });
    expect((error as Error).message).toMatch(/^Kubernetes node k8s-east \(id 3\): /);
    expect((error as Error).message).toMatch(message);
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
    const spec = parseWorkloadSpec(workloadInput(record));
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
      // nvidiaRequested: one GPU of the node's resource (kubeGpuResource unset: the default).
      gpus: 1,
      gpuResource: 'nvidia.com/gpu',
    });
  });

  it("leaves a blank entrypoint out, so the image's own Entrypoint runs", () => {
    const record = containerRecord({ node: kubeNode, entrypoint: '   ' });
    expect(parseWorkloadSpec(workloadInput(record))).not.toHaveProperty('entrypoint');
  });

  it('carries the instance, and leaves the namespace to the client when the node names none', () => {
    const record = containerRecord({ node: { ...kubeNode, kubeNamespace: null } });
    expect(parseWorkloadSpec(workloadInput(record, 'manager-prod'))).toMatchObject({ instance: 'manager-prod' });
    expect(parseWorkloadSpec(workloadInput(record))).not.toHaveProperty('namespace');
    expect(parseWorkloadSpec(workloadInput(record))).not.toHaveProperty('instance');
  });

  it("a system container (Manager's entrypoint /sbin/init) gets the node's kubeSystemRuntimeClass; kubeUserNamespaces on gives every container hostUsers false", () => {
    const node = { ...kubeNode, kubeSystemRuntimeClass: 'cgroup-writable', kubeUserNamespaces: 'on' };
    const system = parseWorkloadSpec(workloadInput(containerRecord({ node, entrypoint: '/sbin/init' })));
    expect(system).toMatchObject({ entrypoint: ['/sbin/init'], runtimeClass: 'cgroup-writable', hostUsers: false });
    const ordinary = parseWorkloadSpec(workloadInput(containerRecord({ node, entrypoint: 'nginx -g "daemon off;"' })));
    expect(ordinary).not.toHaveProperty('runtimeClass');
    expect(ordinary).toMatchObject({ hostUsers: false });
    const plainNode = parseWorkloadSpec(workloadInput(containerRecord({ node: kubeNode, entrypoint: '/sbin/init' })));
    expect(plainNode).not.toHaveProperty('runtimeClass');
    expect(plainNode).not.toHaveProperty('hostUsers');
    // A GPU container's class wins: one class is all a Pod has.
    const gpu = parseWorkloadSpec(
      workloadInput(containerRecord({ node: { ...node, kubeGpuRuntimeClass: 'nvidia' }, entrypoint: '/sbin/init', nvidiaRequested: true })),
    );
    expect(gpu).toMatchObject({ runtimeClass: 'nvidia', gpus: 1 });
    expect(() => kubernetesNodeConfig({ ...kubeNode, kubeUserNamespaces: 'yes' })).toThrow(/kubeUserNamespaces must be "on" or "off"/);
    expect(() => workloadInput(containerRecord({ node: { ...kubeNode, kubeSystemRuntimeClass: 'Bad_Class' } }))).toThrow(
      /kubeSystemRuntimeClass must be a DNS-1123 subdomain/,
    );
  });

  it("gives every container a volume sized by the approved rootfs, on the node's class and paths; only kubePersistence off turns it off", () => {
    const on = containerRecord({ node: { ...kubeNode, kubePersistence: null } });
    expect(parseWorkloadSpec(workloadInput(on)).storage).toEqual({
      sizeGb: on.resources.rootfsGb,
      paths: ['/etc', '/home', '/opt', '/root', '/srv', '/usr', '/var'],
      seed: 'image',
    });
    const configured = containerRecord({
      node: { ...kubeNode, kubePersistence: 'on', kubeStorageClass: 'fast-ssd', kubePersistPaths: ' /home  /var/lib ' },
    });
    expect(parseWorkloadSpec(workloadInput(configured)).storage).toEqual({
      sizeGb: configured.resources.rootfsGb,
      storageClass: 'fast-ssd',
      paths: ['/home', '/var/lib'],
      seed: 'image',
    });
    expect(parseWorkloadSpec(workloadInput(containerRecord({ node: kubeNode }))).storage).toBeUndefined();
    expect(() => kubernetesNodeConfig({ ...kubeNode, kubePersistence: 'maybe' })).toThrow(/kubePersistence must be "on" or "off"/);
  });
});

describe('kubernetes provider', () => {
  it('passes the library events through unchanged and ends with the Deployment provider ID', async () => {
    const events = libraryEvents();
    const calls: ProvisionCall[] = [];
    const statusCalls: unknown[][] = [];
    const nodes: NodeRecord[] = [];
    const provider = createKubernetesProvider({
      provision$: fakeProvision(() => of(...events), calls),
      clientFor: (node) => {
        nodes.push(node);
        return fakeApi;
      },
      timeoutMs: 60_000,
      instance: 'manager-prod',
      keepOnFailure: true,
      operations: recordingOperations(statusCalls, '10.244.0.9'),
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
      ipAddress: '10.96.0.9',
      // What the Deployment reserves, for Manager's NetBox step; no volume on this node (kubePersistence off).
      resources: { cores: 2, memoryMb: 2048, diskGb: null },
    });
    expect(emitted).toHaveLength(4);
    // The address is the ready event's (the Service's): no second read for it.
    expect(statusCalls).toEqual([]);
    // The factory gets the node record itself, to build the client from Manager's storage.
    expect(nodes).toEqual([record.node]);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.api).toBe(fakeApi);
    expect(calls[0]?.input).toEqual(workloadInput(record, 'manager-prod'));
    expect(calls[0]?.options).toEqual({ timeoutMs: 60_000, keepOnFailure: true, signal: controller.signal, scheduler: asyncScheduler });
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

  it('names the node column to change for a failure a column fixes (issue 42, item 4), never the library option or CLI flag', async () => {
    const fails = (failure: Error, node: Record<string, unknown> = kubeNode) =>
      lastValueFrom(
        createKubernetesProvider({ provision$: fakeProvision(() => throwError(() => failure), []), clientFor: () => fakeApi }).provision$(
          containerRecord({ node: node }),
          { clock: asyncScheduler },
        ),
      ).catch((error: unknown) => error);

    const noDefault = new NoDefaultStorageClassError(['fast', 'slow']);
    const storage = await fails(noDefault, { ...kubeNode, kubePersistence: null });
    expect(storage).toBeInstanceOf(NodeSettingError);
    expect(storage).toMatchObject({ column: 'kubeStorageClass', nodeName: 'k8s-east', nodeId: 3, cause: noDefault });
    expect((storage as Error).message).toBe(
      'Kubernetes node k8s-east (id 3): kubeStorageClass is empty and the cluster has no default StorageClass, so no container on this node can get its volume: ' +
        'set kubeStorageClass to one of fast, slow, or set kubePersistence to off (each container then loses its files with its Pod)',
    );
    expect((storage as Error).message).not.toMatch(/storage\.storageClass|--storage-class/);

    const namespace = await fails(new NotFoundError('namespaces "mgr" not found'));
    expect(namespace).toMatchObject({ name: 'NodeSettingError', column: 'kubeNamespace' });
    expect((namespace as Error).message).toBe(
      'Kubernetes node k8s-east (id 3): kubeNamespace names a namespace the cluster does not have (mgr): create it, or name an existing one',
    );

    const named = await fails(new StorageClassNotFoundError('gold'), { ...kubeNode, kubePersistence: null, kubeStorageClass: 'gold' });
    expect(named).toMatchObject({ column: 'kubeStorageClass' });
    const token = await fails(new UnauthorizedError('https://east.example:6443', {}), {
      id: 3,
      name: 'k8s-east',
      apiUrl: 'https://east.example:6443',
      secret: 't',
    });
    expect(token).toMatchObject({ column: 'secret' });
    // A failure no column fixes keeps its own class.
    const rollout = new RolloutFailedError({ namespace: 'team-a', name: 'web-42' }, 'ImagePullBackOff', 'not found');
    expect(await fails(rollout)).toBe(rollout);
  });

  it('reports the volume the container asks for as its disk when the node keeps one', async () => {
    const provider = createKubernetesProvider({ provision$: fakeProvision(() => of(...libraryEvents()), []), clientFor: () => fakeApi });
    const record = containerRecord({ node: { ...kubeNode, kubePersistence: null } });
    const emitted = await lastValueFrom(provider.provision$(record, { clock: asyncScheduler }).pipe(toArray()));
    expect(emitted.at(-1)).toMatchObject({ type: 'provisioned', resources: { cores: 2, memoryMb: 2048, diskGb: 20 } });
  });

  it.each(['start$', 'stop$', 'restart$', 'reconfigure$', 'remove$', 'setPorts$'] as const)(
    'a kubeconfig gone since the node was saved fails %s naming kubeconfigPath (the factory throws as it is called)',
    async (operation) => {
      const missing = new KubeconfigNotFoundError('/etc/manager/east.kubeconfig');
      const provider = createKubernetesProvider({
        clientFor: () => {
          throw missing;
        },
        operations: recordingOperations([], '10.96.0.9'),
      });
      const record = containerRecord({ node: kubeNode, providerId: 'team-a/web-42' });
      const failed = await lastValueFrom(provider.lifecycle![operation]!(record, { clock: asyncScheduler })).catch(
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(NodeSettingError);
      expect(failed).toMatchObject({ column: 'kubeconfigPath', cause: missing });
    },
  );

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
    // A client whose every method throws: validation must fail before any request. (Its
    // masking, `scrub`, is no request: the error is masked on its way out.)
    const untouchable = new Proxy(
      { namespace: 'team-a', server: 'https://east.example:6443', scrub: (text: string) => text } as KubernetesClient,
      {
        get(target, property) {
          if (property in target || property === 'then') return Reflect.get(target, property);
          return () => {
            throw new Error(`unexpected request: ${String(property)}`);
          };
        },
      },
    );
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

describe('kubernetes provider: the default client factory reads the node only', () => {
  it('a node without a kubeconfig or token fails typed, before any client or request, even with $KUBECONFIG set', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kp-provider-'));
    const ambient = join(dir, 'ambient-kubeconfig');
    writeFileSync(
      ambient,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'c',
        clusters: [{ name: 'c', cluster: { server: 'https://ambient.example:6443' } }],
        users: [{ name: 'u', user: { token: 'ambient-token' } }],
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      }),
    );
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = ambient;
    try {
      const calls: ProvisionCall[] = [];
      const provider = createKubernetesProvider({ provision$: fakeProvision(() => of(...libraryEvents()), calls) });
      const bare = { id: 3, name: 'k8s-east', nodeType: 'kubernetes', kubeNamespace: 'team-a' };
      const failure = lastValueFrom(provider.provision$(containerRecord({ node: bare }), { clock: asyncScheduler }));
      await expect(failure).rejects.toBeInstanceOf(KubernetesNodeConfigError);
      await expect(failure).rejects.toMatchObject({ nodeName: 'k8s-east', field: 'kubeconfigPath' });
      expect(calls).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });

  it('a token node gets a client for its apiUrl, one per distinct node config', async () => {
    const calls: ProvisionCall[] = [];
    const provider = createKubernetesProvider({ provision$: fakeProvision(() => of(...libraryEvents()), calls) });
    const node = { id: 4, name: 'k8s-west', nodeType: 'kubernetes', apiUrl: 'https://west.example:6443/', secret: 'token-a' };
    for (const n of [node, node, { ...node, secret: 'token-b' }]) {
      await lastValueFrom(provider.provision$(containerRecord({ node: n }), { clock: asyncScheduler }).pipe(toArray()));
    }
    expect(calls[0]?.api).toBe(calls[1]?.api);
    expect(calls[2]?.api).not.toBe(calls[0]?.api);
    expect(calls[0]?.api).toMatchObject({ server: 'https://west.example:6443', namespace: 'default', context: '' });
  });

  it("a bad apiUrl or secret is named by the node's column, never quoting the secret", async () => {
    const provider = createKubernetesProvider({ provision$: fakeProvision(() => of(...libraryEvents()), []) });
    const node = { id: 4, name: 'k8s-west', nodeType: 'kubernetes', apiUrl: 'http://west.example:6443', secret: 'token-a' };
    const plainHttp = lastValueFrom(provider.provision$(containerRecord({ node }), { clock: asyncScheduler }));
    await expect(plainHttp).rejects.toMatchObject({ name: 'KubernetesNodeConfigError', field: 'apiUrl' });
    const spaced = lastValueFrom(
      provider.provision$(containerRecord({ node: { ...node, apiUrl: 'https://west.example', secret: 'tok en-x9' } }), {
        clock: asyncScheduler,
      }),
    );
    await expect(spaced).rejects.toMatchObject({ name: 'KubernetesNodeConfigError', field: 'secret' });
    expect(String(await spaced.catch((e: unknown) => e))).not.toContain('en-x9');
  });
});
