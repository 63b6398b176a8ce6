// A container's claim through its whole life, against FakeKubernetes, an in-memory
// stand-in for the API server (unit test: the test plays the controllers by writing their
// statuses and events; the real control plane is in test/integration/storage.test.ts).
// The rule under test everywhere: no operation but an explicit delete removes a claim.
import type { V1PersistentVolumeClaim, V1Pod } from '../../src/kube/objects.js';
import { lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { InformerRegistry } from '../../src/informers/registry.js';
import type { ProvisionEvent } from '../../src/rollout/events.js';
import { provision, provision$ } from '../../src/workload/operations/provision.js';
import { reconfigure } from '../../src/workload/operations/reconfigure.js';
import { remove, remove$ } from '../../src/workload/operations/remove.js';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { restart } from '../../src/workload/operations/restart.js';
import { start } from '../../src/workload/operations/start.js';
import { list } from '../../src/workload/reads/list.js';
import { status } from '../../src/workload/reads/status.js';
import type { StatusEvent } from '../../src/workload/reads/status-board.js';
import { statuses$ } from '../../src/workload/reads/statuses.js';
import { stop } from '../../src/workload/operations/stop.js';
import { StorageResizeError } from '../../src/workload/operations/resize-claim.js';
import { NoDefaultStorageClassError, StorageClassNotFoundError } from '../../src/workload/operations/storage-class-choice.js';
import { FakeKubernetes, completeRollout, podOf, startRollout } from '../support/fake-kube.js';
import { conditions, replicaSetName } from '../support/fixtures.js';

const input = {
  containerId: 42,
  nodeId: 7,
  hostname: 'web',
  image: 'docker.io/library/debian:12',
  cpus: 1,
  memoryMb: 1024,
  storage: { sizeGb: 10 },
};
const ID = 'default/web';
const fastInformers = () => new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });

async function withClasses(fake = new FakeKubernetes(), { expandable = false } = {}): Promise<FakeKubernetes> {
  await fake.create('storageclasses', '', {
    metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'example.com/csi',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: expandable,
  });
  await fake.create('storageclasses', '', { metadata: { name: 'fixed' }, provisioner: 'kubernetes.io/no-provisioner' });
  return fake;
}

function bindClaim(fake: FakeKubernetes, name = 'web', size = '10Gi'): void {
  fake.update('persistentvolumeclaims', name, (claim) => {
    claim.spec = { ...claim.spec, volumeName: `pv-${name}` };
    claim.status = { phase: 'Bound', capacity: { storage: size } };
  });
}

function readyStatus(): V1Pod['status'] {
  return {
    phase: 'Running',
    conditions: [
      { type: 'PodScheduled', status: 'True' },
      { type: 'Ready', status: 'True' },
    ],
    containerStatuses: [{ name: 'web', image: input.image, imageID: 'x', ready: true, restartCount: 0, state: { running: {} } }],
  };
}

/** Provisions and plays the controllers until ready: the claim bound, the rollout complete, a ready Pod. */
async function running(fake: FakeKubernetes) {
  const done = provision(fake, input, { informers: fastInformers() });
  await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
  bindClaim(fake);
  const deployment = completeRollout(fake, 'web');
  fake.addPod(podOf(deployment, readyStatus()));
  await done;
  return fake.get('persistentvolumeclaims', 'web')!;
}

const claimWrites = (fake: FakeKubernetes) =>
  fake.calls.filter((call) => call.kind === 'persistentvolumeclaims' && ['create', 'patch', 'delete'].includes(call.method));
/** Writes that change or remove a claim (a create refused as AlreadyExists is how adoption starts). */
const claimChanges = (fake: FakeKubernetes) => claimWrites(fake).filter((call) => call.method !== 'create');

