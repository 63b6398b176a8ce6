// The claim: the container's volume, created before the Deployment so its Pod finds it,
// with no owner reference (a Deployment deleted by hand never takes the data with it). A
// failed provisioning deletes the claim it created (no user has written to it), unless
// asked to keep it. Its informer keys it by name; the storage Warning events about it and
// its Pods (its read side) are keyed by the object they are about, and make its readiness
// gate with the claim itself.
import { catchError, combineLatest, defer, distinctUntilChanged, map, of, startWith, switchMap, type Observable } from 'rxjs';
import type { InformerRegistry } from '../../informers/registry.js';
import { cachedClaimFields } from '../../informers/transforms/claim.js';
import { cachedEventFields } from '../../informers/transforms/event.js';
import type { KubernetesClient } from '../../kube/client.js';
import { KINDS } from '../../kube/kinds.js';
import type { CoreV1Event, V1PersistentVolumeClaim, V1Pod, V1StorageClass } from '../../kube/objects.js';
import { ForbiddenError, NotFoundError } from '../../errors/api.js';
import { claimStatus, storageCompare } from '../../rollout/claim-status.js';
import { claimGate } from '../../rollout/claim-gate.js';
import { STORAGE_EVENT_REASONS, storageEventOf, type StorageEvent } from '../../rollout/storage-diagnosis.js';
import type { TrackedGate } from '../../rollout/tracker.js';
import { allow } from '../../kube/permission.js';
import type { CacheRequest, MemberRules, MemberStatusRules } from '../member.js';
import { snapshotsOf } from '../snapshots.js';
import { buildClaim, claimDrift, claimNameOf } from './manifest.js';

/** How the claim informer keys and caches objects: a workload's claim is named after it. */
export const CLAIMS_BY_NAME = {
  routingKeyName: 'name',
  routingKey: (claim: V1PersistentVolumeClaim) => claim.metadata?.name,
  transformName: 'storage-fields',
  transform: cachedClaimFields,
} as const satisfies CacheRequest<'persistentvolumeclaims'>;

/**
 * How the storage event informer keys and caches objects: Warning events (the field
 * selector) about a claim, or about a Pod's volumes, by the name of the object they are
 * about; every other event is passed over and never cached.
 */
export const STORAGE_EVENTS_BY_OBJECT = {
  fieldSelector: 'type=Warning',
  routingKeyName: 'storage-object',
  routingKey: (event: CoreV1Event) => {
    const object = event.involvedObject;
    if (object?.kind === KINDS.persistentvolumeclaims.kind) return object.name;
    if (object?.kind === 'Pod' && STORAGE_EVENT_REASONS.has(event.reason ?? '')) return object.name;
    return undefined;
  },
  transformName: 'storage-fields',
  transform: cachedEventFields,
} as const satisfies CacheRequest<'events'>;

/** The workload's claim by name, from the namespace's shared claim informer (the installation's claims). */
export function claimSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  name: string,
  instance?: string,
): Observable<readonly V1PersistentVolumeClaim[]> {
  return snapshotsOf({ registry, client, namespace, instance }, 'persistentvolumeclaims', CLAIMS_BY_NAME, name);
}

/** The storage Warning events about one object (a claim, a Pod) of the namespace. */
export function storageEventSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  objectName: string,
): Observable<readonly CoreV1Event[]> {
  // Every Warning event of the namespace: events carry no labels of ours.
  return defer(() =>
    registry.informer(client, { kind: 'events', namespace, labelSelector: '', ...STORAGE_EVENTS_BY_OBJECT }).observe(objectName),
  );
}

/**
 * The storage events of one workload as they arrive: its claim's, and each of its Pods'
 * (the Pods change, so their events are followed by name as they come and go). A caller
 * not allowed to read events gets none, and the storage problems the scheduler and the
 * Pods' statuses show are still named.
 */
export function storageEvents(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  claim: string,
  pods$: Observable<readonly V1Pod[]>,
): Observable<readonly StorageEvent[]> {
  const events$ = (name: string): Observable<readonly StorageEvent[]> =>
    storageEventSnapshots(registry, client, namespace, name).pipe(map((events) => events.map(storageEventOf)));
  const podEvents$ = pods$.pipe(
    map((pods) =>
      pods
        .map((pod) => pod.metadata?.name ?? '')
        .filter(Boolean)
        .sort()
        .join('\u0000'),
    ),
    distinctUntilChanged(),
    switchMap((names) => (names === '' ? of([]) : combineLatest(names.split('\u0000').map(events$)))),
    map((lists) => lists.flat()),
  );
  return combineLatest([events$(claim).pipe(startWith([])), podEvents$.pipe(startWith([]))]).pipe(
    map(([claimEvents, podEvents]) => [...claimEvents, ...podEvents]),
    // Events only add words: a failing events informer (no RBAC for events, say) leaves the
    // rollout to be judged from the Pods, as without storage; the Pod and Deployment informers
    // report their own failures.
    catchError(() => of([])),
  );
}

