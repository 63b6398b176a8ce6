// The default StorageClass as the API server's admission picks it, and what a class offers.
// The tie rule (same creation second: the smaller name) was read off the local control plane.
import { describe, expect, it } from 'vitest';
import type { V1StorageClass } from '../../../src/kube/objects.js';
import { defaultStorageClass, describeStorageClass, summarizeStorageClass } from '../../../src/rollout/storage-class.js';

function storageClass(
  name: string,
  options: { isDefault?: boolean | 'beta'; created?: string; mode?: string; expand?: boolean; provisioner?: string } = {},
): V1StorageClass {
  const key =
    options.isDefault === 'beta' ? 'storageclass.beta.kubernetes.io/is-default-class' : 'storageclass.kubernetes.io/is-default-class';
  return {
    metadata: {
      name,
      creationTimestamp: options.created ?? '2026-12-01T11:00:00Z',
      ...(options.isDefault ? { annotations: { [key]: 'true' } } : {}),
    },
    provisioner: options.provisioner ?? 'kubernetes.io/no-provisioner',
    ...(options.mode ? { volumeBindingMode: options.mode } : {}),
    ...(options.expand !== undefined ? { allowVolumeExpansion: options.expand } : {}),
  };
}

describe('defaultStorageClass', () => {
  it('none marked: no default', () => {
    expect(defaultStorageClass([storageClass('a'), storageClass('b')])).toEqual({ defaults: [] });
  });

  it('the newest of those marked, the beta annotation included; ties go to the smaller name', () => {
    const older = storageClass('older', { isDefault: true, created: '2026-01-01T00:00:00Z' });
    const newer = storageClass('newer', { isDefault: 'beta', created: '2026-06-01T00:00:00Z' });
    expect(defaultStorageClass([older, storageClass('plain'), newer])).toEqual({ chosen: newer, defaults: [newer, older] });
    const [a, b] = [storageClass('external-absent', { isDefault: true }), storageClass('immediate-none', { isDefault: true })];
    expect(defaultStorageClass([b, a]).chosen).toBe(a);
  });

  it('"false" is not a mark', () => {
    expect(
      defaultStorageClass([
        { ...storageClass('x'), metadata: { name: 'x', annotations: { 'storageclass.kubernetes.io/is-default-class': 'false' } } },
      ]).chosen,
    ).toBeUndefined();
  });
});

describe('summarizeStorageClass and describeStorageClass', () => {
  it('fills in the API server’s defaults: Immediate, no expansion, reclaim Delete', () => {
    expect(summarizeStorageClass(storageClass('plain', { provisioner: 'rancher.io/local-path' }))).toEqual({
      name: 'plain',
      provisioner: 'rancher.io/local-path',
      bindingMode: 'Immediate',
      allowsExpansion: false,
      reclaimPolicy: 'Delete',
      isDefault: false,
    });
    expect(describeStorageClass(storageClass('plain', { provisioner: 'rancher.io/local-path' }))).toBe(
      'plain: provisioner rancher.io/local-path, binds at once (Immediate), does not allow expansion, reclaim Delete',
    );
    expect(describeStorageClass(storageClass('local', { mode: 'WaitForFirstConsumer', expand: true }))).toBe(
      'local: no provisioner: only volumes an administrator created, binds when the Pod is scheduled (WaitForFirstConsumer), allows expansion, reclaim Delete',
    );
  });
});
