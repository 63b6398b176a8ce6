// When a storage problem ends a rollout. Each reason of storage-diagnosis.ts has a rule:
//
//   fail at once       ClaimTerminating, SeedUnsupported, and a ProvisioningFailed whose
//                      words say no provisioner will ever act (the class does not exist, no
//                      plugin serves it): waiting cannot help.
//   volumeBinding      NoMatchingVolume, VolumeNodeConflict, ClaimNotFound: after `graceMs`
//                      (15 s, the scheduler's own unschedulable grace): an administrator may
//                      still add a volume, and the scheduler retries.
//   provisioning       UnboundClaim, ProvisioningFailed: after `graceMs` (60 s): a dynamic
//                      provisioner may still be creating the volume, and retries on errors.
//   volumeAttach       FailedAttachVolume (Multi-Attach included): after `graceMs` (120 s):
//                      the volume may still be detaching from the node the old Pod ran on.
//   volumeMount        FailedMount: after `graceMs` (120 s): the kubelet retries.
// SeedFailed (the seeding command failed) follows the crash-loop rule: the kubelet restarts
// the init container, and the copy starts over.
import type { PodDiagnosis } from './events.js';
import { STORAGE_REASONS } from './storage-diagnosis.js';

export interface StorageFailurePolicy {
  readonly volumeBinding: { readonly graceMs: number };
  /** `failAtOnce`: a ProvisioningFailed message matching this is final. */
  readonly provisioning: { readonly graceMs: number; readonly failAtOnce: RegExp };
  readonly volumeAttach: { readonly graceMs: number };
  readonly volumeMount: { readonly graceMs: number };
}

export const DEFAULT_STORAGE_POLICY: StorageFailurePolicy = {
  volumeBinding: { graceMs: 15_000 },
  provisioning: {
    graceMs: 60_000,
    failAtOnce:
      /storageclass\.storage\.k8s\.io "[^"]*" not found|no volume plugin matched|does not support dynamic provisioning|no storage class is set/i,
  },
  volumeAttach: { graceMs: 120_000 },
  volumeMount: { graceMs: 120_000 },
};

export type StorageTrackKind = 'volumeBinding' | 'provisioning' | 'volumeAttach' | 'volumeMount';

/** The storage rule a diagnosis falls under: a kind with a grace, `failAtOnce`, or undefined (not a storage problem, or SeedFailed). */
export function storageTrackKind(policy: StorageFailurePolicy, diagnosis: PodDiagnosis): StorageTrackKind | 'failAtOnce' | undefined {
  switch (diagnosis.reason) {
    case STORAGE_REASONS.claimTerminating:
    case STORAGE_REASONS.seedUnsupported:
      return 'failAtOnce';
    case STORAGE_REASONS.noMatchingVolume:
    case STORAGE_REASONS.volumeNodeConflict:
    case STORAGE_REASONS.claimNotFound:
      return 'volumeBinding';
    case STORAGE_REASONS.unboundClaim:
    case STORAGE_REASONS.provisioningFailed:
      return policy.provisioning.failAtOnce.test(diagnosis.message) ? 'failAtOnce' : 'provisioning';
    case STORAGE_REASONS.failedAttach:
      return 'volumeAttach';
    case STORAGE_REASONS.failedMount:
      return 'volumeMount';
    default:
      return undefined;
  }
}
