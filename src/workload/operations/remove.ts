// remove$() / remove(): delete the objects of a workload set and wait until they and the
// Pods are gone. (`delete` is a JavaScript keyword.)
//
//   read each member -> a Deployment not the expected container's (container-id label,
//           managed=true): WorkloadOwnershipError, nothing deleted
//        -> a Service or claim of the name that is not the container's: `left`, untouched
//        -> none of ours there: `removed` (changed: false) at once
//   -> hold the informers -> `diagnosed` for every Pod with something to say, before they go
//   -> DELETE each, last created first, with the UID read as a precondition (the object
//      checked is the one deleted) and its kind's propagation (a Deployment's ReplicaSets
//      and Pods go first) -> `deleted` for each
//   -> wait until every member, every Pod of the workload and the Service's EndpointSlices
//      (a finalizer may hold one after its Service is gone) are gone -> `removed`; a system
//      container's Pod still running some seconds after the delete -> `warned` (SlowHalt)
//
// Nothing waits for a Pod to become ready or to start: a Pending Pod is deleted like any
// other, and the wait ends as soon as it is gone.
import { EMPTY, concat, defer, from, of, switchMap, type Observable } from 'rxjs';
import { describeInstance } from '../../input/labels.js';
import { ConflictError, NotFoundError } from '../../errors/api.js';
import type { KubeObject } from '../../informers/reflector.js';
import { KINDS } from '../../kube/kinds.js';
import { ownedContainerId } from '../toolkit/ownership.js';
import { describeOwner, ownedBy, type MemberKind } from '../../members/set.js';
import type { KubernetesClient } from '../../kube/client.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import type { DeletedObject } from '../toolkit/await-workload.js';
import type { V1Deployment, V1EndpointSlice } from '../../kube/objects.js';
import { endpointSliceSnapshots } from '../../members/service/member.js';
import type { LeftObject, LifecycleEvent, RemovedEvent } from '../toolkit/lifecycle-events.js';
import {
  outcomeOf,
  resultBase,
  runOperation,
  type OperationContext,
  type OperationResult,
  type WorkloadOperationOptions,
} from '../toolkit/operation.js';
import { withWorkloadStreams } from '../toolkit/workload-streams.js';
import { diagnoseBeforeTheyGo } from './stop.js';
import { awaitRemoval } from '../toolkit/await-removal.js';

export interface RemoveOptions extends WorkloadOperationOptions {
  /** Required: the container-id label the Deployment must carry to be deleted. */
  readonly containerId: string | number;
  /**
   * Keep the container's claim, and the data on it; a later create for the
   * same container id re-attaches it. Default false: the claim is deleted and waited gone.
   */
  readonly keepData?: boolean;
}

export interface RemoveResult extends OperationResult {
  /** The container's claim: deleted and gone, kept (keepData), or there was none. */
  readonly storage: 'deleted' | 'kept' | 'none';
  /** Objects of the name that are not the container's (a team's own Service `web`, say), left untouched. */
  readonly left: readonly LeftObject[];
}

/** A delete refused because another object took the name is checked again this often. */
const MAX_DELETE_ATTEMPTS = 3;

/** Cold: nothing happens until subscribed; each subscription removes once. */
export function remove$(client: KubernetesClient, providerId: string, options: RemoveOptions): Observable<LifecycleEvent> {
  return runOperation('remove', client, providerId, options, (context) =>
    fromAbortable((signal) => readMembers(context, signal)).pipe(
      switchMap(({ present: found, left }) => {
        const claim = found.find((member) => member.kind === 'persistentvolumeclaims');
        const keep = options.keepData === true && claim !== undefined;
        const storage = claim === undefined ? 'none' : keep ? 'kept' : 'deleted';
        const present = keep ? found.filter((member) => member !== claim) : found;
        // Stamped when emitted, after the deletions it follows, never when decided.
        const keptEvent$ = keep
          ? defer(() =>
              of<LifecycleEvent>({
                type: 'kept',
                ...context.base(),
                kind: KINDS.persistentvolumeclaims.kind,
                object: claim.name,
                uid: claim.uid,
              }),
            )
          : EMPTY;
        const leftEvents$ = defer(() => from(left.map((each): LifecycleEvent => ({ type: 'left', ...context.base(), ...each }))));
        const removed = (changed: boolean) => defer(() => of(removedEvent(context, changed, storage, left)));
        if (present.length === 0) return concat(leftEvents$, keptEvent$, removed(false));
        return withWorkloadStreams(context, present[0]!.containerId, (streams) =>
          concat(
            leftEvents$,
            diagnoseBeforeTheyGo(context, streams),
            fromAbortable((signal) => deleteMembers(context, present, left, signal)).pipe(
              switchMap((deleted) => {
                if (deleted.length === 0) return concat(keptEvent$, removed(false));
                const gone: DeletedObject[] = deleted.map((member) => ({
                  kind: KINDS[member.kind].kind,
                  uid: member.uid,
                  snapshots$: member.kind === 'deployments' ? streams.deployments$ : snapshotsOf(context, member),
                }));
                const service = deleted.find((member) => member.kind === 'services');
                // Its EndpointSlices outlive it while a finalizer holds one: gone only when they are.
                if (service) gone.push(slicesOf(context, service));
                return concat(
                  from(
                    deleted.map((member): LifecycleEvent => ({
                      type: 'deleted',
                      ...context.base(),
                      // When the API server accepted this deletion, not when all were done.
                      at: member.at,
                      uid: member.uid,
                      kind: KINDS[member.kind].kind,
                      object: member.name,
                    })),
                  ),
                  keptEvent$,
                  awaitRemoval(context, gone, streams.pods$, present.find((member) => member.deployment)?.deployment),
                  removed(true),
                );
              }),
            ),
          ),
        );
      }),
    ),
  );
}

