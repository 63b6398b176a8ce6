// The labels that mark a Kubernetes object as Manager's, and which Manager record it is.
// They go on the Deployment AND its pod template, so Pods are found by the same selector.

import type { WorkloadSpec } from './workload-spec.js';

export const LABEL_PREFIX = 'org.mieweb.opensource-server';
export const MANAGED_LABEL = `${LABEL_PREFIX}.managed`;
export const NODE_ID_LABEL = `${LABEL_PREFIX}.node-id`;
export const CONTAINER_ID_LABEL = `${LABEL_PREFIX}.container-id`;
/**
 * Which Manager installation owns the object (optional). Two Managers that share a
 * namespace each set their own, so neither sees nor touches the other's workloads even
 * when their container IDs are equal.
 */
export const INSTANCE_LABEL = `${LABEL_PREFIX}.instance`;
/** The annotation that records the node address chosen for a NodePort Service. */
export const NODE_ADDRESS_ANNOTATION = `${LABEL_PREFIX}.node-address`;

/** Label selector of every object any Manager created, nothing else. */
export const MANAGED_SELECTOR = `${MANAGED_LABEL}=true`;

/** The ownership labels for one Manager container: managed, node-id, container-id, and instance when given. */
export function ownershipLabels(spec: Pick<WorkloadSpec, 'containerId' | 'nodeId' | 'instance'>): Record<string, string> {
  return {
    [MANAGED_LABEL]: 'true',
    [NODE_ID_LABEL]: spec.nodeId,
    [CONTAINER_ID_LABEL]: spec.containerId,
    ...(spec.instance !== undefined ? { [INSTANCE_LABEL]: spec.instance } : {}),
  };
}

/**
 * The label selector of the workloads one Manager installation owns: `managed=true` and
 * its instance label; without an instance, the managed objects that carry NO instance
 * label, so a Manager without one never sees an instanced Manager's workloads either.
 * Every list and watch of Manager's workloads selects with this.
 */
export function managedSelector(instance?: string): string {
  return instance === undefined ? `${MANAGED_SELECTOR},!${INSTANCE_LABEL}` : `${MANAGED_SELECTOR},${INSTANCE_LABEL}=${instance}`;
}

/**
 * Whether an object read by name (not through a selector) belongs to this installation:
 * managed, with the same instance label, or none when `instance` is undefined. The same
 * rule as managedSelector(instance).
 */
export function belongsToInstance(object: { metadata?: { labels?: Record<string, string> } }, instance?: string): boolean {
  const labels = object.metadata?.labels ?? {};
  return labels[MANAGED_LABEL] === 'true' && labels[INSTANCE_LABEL] === instance;
}

/** ` of instance X` for messages, '' without an instance. */
export function describeInstance(instance: string | undefined): string {
  return instance === undefined ? '' : ` of instance ${instance}`;
}

/** Which Manager container an object belongs to, if it carries our label. */
export function containerIdOf(object: { metadata?: { labels?: Record<string, string> } }): string | undefined {
  return object.metadata?.labels?.[CONTAINER_ID_LABEL];
}
