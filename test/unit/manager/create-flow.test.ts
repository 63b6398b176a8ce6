// Unit tests of the create flow with fakes: the in-memory store, recording fakes of
// Manager's node clients (every unscripted method throws), and a fake provision$ for the
// Kubernetes provider. No cluster, no hypervisor.
import { EMPTY, lastValueFrom, of, throwError, toArray, VirtualTimeScheduler } from 'rxjs';
import type { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ProvisionAbortedError, RolloutFailedError } from '../../../src/errors/rollout.js';
import type { KubernetesClient } from '../../../src/kube/client.js';
import { createContainer, createContainer$ } from '../../../src/manager/create-flow.js';
import type { CreateContainerOptions, CreateFlowEvent } from '../../../src/manager/create-flow.js';
import {
  AlreadyProvisionedError,
  ContainerLoadError,
  ContainerNotFoundError,
  ProviderIdNotSavedError,
  ProviderOutcomeMissingError,
  ProviderStepError,
  UnknownNodeTypeError,
} from '../../../src/manager/errors.js';
import { createDockerProvider } from '../../../src/manager/providers/docker.js';
import { createDummyProvider } from '../../../src/manager/providers/dummy.js';
import { createKubernetesProvider } from '../../../src/manager/providers/kubernetes.js';
import type { ProvisionFunction } from '../../../src/manager/providers/kubernetes.js';
import { createProxmoxProvider } from '../../../src/manager/providers/proxmox.js';
import { ProviderRegistry } from '../../../src/manager/providers/registry.js';
import type { ContainerRecord, Provider } from '../../../src/manager/providers/types.js';
import type { ContainerStore } from '../../../src/manager/store/container-store.js';
import { MemoryContainerStore } from '../../../src/manager/store/memory-store.js';
import type { ProvisionEvent } from '../../../src/rollout/events.js';
import { containerRecord, recordingClient, recordingOperations } from './providers/fixtures.js';
import type { RecordedCall } from './providers/fixtures.js';

const kubeNode = { id: 3, name: 'k8s-east', nodeType: 'kubernetes', kubeNamespace: 'team-a', kubePersistence: 'off' };
const fakeApi = { namespace: 'team-a', server: 'https://east.example:6443' } as KubernetesClient;

function rolloutEvents(): ProvisionEvent[] {
  const base = { namespace: 'team-a', name: 'web-42', providerId: 'team-a/web-42' };
  return [
    { type: 'created', at: '2025-01-01T00:00:00.000Z', uid: 'uid-1', ...base },
    { type: 'ready', at: '2025-01-01T00:00:03.000Z', adopted: false, durationMs: 3000, address: '10.96.0.9', service: null, ...base },
  ];
}

/**
 * All four providers. Proxmox and Docker get clients whose every method throws and is
 * recorded, and their factories are recorded too, so any touch of them shows.
 */
function allProviders(kubernetesRun: () => Observable<ProvisionEvent> = () => of(...rolloutEvents())) {
  const lxcCalls: RecordedCall[] = [];
  const proxmoxClient = recordingClient({}, lxcCalls);
  const dockerClient = recordingClient({}, lxcCalls);
  const provisionInputs: unknown[] = [];
  const provision$: ProvisionFunction = (_api, input) => {
    provisionInputs.push(input);
    return kubernetesRun();
  };
  const registry = new ProviderRegistry([
    createProxmoxProvider({
      clientFor: () => {
        lxcCalls.push(['proxmox clientFor']);
        return proxmoxClient.api;
      },
      imageDigest: async (...args) => {
        lxcCalls.push(['imageDigest', ...args]);
        return 'abc';
      },
    }),
    createDockerProvider({
      clientFor: () => {
        lxcCalls.push(['docker clientFor']);
        return dockerClient.api;
      },
    }),
    createKubernetesProvider({ provision$, clientFor: () => fakeApi, operations: recordingOperations([], '10.244.0.9') }),
    createDummyProvider({ stepDelayMs: 10 }),
  ]);
  return { registry, lxcCalls, provisionInputs };
}

