// Storage problems named in the controllers' words, and the failure policy's rule for each.
// The scheduler's and PV controller's messages are the ones the local control plane wrote
// (kube-scheduler and kube-controller-manager v1.36.3); the kubelet's and the attach/detach
// controller's are their documented formats. Pods come from test/support/fixtures.ts.
import { describe, expect, it } from 'vitest';
import type { V1PersistentVolumeClaim } from '../../../src/kube/objects.js';
import { diagnosePod } from '../../../src/rollout/pod-diagnosis.js';
import {
  STORAGE_REASONS,
  diagnoseStorage,
  schedulingStorageReason,
  storageEventOf,
  type StorageEvent,
} from '../../../src/rollout/storage-diagnosis.js';
import { DEFAULT_STORAGE_POLICY, storageTrackKind } from '../../../src/rollout/storage-policy.js';
import { containerCreatingPod, containerStatus, pod, states, unschedulablePod } from '../../support/fixtures.js';

export const SCHEDULER = {
  noMatchingVolume:
    "0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
  unboundImmediate: '0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found',
  claimNotFound: '0/1 nodes are available: persistentvolumeclaim "web" not found. not found',
  claimDeleting: '0/1 nodes are available: persistentvolumeclaim "web" is being deleted. not found',
  nodeConflict:
    '0/3 nodes are available: 3 node(s) had volume node affinity conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
  cpu: '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
};

const PV_CONTROLLER = {
  noPlugin: 'no volume plugin matched name: kubernetes.io/no-provisioner',
  classNotFound: 'storageclass.storage.k8s.io "no-such-class" not found',
  external:
    "Waiting for a volume to be created either by the external provisioner 'example.com/absent' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
  provisionerError: 'failed to provision volume with StorageClass "fast": rpc error: code = ResourceExhausted desc = out of capacity',
};

const CLAIM: V1PersistentVolumeClaim = {
  metadata: { name: 'web', uid: 'claim-uid' },
  spec: { storageClassName: 'immediate-none' },
  status: { phase: 'Pending' },
};

function event(kind: string, name: string, reason: string, message: string, lastSeenMs = 1_000, uid?: string): StorageEvent {
  return { kind, name, reason, message, lastSeenMs, ...(uid ? { uid } : {}) };
}

function storageOf(p: ReturnType<typeof pod>, context = {}) {
  return diagnoseStorage(p, diagnosePod(p), context);
}

describe('the scheduler’s words about volumes', () => {
  it.each([
    [SCHEDULER.noMatchingVolume, STORAGE_REASONS.noMatchingVolume],
    [SCHEDULER.unboundImmediate, STORAGE_REASONS.unboundClaim],
    [SCHEDULER.claimNotFound, STORAGE_REASONS.claimNotFound],
    [SCHEDULER.claimDeleting, STORAGE_REASONS.claimTerminating],
    [SCHEDULER.nodeConflict, STORAGE_REASONS.volumeNodeConflict],
  ])('%s -> %s', (message, reason) => {
    expect(schedulingStorageReason(message)).toBe(reason);
    const p = unschedulablePod(message);
    expect(storageOf(p)).toEqual({ severity: 'waiting', reason, message, pod: p.metadata?.name });
  });

  it('an unschedulable Pod for another reason stays Unschedulable', () => {
    const p = unschedulablePod(SCHEDULER.cpu);
    expect(storageOf(p)).toEqual(diagnosePod(p));
    expect(storageOf(p)?.reason).toBe('Unschedulable');
  });
});

