// claimStatus(): phase, class, requested vs actual capacity, and the resize states. The
// claims are shaped as the API server returned them on the local control plane (a static
// volume bound by the PV controller, a request grown on a class that allows expansion).
import { describe, expect, it } from 'vitest';
import type { V1PersistentVolumeClaim, V1StorageClass } from '../../../src/kube/objects.js';
import { claimStatus, storageCompare } from '../../../src/rollout/claim-status.js';

function claim(
  overrides: { phase?: string; requested?: string; capacity?: string; deleting?: boolean; status?: Record<string, unknown> } = {},
): V1PersistentVolumeClaim {
  const phase = overrides.phase ?? 'Bound';
  return {
    metadata: { name: 'web', namespace: 'team-a', uid: 'c1', ...(overrides.deleting ? { deletionTimestamp: '2026-12-01T11:34:43Z' } : {}) },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: overrides.requested ?? '2Gi' } },
      storageClassName: 'local-wffc',
      ...(phase === 'Bound' ? { volumeName: 'pv-a' } : {}),
    },
    status: {
      phase,
      ...(phase === 'Bound' ? { accessModes: ['ReadWriteOnce'], capacity: { storage: overrides.capacity ?? '5Gi' } } : {}),
      ...overrides.status,
    },
  };
}

const CLASS = (allowVolumeExpansion?: boolean): V1StorageClass => ({
  metadata: { name: 'local-wffc' },
  provisioner: 'kubernetes.io/no-provisioner',
  volumeBindingMode: 'WaitForFirstConsumer',
  ...(allowVolumeExpansion !== undefined ? { allowVolumeExpansion } : {}),
});

describe('claimStatus', () => {
  it('a bound claim: its volume, the capacity it has, the class', () => {
    expect(claimStatus(claim(), 'web', CLASS())).toEqual({
      name: 'web',
      phase: 'Bound',
      storageClass: 'local-wffc',
      requested: '2Gi',
      capacity: '5Gi',
      volumeName: 'pv-a',
      resize: 'none',
      expandable: false,
      message: 'bound to pv-a: 5Gi of local-wffc',
    });
  });

  it('pending, waiting for its first consumer', () => {
    expect(claimStatus(claim({ phase: 'Pending' }), 'web')).toMatchObject({
      phase: 'Pending',
      capacity: null,
      volumeName: null,
      resize: 'none',
      expandable: null,
      message: 'pending: 2Gi of local-wffc, not bound to a volume yet',
    });
  });

  it('missing, terminating and lost', () => {
    expect(claimStatus(undefined, 'web')).toMatchObject({ name: 'web', phase: 'Missing', message: 'no claim' });
    expect(claimStatus(claim({ deleting: true }), 'web')).toMatchObject({
      phase: 'Terminating',
      message: 'being deleted (it goes once no Pod uses it)',
    });
    expect(claimStatus(claim({ phase: 'Lost' }), 'web')).toMatchObject({ phase: 'Lost', message: 'its volume is gone' });
  });

  it('a request above the capacity on a class that allows expansion and no resizer: pending (the local-path case)', () => {
    expect(claimStatus(claim({ requested: '8Gi' }), 'web', CLASS(true))).toMatchObject({
      resize: 'pending',
      expandable: true,
      message: 'bound to pv-a: 5Gi of local-wffc; asks for 8Gi, has 5Gi: waiting for a resizer (none may exist for this volume)',
    });
  });

  it('a request above the capacity on a class that no longer allows expansion: not supported', () => {
    expect(claimStatus(claim({ requested: '8Gi' }), 'web', CLASS(false))).toMatchObject({
      resize: 'not-supported',
      message: 'bound to pv-a: 5Gi of local-wffc; asks for 8Gi, has 5Gi: its StorageClass does not allow expansion',
    });
  });

  it('resizing, waiting for the node, failed', () => {
    const resizing = claim({ requested: '8Gi', status: { conditions: [{ type: 'Resizing', status: 'True' }] } });
    expect(claimStatus(resizing, 'web', CLASS(true))).toMatchObject({
      resize: 'in-progress',
      message: 'bound to pv-a: 5Gi of local-wffc; resizing from 5Gi to 8Gi',
    });
    const node = claim({ requested: '8Gi', status: { conditions: [{ type: 'FileSystemResizePending', status: 'True' }] } });
    expect(claimStatus(node, 'web', CLASS(true)).resize).toBe('pending');
    expect(claimStatus(node, 'web', CLASS(true)).message).toContain('the filesystem waits for the node');
    const infeasible = claim({
      requested: '8Gi',
      status: {
        allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' },
        conditions: [{ type: 'ControllerResizeError', status: 'True', message: 'quota\nexceeded' }],
      },
    });
    expect(claimStatus(infeasible, 'web', CLASS(true))).toMatchObject({
      resize: 'failed',
      message: 'bound to pv-a: 5Gi of local-wffc; resize to 8Gi failed (ControllerResizeInfeasible): quota exceeded',
    });
  });

  it('a class of another name says nothing about expansion', () => {
    expect(claimStatus(claim(), 'web', { ...CLASS(true), metadata: { name: 'other' } }).expandable).toBeNull();
  });

  it('compares quantities as numbers, as the API server rewrites them', () => {
    expect(storageCompare('1024Mi', '1Gi')).toBe(0);
    expect(storageCompare('5368709120', '5Gi')).toBe(0);
    expect(storageCompare('6G', '5Gi')).toBe(1);
    expect(storageCompare('4Gi', '5Gi')).toBe(-1);
    expect(storageCompare('junk', '5Gi')).toBeUndefined();
    expect(claimStatus(claim({ requested: '5120Mi', capacity: '5Gi' }), 'web', CLASS(true)).resize).toBe('none');
  });
});
