// Unit tests of the container lifecycle through the registry (no cluster, no node): the
// Kubernetes provider with recording stand-ins for the library's operations, the Proxmox
// and Docker providers with recording fakes of Manager's node client, and the dummy.
import { asyncScheduler, lastValueFrom, of, toArray } from 'rxjs';
import type { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { V1Deployment } from '../../../src/kube/objects.js';
import type { KubernetesClient } from '../../../src/kube/client.js';
import { containerLifecycle, type ContainerOperationEvent } from '../../../src/manager/lifecycle.js';
import { ContainerNotProvisionedError, LifecycleUnsupportedError, UnknownNodeTypeError } from '../../../src/manager/errors.js';
import { ProviderRegistry } from '../../../src/manager/providers/registry.js';
import { createKubernetesProvider } from '../../../src/manager/providers/kubernetes.js';
import { createProxmoxProvider } from '../../../src/manager/providers/proxmox.js';
import { createDockerProvider } from '../../../src/manager/providers/docker.js';
import { createDummyProvider } from '../../../src/manager/providers/dummy.js';
import { containerRecord, recordingClient, recordingOperations, type RecordedCall } from './providers/fixtures.js';

const kubeRecord = containerRecord({
  providerId: 'team-a/web-42',
  environment: { APP_MODE: 'staging' },
  defaultEnvironment: {},
  node: { id: 3, name: 'k8s-east', nodeType: 'kubernetes', kubeNamespace: 'team-a', kubePersistence: 'off' },
  services: [
    { id: 1, type: 'transport', internalPort: 22, protocol: 'tcp' },
    { id: 2, type: 'http', internalPort: 8080 },
    { id: 3, type: 'dns', internalPort: 53 },
  ],
});

/** A stand-in client: reconfigure reads the live Deployment's env (and whether its Pods mount a claim) from it. */
function fakeApi(liveEnv: string[], claim?: string): KubernetesClient {
  const deployment: V1Deployment = {
    spec: {
      selector: {},
      template: {
        spec: {
          containers: [{ name: 'web', env: liveEnv.map((name) => ({ name, value: 'x' })) }],
          ...(claim ? { volumes: [{ name: 'storage', persistentVolumeClaim: { claimName: claim } }] } : {}),
        },
      },
    },
  };
  return {
    namespace: 'team-a',
    server: 'https://east.example:6443',
    read: async () => deployment,
  } as unknown as KubernetesClient;
}

function kubernetesLifecycle(
  calls: unknown[][],
  address: string | null = '10.0.0.42',
  liveEnv: string[] = [],
  extra: { instance?: string; rollbackOnFailure?: boolean; serviceType?: 'ClusterIP' | 'LoadBalancer'; claim?: string } = {},
) {
  const { claim, ...providerOptions } = extra;
  const provider = createKubernetesProvider({
    clientFor: () => fakeApi(liveEnv, claim),
    operations: recordingOperations(calls, address),
    ...providerOptions,
  });
  return containerLifecycle(new ProviderRegistry([provider]));
}

const collect = (events: Observable<ContainerOperationEvent>) => lastValueFrom(events.pipe(toArray()));

describe('containerLifecycle on a Kubernetes node', () => {
  it('start$ runs the library start on the saved provider ID and container id, then reads the Service address (MAC null)', async () => {
    const calls: unknown[][] = [];
    const events = await collect(kubernetesLifecycle(calls).start$(kubeRecord));
    expect(calls).toEqual([
      ['start$', 'team-a/web-42', '42'],
      ['status', 'team-a/web-42', '42'],
    ]);
    expect(events.map((event) => event.type)).toEqual(['started', 'completed']);
    expect(events.at(-1)).toMatchObject({
      type: 'completed',
      operation: 'start',
      provider: 'kubernetes',
      providerId: 'team-a/web-42',
      changed: true,
      network: { macAddress: null, ipAddress: '10.0.0.42' },
    });
  });

  it('a provider with an instance passes it to every read and write, as its provisioning labelled the workload', async () => {
    const calls: unknown[][] = [];
    const lifecycle = kubernetesLifecycle(calls, '10.0.0.42', [], { instance: 'manager-prod' });
    await lifecycle.start(kubeRecord);
    await lifecycle.stop(kubeRecord);
    await lifecycle.status(kubeRecord);
    expect(calls).toEqual([
      ['start$', 'team-a/web-42', '42', 'manager-prod'],
      ['status', 'team-a/web-42', '42', 'manager-prod'],
      ['stop$', 'team-a/web-42', '42', 'manager-prod'],
      ['status', 'team-a/web-42', '42', 'manager-prod'],
    ]);
  });

  it('stop reads no IP, says whether anything changed, and leaves the address (the Service keeps it)', async () => {
    const calls: unknown[][] = [];
    const completed = await kubernetesLifecycle(calls).stop(kubeRecord);
    expect(calls).toEqual([['stop$', 'team-a/web-42', '42']]);
    expect(completed).toMatchObject({ operation: 'stop', changed: false });
    expect(completed.network).toBeUndefined();
  });

  it('restart and reconfigure read the address again; a workload without ports has none', async () => {
    const calls: unknown[][] = [];
    const lifecycle = kubernetesLifecycle(calls, null);
    expect((await lifecycle.restart(kubeRecord)).network).toEqual({ macAddress: null, ipAddress: null });
    expect((await lifecycle.reconfigure(kubeRecord)).network).toEqual({ macAddress: null, ipAddress: null });
  });

  it('reconfigure applies the record as it is: its whole env (removed variables unset), entrypoint, CPU, memory, ports', async () => {
    const calls: unknown[][] = [];
    const record = { ...kubeRecord, entrypoint: 'nginx -g daemon off;' };
    await kubernetesLifecycle(calls, '10.244.0.8', ['APP_MODE', 'OLD_FLAG']).reconfigure(record);
    expect(calls[0]).toEqual([
      'reconfigure$',
      'team-a/web-42',
      {
        env: { APP_MODE: 'staging' },
        unsetEnv: ['OLD_FLAG'],
        entrypoint: 'nginx -g daemon off;',
        cpus: 2,
        memoryMb: 2048,
        ports: [
          { port: 22, protocol: 'tcp' },
          { port: 8080, protocol: 'tcp' },
        ],
        gpus: 0,
        runtimeClass: null,
      },
    ]);
  });

  it("reconfigure passes nvidiaRequested as it now is: one GPU of the node's resource with its RuntimeClass, or none", async () => {
    const calls: unknown[][] = [];
    const gpuNode = { ...kubeRecord.node, kubeGpuResource: 'amd.com/gpu', kubeGpuRuntimeClass: 'rocm' };
    await kubernetesLifecycle(calls).reconfigure({ ...kubeRecord, nvidiaRequested: true, node: gpuNode });
    await kubernetesLifecycle(calls).reconfigure({ ...kubeRecord, nvidiaRequested: true });
    await kubernetesLifecycle(calls).reconfigure({ ...kubeRecord, nvidiaRequested: false, node: gpuNode });
    const gpuFields = calls
      .filter((call) => call[0] === 'reconfigure$')
      .map((call) => {
        const { gpus, gpuResource, runtimeClass, env } = call[2] as Record<string, unknown>;
        return {
          gpus,
          gpuResource,
          runtimeClass,
          nvidiaVariables: Object.keys(env as object).filter((name) => name.startsWith('NVIDIA_')),
        };
      });
    expect(gpuFields).toEqual([
      { gpus: 1, gpuResource: 'amd.com/gpu', runtimeClass: 'rocm', nvidiaVariables: expect.arrayContaining(['NVIDIA_VISIBLE_DEVICES']) },
      { gpus: 1, gpuResource: 'nvidia.com/gpu', runtimeClass: null, nvidiaVariables: expect.arrayContaining(['NVIDIA_VISIBLE_DEVICES']) },
      { gpus: 0, gpuResource: undefined, runtimeClass: null, nvidiaVariables: [] },
    ]);
  });

  it("reconfigure keeps a system container's RuntimeClass (kubeSystemRuntimeClass), and gives an ordinary one the default", async () => {
    const calls: unknown[][] = [];
    const node = { ...kubeRecord.node, kubeSystemRuntimeClass: 'cgroup-writable' };
    await kubernetesLifecycle(calls).reconfigure({ ...kubeRecord, entrypoint: '/sbin/init', node });
    await kubernetesLifecycle(calls).reconfigure({ ...kubeRecord, entrypoint: 'nginx -g daemon off;', node });
    const classes = calls.filter((call) => call[0] === 'reconfigure$').map((call) => (call[2] as Record<string, unknown>).runtimeClass);
    expect(classes).toEqual(['cgroup-writable', null]);
  });

  it('a rootfs approval becomes a resize: reconfigure asks for the approved rootfs as the volume size when the Pods mount a claim', async () => {
    const persistent = { ...kubeRecord, node: { ...kubeRecord.node, kubePersistence: null } };
    const calls: unknown[][] = [];
    await kubernetesLifecycle(calls, '10.244.0.8', ['APP_MODE'], { claim: 'web-42' }).reconfigure(persistent);
    // containerRecord's approved rootfs: 20 GB (the library grows the claim, changes nothing at the same size, refuses a shrink).
    expect(calls[0]?.[2]).toMatchObject({ storageGb: 20, cpus: 2, memoryMb: 2048 });
    // A node that turned persistence off, or a container created without a volume: no size is asked for.
    const off: unknown[][] = [];
    await kubernetesLifecycle(off, '10.244.0.8', [], { claim: 'web-42' }).reconfigure(kubeRecord);
    expect(off[0]?.[2]).not.toHaveProperty('storageGb');
    const none: unknown[][] = [];
    await kubernetesLifecycle(none, '10.244.0.8', []).reconfigure(persistent);
    expect(none[0]?.[2]).not.toHaveProperty('storageGb');
  });

  it("setPorts passes the record's services as ports (the only call a change of services needs), with the provider's Service type", async () => {
    const calls: unknown[][] = [];
    const completed = await kubernetesLifecycle(calls, '203.0.113.9', [], { serviceType: 'LoadBalancer' }).setPorts(kubeRecord);
    expect(calls[0]).toEqual([
      'setPorts$',
      'team-a/web-42',
      [
        { port: 22, protocol: 'tcp' },
        { port: 8080, protocol: 'tcp' },
      ],
      '42',
      'LoadBalancer',
    ]);
    expect(completed).toMatchObject({ operation: 'setPorts', changed: true, network: { macAddress: null, ipAddress: '203.0.113.9' } });
  });

  it('a record whose services were not loaded is refused, never read as "no ports" (setPorts would remove them all)', async () => {
    const { services: _services, ...withoutServices } = kubeRecord;
    await expect(kubernetesLifecycle([]).setPorts(withoutServices)).rejects.toThrow(/services are not loaded/);
  });

  it('rollbackOnFailure on the provider reaches the library reconfigure', async () => {
    const calls: unknown[][] = [];
    await kubernetesLifecycle(calls, '10.244.0.8', [], { rollbackOnFailure: true }).reconfigure(kubeRecord);
    expect(calls[0]?.[3]).toEqual({ rollbackOnFailure: true });
  });

  it('remove passes the container id (only a Deployment carrying it is deleted)', async () => {
    const calls: unknown[][] = [];
    expect(await kubernetesLifecycle(calls).remove(kubeRecord)).toMatchObject({ operation: 'remove', changed: true });
    expect(calls).toEqual([['remove$', 'team-a/web-42', '42']]);
  });

  it("status is the library status in Manager words: the Service's address, and the Pod IP beside it as temporary", async () => {
    const calls: unknown[][] = [];
    expect(await kubernetesLifecycle(calls).status(kubeRecord)).toEqual({
      state: 'running',
      reason: 'NewReplicaSetAvailable',
      message: '1 of 1 available',
      ipAddress: '10.0.0.42',
      podIp: '10.244.0.7',
    });
  });
});

const proxmoxRecord = containerRecord({ providerId: '104' });

function lxcRegistry(script: Parameters<typeof recordingClient>[0], calls: RecordedCall[]) {
  const client = recordingClient(script, calls);
  return {
    lifecycle: containerLifecycle(
      new ProviderRegistry([
        createProxmoxProvider({ clientFor: () => client.api, imageDigest: async () => 'sha' }),
        createDockerProvider({ clientFor: () => client.api }),
      ]),
      { clock: asyncScheduler },
    ),
    methods: () => calls.map(([method]) => method),
  };
}

const network = { getLxcMacAddress: async () => 'BC:24:11:00:00:01', getLxcIpAddress: async () => '192.168.1.104' };

describe('containerLifecycle on a Proxmox node (recording NodeApi)', () => {
  it('starts a stopped container, waits for the task, and reads MAC and IP', async () => {
    const calls: RecordedCall[] = [];
    const { lifecycle, methods } = lxcRegistry(
      { getLxcStatus: async () => ({ status: 'stopped' }), startLxc: async () => 'UPID:start', waitForTask: async () => ({}), ...network },
      calls,
    );
    const completed = await lifecycle.start(proxmoxRecord);
    expect(methods()).toEqual(['getLxcStatus', 'startLxc', 'waitForTask', 'getLxcMacAddress', 'getLxcIpAddress']);
    expect(calls[1]).toEqual(['startLxc', 'pve1', '104']);
    expect(completed).toMatchObject({
      provider: 'proxmox',
      providerId: '104',
      changed: true,
      network: { macAddress: 'BC:24:11:00:00:01', ipAddress: '192.168.1.104' },
    });
  });

  it('starting a running container and stopping a stopped one write nothing', async () => {
    const running = lxcRegistry({ getLxcStatus: async () => ({ status: 'running' }), ...network }, []);
    expect(await running.lifecycle.start(proxmoxRecord)).toMatchObject({ changed: false });
    expect(running.methods()).not.toContain('startLxc');
    const stopped = lxcRegistry({ getLxcStatus: async () => ({ status: 'stopped' }) }, []);
    expect(await stopped.lifecycle.stop(proxmoxRecord)).toMatchObject({ changed: false });
    expect(await stopped.lifecycle.restart(proxmoxRecord)).toMatchObject({ changed: false });
    expect(stopped.methods()).toEqual(['getLxcStatus', 'getLxcStatus']);
  });

  it('removes a running container: stop, then deleteContainer, each task awaited', async () => {
    const calls: RecordedCall[] = [];
    const { lifecycle, methods } = lxcRegistry(
      {
        getLxcStatus: async () => ({ status: 'running' }),
        stopLxc: async () => 'UPID:stop',
        deleteContainer: async () => 'UPID:delete',
        waitForTask: async () => ({}),
      },
      calls,
    );
    expect(await lifecycle.remove(proxmoxRecord)).toMatchObject({ operation: 'remove', changed: true });
    expect(methods()).toEqual(['getLxcStatus', 'stopLxc', 'waitForTask', 'deleteContainer', 'waitForTask']);
    expect(calls[3]).toEqual(['deleteContainer', 'pve1', '104']);
  });

  it('reconfigures a stopped container and leaves it stopped', async () => {
    const calls: RecordedCall[] = [];
    const { lifecycle, methods } = lxcRegistry(
      { getLxcStatus: async () => ({ status: 'stopped' }), updateLxcConfig: async () => undefined },
      calls,
    );
    expect(await lifecycle.reconfigure(proxmoxRecord)).toMatchObject({ changed: true });
    expect(methods()).toEqual(['getLxcStatus', 'updateLxcConfig']);
    expect(calls[1]).toEqual(['updateLxcConfig', 'pve1', '104', { cores: 2, memory: 2048, swap: 512, env: 'TZ=UTC\0APP_MODE=production' }]);
  });

  it('status maps the node word; a failed read is unknown without the client error text', async () => {
    const stopped = lxcRegistry({ getLxcStatus: async () => ({ status: 'stopped' }) }, []);
    expect(await stopped.lifecycle.status(proxmoxRecord)).toMatchObject({ state: 'offline', reason: 'stopped' });
    const broken = lxcRegistry({ getLxcStatus: async () => Promise.reject(new Error('401 ticket=SECRET')) }, []);
    const value = await broken.lifecycle.status(proxmoxRecord);
    expect(value.state).toBe('unknown');
    expect(value.message).not.toContain('SECRET');
  });
  it('a container the node no longer has is missing, not unknown (Proxmox 500 with its "does not exist", Docker 404)', async () => {
    const proxmoxGone = Object.assign(new Error('Request failed with status code 500'), {
      response: { status: 500, statusText: "Configuration file 'nodes/pve1/lxc/104.conf' does not exist" },
    });
    const dockerGone = Object.assign(new Error('Request failed with status code 404'), {
      response: { status: 404, data: { message: 'No such container: 9f2c' } },
    });
    for (const error of [proxmoxGone, dockerGone]) {
      const gone = lxcRegistry({ getLxcStatus: async () => Promise.reject(error) }, []);
      expect(await gone.lifecycle.status(proxmoxRecord)).toEqual({
        state: 'missing',
        reason: 'NotFound',
        message: 'node pve1 has no container 104',
        ipAddress: null,
      });
    }
    const busy = Object.assign(new Error('Request failed with status code 500'), { response: { status: 500, statusText: 'got timeout' } });
    expect((await lxcRegistry({ getLxcStatus: async () => Promise.reject(busy) }, []).lifecycle.status(proxmoxRecord)).state).toBe(
      'unknown',
    );
  });
});

describe('containerLifecycle on a Docker node (recording NodeApi)', () => {
  it('a reconfigure that recreates the container reports the new ID and restarts the new one if it ran', async () => {
    const calls: RecordedCall[] = [];
    let reads = 0;
    const { lifecycle } = lxcRegistry(
      {
        getLxcStatus: async () => ({ status: reads++ === 0 ? 'running' : 'stopped' }),
        updateLxcConfig: async () => 'docker:update:new123',
        startLxc: async () => 'docker:start:new123',
        waitForTask: async () => ({}),
        ...network,
      },
      calls,
    );
    const record = containerRecord({ providerId: 'old456', node: { nodeType: 'docker', name: 'docker1' } });
    const completed = await lifecycle.reconfigure(record);
    expect(completed).toMatchObject({ provider: 'docker', providerId: 'new123', network: { ipAddress: '192.168.1.104' } });
    expect(calls.map(([method, , id]) => `${method} ${String(id)}`)).toEqual([
      'getLxcStatus old456',
      'updateLxcConfig old456',
      'getLxcStatus new123',
      'startLxc new123',
      'waitForTask docker:start:new123',
      'getLxcMacAddress new123',
      'getLxcIpAddress new123',
    ]);
  });
});

describe('containerLifecycle dispatch', () => {
  it('refuses a record without a provider ID before any call, in words that fit the operation', async () => {
    const calls: RecordedCall[] = [];
    const { lifecycle } = lxcRegistry({}, calls);
    const refusal = (promise: Promise<unknown>) => promise.catch((error: unknown) => error);
    const stopped = await refusal(lifecycle.stop(containerRecord()));
    expect(stopped).toBeInstanceOf(ContainerNotProvisionedError);
    expect(stopped).toMatchObject({ containerId: 42, operation: 'stop' });
    expect((stopped as Error).message).toBe(
      'Container 42 cannot be stopped: it has no provider ID (containerId), so it was never provisioned or its create job has not finished',
    );
    expect(((await refusal(lifecycle.start(containerRecord()))) as Error).message).toMatch(/^Container 42 cannot be started: /);
    expect(((await refusal(lifecycle.reconfigure(containerRecord()))) as Error).message).toMatch(/^Container 42 cannot be reconfigured: /);
    expect(((await refusal(lifecycle.remove(containerRecord()))) as Error).message).toMatch(
      /^Container 42 cannot be removed from its node: /,
    );
    expect(((await refusal(lifecycle.status(containerRecord()))) as Error).message).toMatch(/^Container 42 has no status on its node: /);
    expect(calls).toEqual([]);
  });

  it('names an unknown node type, and a provider that only creates', async () => {
    const { lifecycle } = lxcRegistry({}, []);
    await expect(lifecycle.stop(containerRecord({ providerId: '1', node: { nodeType: 'vmware' } }))).rejects.toBeInstanceOf(
      UnknownNodeTypeError,
    );
    const createOnly = containerLifecycle(new ProviderRegistry([{ nodeType: 'proxmox', provision$: () => of() }]));
    await expect(createOnly.stop(proxmoxRecord)).rejects.toBeInstanceOf(LifecycleUnsupportedError);
  });

  it('the dummy provider simulates: stop, then status offline; start, then running with its IP', async () => {
    const lifecycle = containerLifecycle(new ProviderRegistry([createDummyProvider({ stepDelayMs: 0 })]));
    const record = containerRecord({ providerId: 'dummy-42', node: { nodeType: 'dummy' } });
    expect(await lifecycle.stop(record)).toMatchObject({ changed: true });
    expect((await lifecycle.status(record)).state).toBe('offline');
    expect(await lifecycle.restart(record)).toMatchObject({ changed: false });
    const started = await lifecycle.start(record);
    expect(started.network?.ipAddress).toMatch(/^10\./);
    expect(await lifecycle.status(record)).toMatchObject({ state: 'running', ipAddress: started.network?.ipAddress });
  });
});