describe('provision with storage', () => {
  it('creates the claim before the Deployment: named after the container, its labels, the default class, no owner reference', async () => {
    const fake = await withClasses();
    fake.calls.length = 0;
    const events: ProvisionEvent[] = [];
    const run = provision$(fake, input, { informers: fastInformers() }).subscribe((event) => events.push(event));
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
    const creates = fake.calls.filter((call) => call.method === 'create').map((call) => call.kind);
    expect(creates).toEqual(['persistentvolumeclaims', 'deployments']);
    const claim = fake.get('persistentvolumeclaims', 'web')!;
    const deployment = fake.get('deployments', 'web')!;
    expect(claim.metadata?.labels).toEqual(deployment.metadata?.labels);
    expect(claim.metadata?.ownerReferences).toBeUndefined();
    expect(claim.spec).toMatchObject({
      storageClassName: 'standard',
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '10Gi' } },
    });
    expect(events[0]).toMatchObject({
      type: 'created',
      claim: { name: 'web', storageClass: 'standard', classSource: 'default', adopted: false },
    });
    run.unsubscribe();
  });

  it('no default StorageClass and none named: a typed error naming the option, before anything is created', async () => {
    const fake = new FakeKubernetes();
    const error = await provision(fake, input, { informers: fastInformers() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoDefaultStorageClassError);
    expect(error).toMatchObject({ option: 'storage.storageClass', message: expect.stringMatching(/--storage-class/) });
    expect(fake.calls.filter((call) => call.method === 'create')).toEqual([]);
  });

  it('a named class that does not exist: StorageClassNotFoundError, nothing created', async () => {
    const fake = await withClasses();
    const error = await provision(fake, { ...input, storage: { sizeGb: 10, storageClass: 'gold' } }, { informers: fastInformers() }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StorageClassNotFoundError);
    expect(fake.calls.filter((call) => call.method === 'create' && call.kind !== 'storageclasses')).toEqual([]);
  });

  it("a provisioner that keeps failing is named in the PV controller's words when the grace ends; the cleanup removes the claim this run created", async () => {
    const fake = await withClasses();
    const done = provision(fake, input, { informers: fastInformers(), failurePolicy: { provisioning: { graceMs: 50 } } }).catch(
      (e: unknown) => e,
    );
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
    const claim = fake.get('persistentvolumeclaims', 'web')!;
    startRollout(fake, 'web');
    await fake.create('events', 'default', {
      metadata: { name: 'web.1' },
      involvedObject: { kind: 'PersistentVolumeClaim', name: 'web', uid: claim.metadata!.uid! },
      type: 'Warning',
      reason: 'ProvisioningFailed',
      message: 'failed to provision volume with StorageClass "standard": rpc error: code = ResourceExhausted desc = out of capacity',
      lastTimestamp: new Date().toISOString(),
    });
    const error = await done;
    expect(error).toMatchObject({
      name: 'RolloutFailedError',
      reason: 'ProvisioningFailed',
      message: expect.stringMatching(/out of capacity/),
    });
    expect((error as { cleanup?: unknown }).cleanup).toMatchObject({ claim: 'deleted' });
    expect(fake.get('persistentvolumeclaims', 'web')).toBeUndefined();
    expect(fake.get('deployments', 'web')).toBeUndefined();
  });

  it('keepOnFailure keeps the claim it created', async () => {
    const fake = await withClasses();
    const done = provision(fake, input, {
      informers: fastInformers(),
      keepOnFailure: true,
      failurePolicy: { provisioning: { graceMs: 20 } },
    }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
    fake.update('persistentvolumeclaims', 'web', (claim) => {
      claim.metadata = { ...claim.metadata, annotations: { 'volume.kubernetes.io/selected-node': 'node-a' } };
    });
    startRollout(fake, 'web');
    const error = await done;
    expect(error).toMatchObject({ reason: 'UnboundClaim', cleanup: { outcome: 'kept', claim: 'kept' } });
    expect(claimWrites(fake).map((call) => call.method)).toEqual(['create']);
  });

  it("a failed provisioning never deletes a claim that existed before it (kept data): the user's files survive the cleanup", async () => {
    const fake = await withClasses();
    const kept = await running(fake);
    await remove(fake, ID, { containerId: 42, keepData: true, informers: fastInformers() });
    expect(fake.get('deployments', 'web')).toBeUndefined();
    fake.calls.length = 0;
    // The re-create re-attaches the claim, and its rollout fails (the image cannot be pulled).
    const done = provision(fake, input, { informers: fastInformers() }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
    const deployment = startRollout(fake, 'web');
    fake.addPod(
      podOf(deployment, {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'True' }],
        containerStatuses: [
          {
            name: 'web',
            image: input.image,
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'InvalidImageName', message: 'bad' } },
          },
        ],
      }),
    );
    const error = await done;
    expect(error).toMatchObject({ name: 'RolloutFailedError', cleanup: { outcome: 'deleted', claim: 'adopted' } });
    expect(fake.get('deployments', 'web')).toBeUndefined();
    expect(fake.get('persistentvolumeclaims', 'web')?.metadata?.uid).toBe(kept.metadata?.uid);
    expect(claimChanges(fake)).toEqual([]);
  });

  it('no default StorageClass: a kept claim of this container is re-attached on its own class, nothing named', async () => {
    const fake = await withClasses();
    const kept = await running(fake);
    await remove(fake, ID, { containerId: 42, keepData: true, informers: fastInformers() });
    // The default class is gone since (an admin removed the annotation): the claim still names its class.
    fake.update(
      'storageclasses',
      'standard',
      (storageClass) => {
        storageClass.metadata = { ...storageClass.metadata, annotations: {} };
      },
      '',
    );
    fake.calls.length = 0;
    const events = lastValueFrom(provision$(fake, input, { informers: fastInformers() }).pipe(toArray()));
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
    fake.addPod(podOf(completeRollout(fake, 'web'), readyStatus()));
    const seen = await events;
    expect(seen[0]).toMatchObject({ type: 'created', claim: { uid: kept.metadata?.uid, adopted: true, storageClass: 'standard' } });
    expect(fake.get('persistentvolumeclaims', 'web')?.metadata?.uid).toBe(kept.metadata?.uid);
    expect(claimChanges(fake)).toEqual([]);
  });

  it("no default StorageClass and the claim of the name is another container's: NoDefaultStorageClassError, nothing created", async () => {
    const fake = new FakeKubernetes();
    await fake.create('persistentvolumeclaims', 'default', {
      metadata: {
        name: 'web',
        labels: { 'org.mieweb.opensource-server.managed': 'true', 'org.mieweb.opensource-server.container-id': '99' },
      },
      spec: { storageClassName: 'fixed', resources: { requests: { storage: '10Gi' } } },
    });
    fake.calls.length = 0;
    const error = await provision(fake, input, { informers: fastInformers() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoDefaultStorageClassError);
    expect(fake.calls.filter((call) => call.method === 'create')).toEqual([]);
  });

  it('minReadySeconds is kept in the Deployment built with the chosen class (0 stays 0)', async () => {
    const fake = await withClasses();
    const run = provision$(fake, input, { informers: fastInformers(), minReadySeconds: 0 }).subscribe();
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
    expect(fake.get('deployments', 'web')?.spec?.minReadySeconds).toBe(0);
    expect(fake.get('persistentvolumeclaims', 'web')?.spec?.storageClassName).toBe('standard');
    run.unsubscribe();
  });

  it("a claim of the name that is another container's is a conflict, left untouched, and nothing is created", async () => {
    const fake = await withClasses();
    await fake.create('persistentvolumeclaims', 'default', {
      metadata: {
        name: 'web',
        labels: { 'org.mieweb.opensource-server.managed': 'true', 'org.mieweb.opensource-server.container-id': '99' },
      },
      spec: { resources: { requests: { storage: '10Gi' } } },
    });
    fake.calls.length = 0;
    const error = await provision(fake, input, { informers: fastInformers() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: expect.stringMatching(/Conflict|Ownership/) });
    expect(fake.get('persistentvolumeclaims', 'web')?.metadata?.labels?.['org.mieweb.opensource-server.container-id']).toBe('99');
    expect(fake.get('deployments', 'web')).toBeUndefined();
    expect(claimChanges(fake)).toEqual([]);
  });
});

