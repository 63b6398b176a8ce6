// The claim as a readiness gate of the rollout: claimGate() (pure) and what trackRollout()
// makes of it, step by step with explicit times (no scheduler, no fake client). Messages
// are the PV controller's and the kubelet's, as in storage-diagnosis.test.ts.
import { describe, expect, it } from 'vitest';
import type { V1PersistentVolumeClaim } from '../../../src/kube/objects.js';
import { claimGate } from '../../../src/rollout/claim-gate.js';
import { DEFAULT_FAILURE_POLICY, resolveFailurePolicy } from '../../../src/rollout/failure-policy.js';
import type { StorageEvent } from '../../../src/rollout/storage-diagnosis.js';
import { INITIAL_TRACKER_STATE, trackRollout } from '../../../src/rollout/tracker.js';
import { containerCreatingPod, deployment, progressingDeployment, readyPod } from '../../support/fixtures.js';

const claim = (phase: string, extra: Partial<V1PersistentVolumeClaim['metadata']> = {}): V1PersistentVolumeClaim => ({
  metadata: { name: 'web', uid: 'claim-uid', ...extra },
  spec: { storageClassName: 'fast', resources: { requests: { storage: '50Gi' } }, ...(phase === 'Bound' ? { volumeName: 'pv-1' } : {}) },
  status: { phase, ...(phase === 'Bound' ? { capacity: { storage: '50Gi' } } : {}) },
});

const claimEvent = (reason: string, message: string): StorageEvent => ({
  kind: 'PersistentVolumeClaim',
  name: 'web',
  uid: 'claim-uid',
  reason,
  message,
  lastSeenMs: 1,
});

describe('claimGate', () => {
  it('Bound is Complete; Pending with nothing said is InProgress and no problem (WaitForFirstConsumer before the Pod is placed)', () => {
    expect(claimGate('web', claim('Bound'), [], []).status).toMatchObject({ state: 'Complete', reason: 'Bound' });
    const pending = claimGate('web', claim('Pending'), [], []);
    expect(pending).toMatchObject({ kind: 'PersistentVolumeClaim', name: 'web', status: { state: 'InProgress', reason: 'Pending' } });
    expect(pending.problems).toBeUndefined();
    // Not in the cache yet (just created): waited for, never failed.
    expect(claimGate('web', undefined, [], []).status.state).toBe('InProgress');
  });

  it('being deleted, or Lost, is Failed', () => {
    const deleting = claimGate('web', claim('Bound', { deletionTimestamp: new Date(0) }), [], []);
    expect(deleting.status).toMatchObject({ state: 'Failed', reason: 'ClaimTerminating' });
    expect(claimGate('web', claim('Lost'), [], []).status).toMatchObject({ state: 'Failed', reason: 'ClaimLost' });
  });

  it("the PV controller's ProvisioningFailed is a problem in its words; the scheduler's chosen node with no volume is one too", () => {
    const failing = claimGate('web', claim('Pending'), [claimEvent('ProvisioningFailed', 'out of capacity')], []);
    expect(failing.problems).toEqual([
      {
        severity: 'waiting',
        reason: 'ProvisioningFailed',
        message: 'ProvisioningFailed: out of capacity',
        pod: 'PersistentVolumeClaim/web',
      },
    ]);
    const placed = claimGate('web', claim('Pending', { annotations: { 'volume.kubernetes.io/selected-node': 'kwok-node-0' } }), [], []);
    expect(placed.problems?.[0]).toMatchObject({ reason: 'UnboundClaim', message: expect.stringContaining('kwok-node-0') });
    // Once bound, old events say nothing.
    expect(claimGate('web', claim('Bound'), [claimEvent('ProvisioningFailed', 'out of capacity')], []).problems).toBeUndefined();
  });

  it("a Pod waiting for its volumes names the kubelet's FailedMount", () => {
    const pod = containerCreatingPod();
    const event: StorageEvent = {
      kind: 'Pod',
      name: pod.metadata!.name!,
      reason: 'FailedMount',
      message: 'MountVolume.SetUp failed for volume "pv-1" : mount failed: exit status 32',
      lastSeenMs: 1,
    };
    const gate = claimGate('web', claim('Bound'), [event], [pod]);
    expect(gate.problems).toEqual([
      expect.objectContaining({
        reason: 'FailedMount',
        pod: pod.metadata!.name,
        message: expect.stringContaining('MountVolume.SetUp failed'),
      }),
    ]);
  });
});

describe('trackRollout with the claim gate', () => {
  it('a provisioner that keeps failing ends the rollout when the provisioning grace ends, named as the claim', () => {
    const policy = resolveFailurePolicy({ provisioning: { graceMs: 5000 } });
    const gates = [claimGate('web', claim('Pending'), [claimEvent('ProvisioningFailed', 'rpc error: out of capacity')], [])];
    const input = { deployment: progressingDeployment(), pods: [], gates };
    const first = trackRollout(policy, INITIAL_TRACKER_STATE, { ...input, now: 1000 });
    expect(first).toMatchObject({ failure: undefined, recheckAt: 6000, pod: { reason: 'ProvisioningFailed' } });
    const at = trackRollout(policy, first.state, { ...input, now: 6000 });
    expect(at.failure).toEqual({
      source: 'gate',
      kind: 'PersistentVolumeClaim',
      reason: 'ProvisioningFailed',
      detail: 'PersistentVolumeClaim web: ProvisioningFailed: rpc error: out of capacity',
    });
  });

  it('a class that does not exist fails at once: waiting cannot help', () => {
    const gates = [
      claimGate('web', claim('Pending'), [claimEvent('ProvisioningFailed', 'storageclass.storage.k8s.io "fast" not found')], []),
    ];
    const step = trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, {
      deployment: progressingDeployment(),
      pods: [],
      gates,
      now: 0,
    });
    expect(step.failure).toMatchObject({ source: 'gate', reason: 'ProvisioningFailed' });
  });

  it('a Pending claim with nothing wrong neither fails nor arms a timer; the rollout completes only once it is Bound', () => {
    const pending = [claimGate('web', claim('Pending'), [], [])];
    const waiting = trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, {
      deployment: progressingDeployment(),
      pods: [],
      gates: pending,
      now: 0,
    });
    expect(waiting).toMatchObject({ failure: undefined, recheckAt: undefined, complete: false });
    const done = { deployment: deployment(), pods: [readyPod()], now: 1 };
    expect(trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, { ...done, gates: pending })).toMatchObject({
      complete: false,
      waitingFor: { kind: 'PersistentVolumeClaim' },
    });
    const bound = [claimGate('web', claim('Bound'), [], [])];
    expect(trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, { ...done, gates: bound }).complete).toBe(true);
  });
});