/** Resolves once every object of the workload and its Pods are gone (at once when they were already). */
export function remove(client: KubernetesClient, providerId: string, options: RemoveOptions): Promise<RemoveResult> {
  return outcomeOf(remove$(client, providerId, options), 'removed', (event: RemovedEvent) => ({
    ...resultBase(event),
    storage: event.storage,
    left: event.left,
  }));
}

/** A member of the workload as read, found to be the expected container's. */
interface PresentMember {
  readonly kind: MemberKind;
  readonly name: string;
  readonly uid: string;
  readonly containerId: string;
  /** The Deployment as read, whose pod template says whether a halt is watched. */
  readonly deployment?: V1Deployment;
}

/** What is there of the name, split into what is the container's and what is left untouched. */
interface FoundMembers {
  readonly present: PresentMember[];
  readonly left: LeftObject[];
}

/**
 * The workload's objects that exist: the Deployment checked to be ours (WorkloadOwnershipError,
 * nothing deleted, if it is not); a Service or claim of the name that is not ours is left.
 */
async function readMembers(context: OperationContext, signal: AbortSignal): Promise<FoundMembers> {
  const found: FoundMembers = { present: [], left: [] };
  for (const kind of context.members.kinds) {
    const member = await readMember(context, kind, context.members.rulesOf(kind).nameIn(context.name), signal);
    if (member && 'message' in member) found.left.push(member);
    else if (member) found.present.push(member);
  }
  return found;
}

async function readMember(
  context: OperationContext,
  kind: MemberKind,
  name: string,
  signal: AbortSignal,
): Promise<PresentMember | LeftObject | undefined> {
  try {
    const object = await context.client.read(kind, context.namespace, name, { signal });
    // A Service or claim of that name that is not this container's is not part of it: left
    // untouched, and it keeps nothing of ours from going. Only the Deployment decides whose the workload is.
    const expected = context.expectedContainerId ?? '';
    if (kind !== 'deployments' && !ownedBy(object, { containerId: expected, instance: context.instance })) {
      const what = `${KINDS[kind].kind} ${context.namespace}/${name}`;
      return {
        kind: KINDS[kind].kind,
        object: name,
        uid: object.metadata?.uid ?? '',
        message: `${what} belongs to ${describeOwner(object)}, not container-id ${expected}${describeInstance(context.instance)}: left untouched`,
      };
    }
    const read = kind === 'deployments' ? { deployment: object as V1Deployment } : {};
    return { kind, name, uid: object.metadata?.uid ?? '', containerId: ownedContainerId(context, kind, object), ...read };
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** A member whose deletion the API server accepted, and when. */
interface DeletedMember extends PresentMember {
  readonly at: string;
}

/**
 * Deletes each member, last created first; the ones that were there to delete, each with the
 * time it was deleted. One whose name another's object took meanwhile joins `left`.
 */
async function deleteMembers(
  context: OperationContext,
  present: readonly PresentMember[],
  left: LeftObject[],
  signal: AbortSignal,
): Promise<DeletedMember[]> {
  const deleted: DeletedMember[] = [];
  for (const member of [...present].reverse()) {
    const gone = await deleteChecked(context, member, left, signal);
    if (gone) deleted.push({ ...gone, at: context.base().at });
  }
  return deleted;
}

/**
 * Deletes the object that was checked (UID precondition). When the name now holds another
 * object, that one is checked in turn; undefined when there is nothing left to delete.
 */
async function deleteChecked(
  context: OperationContext,
  first: PresentMember,
  left: LeftObject[],
  signal: AbortSignal,
): Promise<PresentMember | undefined> {
  let member: PresentMember | undefined = first;
  for (let attempt = 1; member; attempt += 1) {
    try {
      await context.client.delete(member.kind, context.namespace, member.name, {
        preconditions: { uid: member.uid },
        propagationPolicy: context.members.rulesOf(member.kind).propagationPolicy,
        signal,
      });
      return member;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      if (!(error instanceof ConflictError) || attempt >= MAX_DELETE_ATTEMPTS) throw error;
      const now = await readMember(context, member.kind, member.name, signal);
      if (now && 'message' in now) left.push(now);
      member = now && 'message' in now ? undefined : now;
    }
  }
  return undefined;
}

/** A member's informer snapshots by name, for the wait until it is gone. */
function snapshotsOf(context: OperationContext, member: PresentMember): Observable<readonly KubeObject[]> {
  return context.members
    .rulesOf(member.kind)
    .snapshots(context.informers, context.client, context.namespace, member.name, context.instance);
}

/** The EndpointSlices of a deleted Service (owned by its UID), for the wait until they are gone. */
function slicesOf(context: OperationContext, service: PresentMember): DeletedObject {
  return {
    kind: "Service's EndpointSlices",
    uid: service.uid,
    snapshots$: endpointSliceSnapshots(context.informers, context.client, context.namespace, service.name, context.instance),
    left: (slice) =>
      (slice as V1EndpointSlice).metadata?.ownerReferences?.some((owner) => owner.kind === 'Service' && owner.uid === service.uid) === true,
  };
}

function removedEvent(
  context: OperationContext,
  changed: boolean,
  storage: RemovedEvent['storage'],
  left: readonly LeftObject[],
): RemovedEvent {
  return { type: 'removed', ...context.base(), changed, durationMs: context.elapsed(), storage, left: [...left] };
}