describe('the whole life keeps the claim', () => {
  it('stop, start, restart and reconfigure write nothing to the claim: the same UID and volume throughout', async () => {
    const fake = await withClasses();
    const claim = await running(fake);
    fake.calls.length = 0;
    const options = { containerId: 42, informers: fastInformers() };

    const stopping = stop(fake, ID, options);
    await vi.waitFor(() => expect(fake.get('deployments', 'web')?.spec?.replicas).toBe(0));
    for (const pod of (await fake.list('pods', 'default', undefined)).items) fake.removeObject('pods', pod.metadata!.name!);
    fake.update('deployments', 'web', (deployment) => {
      deployment.status = {
        observedGeneration: deployment.metadata?.generation ?? 1,
        conditions: [conditions.available(), conditions.newReplicaSetAvailable(replicaSetName('web'))],
      };
    });
    await stopping;

    const starting = start(fake, ID, options);
    await vi.waitFor(() => expect(fake.get('deployments', 'web')?.spec?.replicas).toBe(1));
    fake.addPod(podOf(completeRollout(fake, 'web'), readyStatus(), 'x2'));
    await starting;

    const restarting = restart(fake, ID, options);
    await vi.waitFor(() => expect(fake.calls.filter((call) => call.method === 'patch' && call.kind === 'deployments').length).toBe(3));
    fake.addPod(podOf(completeRollout(fake, 'web'), readyStatus(), 'x3'));
    await restarting;

    const reconfiguring = reconfigure(fake, ID, { cpus: 2 }, options);
    await vi.waitFor(() => expect(fake.calls.filter((call) => call.method === 'patch' && call.kind === 'deployments').length).toBe(4));
    fake.addPod(podOf(completeRollout(fake, 'web'), readyStatus(), 'x4'));
    await reconfiguring;

    expect(claimWrites(fake)).toEqual([]);
    const after = fake.get('persistentvolumeclaims', 'web') as V1PersistentVolumeClaim;
    expect(after.metadata?.uid).toBe(claim.metadata?.uid);
    expect(after.spec?.volumeName).toBe('pv-web');
  });
});

