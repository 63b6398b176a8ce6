// A container's volume on the real control plane (kube-apiserver, controller manager,
// scheduler; KWOK kubelets): a StorageClass without a provisioner that binds when the Pod
// is scheduled, and static local PersistentVolumes made by the test (test/support/storage.ts),
// so the real PV controller binds each claim and the real scheduler's volume binding
// places the Pod. kubectl, an independent client, checks what happened.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { provision } from '../../src/workload/operations/provision.js';
import { reconfigure } from '../../src/workload/operations/reconfigure.js';
import { remove } from '../../src/workload/operations/remove.js';
import { restart } from '../../src/workload/operations/restart.js';
import { start } from '../../src/workload/operations/start.js';
import { stop } from '../../src/workload/operations/stop.js';
import { StorageResizeError } from '../../src/workload/operations/resize-claim.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { list, type WorkloadSnapshot } from '../../src/workload/reads/list.js';
import { status } from '../../src/workload/reads/status.js';
import type { StatusEvent } from '../../src/workload/reads/status-board.js';
import { statuses$ } from '../../src/workload/reads/statuses.js';
import { runNode, type ProcessRun } from '../support/run-process.js';
import { clusterEnv } from '../support/cluster-env.js';
import { NoDefaultStorageClassError } from '../../src/workload/operations/storage-class-choice.js';
import { apiFor, createNamespace, kubectl, kubectlJson, sampleSpec } from '../support/kube.js';
import { claimOf, defaultClassNames, localStorage, type LocalStorage } from '../support/storage.js';

const TIMEOUT = { timeoutMs: 90_000 };

let namespace: string;
let api: KubernetesApi;
let storage: LocalStorage;
beforeAll(() => {
  namespace = createNamespace('it-storage');
  api = apiFor();
  storage = localStorage({ volumes: 0, sizeGi: 10 });
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
  storage.remove();
});

function spec(sizeGb = 5, storageClass = storage.className) {
  return sampleSpec({ namespace, storage: { sizeGb, storageClass, paths: ['/srv', '/var'] } });
}

function cli(args: string[]): Promise<ProcessRun> {
  return runNode(['dist/cli/main.js', ...args], { env: { ...process.env, KUBECONFIG: clusterEnv().kubeconfigPath } });
}

async function until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function deploymentNames(): string[] {
  return kubectlJson<{ items: { metadata: { name: string } }[] }>(['get', 'deployments', '-n', namespace]).items.map(
    (item) => item.metadata.name,
  );
}