describe('the PV controller’s words about the claim', () => {
  it('an unbound immediate claim carries the claim’s newest event; ProvisioningFailed becomes the reason', () => {
    const p = unschedulablePod(SCHEDULER.unboundImmediate);
    const events = [
      event('PersistentVolumeClaim', 'web', 'ExternalProvisioning', PV_CONTROLLER.external, 1_000, 'claim-uid'),
      event('PersistentVolumeClaim', 'web', 'ProvisioningFailed', PV_CONTROLLER.noPlugin, 2_000, 'claim-uid'),
      // Another claim's, and an older claim of the same name's: not ours.
      event('PersistentVolumeClaim', 'other', 'ProvisioningFailed', PV_CONTROLLER.classNotFound, 3_000),
      event('PersistentVolumeClaim', 'web', 'ProvisioningFailed', PV_CONTROLLER.classNotFound, 4_000, 'old-uid'),
    ];
    expect(storageOf(p, { claim: CLAIM, events })).toEqual({
      severity: 'waiting',
      reason: 'ProvisioningFailed',
      message: `${SCHEDULER.unboundImmediate}; claim web: ProvisioningFailed: ${PV_CONTROLLER.noPlugin}`,
      pod: p.metadata?.name,
    });
  });

  it('an external provisioner still at work: UnboundClaim, with its words', () => {
    const p = unschedulablePod(SCHEDULER.unboundImmediate);
    const events = [event('PersistentVolumeClaim', 'web', 'ExternalProvisioning', PV_CONTROLLER.external)];
    expect(storageOf(p, { claim: CLAIM, events })).toMatchObject({
      reason: 'UnboundClaim',
      message: `${SCHEDULER.unboundImmediate}; claim web: ExternalProvisioning: ${PV_CONTROLLER.external}`,
    });
  });

  it('a bound claim’s old events say nothing', () => {
    const p = unschedulablePod(SCHEDULER.noMatchingVolume);
    const events = [event('PersistentVolumeClaim', 'web', 'ProvisioningFailed', PV_CONTROLLER.noPlugin)];
    expect(storageOf(p, { claim: { ...CLAIM, status: { phase: 'Bound' } }, events })?.message).toBe(SCHEDULER.noMatchingVolume);
  });
});

describe('attach and mount, from the Pod’s events', () => {
  const MULTI_ATTACH =
    'Multi-Attach error for volume "pvc-3f1d" Volume is already exclusively attached to one node and can\'t be attached to another';
  const MOUNT = 'MountVolume.SetUp failed for volume "pvc-3f1d" : mount failed: exit status 32\nOutput: mount: wrong fs type';

  it('a Pod waiting for its volumes: the newest FailedAttachVolume or FailedMount', () => {
    const p = containerCreatingPod();
    const name = p.metadata?.name ?? '';
    const events = [
      event('Pod', name, 'FailedAttachVolume', MULTI_ATTACH, 1_000),
      event('Pod', name, 'FailedMount', MOUNT, 2_000),
      event('Pod', 'another-pod', 'FailedMount', 'not ours', 3_000),
      event('Pod', name, 'BackOff', 'not about volumes', 4_000),
    ];
    expect(storageOf(p, { events })).toEqual({
      severity: 'waiting',
      reason: 'FailedMount',
      message: 'MountVolume.SetUp failed for volume "pvc-3f1d" : mount failed: exit status 32 Output: mount: wrong fs type',
      pod: name,
    });
    expect(storageOf(p, { events: events.slice(0, 1) })).toMatchObject({ reason: 'FailedAttachVolume', message: MULTI_ATTACH });
  });

  it('a running Pod’s old mount events are over', () => {
    const p = pod();
    const seen = storageOf(p, { events: [event('Pod', p.metadata?.name ?? '', 'FailedMount', MOUNT)] });
    expect(seen).toEqual(diagnosePod(p));
    expect(seen?.reason).toBe('ContainerNotReady');
  });
});

describe('the seeding init container', () => {
  const initContainers = [{ name: 'kube-provisioner-seed' }];
  const seedPod = (state: ReturnType<typeof states.terminated>, lastState = {}) =>
    pod({
      phase: 'Pending',
      initContainers,
      initContainerStatuses: [containerStatus({ name: 'kube-provisioner-seed', state, lastState, restartCount: 1 })],
      containerStatuses: [containerStatus({ state: states.waiting('PodInitializing') })],
    });

  it('an image without cp: SeedUnsupported, naming the image and the way out', () => {
    const p = seedPod(
      states.terminated(3, 'Error', 'kube-provisioner seed: the image has no cp command, which seeding the volume needs\n'),
    );
    expect(storageOf(p)).toMatchObject({
      severity: 'failed',
      reason: 'SeedUnsupported',
      container: 'kube-provisioner-seed',
      message:
        'image registry.example.com/manager:1.4.2 cannot seed the volume: the image has no cp command, which seeding the volume needs; an image without /bin/sh and cp needs storage.seed "empty" (with the paths named)',
    });
  });

  it('an image without /bin/sh: the runtime’s words, SeedUnsupported', () => {
    const runtime =
      'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/bin/sh": stat /bin/sh: no such file or directory: unknown';
    const p = seedPod(states.terminated(128, 'StartError', runtime));
    expect(storageOf(p)).toMatchObject({ reason: 'SeedUnsupported', severity: 'failed' });
    expect(storageOf(p)?.message).toContain('has no /bin/sh to seed the volume');
  });

  it('a copy that failed, restarting: SeedFailed with the command’s words', () => {
    const p = seedPod(
      states.waiting('CrashLoopBackOff', 'back-off 10s restarting failed container'),
      states.terminated(
        1,
        'Error',
        'kube-provisioner seed: copying /usr into the volume failed: cp: write error: No space left on device\n',
      ),
    );
    expect(storageOf(p)).toMatchObject({
      reason: 'SeedFailed',
      message:
        'seeding the volume from image registry.example.com/manager:1.4.2 failed: copying /usr into the volume failed: cp: write error: No space left on device',
    });
  });
});