describe('a start names a volume that cannot attach', () => {
  it("the new Pod's Multi-Attach error ends the start with FailedAttachVolume when the attach grace ends", async () => {
    const fake = await withClasses();
    await running(fake);
    const options = { containerId: 42, informers: fastInformers(), failurePolicy: { volumeAttach: { graceMs: 50 } } };
    await fake.patch('deployments', 'default', 'web', { spec: { replicas: 0 } });
    for (const pod of (await fake.list('pods', 'default', undefined)).items) fake.removeObject('pods', pod.metadata!.name!);
    fake.update('deployments', 'web', (deployment) => {
      deployment.status = {
        observedGeneration: deployment.metadata?.generation ?? 1,
        conditions: [conditions.available(), conditions.newReplicaSetAvailable(replicaSetName('web'))],
      };
    });
    const starting = start(fake, ID, options).catch((e: unknown) => e);
    await vi.waitFor(() => expect(fake.get('deployments', 'web')?.spec?.replicas).toBe(1));
    const deployment = startRollout(fake, 'web');
    const pod = fake.addPod(
      podOf(
        deployment,
        {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'True' }],
          initContainerStatuses: [
            {
              name: 'kube-provisioner-seed',
              image: input.image,
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: 'PodInitializing' } },
            },
          ],
        },
        'x2',
      ),
    );
    fake.update('pods', pod.metadata!.name!, (each) => {
      each.spec = { ...each.spec!, nodeName: 'node-b' };
    });
    await fake.create('events', 'default', {
      metadata: { name: 'web-x2.1' },
      involvedObject: { kind: 'Pod', name: pod.metadata!.name!, uid: pod.metadata!.uid! },
      type: 'Warning',
      reason: 'FailedAttachVolume',
      message:
        'Multi-Attach error for volume "pv-web" Volume is already exclusively attached to one node and can\'t be attached to another',
      lastTimestamp: new Date().toISOString(),
    });
    const error = await starting;
    expect(error).toMatchObject({
      name: 'RolloutFailedError',
      reason: 'FailedAttachVolume',
      message: expect.stringMatching(/Multi-Attach/),
    });
    expect(fake.get('persistentvolumeclaims', 'web')).toBeDefined();
  });
});

