// currentRolloutPods(): the Pods that belong to the Deployment's newest ReplicaSet, so a
// Pod of an older revision (still terminating, or crash-looping before an update) never
// fails a new rollout. The deployment controller names the new ReplicaSet in its
// Progressing condition ("ReplicaSet \"web-5d8f\" is progressing." and similar); when it
// has not yet, only an unambiguous set of Pods (one pod-template-hash) is used.
import type { V1Deployment, V1Pod } from '../kube/objects.js';

/** Set by the deployment controller on each ReplicaSet's Pods. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
const QUOTED_REPLICASET = /(?:ReplicaSet|replica set) "([^"]+)"/;

export function newReplicaSetName(deployment: V1Deployment): string | undefined {
  const generation = deployment.metadata?.generation ?? 0;
  if ((deployment.status?.observedGeneration ?? 0) < generation) return undefined;
  const progressing = deployment.status?.conditions?.find((condition) => condition.type === 'Progressing');
  return progressing?.message?.match(QUOTED_REPLICASET)?.[1];
}

export function currentRolloutPods(deployment: V1Deployment, pods: readonly V1Pod[]): readonly V1Pod[] {
  if (pods.length === 0) return pods;
  // Until the controller has seen the current spec, no Pod is known to belong to it.
  if ((deployment.status?.observedGeneration ?? 0) < (deployment.metadata?.generation ?? 0)) return [];
  const replicaSet = newReplicaSetName(deployment);
  if (replicaSet) {
    const owned = pods.filter((pod) =>
      pod.metadata?.ownerReferences?.some((owner) => owner.kind === 'ReplicaSet' && owner.name === replicaSet),
    );
    if (owned.length > 0 || !namesPreviousReplicaSet(deployment)) return owned;
  }
  const hashes = new Set(pods.map((pod) => pod.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL]));
  return hashes.size === 1 ? [...pods] : [];
}

/**
 * A template rolled out before (a rollback undone) scales its old ReplicaSet up again, and
 * the controller then keeps the Progressing condition it had: NewReplicaSetAvailable,
 * naming the ReplicaSet that was complete, while the rollout is not. That name is stale.
 */
function namesPreviousReplicaSet(deployment: V1Deployment): boolean {
  const progressing = deployment.status?.conditions?.find((condition) => condition.type === 'Progressing');
  if (progressing?.reason !== 'NewReplicaSetAvailable') return false;
  const replicas = deployment.spec?.replicas ?? 1;
  const status = deployment.status;
  return (status?.updatedReplicas ?? 0) < replicas || (status?.availableReplicas ?? 0) < replicas;
}