function kubeRecord(overrides: Partial<ContainerRecord> = {}): ContainerRecord {
  return containerRecord({ site: null, ...overrides, node: kubeNode });
}

function collect(id: number | string, options: CreateContainerOptions): Promise<CreateFlowEvent[]> {
  return lastValueFrom(createContainer$(id, options).pipe(toArray()));
}

/** A provider that records being called and emits nothing. */
function spyProvider(nodeType: string): Provider & { calls: number } {
  const spy = {
    nodeType,
    calls: 0,
    provision$: () => {
      spy.calls += 1;
      return EMPTY;
    },
  };
  return spy;
}

describe('createContainer$ on a kubernetes node', () => {
  it('provisions through the Kubernetes provider and stores namespace/name with a null MAC and the address it has now', async () => {
    const { registry, provisionInputs } = allProviders();
    const store = new MemoryContainerStore([kubeRecord()]);

    const events = await collect(42, { providers: registry, store });

    expect(events.map((event) => event.type)).toEqual(['created', 'ready', 'provisioned', 'saved']);
    expect(events.at(-1)).toMatchObject({
      type: 'saved',
      containerId: 42,
      providerId: 'team-a/web-42',
      macAddress: null,
      ipAddress: '10.96.0.9',
    });
    expect(await store.load(42)).toMatchObject({ providerId: 'team-a/web-42', macAddress: null, ipAddress: '10.96.0.9' });
    expect(provisionInputs).toHaveLength(1);
    expect(provisionInputs[0]).toMatchObject({ image: 'docker.io/library/nginx:latest', namespace: 'team-a' });
  });

  it("Kubernetes creation does not execute Proxmox storage/VMID paths: calls none of the Proxmox (or Docker) client's methods, nor builds those clients", async () => {
    const { registry, lxcCalls } = allProviders();
    const store = new MemoryContainerStore([kubeRecord({ nvidiaRequested: true, template: 'docker.io/library/nginx:latest' })]);
    await collect(42, { providers: registry, store });
    expect(lxcCalls).toEqual([]);
  });
});

describe('createContainer$: the double-provisioning guard', () => {
  it('refuses a record that has a provider ID, calling no provider and changing nothing', async () => {
    const proxmox = spyProvider('proxmox');
    const kubernetes = spyProvider('kubernetes');
    const record = containerRecord({ providerId: '104', macAddress: 'BC:24:11:AA:BB:CC', ipAddress: '10.1.2.3' });
    const store = new MemoryContainerStore([record]);

    const failure = collect(42, { providers: new ProviderRegistry([proxmox, kubernetes]), store });

    await expect(failure).rejects.toBeInstanceOf(AlreadyProvisionedError);
    await expect(failure).rejects.toThrow('Container 42 already has provider ID 104; refusing to create it again');
    expect(proxmox.calls + kubernetes.calls).toBe(0);
    expect(await store.load(42)).toEqual(record);
  });
});

describe('createContainer$: failures leave the record unchanged', () => {
  it('rethrows the Kubernetes provider’s typed error as it is', async () => {
    const failure = new RolloutFailedError({ namespace: 'team-a', name: 'web-42' }, 'ImagePullBackOff', 'manifest unknown');
    const { registry } = allProviders(() => throwError(() => failure));
    const store = new MemoryContainerStore([kubeRecord()]);
    const before = await store.load(42);

    await expect(collect(42, { providers: registry, store })).rejects.toBe(failure);
    expect(await store.load(42)).toEqual(before);
  });

  it('keeps the record as it was when Proxmox fails after the LXC was created', async () => {
    const client = recordingClient({
      nextId: async () => 104,
      datastores: async () => [{ storage: 'local' }, { storage: 'local-lvm' }],
      getLxcTemplates: async () => [{ vmid: 901, name: 'debian-12-tmpl' }],
      cloneLxc: async () => 'UPID:clone',
      waitForTask: async () => ({}),
      updateLxcConfig: async () => undefined,
      lxcConfig: async () => ({}),
      updateAcl: async () => undefined,
      startLxc: async () => Promise.reject(new Error('start failed')),
    });
    const registry = new ProviderRegistry([createProxmoxProvider({ clientFor: () => client.api, imageDigest: async () => 'abc' })]);
    const store = new MemoryContainerStore([containerRecord({ template: 'debian-12-tmpl' })]);
    const before = await store.load(42);

    const failure = collect(42, { providers: registry, store });

    await expect(failure).rejects.toBeInstanceOf(ProviderStepError);
    await expect(failure).rejects.toMatchObject({ step: 'start', providerId: '104' });
    expect(await store.load(42)).toEqual(before);
  });

  it('fails with ProviderOutcomeMissingError when a provider completes without an outcome', async () => {
    const store = new MemoryContainerStore([containerRecord()]);
    const before = await store.load(42);
    await expect(collect(42, { providers: new ProviderRegistry([spyProvider('proxmox')]), store })).rejects.toBeInstanceOf(
      ProviderOutcomeMissingError,
    );
    expect(await store.load(42)).toEqual(before);
  });
});

