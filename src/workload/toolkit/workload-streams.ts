// The informer streams one operation holds: the workload's Deployment and Pod snapshots
// from the shared informers (one Deployment and one Pod watch per namespace, whatever the
// number of operations), subscribed once for the operation's whole length; and the wait
// for one generation's rollout over them, and for the Service to route to its Pod.
import type { V1Deployment, V1EndpointSlice, V1Pod, V1Service } from '../../kube/objects.js';
import { ReplaySubject, connectable, defer, map, take, using, type Connectable, type Observable, type Subscription } from 'rxjs';
import { fromWrittenVersion, type WrittenVersion } from '../../rollout/written-version.js';
import { guardGeneration } from './guard-generation.js';
import type { LifecycleEvent } from './lifecycle-events.js';
import type { OperationContext } from './operation.js';
import type { OwnedWorkload } from './ownership.js';
import { haltWatchOf, withHaltWarnings } from './halt-warnings.js';
import { awaitReady } from './await-ready.js';
import { deploymentSnapshots, podSnapshots } from '../../members/deployment/member.js';
import { endpointSliceSnapshots, serviceSnapshots } from '../../members/service/member.js';
import type { MemberTable, WorkloadMember } from '../../members/set.js';

export interface WorkloadStreams {
  /** The informer's snapshots of the Deployment (by name), the latest replayed. */
  readonly deployments$: Observable<readonly V1Deployment[]>;
  /** The informer's snapshots of the workload's Pods (by container-id), the latest replayed. */
  readonly pods$: Observable<readonly V1Pod[]>;
  /** Held too when the operation waits for its Service to route (withWorkloadStreams' `routed`). */
  readonly routed?: RoutedStreams;
}

/** The workload's Service and its EndpointSlices, from the namespace's shared informers. */
export interface RoutedStreams {
  readonly services$: Observable<readonly V1Service[]>;
  readonly slices$: Observable<readonly V1EndpointSlice[]>;
}

/**
 * Runs `body` with the workload's informer streams subscribed for its whole length: one
 * subscription each, however many steps read them (a diagnosis, a write, a wait, a
 * rollback), and released when `body` ends. `routed`: the Service's and its slices' too,
 * from the start, so their informers have synced by the time the rollout completes and
 * the wait for the route begins (a cold list there would delay every `ready`).
 */
export function withWorkloadStreams<T>(
  context: OperationContext,
  containerId: string,
  body: (streams: WorkloadStreams) => Observable<T>,
  options: { readonly routed?: boolean } = {},
): Observable<T> {
  return defer(() => {
    const workload = heldWorkload(context, containerId);
    const routed = options.routed ? heldRouted(context) : undefined;
    return using(
      () => {
        const connections = [...workload.connect(), ...(routed ? routed.connect() : [])];
        return { unsubscribe: () => connections.forEach((connection) => connection.unsubscribe()) };
      },
      () => body({ ...workload.streams, ...(routed ? { routed: routed.streams } : {}) }),
    );
  });
}

/**
 * The Deployment and Pod streams, held: connect() subscribes both, once. A wait that
 * follows another (the route's after the rollout's) then finds their informers running
 * instead of starting them again with a new list.
 */
export function heldWorkload(
  context: Pick<OperationContext, 'informers' | 'client' | 'namespace' | 'name' | 'instance'>,
  containerId: string,
): {
  readonly streams: Pick<WorkloadStreams, 'deployments$' | 'pods$'>;
  readonly connect: () => Subscription[];
} {
  const deployments = held(deploymentSnapshots(context.informers, context.client, context.namespace, context.name, context.instance));
  const pods = held(podSnapshots(context.informers, context.client, context.namespace, containerId, context.instance));
  return { streams: { deployments$: deployments, pods$: pods }, connect: () => [deployments.connect(), pods.connect()] };
}

/** withWorkloadStreams' options for an operation that ends by waiting for the route (start, restart, reconfigure). */
export const ROUTED = Object.freeze({ routed: true });

/** The Service and slice streams, held: connect() subscribes both, once. */
export function heldRouted(context: Pick<OperationContext, 'informers' | 'client' | 'namespace' | 'name' | 'instance'>): {
  readonly streams: RoutedStreams;
  readonly connect: () => Subscription[];
} {
  const { services$, slices$ } = routedStreams(context);
  const services = held(services$);
  const slices = held(slices$);
  return { streams: { services$: services, slices$: slices }, connect: () => [services.connect(), slices.connect()] };
}

/**
 * Held streams connected at most once each and released together (the `using` resource of
 * an operation). Nothing is connected after the release: a write that finishes as its
 * operation is torn down opens no watch.
 */
export class HeldConnections {
  private readonly connections = new Map<object, Subscription[]>();
  private released = false;

