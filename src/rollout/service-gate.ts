// The Service's readiness gate: "ready means reachable". A workload with a Service is
// ready only once the Service routes to one of its rollout's serving Pods (the
// EndpointSlices list it ready on every port) and, for a LoadBalancer, has an address.
// The tracker (tracker.ts) takes this gate beside the Deployment's own status, so
// provisioning, the lifecycle waits and statuses$ judge reachability by the one rule; a
// pending LoadBalancer carries a grace window, after which the tracker fails it by name. A
// Service that can never route to the Deployment's Pods (another selector, a port aimed at
// another target; someone else's Service under our name and labels) fails the gate at once
// as ServiceMismatch, naming what differs, instead of a wait that runs out its timeout.
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
  return gateOf(service, deployment, serviceRoute(service, slices, deployment, pods).status, policy);
}

/** One way a Service differs from one that routes to its Deployment's Pods, in the spec's words. */
export interface ServiceMismatch {
  readonly field: 'selector' | 'ports';
  readonly live: string;
  /** What routes to the Deployment's Pods. */
  readonly desired: string;
}

/** `key=value,...` sorted; `(none)` for none. */
export function selectorText(selector: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(selector ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? '(none)' : entries.map(([key, value]) => `${key}=${value}`).join(',');
}

/** A port that carries a connection elsewhere than the same number on the Pod (the only target this library writes). */
function targetOf(port: NonNullable<NonNullable<V1Service['spec']>['ports']>[number]): string | undefined {
  const target = port.targetPort;
  return target === undefined || target === null || target === port.port ? undefined : String(target);
}

/**
 * Where `service` differs from the Service that routes to `deployment`'s Pods: its selector
 * must be the Deployment's (anything else selects other Pods, or none), and each port must
 * target the same number on the Pod. Empty: it can route.
 */
export function serviceMismatch(service: V1Service, deployment: V1Deployment): ServiceMismatch[] {
  const mismatch: ServiceMismatch[] = [];
  const live = selectorText(service.spec?.selector);
  const desired = selectorText(deployment.spec?.selector?.matchLabels);
  if (live !== desired) mismatch.push({ field: 'selector', live, desired });
  const ports = service.spec?.ports ?? [];
  if (ports.some((port) => targetOf(port) !== undefined)) {
    const text = (target: (port: (typeof ports)[number]) => string) =>
      ports.map((port) => `${port.port}/${(port.protocol ?? 'TCP').toLowerCase()} → ${target(port)}`).join(', ');
    mismatch.push({
      field: 'ports',
      live: text((port) => targetOf(port) ?? String(port.port)),
      desired: text((port) => String(port.port)),
    });
  }
  return mismatch;
}

export const SERVICE_MISMATCH = 'ServiceMismatch';

/**
 * The gate for a route already found. `loadBalancerEndsBy`: when a pending LoadBalancer's
 * grace window ends at the latest (loadBalancerGraceEndsBy: the operation's deadline is near).
 */
export function gateOf(
  service: V1Service,
  deployment: V1Deployment,
  status: ServiceStatusValue,
  policy: FailurePolicy,
  loadBalancerEndsBy?: number,
): TrackedGate {
  const name = service.metadata?.name ?? '';
  const mismatch = serviceMismatch(service, deployment);
  if (mismatch.length > 0) {
    return {
      kind: 'Service',
      name,
      status: {
        state: 'Failed',
        reason: SERVICE_MISMATCH,
        message:
          `it can never route to the Deployment's Pods: ` +
          mismatch.map((each) => `${each.field} (live ${each.live}, needed ${each.desired})`).join('; ') +
          '; setting the ports (setPorts, kube-provision reconfigure --port) rewrites it, or delete it',
      },
    };
  }
  const graceMs = policy.loadBalancer.graceMs;
  return {
    kind: 'Service',
    name,
    status: { state: status.routed ? 'Complete' : 'InProgress', reason: status.reason, message: status.message },
    ...(status.reason === 'LoadBalancerPending'
      ? {
          graceMs,
          ...(loadBalancerEndsBy !== undefined ? { endsBy: loadBalancerEndsBy } : {}),
          expiredMessage:
            `no load balancer gave it an address within ${graceMs} ms` +
            (loadBalancerEndsBy !== undefined ? ' (or less, to end before the timeout)' : '') +
            ': ' +
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