describe('the storage failure policy', () => {
  const diagnosis = (reason: string, message = '') => ({ severity: 'waiting' as const, reason, message, pod: 'web-1' });

  it.each([
    ['ClaimTerminating', '', 'failAtOnce'],
    ['SeedUnsupported', '', 'failAtOnce'],
    ['NoMatchingVolume', '', 'volumeBinding'],
    ['VolumeNodeConflict', '', 'volumeBinding'],
    ['ClaimNotFound', '', 'volumeBinding'],
    ['UnboundClaim', PV_CONTROLLER.external, 'provisioning'],
    ['ProvisioningFailed', PV_CONTROLLER.provisionerError, 'provisioning'],
    ['ProvisioningFailed', `claim web: ProvisioningFailed: ${PV_CONTROLLER.noPlugin}`, 'failAtOnce'],
    ['ProvisioningFailed', PV_CONTROLLER.classNotFound, 'failAtOnce'],
    ['FailedAttachVolume', 'Multi-Attach error for volume', 'volumeAttach'],
    ['FailedMount', 'MountVolume.SetUp failed', 'volumeMount'],
    ['SeedFailed', '', undefined],
    ['Unschedulable', '', undefined],
  ])('%s (%s) -> %s', (reason, message, kind) => {
    expect(storageTrackKind(DEFAULT_STORAGE_POLICY, diagnosis(reason, message))).toBe(kind);
  });

  it('graces: where a provisioner or a detach may still be at work', () => {
    expect(DEFAULT_STORAGE_POLICY.volumeBinding.graceMs).toBe(15_000);
    expect(DEFAULT_STORAGE_POLICY.provisioning.graceMs).toBe(60_000);
    expect(DEFAULT_STORAGE_POLICY.volumeAttach.graceMs).toBe(120_000);
    expect(DEFAULT_STORAGE_POLICY.volumeMount.graceMs).toBe(120_000);
  });
});

describe('storageEventOf: an Event as the diagnosis reads it', () => {
  it('a core/v1 event of the PV controller: lastTimestamp', () => {
    expect(
      storageEventOf({
        involvedObject: { kind: 'PersistentVolumeClaim', name: 'web', uid: 'claim-uid', namespace: 'exp1' },
        reason: 'ProvisioningFailed',
        message: PV_CONTROLLER.noPlugin,
        type: 'Warning',
        count: 3,
        firstTimestamp: '2026-12-01T11:33:27Z',
        lastTimestamp: '2026-12-01T11:33:42Z',
        source: { component: 'persistentvolume-controller' },
      }),
    ).toEqual({
      kind: 'PersistentVolumeClaim',
      name: 'web',
      uid: 'claim-uid',
      reason: 'ProvisioningFailed',
      message: PV_CONTROLLER.noPlugin,
      lastSeenMs: Date.parse('2026-12-01T11:33:42Z'),
    });
  });

  it('the scheduler’s events.k8s.io event: no lastTimestamp, a series or an eventTime', () => {
    const base = {
      involvedObject: { kind: 'Pod', name: 'web-1' },
      reason: 'FailedScheduling',
      message: 'a\nb',
      type: 'Warning',
      reportingComponent: 'default-scheduler',
    };
    expect(storageEventOf({ ...base, eventTime: '2026-12-01T11:33:13.123456Z' })).toEqual({
      kind: 'Pod',
      name: 'web-1',
      reason: 'FailedScheduling',
      message: 'a b',
      lastSeenMs: Date.parse('2026-12-01T11:33:13.123Z'),
    });
    expect(
      storageEventOf({ ...base, eventTime: '2026-12-01T11:33:13Z', series: { count: 4, lastObservedTime: '2026-12-01T11:40:00Z' } })
        .lastSeenMs,
    ).toBe(Date.parse('2026-12-01T11:40:00Z'));
    expect(storageEventOf({ involvedObject: {} })).toEqual({
      kind: '',
      name: '',
      reason: '',
      message: '',
      lastSeenMs: 0,
    });
  });
});