  hold(streams: { readonly connect: () => Subscription[] }): void {
    if (this.released || this.connections.has(streams)) return;
    this.connections.set(streams, streams.connect());
  }

  unsubscribe(): void {
    this.released = true;
    for (const connections of this.connections.values()) for (const connection of connections) connection.unsubscribe();
    this.connections.clear();
  }
}

function held<T>(source: Observable<T>): Connectable<T> {
  return connectable(source, { connector: () => new ReplaySubject<T>(1), resetOnDisconnect: false });
}

/**
 * The UIDs of the workload's Pods now (once the informer has synced): taken right before a
 * write, they name Pods that cannot belong to the revision the write makes.
 */
export function podsBefore(streams: WorkloadStreams): Observable<ReadonlySet<string>> {
  return streams.pods$.pipe(
    take(1),
    map((pods) => new Set(pods.map((pod) => pod.metadata?.uid ?? ''))),
  );
}

/**
 * The rollout of `generation` (awaitReady, as provision$ waits: progress events, fail-fast Pod
 * diagnosis), then, for a workload with a Service, until the Service routes to the new Pod
 * (awaitRouted: ready means reachable); ended at once with WorkloadSupersededError when a
 * newer generation or a deletion takes over. Pods that existed before the write (`olderPods`) are left out:
 * until the controller names the new ReplicaSet in its Progressing condition, the
 * condition still names the previous one, whose failing Pod (the crash loop a
 * reconfiguration is meant to fix) must not fail the new revision.
 */
export function awaitGenerationRollout(
  context: OperationContext,
  owned: OwnedWorkload,
  target: { readonly generation: number; readonly replicas: number },
  streams: WorkloadStreams,
  olderPods: ReadonlySet<string> = NO_PODS,
): Observable<LifecycleEvent> {
  const pods$ =
    olderPods.size === 0 ? streams.pods$ : streams.pods$.pipe(map((pods) => pods.filter((pod) => !olderPods.has(pod.metadata?.uid ?? ''))));
  const rolloutTarget = { namespace: context.namespace, name: context.name, uid: owned.uid, providerId: context.providerId };
  const deployments$ = streams.deployments$.pipe(guardGeneration(context.operation, { ...context, uid: owned.uid, ...target }));
  const rolloutAndRoute$ = awaitReady({
    client: context.client,
    informers: context.informers,
    instance: context.instance,
    scheduler: context.scheduler,
    failurePolicy: context.failurePolicy,
    target: rolloutTarget,
    deadline: context.deadline,
    deployments$,
    pods$,
    routed: streams.routed ?? routedStreams(context),
    // The members its Pods use stay gates of every new Pod (a volume still attached elsewhere, say).
    table: context.members,
    members: membersByName(context.members, context.name, owned.deployment),
    // Whichever Service the workload has now (a start after a port change meets the new one).
    service: {},
  });
  // The Pods the write replaces are told to stop first (Recreate): a system container's that does not halt is named.
  return rolloutAndRoute$.pipe(withHaltWarnings(haltWatchOf(owned, context, streams.pods$)));
}

/**
 * `streams` whose Service is judged from `written` on (the version a write of it returned;
 * a running informer may still hold the one before), undefined: as they are.
 */
export function routedFromWritten(
  context: Pick<OperationContext, 'informers' | 'client' | 'namespace' | 'name' | 'instance'>,
  streams: WorkloadStreams,
  written: WrittenVersion | undefined,
): WorkloadStreams {
  if (written === undefined) return streams;
  const routed = streams.routed ?? routedStreams(context);
  return { ...streams, routed: { ...routed, services$: routed.services$.pipe(fromWrittenVersion(written)) } };
}

/** The workload's Service and its EndpointSlices, from the namespace's shared informers. */
export function routedStreams(context: Pick<OperationContext, 'informers' | 'client' | 'namespace' | 'name' | 'instance'>): RoutedStreams {
  const { informers, client, namespace, name, instance } = context;
  return {
    services$: serviceSnapshots(informers, client, namespace, name, instance),
    slices$: endpointSliceSnapshots(informers, client, namespace, name, instance),
  };
}

const NO_PODS: ReadonlySet<string> = new Set();

/**
 * The members with rollout gates, known by name alone: the name its Deployment gives it
 * (the claim its Pods mount), or its name in the workload; none when the Deployment names none.
 */
function membersByName(table: MemberTable, workload: string, deployment: V1Deployment): WorkloadMember[] {
  return table.rows.flatMap((row) => {
    if (!row.rolloutGates) return [];
    const name = row.status?.keyOf ? row.status.keyOf(deployment) : row.nameIn(workload);
    return name === undefined ? [] : [{ kind: row.kind, object: { metadata: { name } } }];
  });
}
