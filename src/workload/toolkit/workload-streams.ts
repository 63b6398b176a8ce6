// The informer streams one operation holds: the workload's Deployment and Pod snapshots
// from the shared informers (one Deployment and one Pod watch per namespace, whatever the
// number of operations), subscribed once for the operation's whole length; and the one
// wait for a generation's rollout over them, its members' gates included.
import type { V1Deployment, V1Pod } from '../../kube/objects.js';
import { ReplaySubject, connectable, defer, map, take, using, type Connectable, type Observable, type Subscription } from 'rxjs';
import type { WrittenVersion } from '../../rollout/written-version.js';
import { guardGeneration } from './guard-generation.js';
import type { LifecycleEvent } from './lifecycle-events.js';
import type { OperationContext } from './operation.js';
import type { OwnedWorkload } from './ownership.js';
import { haltWatchOf, withHaltWarnings } from './halt-warnings.js';
import { awaitReady } from './await-ready.js';
import { deploymentSnapshots, podSnapshots } from '../../members/deployment/member.js';
import type { MemberKind, MemberTable, WorkloadMember } from '../../members/set.js';
import { snapshotsOf } from '../../members/snapshots.js';

export interface WorkloadStreams {
  /** The informer's snapshots of the Deployment (by name), the latest replayed. */
  readonly deployments$: Observable<readonly V1Deployment[]>;
  /** The informer's snapshots of the workload's Pods (by container-id), the latest replayed. */
  readonly pods$: Observable<readonly V1Pod[]>;
  /** A member the operation wrote (its UID and version): its gates judge it from that version on. */
  readonly written?: WrittenMember;
}

/** A member as a write returned it. */
export interface WrittenMember {
  readonly kind: MemberKind;
  readonly version: WrittenVersion;
}

/**
 * Runs `body` with the workload's informer streams subscribed for its whole length: one
 * subscription each, however many steps read them (a diagnosis, a write, a wait, a
 * rollback), and released when `body` ends. `gateWatches`: the informers of its members'
 * gates too, from the start, so they have synced by the time the wait judges them (a cold
 * list there would delay every `ready`).
 */
export function withWorkloadStreams<T>(
  context: OperationContext,
  containerId: string,
  body: (streams: WorkloadStreams) => Observable<T>,
  options: { readonly gateWatches?: boolean } = {},
): Observable<T> {
  return defer(() => {
    const workload = heldWorkload(context, containerId);
    const gates = options.gateWatches ? heldGateWatches(context, context.members, context.members.rows) : undefined;
    return using(
      () => {
        const connections = [...workload.connect(), ...(gates ? gates.connect() : [])];
        return { unsubscribe: () => connections.forEach((connection) => connection.unsubscribe()) };
      },
      () => body(workload.streams),
    );
  });
}

/**
 * The Deployment and Pod streams, held: connect() subscribes both, once. A wait that
 * follows a write then finds their informers running instead of starting them again with
 * a new list.
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

/** withWorkloadStreams' options for an operation that ends by waiting for its members' gates (start, restart, reconfigure). */
export const GATE_WATCHES = Object.freeze({ gateWatches: true });

/**
 * The informers the gates of `kinds` read (each kind's status watches, under the member's
 * name in the workload), held: connect() subscribes each, once. Only kinds with rollout
 * gates whose name the workload gives: one its Deployment names (the claim its Pods mount)
 * is known once that is read, and may not exist at all.
 */
export function heldGateWatches(
  context: Pick<OperationContext, 'informers' | 'client' | 'namespace' | 'name' | 'instance'>,
  table: MemberTable,
  kinds: readonly { readonly kind: MemberKind }[],
): { readonly connect: () => Subscription[] } {
  const scope = { registry: context.informers, client: context.client, namespace: context.namespace, instance: context.instance };
  const streams = kinds.flatMap(({ kind }) => {
    const rules = table.rulesOf<MemberKind>(kind);
    if (!rules.rolloutGates || rules.status?.keyOf) return [];
    const key = rules.nameIn(context.name);
    return (rules.status?.watches ?? []).map((watch) => held(snapshotsOf(scope, watch.kind, watch.cache as never, key)));
  });
  return { connect: () => streams.map((stream) => stream.connect()) };
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
 * The rollout of `generation` with its members' gates (awaitReady, as provision$ waits:
 * progress events, fail-fast Pod diagnosis, the Service routing to the new Pod); ended at
 * once with WorkloadSupersededError when a newer generation or a deletion takes over.
 * Pods that existed before the write (`olderPods`) are left out: until the controller
 * names the new ReplicaSet in its Progressing condition, the condition still names the
 * previous one, whose failing Pod (the crash loop a reconfiguration is meant to fix) must
 * not fail the new revision.
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
    // The members its Pods use stay gates of every new Pod (a volume still attached elsewhere,
    // say); whichever Service the workload has now is one (a start after a port change meets the new one).
    table: context.members,
    members: membersByName(context.members, context.name, owned.deployment, streams.written),
  });
  // The Pods the write replaces are told to stop first (Recreate): a system container's that does not halt is named.
  return rolloutAndRoute$.pipe(withHaltWarnings(haltWatchOf(owned, context, streams.pods$)));
}

/**
 * `streams` whose member of `kind` is judged from `written` on (the version a write of it
 * returned; a running informer may still hold the one before); undefined: as they are.
 */
export function fromWritten(streams: WorkloadStreams, kind: MemberKind, written: WrittenVersion | undefined): WorkloadStreams {
  return written === undefined ? streams : { ...streams, written: { kind, version: written } };
}

const NO_PODS: ReadonlySet<string> = new Set();

/**
 * The members with rollout gates, known by name alone: the name its Deployment gives it
 * (the claim its Pods mount), or its name in the workload; none when the Deployment names
 * none. The one the operation wrote, by its UID and version as well.
 */
function membersByName(table: MemberTable, workload: string, deployment: V1Deployment, written?: WrittenMember): WorkloadMember[] {
  return table.rows.flatMap((row) => {
    if (!row.rolloutGates) return [];
    const name = row.status?.keyOf ? row.status.keyOf(deployment) : row.nameIn(workload);
    if (name === undefined) return [];
    const version = written?.kind === row.kind ? written.version : undefined;
    return [{ kind: row.kind, object: { metadata: { name, ...version } } }];
  });
}
