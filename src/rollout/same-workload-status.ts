// sameWorkloadStatus(): whether two status values say the same thing, field by field, so
// a live list emits a workload only when something a UI shows has changed.
import type { ClaimStatusValue } from './claim-status.js';
import type { PodDiagnosis, ReplicaCounts } from './events.js';
import type { ServiceStatusValue } from './service-status.js';
import type { WorkloadStatusValue } from './workload-status.js';

export function sameWorkloadStatus(a: WorkloadStatusValue, b: WorkloadStatusValue): boolean {
  return (
    a.state === b.state &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.podIp === b.podIp &&
    a.nodeName === b.nodeName &&
    a.restarts === b.restarts &&
    a.image === b.image &&
    a.resources.cpu === b.resources.cpu &&
    a.resources.memory === b.resources.memory &&
    a.generation === b.generation &&
    a.observedGeneration === b.observedGeneration &&
    sameReplicas(a.replicas, b.replicas) &&
    samePod(a.pod, b.pod) &&
    a.address === b.address &&
    sameService(a.service, b.service) &&
    sameStorage(a.storage, b.storage)
  );
}

function sameStorage(a: ClaimStatusValue | undefined, b: ClaimStatusValue | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return (
    a.name === b.name &&
    a.phase === b.phase &&
    a.storageClass === b.storageClass &&
    a.requested === b.requested &&
    a.capacity === b.capacity &&
    a.volumeName === b.volumeName &&
    a.resize === b.resize &&
    a.expandable === b.expandable &&
    a.message === b.message
  );
}

function sameService(a: ServiceStatusValue | null, b: ServiceStatusValue | null): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return (
    a.type === b.type &&
    a.address === b.address &&
    a.clusterIp === b.clusterIp &&
    a.routed === b.routed &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.ports.length === b.ports.length &&
    a.ports.every((port, index) => {
      const other = b.ports[index];
      return (
        other !== undefined &&
        port.port === other.port &&
        port.protocol === other.protocol &&
        port.name === other.name &&
        port.nodePort === other.nodePort
      );
    })
  );
}

function sameReplicas(a: ReplicaCounts, b: ReplicaCounts): boolean {
  return a.desired === b.desired && a.total === b.total && a.updated === b.updated && a.ready === b.ready && a.available === b.available;
}

function samePod(a: PodDiagnosis | undefined, b: PodDiagnosis | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return (
    a.severity === b.severity &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.pod === b.pod &&
    a.container === b.container &&
    a.restartCount === b.restartCount &&
    sameLines(a.logs, b.logs)
  );
}

function sameLines(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  return a.every((line, index) => line === b[index]);
}
