// The claim and the pod template's storage wiring, as pure functions of the spec. No fakes.
import { describe, expect, it } from 'vitest';
import type { V1PodSpec } from '../../../../src/kube/objects.js';
import { storageSchema, type StorageSpec } from '../../../../src/input/storage.js';
import { SEED_CONTAINER_NAME, SEED_SCRIPT, SEED_VOLUME_MOUNT } from '../../../../src/members/claim/seed-command.js';
import { STORAGE_VOLUME_NAME, buildClaim, claimDrift, persistedMounts, withStorage } from '../../../../src/members/claim/manifest.js';
import { buildWorkload } from '../../../../src/members/set.js';
import { parseWorkloadSpec } from '../../../../src/input/workload-spec.js';

const LABELS = {
  'org.mieweb.opensource-server.managed': 'true',
  'org.mieweb.opensource-server.node-id': '7',
  'org.mieweb.opensource-server.container-id': '42',
  'org.mieweb.opensource-server.instance': 'manager-a',
};

function workload(storage: Record<string, unknown> = { sizeGb: 50 }) {
  return {
    containerId: '42',
    nodeId: '7',
    hostname: 'web',
    instance: 'manager-a',
    image: 'docker.io/library/debian:12',
    storage: storageSchema.parse(storage) as StorageSpec,
  };
}

const RESOURCES = { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '500m', memory: '256Mi' } };
const POD: V1PodSpec = { hostname: 'web', containers: [{ name: 'web', image: 'docker.io/library/debian:12', resources: RESOURCES }] };

describe('buildClaim', () => {
  it('one ReadWriteOnce claim named after the container, with its labels and no owner reference', () => {
    const claim = buildClaim(workload(), { namespace: 'team-a', labels: LABELS, storageClass: 'local-wffc' });
    expect(claim).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: 'web',
        namespace: 'team-a',
        labels: LABELS,
        // The class was the cluster's default, not the spec's: a later create does not hold the claim to it.
        annotations: { 'org.mieweb.opensource-server.storage-class-source': 'default' },
      },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '50Gi' } }, storageClassName: 'local-wffc' },
    });
    expect(claim.metadata).not.toHaveProperty('ownerReferences');
    // Deterministic and JSON-clean: it equals its own round trip, and a second build.
    expect(JSON.parse(JSON.stringify(claim))).toEqual(claim);
    expect(buildClaim(workload(), { namespace: 'team-a', labels: LABELS, storageClass: 'local-wffc' })).toEqual(claim);
  });

  it('the spec’s class wins over the discovered default; without either the field is left out', () => {
    expect(
      buildClaim(workload({ sizeGb: 5, storageClass: 'fast' }), { namespace: 'n', labels: LABELS, storageClass: 'slow' }).spec
        ?.storageClassName,
    ).toBe('fast');
    expect(buildClaim(workload({ sizeGb: 5 }), { namespace: 'n', labels: LABELS }).spec).not.toHaveProperty('storageClassName');
  });

  it('never shares the labels object it was given', () => {
    const labels = { ...LABELS };
    const claim = buildClaim(workload(), { namespace: 'n', labels });
    labels['org.mieweb.opensource-server.node-id'] = '8';
    expect(claim.metadata?.labels?.['org.mieweb.opensource-server.node-id']).toBe('7');
  });
});

describe('withStorage: the pod template', () => {
  it('mounts each persisted path from its copy on the volume, and seeds them first from the same image', () => {
    const pod = withStorage(POD, workload({ sizeGb: 50, paths: ['/var/lib/app', '/etc'] }));
    expect(pod.volumes).toEqual([{ name: STORAGE_VOLUME_NAME, persistentVolumeClaim: { claimName: 'web' } }]);
    expect(pod.containers[0]?.volumeMounts).toEqual([
      { name: 'storage', mountPath: '/etc', subPath: 'rootfs/etc' },
      { name: 'storage', mountPath: '/var/lib/app', subPath: 'rootfs/var/lib/app' },
    ]);
    expect(pod.initContainers).toEqual([
      {
        name: SEED_CONTAINER_NAME,
        image: 'docker.io/library/debian:12',
        command: ['/bin/sh', '-c', SEED_SCRIPT, SEED_CONTAINER_NAME, SEED_VOLUME_MOUNT, '/etc', '/var/lib/app'],
        volumeMounts: [{ name: 'storage', mountPath: '/kube-provisioner-volume' }],
        resources: RESOURCES,
        securityContext: { runAsUser: 0, runAsGroup: 0 },
        terminationMessagePolicy: 'FallbackToLogsOnError',
      },
    ]);
    // The init container has its own copy of the resources (requests = limits: Guaranteed QoS kept).
    expect(pod.initContainers?.[0]?.resources).not.toBe(RESOURCES);
    // The input is untouched.
    expect(POD).toEqual({ hostname: 'web', containers: [{ name: 'web', image: 'docker.io/library/debian:12', resources: RESOURCES }] });
  });

  it('seed "empty": the same mounts, no init container', () => {
    const pod = withStorage(POD, workload({ sizeGb: 5, seed: 'empty', paths: ['/data'] }));
    expect(pod).not.toHaveProperty('initContainers');
    expect(pod.containers[0]?.volumeMounts).toEqual(persistedMounts({ paths: ['/data'] }));
  });

  it('the default set: seven mounts', () => {
    const pod = withStorage(POD, workload());
    expect(pod.containers[0]?.volumeMounts?.map((mount) => mount.mountPath)).toEqual([
      '/etc',
      '/home',
      '/opt',
      '/root',
      '/srv',
      '/usr',
      '/var',
    ]);
    expect(pod.initContainers?.[0]?.command?.slice(5)).toEqual(['/etc', '/home', '/opt', '/root', '/srv', '/usr', '/var']);
  });
});