describe('createContainer$: choosing the provider', () => {
  it('fails with UnknownNodeTypeError naming the known types', async () => {
    const { registry } = allProviders();
    const store = new MemoryContainerStore([containerRecord({ node: { nodeType: 'vmware' } })]);
    const failure = collect(42, { providers: registry, store });
    await expect(failure).rejects.toBeInstanceOf(UnknownNodeTypeError);
    await expect(failure).rejects.toMatchObject({ nodeType: 'vmware', knownTypes: ['docker', 'dummy', 'kubernetes', 'proxmox'] });
  });

  it('fails with ContainerNotFoundError for a missing record', async () => {
    const { registry } = allProviders();
    await expect(collect(99, { providers: registry, store: new MemoryContainerStore() })).rejects.toBeInstanceOf(ContainerNotFoundError);
  });

  it("wraps the store's own load error in ContainerLoadError", async () => {
    const broken: ContainerStore = {
      load: () => Promise.reject(new Error('SQLITE_BUSY')),
      saveProvisioned: async () => true,
    };
    const failure = collect(42, { providers: allProviders().registry, store: broken });
    await expect(failure).rejects.toBeInstanceOf(ContainerLoadError);
    await expect(failure).rejects.toMatchObject({ cause: { message: 'SQLITE_BUSY' } });
  });
});

describe('createContainer$: storing the outcome', () => {
  it('stores the Proxmox VMID, MAC, IP and the template defaults', async () => {
    const client = recordingClient({
      nextId: async () => 104,
      datastores: async () => [{ storage: 'local' }, { storage: 'local-lvm' }],
      getLxcTemplates: async () => [{ vmid: 901, name: 'debian-12-tmpl' }],
      cloneLxc: async () => 'UPID:clone',
      waitForTask: async () => ({}),
      updateLxcConfig: async () => undefined,
      lxcConfig: async () => ({ env: 'LANG=C.UTF-8', entrypoint: '/sbin/init' }),
      updateAcl: async () => undefined,
      startLxc: async () => 'UPID:start',
      getLxcMacAddress: async () => 'BC:24:11:AA:BB:CC',
      getLxcIpAddress: async () => '10.1.2.3',
    });
    const registry = new ProviderRegistry([createProxmoxProvider({ clientFor: () => client.api, imageDigest: async () => 'abc' })]);
    const store = new MemoryContainerStore([containerRecord({ template: 'debian-12-tmpl' })]);

    const result = await createContainer(42, { providers: registry, store });

    expect(result).toMatchObject({
      containerId: 42,
      provider: 'proxmox',
      providerId: '104',
      macAddress: 'BC:24:11:AA:BB:CC',
      ipAddress: '10.1.2.3',
    });
    expect(await store.load(42)).toMatchObject({
      providerId: '104',
      macAddress: 'BC:24:11:AA:BB:CC',
      ipAddress: '10.1.2.3',
      environment: { LANG: 'C.UTF-8', APP_MODE: 'production' },
      entrypoint: '/sbin/init',
    });
  });

  it('fails with ProviderIdNotSavedError, naming the orphan, when the record was claimed meanwhile', async () => {
    const store = new MemoryContainerStore([kubeRecord()]);
    const racing: ContainerStore = {
      load: (id) => store.load(id),
      // Another run stored its ID between our load and our save.
      saveProvisioned: async () => false,
    };
    const failure = collect(42, { providers: allProviders().registry, store: racing });
    await expect(failure).rejects.toBeInstanceOf(ProviderIdNotSavedError);
    await expect(failure).rejects.toMatchObject({ providerId: 'team-a/web-42' });
  });

  it('createContainer reports every event to onEvent, in order', async () => {
    const store = new MemoryContainerStore([containerRecord({ node: { nodeType: 'dummy' } })]);
    const seen: string[] = [];
    const result = await createContainer(42, {
      providers: allProviders().registry,
      store,
      onEvent: (event) => seen.push(event.type === 'step' ? event.step : event.type),
    });
    expect(seen).toEqual(['allocate', 'create', 'configure', 'start', 'provisioned', 'saved']);
    expect(result.providerId).toBe('dummy-42');
    expect((await store.load(42))?.providerId).toBe('dummy-42');
  });
});

