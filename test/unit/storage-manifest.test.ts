// The claim and the pod template's storage wiring, as pure functions of the spec. No fakes.
import { describe, expect, it } from 'vitest';
import type { V1PodSpec } from '../../src/kube/objects.js';
import { storageSchema, type StorageSpec } from '../../src/input/storage.js';
import { SEED_CONTAINER_NAME, SEED_SCRIPT, SEED_VOLUME_MOUNT } from '../../src/workload/seed-command.js';
import { STORAGE_VOLUME_NAME, buildClaim, persistedMounts, withStorage } from '../../src/workload/storage-manifest.js';

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
      metadata: { name: 'web', namespace: 'team-a', labels: LABELS },
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
