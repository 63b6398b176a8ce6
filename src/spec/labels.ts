// The labels that mark a Kubernetes object as Manager's, and which Manager record it is.
// They go on the Deployment AND its pod template, so Pods are found by the same selector.

import type { WorkloadSpec } from './workload-spec.js';

export const LABEL_PREFIX = 'org.mieweb.opensource-server';
export const MANAGED_LABEL = `${LABEL_PREFIX}.managed`;
export const NODE_ID_LABEL = `${LABEL_PREFIX}.node-id`;
export const CONTAINER_ID_LABEL = `${LABEL_PREFIX}.container-id`;

/** Label selector the shared informers use: every object Manager created, nothing else. */
export const MANAGED_SELECTOR = `${MANAGED_LABEL}=true`;

/** The three ownership labels for one Manager container. */
export function ownershipLabels(spec: Pick<WorkloadSpec, 'containerId' | 'nodeId'>): Record<string, string> {
  return {
    [MANAGED_LABEL]: 'true',
    [NODE_ID_LABEL]: spec.nodeId,
    [CONTAINER_ID_LABEL]: spec.containerId,
  };
}

/** Which Manager container an object belongs to, if it carries our label. */
export function containerIdOf(object: { metadata?: { labels?: Record<string, string> } }): string | undefined {
  return object.metadata?.labels?.[CONTAINER_ID_LABEL];
}