/**
 * The claim as its rollout's readiness gate (rollout/claim-gate.ts), per change of the
 * claim, of its and the Pods' storage events, or of the Pods. Only the claim with the UID
 * this run created or adopted counts.
 */
export function claimGates(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  claim: V1PersistentVolumeClaim,
  instance: string | undefined,
  pods$: Observable<readonly V1Pod[]>,
): Observable<readonly TrackedGate[]> {
  const name = claim.metadata?.name ?? '';
  // Without a UID (a lifecycle operation knows the claim by the name its Pods mount): the one of that name.
  const uid = claim.metadata?.uid;
  return combineLatest([
    claimSnapshots(registry, client, namespace, name, instance),
    storageEvents(registry, client, namespace, name, pods$),
    pods$,
  ]).pipe(
    map(([claims, events, pods]) => [
      claimGate(
        name,
        claims.find((each) => uid === undefined || each.metadata?.uid === uid),
        events,
        pods,
      ),
    ]),
  );
}

export const CLAIM_MEMBER: MemberRules<'persistentvolumeclaims'> = {
  kind: 'persistentvolumeclaims',
  build: (spec, { namespace, labels, options }) =>
    spec.storage
      ? buildClaim(
          { ...spec, storage: spec.storage },
          { namespace, labels, ...(options.storageClass !== undefined ? { storageClass: options.storageClass } : {}) },
        )
      : undefined,
  nameIn: (workload) => workload,
  drift: claimDrift,
  propagationPolicy: 'Background',
  usedBy: 'deployments',
  permissions: {
    // its claim (created, or read back when the name is taken), the shared claim informer,
    // and the storage controllers' Warning events on it
    create: [...allow('persistentvolumeclaims', ['create', 'get', 'list', 'watch']), ...allow('events', ['list', 'watch'])],
    // reconfigure's resize; delete (unless the data is kept)
    lifecycle: allow('persistentvolumeclaims', ['patch', 'delete']),
  },
  cache: CLAIMS_BY_NAME,
  snapshots: claimSnapshots,
  // Never waiting for the claim to bind before the Pod: the claim is a readiness gate.
  rolloutGates: (claim, { scope: { registry, client, namespace, instance }, pods$ }) =>
    claimGates(registry, client, namespace, claim, instance, pods$),
  status: {
    watches: [{ kind: 'persistentvolumeclaims', cache: CLAIMS_BY_NAME, find: { by: 'name' } }],
    // The claim the Pods mount (the container's volume): none, no `storage`.
    keyOf: claimNameOf,
    view: ([claims]) => {
      const claim = claims?.[0] as V1PersistentVolumeClaim | undefined;
      return claim && { claim };
    },
    // Whether a pending resize can happen at all is the class's to say: read only while one is pending.
    readMore: async (view, client, signal) => {
      const storageClass = await classIfResizing(client, view.claim, signal);
      return storageClass ? { ...view, storageClass } : view;
    },
    // The same gate as the waits', without the storage controllers' events (which statuses read none of).
    gate: (view, _deployment, pods) => view && claimGate(view.claim.metadata?.name ?? '', view.claim, NO_EVENTS, pods),
    fields: (view, name) => ({ storage: claimStatus(view?.claim, name, view?.storageClass) }),
    // A caller that may not read claims gets statuses without `storage`.
    optional: true,
  } satisfies MemberStatusRules<ClaimView>,
};

const NO_EVENTS: readonly StorageEvent[] = Object.freeze([]);

/** The claim, and its class while a resize is pending, as its status reads them. */
interface ClaimView {
  readonly claim: V1PersistentVolumeClaim;
  readonly storageClass?: V1StorageClass;
}

/** The claim's StorageClass while the claim asks for more than its volume has; unreadable: none. */
async function classIfResizing(
  client: KubernetesClient,
  claim: V1PersistentVolumeClaim,
  signal: AbortSignal,
): Promise<V1StorageClass | undefined> {
  const className = claim.spec?.storageClassName;
  if (!className || storageCompare(claim.spec?.resources?.requests?.storage, claim.status?.capacity?.storage) !== 1) return undefined;
  try {
    return await client.read('storageclasses', '', className, { signal });
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof ForbiddenError) return undefined;
    throw error;
  }
}