describe('status shows the volume', () => {
  it("the claim's phase, class, requested and actual capacity; a resize that is pending says so", async () => {
    const fake = await withClasses(new FakeKubernetes(), { expandable: true });
    await running(fake);
    expect((await status(fake, ID, { containerId: 42 })).storage).toMatchObject({
      name: 'web',
      phase: 'Bound',
      storageClass: 'standard',
      requested: '10Gi',
      capacity: '10Gi',
      resize: 'none',
    });
    await reconfigure(fake, ID, { storageGb: 20 }, { containerId: 42, informers: fastInformers() });
    expect((await status(fake, ID, { containerId: 42 })).storage).toMatchObject({ requested: '20Gi', capacity: '10Gi', resize: 'pending' });
    fake.removeObject('persistentvolumeclaims', 'web');
    expect((await status(fake, ID, { containerId: 42 })).storage).toMatchObject({ phase: 'Missing' });
  });

  it('a claim asking for more than its volume has, on a class without expansion: not-supported (the class is read only then)', async () => {
    const fake = await withClasses();
    await running(fake);
    fake.calls.length = 0;
    await status(fake, ID, { containerId: 42 });
    expect(fake.calls.filter((call) => call.kind === 'storageclasses')).toEqual([]);
    // Grown by hand past the class's word (the API server refuses it for most classes).
    fake.update('persistentvolumeclaims', 'web', (claim) => {
      claim.spec = { ...claim.spec, resources: { requests: { storage: '20Gi' } } };
    });
    expect((await status(fake, ID, { containerId: 42 })).storage).toMatchObject({
      requested: '20Gi',
      capacity: '10Gi',
      resize: 'not-supported',
      expandable: false,
      message: expect.stringMatching(/does not allow expansion/),
    });
  });

  it("list() shows each workload's claim; a caller that may not list claims gets the list without it", async () => {
    const fake = await withClasses();
    await running(fake);
    const [entry] = await list(fake);
    expect(entry?.detail.storage).toMatchObject({
      name: 'web',
      phase: 'Bound',
      storageClass: 'standard',
      requested: '10Gi',
      capacity: '10Gi',
    });
    fake.forbiddenKinds.add('persistentvolumeclaims');
    const [without] = await list(fake);
    expect(without).toMatchObject({ status: 'running' });
    expect(without?.detail.storage).toBeUndefined();
  });

  it('statuses$ shows the claim from the shared claim informer, and each change of it once (bound, grown, gone)', async () => {
    const fake = await withClasses();
    const informers = fastInformers();
    const events: StatusEvent[] = [];
    const subscription = statuses$(fake, { informers }).subscribe((event) => events.push(event));
    const done = provision(fake, input, { informers });
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
    await vi.waitFor(() => expect(events.at(-1)?.status.storage).toMatchObject({ phase: 'Pending', requested: '10Gi' }));
    bindClaim(fake);
    fake.addPod(podOf(completeRollout(fake, 'web'), readyStatus()));
    await done;
    await vi.waitFor(() =>
      expect(events.at(-1)?.status).toMatchObject({
        state: 'running',
        storage: { phase: 'Bound', volumeName: 'pv-web', capacity: '10Gi' },
      }),
    );
    fake.update('persistentvolumeclaims', 'web', (claim) => {
      claim.spec = { ...claim.spec, resources: { requests: { storage: '20Gi' } } };
    });
    await vi.waitFor(() => expect(events.at(-1)?.status.storage).toMatchObject({ requested: '20Gi', capacity: '10Gi', resize: 'pending' }));
    const before = events.length;
    // The same claim again (a resync): no event.
    fake.update('persistentvolumeclaims', 'web', () => undefined);
    fake.removeObject('persistentvolumeclaims', 'web');
    await vi.waitFor(() => expect(events.at(-1)?.status.storage).toMatchObject({ phase: 'Missing' }));
    expect(events.slice(before).map((event) => event.status.storage?.phase)).toEqual(['Missing']);
    // One claim watch for the namespace, shared with the provisioning's claim gate.
    expect(fake.calls.filter((call) => call.method === 'watch' && call.kind === 'persistentvolumeclaims').length).toBe(1);
    subscription.unsubscribe();
  });

  it('statuses$ for a caller that may not watch claims: the statuses, without storage, and no error', async () => {
    const fake = await withClasses();
    await running(fake);
    fake.forbiddenKinds.add('persistentvolumeclaims');
    const events: StatusEvent[] = [];
    const errors: unknown[] = [];
    const subscription = statuses$(fake, { informers: fastInformers() }).subscribe({
      next: (e) => events.push(e),
      error: (e) => errors.push(e),
    });
    await vi.waitFor(() => expect(events.at(-1)?.status.state).toBe('running'));
    expect(events.at(-1)?.status.storage).toBeUndefined();
    expect(errors).toEqual([]);
    subscription.unsubscribe();
  });
});

