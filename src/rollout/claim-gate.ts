// The container's claim as a readiness gate of its rollout (tracker.ts): its status from
// the status table, and what its controllers keep saying is wrong while it is not bound.
// Pure: the claim (as cached; undefined until the cache has it), the Warning events of the
// claim and of the Pods, and the Pods in. Nothing here waits for the claim to be Bound
// before the Pod exists: with WaitForFirstConsumer the claim binds once the scheduler has
// placed the Pod, so a Pending claim is only a problem once the controllers say so, or
// once the scheduler has chosen a node and still no volume comes (timed by the policy's
// provisioning grace, so a provisioner that never acts is named, not waited out).
import type { V1PersistentVolumeClaim, V1Pod } from '../kube/objects.js';
import { oneLine } from '../text.js';
import { SELECTED_NODE_ANNOTATION } from '../kube/objects.js';
import type { PodDiagnosis } from './events.js';
import { objectStatus } from './object-status.js';
import { STORAGE_REASONS, claimEvent, volumeEventProblem, type StorageEvent } from './storage-diagnosis.js';
import type { TrackedGate } from './tracker.js';
import { KINDS } from '../kube/kinds.js';

export const CLAIM_GATE_KIND = KINDS.persistentvolumeclaims.kind;

export function claimGate(
  name: string,
  claim: V1PersistentVolumeClaim | undefined,
  events: readonly StorageEvent[],
  pods: readonly V1Pod[],
): TrackedGate {
  const status = claim
    ? objectStatus('persistentvolumeclaims', claim)
    : { state: 'InProgress' as const, reason: 'NotObserved', message: 'the claim is not in the cache yet' };
  const problems: PodDiagnosis[] = [];
  if (claim && status.state === 'InProgress') {
    const event = claimEvent(claim, events);
    const node = claim.metadata?.annotations?.[SELECTED_NODE_ANNOTATION];
    if (event) {
      // The PV controller's or provisioner's refusal: ProvisioningFailed keeps its name (the
      // policy knows the final ones); any other Warning is the claim staying unbound.
      const reason = event.reason === STORAGE_REASONS.provisioningFailed ? event.reason : STORAGE_REASONS.unboundClaim;
      problems.push(claimProblem(name, reason, `${event.reason}: ${event.message}`));
    } else if (node) {
      problems.push(
        claimProblem(name, STORAGE_REASONS.unboundClaim, `the scheduler chose node ${node}, and no volume has been provisioned for it yet`),
      );
    }
  }
  for (const pod of pods) {
    const problem = volumeEventProblem(pod, events);
    if (problem) problems.push({ ...problem, message: oneLine(`Pod ${problem.pod}: ${problem.message}`) });
  }
  return { kind: CLAIM_GATE_KIND, name, status, ...(problems.length > 0 ? { problems } : {}) };
}

function claimProblem(name: string, reason: string, message: string): PodDiagnosis {
  // Keyed apart from every Pod's own problems in the policy's state.
  return { severity: 'waiting', reason, message: oneLine(message), pod: `${CLAIM_GATE_KIND}/${name}` };
}
