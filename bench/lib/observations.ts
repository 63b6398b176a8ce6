// What the independent observer keeps of each watch event, per resource: the few fields a
// benchmark measures against, computed in the observer's process when the event arrives.
import type { V1Deployment, V1EndpointSlice, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { CONTAINER_ID_LABEL } from '../../src/input/labels.js';
import type { RolloutState } from '../../src/rollout/events.js';
import { rolloutStatus } from '../../src/rollout/rollout-status.js';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface Stamped {
  /** The watch event's type (ADDED, MODIFIED, DELETED). */
  readonly type: string;
  readonly resourceVersion: string;
  /** When the event reached the observer (hrNow). */
  readonly at: number;
}

export interface DeploymentObservation extends Stamped {
  readonly name: string;
  /** rolloutStatus(object).state */
  readonly state: RolloutState;
  /** kubectl rollout status's own predicate (see kubectlComplete). */
  readonly kubectlComplete: boolean;
  readonly generation: number;
  readonly observedGeneration: number;
  readonly specReplicas: number;
}

export interface PodObservation extends Stamped {
  readonly containerId: string;
  readonly uid: string;
  /** The event's type, or TERMINATING for a MODIFIED Pod that has a deletionTimestamp. */
  readonly phaseOfLife: string;
}

export interface SliceObservation extends Stamped {
  readonly service: string;
  /** Ready endpoints in the slice, and its ports as `port/PROTOCOL`. */
  readonly readyEndpoints: number;
  readonly ports: readonly string[];
}

export interface ClaimObservation extends Stamped {
  readonly name: string;
  readonly phase: string;
}

export interface ObservationsOf {
  readonly deployments: DeploymentObservation;
  readonly pods: PodObservation;
  readonly endpointslices: SliceObservation;
  readonly persistentvolumeclaims: ClaimObservation;
}

export type ObservedResource = keyof ObservationsOf;

/** The collection path of each resource in a namespace. */
export const OBSERVED_PATHS: { readonly [R in ObservedResource]: (namespace: string) => string } = {
  deployments: (namespace) => `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/deployments`,
  pods: (namespace) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
  endpointslices: (namespace) => `/apis/discovery.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/endpointslices`,
  persistentvolumeclaims: (namespace) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/persistentvolumeclaims`,
};

/** kubectl rollout status's predicate, as docs/readiness.md states it. */
export function kubectlComplete(deployment: V1Deployment): boolean {
  const status = deployment.status ?? {};
  const desired = deployment.spec?.replicas ?? 1;
  const progressing = status.conditions?.find((condition) => condition.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') return false;
  return (
    (deployment.metadata?.generation ?? 0) <= (status.observedGeneration ?? 0) &&
    (status.updatedReplicas ?? 0) >= desired &&
    (status.replicas ?? 0) <= (status.updatedReplicas ?? 0) &&
    (status.availableReplicas ?? 0) >= (status.updatedReplicas ?? 0)
  );
}

/** One event's observation, or undefined for an object the benchmarks cannot place. */
export function observe(resource: ObservedResource, stamp: Stamped, object: unknown): ObservationsOf[ObservedResource] | undefined {
  switch (resource) {
    case 'deployments': {
      const deployment = object as V1Deployment;
      const name = deployment.metadata?.name;
      if (!name) return undefined;
      return {
        ...stamp,
        name,
        state: rolloutStatus(deployment).state,
        kubectlComplete: stamp.type !== 'DELETED' && kubectlComplete(deployment),
        generation: deployment.metadata?.generation ?? 0,
        observedGeneration: deployment.status?.observedGeneration ?? 0,
        specReplicas: deployment.spec?.replicas ?? 1,
      };
    }
    case 'pods': {
      const pod = object as V1Pod;
      return {
        ...stamp,
        containerId: pod.metadata?.labels?.[CONTAINER_ID_LABEL] ?? '',
        uid: pod.metadata?.uid ?? '',
        phaseOfLife: stamp.type === 'MODIFIED' && pod.metadata?.deletionTimestamp ? 'TERMINATING' : stamp.type,
      };
    }
    case 'endpointslices': {
      const slice = object as V1EndpointSlice;
      const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
      if (!service) return undefined;
      const readyEndpoints =
        stamp.type === 'DELETED' ? 0 : (slice.endpoints ?? []).filter((endpoint) => endpoint.conditions?.ready !== false).length;
      return {
        ...stamp,
        service,
        readyEndpoints,
        ports: (slice.ports ?? []).map((port) => `${port.port ?? ''}/${port.protocol ?? 'TCP'}`),
      };
    }
    case 'persistentvolumeclaims': {
      const claim = object as V1PersistentVolumeClaim;
      const name = claim.metadata?.name;
      return name ? { ...stamp, name, phase: stamp.type === 'DELETED' ? 'Deleted' : (claim.status?.phase ?? '') } : undefined;
    }
  }
}
