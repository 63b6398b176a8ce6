// unknownStatus(): what to say about a workload while the API server cannot be read. What
// the Deployment asks for (image, resources, generation, replicas) is carried over from
// the last known status, if any, and so is the Service's address (allocated once, it
// outlives every Pod); what only a live answer can tell is not: no Pod IP (an address that
// may be stale must not be used), no node, no restarts, no Pod diagnosis, not whether the
// Service routes.
import type { ReplicaCounts } from './events.js';
import type { WorkloadStatusValue } from './workload-status.js';

const NO_REPLICAS: ReplicaCounts = Object.freeze({ desired: 0, total: 0, updated: 0, ready: 0, available: 0 });

/**
 * @param reason short and machine-readable: ApiUnreachable, ApiTimeout, Timeout, ...
 * @param message one line, e.g. the error's message (never holds a credential)
 * @param last the last status known before the API became unreachable
 */
export function unknownStatus(reason: string, message: string, last?: WorkloadStatusValue): WorkloadStatusValue {
  return {
    state: 'unknown',
    reason,
    message: message.replace(/\s+/g, ' ').trim(),
    podIp: null,
    address: last?.address ?? null,
    service: null,
    nodeName: null,
    restarts: 0,
    image: last?.image ?? null,
    resources: last?.resources ?? { cpu: null, memory: null },
    generation: last?.generation ?? 0,
    observedGeneration: last?.observedGeneration ?? 0,
    replicas: last?.replicas ?? NO_REPLICAS,
  };
}
