// currentRolloutPods(): the Pods that belong to the Deployment's newest ReplicaSet, so a
// Pod of an older revision (still terminating, or crash-looping before an update) never
// fails a new rollout. The deployment controller names the new ReplicaSet in its
// Progressing condition ("ReplicaSet \"web-5d8f\" is progressing." and similar); when it
// has not yet, only an unambiguous set of Pods (one pod-template-hash) is used.
//
// Once that condition says NewReplicaSetAvailable the controller stops rewriting it while
// every replica is of its newest ReplicaSet, and a Recreate rollout passes through zero
// replicas, where that holds: a start or reconfiguration whose "created" condition was not
// written (a conflict, or a ReplicaSet that already existed) completes under the name of
// the ReplicaSet it replaced. So under that reason a named ReplicaSet that owns none of the
// Pods that stay (neither deleted nor finished) while others do is taken as stale, and those
// others are used when they are of one revision.
import type { V1Deployment, V1Pod } from '../kube/objects.js';
import { POD_TEMPLATE_HASH_LABEL } from '../kube/objects.js';

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
    if (!mayNameStaleReplicaSet(deployment)) return owned;
    // The name stands while its ReplicaSet owns a Pod that stays, or while no Pod stays.
    const staying = pods.filter(isStaying);
    if (staying.length === 0 || staying.some((pod) => owned.includes(pod))) return owned;
    return oneRevision(staying);
  }
  return oneRevision(pods);
}

/** The condition the controller leaves unrefreshed (see above): its name may be the previous ReplicaSet's. */
function mayNameStaleReplicaSet(deployment: V1Deployment): boolean {
  const progressing = deployment.status?.conditions?.find((condition) => condition.type === 'Progressing');
  return progressing?.reason === 'NewReplicaSetAvailable';
}

/** `pods` when they carry one pod-template-hash (one ReplicaSet's), else none. */
function oneRevision(pods: readonly V1Pod[]): readonly V1Pod[] {
  const hashes = new Set(pods.map((pod) => pod.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL]));
  return hashes.size === 1 ? [...pods] : [];
}

/** Neither deleted nor finished: a Recreate rollout starts its new Pods only once no other such Pod is left. */
function isStaying(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  return !pod.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
}