describe('storage on the real control plane', () => {
  it('create gives a Bound claim the Pod mounts; stop, start, restart and reconfigure keep the same claim and volume; delete removes it', async () => {
    storage.addVolumes(1);
    const input = spec();
    const { providerId, name } = await provision(api, input, TIMEOUT);
    const claim = claimOf(namespace, name)!;
    expect(claim.status.phase).toBe('Bound');
    expect(claim.metadata.ownerReferences).toBeUndefined();
    expect(claim.spec.volumeName).toMatch(new RegExp(`^${storage.className}-pv`));
    const pods = kubectlJson<{ items: { spec: { volumes?: { persistentVolumeClaim?: { claimName: string } }[] } }[] }>([
      'get',
      'pods',
      '-n',
      namespace,
      '-l',
      `org.mieweb.opensource-server.container-id=${String(input.containerId)}`,
    ]).items;
    expect(pods.some((pod) => pod.spec.volumes?.some((volume) => volume.persistentVolumeClaim?.claimName === name))).toBe(true);

    const options = { ...TIMEOUT, containerId: String(input.containerId) };
    await stop(api, providerId, options);
    await start(api, providerId, options);
    await restart(api, providerId, options);
    await reconfigure(api, providerId, { cpus: 0.5 }, options);
    const after = claimOf(namespace, name)!;
    expect(after.metadata.uid).toBe(claim.metadata.uid);
    expect(after.spec.volumeName).toBe(claim.spec.volumeName);

    await expect(remove(api, providerId, options)).resolves.toMatchObject({ changed: true, storage: 'deleted' });
    expect(claimOf(namespace, name)).toBeUndefined();
  });

  it('delete keepData keeps the claim; a re-create re-attaches the same volume', async () => {
    storage.addVolumes(1);
    const input = spec();
    const { providerId, name } = await provision(api, input, TIMEOUT);
    const claim = claimOf(namespace, name)!;
    const options = { ...TIMEOUT, containerId: String(input.containerId) };
    await expect(remove(api, providerId, { ...options, keepData: true })).resolves.toMatchObject({ storage: 'kept' });
    expect(deploymentNames()).not.toContain(name);
    expect(claimOf(namespace, name)?.metadata.uid).toBe(claim.metadata.uid);

    await provision(api, input, TIMEOUT);
    const again = claimOf(namespace, name)!;
    expect(again.metadata.uid).toBe(claim.metadata.uid);
    expect(again.spec.volumeName).toBe(claim.spec.volumeName);
    await remove(api, providerId, options);
  });

  it('a claim no volume can satisfy: NoMatchingVolume named well before the timeout; the cleanup removes what the run created', async () => {
    const input = spec(50); // larger than any volume of the class
    const started = Date.now();
    const error = await provision(api, input, TIMEOUT).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RolloutFailedError', reason: 'NoMatchingVolume' });
    expect(Date.now() - started).toBeLessThan(45_000);
    expect((error as { cleanup?: unknown }).cleanup).toMatchObject({ claim: 'deleted' });
    expect(deploymentNames()).not.toContain(input.hostname);
    expect(claimOf(namespace, String(input.hostname))).toBeUndefined();
  });

  it('a resize on a class without expansion is named, the claim unchanged', async () => {
    storage.addVolumes(1);
    const input = spec();
    const { providerId, name } = await provision(api, input, TIMEOUT);
    const options = { ...TIMEOUT, containerId: String(input.containerId) };
    const error = await reconfigure(api, providerId, { storageGb: 8 }, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageResizeError);
    expect(error).toMatchObject({ refusal: 'NotExpandable', storageClass: storage.className });
    expect(claimOf(namespace, name)?.spec.resources.requests.storage).toBe('5Gi');
    await remove(api, providerId, options);
  });

  it("status, list, get -o json and statuses$ show the claim's phase, class, requested and actual capacity, as kubectl sees it", async () => {
    storage.addVolumes(1);
    const input = spec();
    const informers = new InformerRegistry();
    const events: StatusEvent[] = [];
    const live = statuses$(api, { namespace, informers }).subscribe((event) => events.push(event));
    try {
      const { providerId, name } = await provision(api, input, { ...TIMEOUT, informers });
      const claim = claimOf(namespace, name)!;
      const expected = {
        name,
        phase: 'Bound',
        storageClass: storage.className,
        requested: claim.spec.resources.requests.storage,
        capacity: claim.status.capacity?.storage,
        volumeName: claim.spec.volumeName,
        resize: 'none',
      };
      expect(expected).toMatchObject({ requested: '5Gi', capacity: '10Gi' });
      expect((await status(api, providerId, { containerId: String(input.containerId) })).storage).toMatchObject(expected);
      expect((await list(api, { namespace })).find((entry) => entry.name === name)?.detail.storage).toMatchObject(expected);
      const got = await cli(['get', providerId, '-o', 'json']);
      expect(got.code, got.stderr).toBe(0);
      expect((JSON.parse(got.stdout) as WorkloadSnapshot).detail.storage).toMatchObject(expected);
      await until(() =>
        events.some((event) => event.name === name && event.status.state === 'running' && event.status.storage?.phase === 'Bound'),
      );
      expect(events.filter((event) => event.name === name).at(-1)?.status.storage).toMatchObject(expected);
      // The claim deleted by hand (the Pod keeps it Terminating): the live stream says so.
      kubectl(['delete', 'pvc', name, '-n', namespace, '--wait=false']);
      await until(() => events.filter((event) => event.name === name).at(-1)?.status.storage?.phase === 'Terminating');
      await remove(api, providerId, { ...TIMEOUT, containerId: String(input.containerId) });
    } finally {
      live.unsubscribe();
    }
  });

  it("two Manager installations in one namespace never touch each other's claims", async () => {
    storage.addVolumes(1);
    const ours: Record<string, unknown> = { ...spec(), instance: 'alpha' };
    const { providerId, name } = await provision(api, ours, TIMEOUT);
    const claim = claimOf(namespace, name)!;
    expect(claim.metadata.labels?.['org.mieweb.opensource-server.instance']).toBe('alpha');
    const before = kubectlJson<{ metadata: { resourceVersion: string } }>(['get', 'pvc', name, '-n', namespace]).metadata.resourceVersion;
    const options = { ...TIMEOUT, containerId: String(ours.containerId) };

    // Installation beta: its create of the same name is a conflict; its stop, reconfigure and delete find nothing of theirs.
    const theirs: Record<string, unknown> = { ...ours, instance: 'beta' };
    await expect(provision(api, theirs, TIMEOUT)).rejects.toMatchObject({ name: 'ConflictError' });
    await stop(api, providerId, { ...options, instance: 'beta' }).catch(() => undefined);
    await reconfigure(api, providerId, { storageGb: 8 }, { ...options, instance: 'beta' }).catch(() => undefined);
    await remove(api, providerId, { ...options, instance: 'beta' }).catch(() => undefined);
    expect((await list(api, { namespace, instance: 'beta' })).map((entry) => entry.name)).not.toContain(name);

    const after = claimOf(namespace, name)!;
    expect(after.metadata.uid).toBe(claim.metadata.uid);
    expect(after.spec.resources.requests.storage).toBe('5Gi');
    expect(kubectlJson<{ metadata: { resourceVersion: string } }>(['get', 'pvc', name, '-n', namespace]).metadata.resourceVersion).toBe(
      before,
    );
    expect(deploymentNames()).toContain(name);
    expect((await status(api, providerId, { ...options, instance: 'alpha' })).storage).toMatchObject({ phase: 'Bound' });

    await remove(api, providerId, { ...options, instance: 'alpha' });
    expect(claimOf(namespace, name)).toBeUndefined();
  });

  it('no default StorageClass: a kept claim is re-attached without naming its class, on its own class and volume', async () => {
    expect(defaultClassNames()).toEqual([]);
    storage.addVolumes(1);
    const input = spec();
    const { providerId, name } = await provision(api, input, TIMEOUT);
    const claim = claimOf(namespace, name)!;
    const options = { ...TIMEOUT, containerId: String(input.containerId) };
    await remove(api, providerId, { ...options, keepData: true });

    const unnamed = { ...input, storage: { sizeGb: 5, paths: ['/srv', '/var'] } };
    await expect(provision(api, unnamed, TIMEOUT)).resolves.toMatchObject({ providerId });
    const again = claimOf(namespace, name)!;
    expect(again.metadata.uid).toBe(claim.metadata.uid);
    expect(again.spec.volumeName).toBe(claim.spec.volumeName);
    expect(again.spec.storageClassName).toBe(storage.className);
    await remove(api, providerId, options);
    expect(claimOf(namespace, name)).toBeUndefined();
  });

  it('no default StorageClass and none named: the typed error, nothing created', async () => {
    expect(defaultClassNames()).toEqual([]);
    const input = sampleSpec({ namespace, storage: { sizeGb: 1 } });
    await expect(provision(api, input, TIMEOUT)).rejects.toBeInstanceOf(NoDefaultStorageClassError);
    expect(deploymentNames()).not.toContain(input.hostname);
    expect(claimOf(namespace, String(input.hostname))).toBeUndefined();
  });
});
