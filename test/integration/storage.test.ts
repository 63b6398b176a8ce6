// A container's volume on the real control plane (kube-apiserver, controller manager,
// scheduler; KWOK kubelets): a StorageClass without a provisioner that binds when the Pod
// is scheduled, and static local PersistentVolumes made by the test (test/support/storage.ts),
// so the real PV controller binds each claim and the real scheduler's volume binding
// places the Pod. kubectl, an independent client, checks what happened.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { provision } from '../../src/workload/provision.js';
import { reconfigure } from '../../src/workload/reconfigure.js';
import { remove } from '../../src/workload/remove.js';
import { restart } from '../../src/workload/restart.js';
import { start } from '../../src/workload/start.js';
import { stop } from '../../src/workload/stop.js';
import { StorageResizeError } from '../../src/workload/resize-claim.js';
import { NoDefaultStorageClassError } from '../../src/workload/storage-class-choice.js';
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

  it('no default StorageClass and none named: the typed error, nothing created', async () => {
    expect(defaultClassNames()).toEqual([]);
    const input = sampleSpec({ namespace, storage: { sizeGb: 1 } });
    await expect(provision(api, input, TIMEOUT)).rejects.toBeInstanceOf(NoDefaultStorageClassError);
    expect(deploymentNames()).not.toContain(input.hostname);
    expect(claimOf(namespace, String(input.hostname))).toBeUndefined();
  });
});
