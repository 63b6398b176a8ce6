// rolloutStatus(): one Deployment object in, one status value out (kstatus style: "not
// ready yet" is a value, never an exception). The predicate is the strict union of what
// kubectl, kstatus and Terraform check (docs/readiness.md says what each checks):
//   observedGeneration caught up, updated/ready/available replicas >= desired, no surplus
//   old replicas, Available=True, and, when the deployment controller maintains the
//   Progressing condition, Progressing reason NewReplicaSetAvailable.
// A status whose observedGeneration is behind the spec says nothing about that spec, so it
// is never Complete and never Failed.
//
// When the controller maintains Progressing is its own rule, followed here exactly: only
// when spec.progressDeadlineSeconds is set and is not 2147483647 (math.MaxInt32). Otherwise
// it removes the condition on every sync and never writes NewReplicaSetAvailable, nor
// ProgressDeadlineExceeded or ReplicaSetCreateError, so a Progressing condition seen then
// is a leftover and is not read. (The API server defaults the field to 600 and refuses
// values below 1, so "absent" only comes from objects that did not pass through it.)
import type { V1Deployment, V1DeploymentCondition } from '../kube/objects.js';
import { MAX_INT32 } from '../input/duration.js';
import { oneLine } from '../text.js';
import type { ReplicaCounts, RolloutStatus, RolloutState } from './events.js';

/** Whether the deployment controller maintains the Progressing condition of `deployment`. */
export function hasProgressDeadline(deployment: V1Deployment): boolean {
  const seconds = deployment.spec?.progressDeadlineSeconds;
  return seconds !== undefined && seconds !== null && seconds !== MAX_INT32;
}

export function rolloutStatus(deployment: V1Deployment): RolloutStatus {
  const generation = deployment.metadata?.generation ?? 0;
  const observedGeneration = deployment.status?.observedGeneration ?? 0;
  const replicas = replicaCounts(deployment);
  const status = (state: RolloutState, reason: string, message: string): RolloutStatus => ({
    state,
    reason,
    message,
    generation,
    observedGeneration,
    replicas,
  });

  if (deployment.metadata?.deletionTimestamp) {
    return status('Failed', 'Deleting', 'the Deployment is being deleted');
  }
  if (observedGeneration < generation || generation === 0) {
    return status('InProgress', 'ObservedGenerationBehind', `waiting for the deployment controller to observe generation ${generation}`);
  }

  const tracksProgress = hasProgressDeadline(deployment);
  const progressing = tracksProgress ? findCondition(deployment, 'Progressing') : undefined;
  if (progressing?.reason === 'ProgressDeadlineExceeded') {
    return status('Failed', 'ProgressDeadlineExceeded', conditionMessage(progressing, 'progress deadline exceeded'));
  }
  // A controller could not create the ReplicaSet, or the ReplicaSet's Pods. Controllers retry
  // and clear the condition once they succeed, so whether this is final is the failure
  // policy's call: a quota or an admission refusal is, a control plane restarting is not.
  if (progressing?.status === 'False' && progressing.reason === 'ReplicaSetCreateError') {
    const detail = conditionMessage(progressing, 'the ReplicaSet could not be created');
    return {
      ...status('InProgress', 'ReplicaSetCreateError', `the ReplicaSet cannot be created yet: ${detail}`),
      createFailure: { reason: 'ReplicaSetCreateError', message: detail },
    };
  }
  const replicaFailure = findCondition(deployment, 'ReplicaFailure');
  if (replicaFailure?.status === 'True') {
    const reason = oneLine(replicaFailure.reason) || 'ReplicaFailure';
    const detail = conditionMessage(replicaFailure, 'the ReplicaSet cannot create pods');
    return {
      ...status('InProgress', 'ReplicaFailure', `the ReplicaSet cannot create pods yet (${reason}): ${detail}`),
      createFailure: { reason, message: detail },
    };
  }

  if (deployment.spec?.paused) {
    return status('InProgress', 'DeploymentPaused', 'the Deployment is paused: it will not roll out until resumed');
  }

  const { desired, total, updated, ready, available } = replicas;
  if (updated < desired) {
    return status('InProgress', 'WaitingForUpdatedReplicas', `waiting for the new pods to be created (${updated}/${desired} updated)`);
  }
  if (total > updated) {
    return status('InProgress', 'WaitingForOldReplicas', `${total - updated} old replica(s) pending termination`);
  }
  if (ready < desired) {
    return status('InProgress', 'WaitingForReady', `${ready}/${desired} ready`);
  }
  if (available < desired) {
    return status('InProgress', 'WaitingForAvailable', `${available}/${desired} available`);
  }

  const availableCondition = findCondition(deployment, 'Available');
  if (availableCondition?.status !== 'True') {
    return status('InProgress', 'WaitingForAvailableCondition', 'waiting for the Available condition');
  }
  if (tracksProgress && progressing?.reason !== 'NewReplicaSetAvailable') {
    return status(
      'InProgress',
      'WaitingForNewReplicaSetAvailable',
      'waiting for the deployment controller to report the new ReplicaSet available',
    );
  }
  return status('Complete', 'NewReplicaSetAvailable', `${available}/${desired} available, rollout complete`);
}

function replicaCounts(deployment: V1Deployment): ReplicaCounts {
  const s = deployment.status;
  return {
    desired: deployment.spec?.replicas ?? 1,
    total: s?.replicas ?? 0,
    updated: s?.updatedReplicas ?? 0,
    ready: s?.readyReplicas ?? 0,
    available: s?.availableReplicas ?? 0,
  };
}

function findCondition(deployment: V1Deployment, type: string): V1DeploymentCondition | undefined {
  return deployment.status?.conditions?.find((condition) => condition.type === type);
}

function conditionMessage(condition: V1DeploymentCondition, fallback: string): string {
  return oneLine(condition.message) || fallback;
}