describe('createContainer$: abort', () => {
  it('stops the Proxmox provider before its next call and leaves the record unchanged', async () => {
    let releaseClone: (task: string) => void = () => undefined;
    let cloneStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (cloneStarted = resolve));
    const client = recordingClient({
      nextId: async () => 104,
      datastores: async () => [{ storage: 'local' }, { storage: 'local-lvm' }],
      getLxcTemplates: async () => [{ vmid: 901, name: 'debian-12-tmpl' }],
      cloneLxc: () =>
        new Promise<string>((resolve) => {
          releaseClone = resolve;
          cloneStarted();
        }),
      waitForTask: async () => ({}),
    });
    const registry = new ProviderRegistry([createProxmoxProvider({ clientFor: () => client.api, imageDigest: async () => 'abc' })]);
    const store = new MemoryContainerStore([containerRecord({ template: 'debian-12-tmpl' })]);
    const before = await store.load(42);
    const controller = new AbortController();

    const failure = collect(42, { providers: registry, store, signal: controller.signal });
    await started;
    controller.abort(new Error('user cancelled'));
    releaseClone('UPID:clone');
    await expect(failure).rejects.toBeInstanceOf(ProvisionAbortedError);
    await new Promise((resolve) => setTimeout(resolve, 10));

    expect(client.methods().at(-1)).toBe('cloneLxc');
    expect(client.methods()).not.toContain('waitForTask');
    expect(await store.load(42)).toEqual(before);
  });

  it('stops the dummy provider mid-way in virtual time', async () => {
    const clock = new VirtualTimeScheduler();
    const controller = new AbortController();
    const store = new MemoryContainerStore([containerRecord({ node: { nodeType: 'dummy' } })]);
    const events: CreateFlowEvent[] = [];
    let error: unknown;
    createContainer$(42, { providers: allProviders().registry, store, clock, signal: controller.signal }).subscribe({
      next: (event) => events.push(event),
      error: (caught: unknown) => (error = caught),
    });
    // Let the record load (a Promise); the dummy then schedules its first step at 10 ms.
    await new Promise((resolve) => setTimeout(resolve, 0));
    clock.schedule(() => controller.abort(), 15);
    clock.flush();

    expect(events.map((event) => event.type)).toEqual(['step']);
    expect(error).toBeInstanceOf(ProvisionAbortedError);
    expect((await store.load(42))?.providerId).toBeNull();
  });

  it('with an already aborted signal, rejects at once without loading the record', async () => {
    let loads = 0;
    const store: ContainerStore = {
      load: async () => {
        loads += 1;
        return containerRecord();
      },
      saveProvisioned: async () => true,
    };
    const controller = new AbortController();
    controller.abort();
    await expect(collect(42, { providers: allProviders().registry, store, signal: controller.signal })).rejects.toBeInstanceOf(
      ProvisionAbortedError,
    );
    expect(loads).toBe(0);
  });
});