describe('claimDrift: a claim found at create time', () => {
  const desired = (storage: Record<string, unknown>, storageClass?: string) =>
    buildClaim(workload(storage), { namespace: 'n', labels: LABELS, ...(storageClass ? { storageClass } : {}) });
  const live = (requested: string, storageClassName: string) => ({
    metadata: { name: 'web', labels: LABELS },
    spec: { resources: { requests: { storage: requested } }, storageClassName, volumeName: 'pv-a' },
    status: { phase: 'Bound', capacity: { storage: requested } },
  });

  it('as large or larger, in the default class it had: as asked', () => {
    expect(claimDrift(desired({ sizeGb: 50 }, 'new-default'), live('50Gi', 'old-default'))).toEqual([]);
    expect(claimDrift(desired({ sizeGb: 50 }, 'x'), live('51200Mi', 'x'))).toEqual([]);
    expect(claimDrift(desired({ sizeGb: 50 }, 'x'), live('80Gi', 'x'))).toEqual([]);
  });

  it('smaller than asked, or in another class than the spec names: drift in the spec’s words', () => {
    expect(claimDrift(desired({ sizeGb: 50, storageClass: 'fast' }), live('10Gi', 'slow'))).toEqual([
      { field: 'storage.sizeGb', live: '10Gi', desired: '50Gi' },
      { field: 'storage.storageClass', live: 'slow', desired: 'fast' },
    ]);
  });
});

describe('buildWorkload with storage: the claim, then the Deployment that mounts it', () => {
  const spec = parseWorkloadSpec({
    containerId: 42,
    nodeId: 7,
    hostname: 'web',
    image: 'debian:12',
    cpus: 1,
    memoryMb: 512,
    storage: { sizeGb: 20 },
  });

  it('two members in creation order, sharing the labels; deterministic', () => {
    const set = buildWorkload(spec, { namespace: 'team-a', storageClass: 'local-wffc' });
    expect(set.members.map((member) => member.kind)).toEqual(['persistentvolumeclaims', 'deployments']);
    const [claim, deployment] = set.members.map((member) => member.object);
    expect(claim?.metadata?.labels).toEqual(set.labels);
    expect(deployment?.metadata?.labels).toEqual(set.labels);
    expect(claim?.metadata?.name).toBe('web');
    expect(buildWorkload(spec, { namespace: 'team-a', storageClass: 'local-wffc' })).toEqual(set);
    const pod = (deployment as { spec: { template: { spec: V1PodSpec } } }).spec.template.spec;
    expect(pod.volumes).toEqual([{ name: 'storage', persistentVolumeClaim: { claimName: 'web' } }]);
    expect(pod.initContainers?.map((container) => container.name)).toEqual(['kube-provisioner-seed']);
  });

  it('without storage: the Deployment alone, with no volume', () => {
    const { storage: _, ...plain } = spec;
    const set = buildWorkload(plain, { namespace: 'team-a' });
    expect(set.members.map((member) => member.kind)).toEqual(['deployments']);
    expect(JSON.stringify(set.members)).not.toContain('volume');
  });

  it('a hostname that is the seeding init container’s name is refused with storage seeded from the image', () => {
    expect(() =>
      parseWorkloadSpec({ ...spec, containerId: 42, nodeId: 7, hostname: 'kube-provisioner-seed', storage: { sizeGb: 1 } }),
    ).toThrow('hostname: must not be kube-provisioner-seed with storage seeded from the image');
    expect(
      parseWorkloadSpec({ ...spec, hostname: 'kube-provisioner-seed', storage: { sizeGb: 1, seed: 'empty', paths: ['/data'] } }).hostname,
    ).toBe('kube-provisioner-seed');
  });

  it('storage problems carry their field path; an unknown storage key lists the storage fields', () => {
    expect(() => parseWorkloadSpec({ ...spec, storage: { sizeGb: 0, paths: ['/usr', '/usr/local'], size: 3 } })).toThrow(
      /storage\.size: is not a known field \(allowed: sizeGb, storageClass, paths, seed\)/,
    );
    const error = (() => {
      try {
        return parseWorkloadSpec({ ...spec, storage: { sizeGb: 0, paths: ['/usr', '/usr/local'] } });
      } catch (caught) {
        return caught;
      }
    })();
    expect((error as { issues: unknown }).issues).toEqual([
      { path: 'storage.sizeGb', message: 'must be at least 1 GB (got 0)' },
      { path: 'storage.paths.1', message: 'is inside /usr, which is persisted already (at 0): list only one of them (got "/usr/local")' },
    ]);
  });
});