describe('delete', () => {
  it('removes the claim by default and waits until it is gone', async () => {
    const fake = await withClasses();
    await running(fake);
    const result = await remove(fake, ID, { containerId: 42, informers: fastInformers() });
    expect(result).toMatchObject({ changed: true, storage: 'deleted' });
    expect(fake.get('persistentvolumeclaims', 'web')).toBeUndefined();
    expect(claimWrites(fake).map((call) => call.method)).toEqual(['create', 'delete']);
  });

  it('keepData keeps the claim; a later create for the same container re-attaches it (the same UID)', async () => {
    const fake = await withClasses();
    const claim = await running(fake);
    const result = await remove(fake, ID, { containerId: 42, keepData: true, informers: fastInformers() });
    expect(result).toMatchObject({ changed: true, storage: 'kept' });
    expect(fake.get('deployments', 'web')).toBeUndefined();
    expect(fake.get('persistentvolumeclaims', 'web')?.metadata?.uid).toBe(claim.metadata?.uid);

    const events = provision$(fake, input, { informers: fastInformers() });
    const all = lastValueFrom(events.pipe(toArray()));
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
    fake.addPod(podOf(completeRollout(fake, 'web'), readyStatus()));
    const seen = await all;
    expect(seen[0]).toMatchObject({ type: 'created', claim: { uid: claim.metadata?.uid, adopted: true } });
    expect(fake.get('persistentvolumeclaims', 'web')?.metadata?.uid).toBe(claim.metadata?.uid);
  });

  it('keepData: each event is stamped when it happened, so "kept" follows "Deployment deleted" in time too', async () => {
    const fake = await withClasses();
    await running(fake);
    // A clock that moves a second at every reading: a stamp taken early shows as earlier.
    let tick = 0;
    const scheduler: SchedulerLike = Object.assign(Object.create(asyncScheduler) as SchedulerLike, {
      now: () => Date.parse('2026-01-01T00:00:00Z') + 1000 * tick++,
    });
    const events = await lastValueFrom(
      remove$(fake, ID, { containerId: 42, keepData: true, informers: fastInformers(), scheduler }).pipe(toArray()),
    );
    const lines = events.map((event) => `${event.type}${'kind' in event ? ` ${event.kind}` : ''}`);
    expect(lines.indexOf('deleted Deployment')).toBeGreaterThanOrEqual(0);
    expect(lines.indexOf('kept PersistentVolumeClaim')).toBeGreaterThan(lines.indexOf('deleted Deployment'));
    const times = events.map((event) => Date.parse(event.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const at = (line: string) => times[lines.indexOf(line)]!;
    expect(at('kept PersistentVolumeClaim')).toBeGreaterThan(at('deleted Deployment'));
  });

  it('keepData must be true or false: refused before any request', async () => {
    const fake = await withClasses();
    fake.calls.length = 0;
    await expect(remove(fake, ID, { containerId: 42, keepData: 'yes' as never })).rejects.toMatchObject({
      name: 'InvalidOptionError',
      message: expect.stringMatching(/keepData must be true or false/),
    });
    expect(fake.calls).toEqual([]);
  });

  it("another installation's claim of the same name is never touched", async () => {
    const fake = await withClasses();
    await fake.create('persistentvolumeclaims', 'default', {
      metadata: {
        name: 'web',
        labels: {
          'org.mieweb.opensource-server.managed': 'true',
          'org.mieweb.opensource-server.container-id': '42',
          'org.mieweb.opensource-server.instance': 'other',
        },
      },
      spec: { resources: { requests: { storage: '10Gi' } } },
    });
    await remove(fake, ID, { containerId: 42, instance: 'mine', informers: fastInformers() });
    expect(fake.get('persistentvolumeclaims', 'web')).toBeDefined();
    expect(claimWrites(fake).map((call) => call.method)).toEqual(['create']);
  });
});

describe('reconfigure storageGb', () => {
  it('grows the claim when its class allows expansion (a preconditioned patch); status says the resize is pending', async () => {
    const fake = await withClasses(new FakeKubernetes(), { expandable: true });
    const claim = await running(fake);
    fake.calls.length = 0;
    const result = await reconfigure(fake, ID, { storageGb: 20 }, { containerId: 42, informers: fastInformers() });
    expect(result).toMatchObject({ changed: true, fields: ['storage.sizeGb'] });
    const patch = fake.calls.find((call) => call.method === 'patch' && call.kind === 'persistentvolumeclaims');
    expect(patch?.body).toMatchObject({ metadata: { uid: claim.metadata?.uid }, spec: { resources: { requests: { storage: '20Gi' } } } });
    expect(fake.get('persistentvolumeclaims', 'web')?.spec?.resources?.requests?.storage).toBe('20Gi');
    expect(fake.calls.filter((call) => call.kind === 'deployments' && call.method === 'patch')).toEqual([]);
  });

  it('a class without expansion: StorageResizeError NotExpandable before any write; the claim unchanged', async () => {
    const fake = await withClasses();
    await running(fake);
    fake.calls.length = 0;
    const error = await reconfigure(fake, ID, { storageGb: 20 }, { containerId: 42, informers: fastInformers() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageResizeError);
    expect(error).toMatchObject({ refusal: 'NotExpandable', storageClass: 'standard', current: '10Gi', requested: '20Gi' });
    expect(fake.calls.filter((call) => call.method === 'patch')).toEqual([]);
    expect(fake.get('persistentvolumeclaims', 'web')?.spec?.resources?.requests?.storage).toBe('10Gi');
  });

  it('shrinking is refused before any write', async () => {
    const fake = await withClasses(new FakeKubernetes(), { expandable: true });
    await running(fake);
    fake.calls.length = 0;
    const error = await reconfigure(fake, ID, { storageGb: 5 }, { containerId: 42, informers: fastInformers() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'StorageResizeError', refusal: 'Shrink' });
    expect(fake.calls.filter((call) => call.method === 'patch')).toEqual([]);
  });
});
