// The Service's readiness gate: "ready means reachable". A workload with a Service is
// ready only once the Service routes to one of its rollout's serving Pods (the
// EndpointSlices list it ready on every port) and, for a LoadBalancer, has an address.
// The tracker (tracker.ts) takes this gate beside the Deployment's own status, so
// provisioning, the lifecycle waits and statuses$ judge reachability by the one rule; a
// pending LoadBalancer carries a grace window, after which the tracker fails it by name.
import type { V1Deployment, V1EndpointSlice, V1Pod, V1Service } from '../kube/objects.js';
import type { FailurePolicy } from './failure-policy.js';
import { currentRolloutPods } from './rollout-pods.js';
import { routedPodOf, serviceStatus, type ServiceStatusValue } from './service-status.js';
import type { TrackedGate } from './tracker.js';

/** The Service's status as seen from the rollout, and the Pod it routes to, if any. */
export interface ServiceRoute {
  readonly status: ServiceStatusValue;
  readonly routedTo: V1Pod | undefined;
}

/** Which of the rollout's serving Pods the Service routes to (the first that is routed). */
export function serviceRoute(
  service: V1Service,
  slices: readonly V1EndpointSlice[],
  deployment: V1Deployment,
  pods: readonly V1Pod[],
): ServiceRoute {
  const serving = currentRolloutPods(deployment, pods).filter(isServing);
  let status: ServiceStatusValue | null = null;
  for (const pod of serving) {
    status = serviceStatus(service, slices, routedPodOf(pod));
    if (status?.routed) return { status, routedTo: pod };
  }
  return { status: status ?? (serviceStatus(service, slices, undefined) as ServiceStatusValue), routedTo: undefined };
}

/** The gate of a workload's Service; undefined without one (nothing stands between the Pod and its callers). */
export function serviceGate(
  service: V1Service | undefined,
  slices: readonly V1EndpointSlice[],
  deployment: V1Deployment,
  pods: readonly V1Pod[],
  policy: FailurePolicy,
): TrackedGate | undefined {
  if (!service) return undefined;
  return gateOf(service, serviceRoute(service, slices, deployment, pods).status, policy);
}

/** The gate for a route already found. */
export function gateOf(service: V1Service, status: ServiceStatusValue, policy: FailurePolicy): TrackedGate {
  const name = service.metadata?.name ?? '';
  const graceMs = policy.loadBalancer.graceMs;
  return {
    kind: 'Service',
    name,
    status: { state: status.routed ? 'Complete' : 'InProgress', reason: status.reason, message: status.message },
    ...(status.reason === 'LoadBalancerPending'
      ? {
          graceMs,
          expiredMessage:
            `no load balancer gave it an address within ${graceMs} ms: ` +
            'the cluster may have no load-balancer controller (serviceType ClusterIP or NodePort needs none; ' +
            'failurePolicy.loadBalancer.graceMs waits longer)',
        }
      : {}),
  };
}

/** A Pod the Service may route to: Ready, and not on its way out. */
function isServing(pod: V1Pod): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  return pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') === true;
}
