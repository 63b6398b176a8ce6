// rolloutStatus(): one Deployment object in, one status value out (kstatus style: "not
// ready yet" is a value, never an exception). The predicate is the strict union of what
// kubectl, kstatus and Terraform check (see shared/reference/readiness.md):
//   observedGeneration caught up, updated/ready/available replicas >= desired, no surplus
//   old replicas, Available=True, Progressing reason NewReplicaSetAvailable.
// A status whose observedGeneration is behind the spec says nothing about that spec, so it
// is never Complete and never Failed.
import type { V1Deployment, V1DeploymentCondition } from '@kubernetes/client-node';
import type { ReplicaCounts, RolloutStatus, RolloutState } from './events.js';

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
    return status(
      'InProgress',
      'ObservedGenerationBehind',
      `waiting for the deployment controller to observe generation ${generation}`,
    );
  }

  const progressing = findCondition(deployment, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') {
    return status('Failed', 'ProgressDeadlineExceeded', conditionMessage(progressing, 'progress deadline exceeded'));
  }
  if (progressing?.status === 'False' && progressing.reason === 'ReplicaSetCreateError') {
    return status('Failed', 'ReplicaSetCreateError', conditionMessage(progressing, 'the ReplicaSet could not be created'));
  }
  const replicaFailure = findCondition(deployment, 'ReplicaFailure');
  if (replicaFailure?.status === 'True') {
    return status(
      'Failed',
      replicaFailure.reason ?? 'ReplicaFailure',
      conditionMessage(replicaFailure, 'the ReplicaSet cannot create pods'),
    );
  }

  if (deployment.spec?.paused) {
    return status('InProgress', 'DeploymentPaused', 'the Deployment is paused: it will not roll out until resumed');
  }

  const { desired, total, updated, ready, available } = replicas;
  if (updated < desired) {
    return status('InProgress', 'WaitingForUpdatedReplicas', `waiting for the new pods to be created (${updated}/${desired} updated)`);
  }
  if (total > updated) {
    return status(
      'InProgress',
      'WaitingForOldReplicas',
      `${total - updated} old replica(s) pending termination`,
    );
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
  // Without a progress deadline the controller does not maintain Progressing (kstatus).
  const tracksProgress = deployment.spec?.progressDeadlineSeconds !== undefined;
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
  return condition.message?.trim() || fallback;
}
