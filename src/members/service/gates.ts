// The Service as a gate of the one readiness wait (awaitReady): the workload is ready once
// its Service routes to a serving Pod of the rollout (the endpoint slice controller lists
// it ready on every port; a LoadBalancer also has an address). That is the moment a
// connection to the address reaches the Pod, so "ready" means reachable.
//
// Judged by the same gate as the status board (service-gate.ts), over the Service's and its
// slices' informer snapshots, the rollout's Deployment and its Pods:
//
//   known by name alone, none cached              no gate: nothing stands between Pod and callers
//   this run's (its UID), not cached yet          InProgress: the informer has not seen our write
//   seen, then gone                               Failed: Deleted
//   LoadBalancer without an address               InProgress with a grace window (the tracker
//                                                 fails it as LoadBalancerPending, before the timeout)
//   one that can never route to these Pods        Failed: ServiceMismatch, naming what differs
//   no serving Pod routed yet / one routed        InProgress / Complete, with the route on the
//                                                 wait's progress events (`service`, `routedTo`)
import { combineLatest, map, scan, type Observable } from 'rxjs';
import { KINDS } from '../../kube/kinds.js';
import type { V1Deployment, V1EndpointSlice, V1Pod, V1Service } from '../../kube/objects.js';
import { fromWrittenVersion, writtenVersionOf } from '../../rollout/written-version.js';
import { gateOf, serviceRoute } from '../../rollout/service-gate.js';
import type { RoutedPod } from '../../rollout/events.js';
import type { TrackedGate } from '../../rollout/tracker.js';
import type { RolloutGateSources } from '../member.js';

/** The Service's snapshots and its slices', per change. */
export interface ServiceSources {
  readonly services$: Observable<readonly V1Service[]>;
  readonly slices$: Observable<readonly V1EndpointSlice[]>;
}

const SERVICE_KIND = KINDS.services.kind;
const NO_GATES: readonly TrackedGate[] = Object.freeze([]);

/**
 * The gate of `service` (as this run wrote or found it: its UID and version count; known by
 * name alone: whichever of that name the informer holds), per change.
 */
export function serviceGates(
  service: V1Service,
  { services$, slices$ }: ServiceSources,
  sources: Pick<RolloutGateSources, 'deployment$' | 'pods$' | 'failurePolicy' | 'graceEndsBy'>,
): Observable<readonly TrackedGate[]> {
  const name = service.metadata?.name ?? '';
  const uid = service.metadata?.uid;
  // A running informer may still hold the version before our write: judged from it on.
  const current$ = services$.pipe(fromWrittenVersion(writtenVersionOf(service)));
  return combineLatest([current$, slices$, sources.deployment$, sources.pods$]).pipe(
    scan(
      (judged, [services, slices, deployment, pods]) => {
        const ours = uid === undefined ? services[0] : services.find((each) => each.metadata?.uid === uid);
        if (!ours) {
          if (judged.seen) return { seen: true, gates: [deleted(name)] };
          return { seen: false, gates: uid === undefined ? NO_GATES : [notObserved(name)] };
        }
        return { seen: true, gates: [routeGate(ours, slices, deployment, pods, sources)] };
      },
      { seen: false, gates: NO_GATES },
    ),
    map((judged) => judged.gates),
  );
}

function routeGate(
  service: V1Service,
  slices: readonly V1EndpointSlice[],
  deployment: V1Deployment,
  pods: readonly V1Pod[],
  { failurePolicy, graceEndsBy }: Pick<RolloutGateSources, 'failurePolicy' | 'graceEndsBy'>,
): TrackedGate {
  const route = serviceRoute(service, slices, deployment, pods);
  const gate = gateOf(service, deployment, route.status, failurePolicy, graceEndsBy);
  return { ...gate, progress: { service: route.status, ...(route.routedTo ? { routedTo: routedPod(route.routedTo) } : {}) } };
}

function routedPod(pod: V1Pod): RoutedPod {
  return { pod: pod.metadata?.name ?? '', podIp: pod.status?.podIP ?? null, hostIp: pod.status?.hostIP ?? null };
}

function notObserved(name: string): TrackedGate {
  return {
    kind: SERVICE_KIND,
    name,
    status: { state: 'InProgress', reason: 'NotObserved', message: 'the Service is not in the cache yet' },
  };
}

function deleted(name: string): TrackedGate {
  return {
    kind: SERVICE_KIND,
    name,
    status: { state: 'Failed', reason: 'Deleted', message: 'it was deleted while waiting for it to route to the Pod' },
  };
}
