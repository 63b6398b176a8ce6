// The informer streams one provisioning waits on, from the shared informers of its
// namespace: the Deployment by name, its Pods by container-id label, and with ports its
// Service by name and the Service's EndpointSlices by the Service name their
// `kubernetes.io/service-name` label carries. Every informer
// select the installation's workloads (managedSelector: managed=true and the instance
// label, or no instance label), so one Deployment watch and one Pod watch per namespace and
// installation serve every provisioning in it, and another installation's Pods with the
// same container-id never reach it. (The EndpointSlice controller copies a Service's
// labels onto its slices, so the slices of our Services carry the same selector.) They
// cache only the fields the rollout code reads (src/informers/transforms/, one per kind).
import type { CoreV1Event, V1Deployment, V1EndpointSlice, V1PersistentVolumeClaim, V1Pod, V1Service } from '../kube/objects.js';
import { SERVICE_NAME_LABEL } from '../kube/objects.js';
import { catchError, combineLatest, defer, distinctUntilChanged, map, of, startWith, switchMap, type Observable } from 'rxjs';
import type { InformerRegistry, InformerRequest } from '../informers/registry.js';
import type { SharedInformer } from '../informers/shared-informer.js';
import type { KindMap, KubernetesClient, WatchedKind } from '../kube/client.js';
import { cachedClaimFields } from '../informers/transforms/claim.js';
import { cachedDeploymentFields } from '../informers/transforms/deployment.js';
import { cachedEndpointSliceFields } from '../informers/transforms/endpoint-slice.js';
import { cachedEventFields } from '../informers/transforms/event.js';
import { cachedPodFields } from '../informers/transforms/pod.js';
import { cachedServiceFields } from '../informers/transforms/service.js';
import { STORAGE_EVENT_REASONS, storageEventOf, type StorageEvent } from '../rollout/storage-diagnosis.js';
import { containerIdOf, managedSelector } from '../input/labels.js';
import { claimGate } from '../rollout/claim-gate.js';
import type { TrackedGate } from '../rollout/tracker.js';

/** How the Deployment informer keys and caches objects (also used by bench/micro.ts). */
export const DEPLOYMENTS_BY_NAME = {
  routingKeyName: 'name',
  routingKey: (deployment: V1Deployment) => deployment.metadata?.name,
  transformName: 'rollout-fields',
  transform: cachedDeploymentFields,
} as const satisfies Omit<InformerRequest<'deployments'>, 'kind' | 'namespace' | 'labelSelector'>;

/** How the Pod informer keys and caches objects. */
export const PODS_BY_CONTAINER_ID = {
  routingKeyName: 'container-id',
  routingKey: containerIdOf,
  transformName: 'rollout-fields',
  transform: cachedPodFields,
} as const satisfies Omit<InformerRequest<'pods'>, 'kind' | 'namespace' | 'labelSelector'>;

/** How the claim informer keys and caches objects: a workload's claim is named after it. */
export const CLAIMS_BY_NAME = {
  routingKeyName: 'name',
  routingKey: (claim: V1PersistentVolumeClaim) => claim.metadata?.name,
  transformName: 'storage-fields',
  transform: cachedClaimFields,
} as const satisfies Omit<InformerRequest<'persistentvolumeclaims'>, 'kind' | 'namespace' | 'labelSelector'>;

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
    if (object?.kind === 'PersistentVolumeClaim') return object.name;
    if (object?.kind === 'Pod' && STORAGE_EVENT_REASONS.has(event.reason ?? '')) return object.name;
    return undefined;
  },
  transformName: 'storage-fields',
  transform: cachedEventFields,
} as const satisfies Omit<InformerRequest<'events'>, 'kind' | 'namespace' | 'labelSelector'>;

/** The workload's claim by name, from the namespace's shared claim informer (the installation's claims). */
export function claimSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  name: string,
  instance?: string,
): Observable<readonly V1PersistentVolumeClaim[]> {
  const labelSelector = managedSelector(instance);
  return snapshots(registry, client, { kind: 'persistentvolumeclaims', namespace, labelSelector, ...CLAIMS_BY_NAME }, name);
}

/** The storage Warning events about one object (a claim, a Pod) of the namespace. */
export function storageEventSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  objectName: string,
): Observable<readonly CoreV1Event[]> {
  return snapshots(registry, client, { kind: 'events', namespace, labelSelector: '', ...STORAGE_EVENTS_BY_OBJECT }, objectName);
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

/** How the Service informer keys and caches objects. */
export const SERVICES_BY_NAME = {
  routingKeyName: 'name',
  routingKey: (service: V1Service) => service.metadata?.name,
  transformName: 'service-fields',
  transform: cachedServiceFields,
} as const satisfies Omit<InformerRequest<'services'>, 'kind' | 'namespace' | 'labelSelector'>;

/** How the EndpointSlice informer keys and caches objects: by the Service they belong to. */
export const ENDPOINTSLICES_BY_SERVICE = {
  routingKeyName: 'service-name',
  routingKey: (slice: V1EndpointSlice) => slice.metadata?.labels?.[SERVICE_NAME_LABEL],
  transformName: 'endpoint-fields',
  transform: cachedEndpointSliceFields,
} as const satisfies Omit<InformerRequest<'endpointslices'>, 'kind' | 'namespace' | 'labelSelector'>;

export function deploymentSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  name: string,
  instance?: string,
): Observable<readonly V1Deployment[]> {
  const labelSelector = managedSelector(instance);
  return snapshots(registry, client, { kind: 'deployments', namespace, labelSelector, ...DEPLOYMENTS_BY_NAME }, name);
}

export function podSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  containerId: string,
  instance?: string,
): Observable<readonly V1Pod[]> {
  const labelSelector = managedSelector(instance);
  return snapshots(registry, client, { kind: 'pods', namespace, labelSelector, ...PODS_BY_CONTAINER_ID }, containerId);
}

export function serviceSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  name: string,
  instance?: string,
): Observable<readonly V1Service[]> {
  const labelSelector = managedSelector(instance);
  return snapshots(registry, client, { kind: 'services', namespace, labelSelector, ...SERVICES_BY_NAME }, name);
}

/** The EndpointSlices of the Service `service`, per change. */
export function endpointSliceSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  service: string,
  instance?: string,
): Observable<readonly V1EndpointSlice[]> {
  const labelSelector = managedSelector(instance);
  return snapshots(registry, client, { kind: 'endpointslices', namespace, labelSelector, ...ENDPOINTSLICES_BY_SERVICE }, service);
}

/**
 * The informers of a namespace themselves, for consumers of every workload in it
 * (statuses$): the same registry entries provision$ waits on, so they share the watches.
 */
export function namespaceInformers(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  instance?: string,
): NamespaceInformers {
  const labelSelector = managedSelector(instance);
  return {
    deployments: registry.informer(client, { kind: 'deployments', namespace, labelSelector, ...DEPLOYMENTS_BY_NAME }),
    pods: registry.informer(client, { kind: 'pods', namespace, labelSelector, ...PODS_BY_CONTAINER_ID }),
    services: registry.informer(client, { kind: 'services', namespace, labelSelector, ...SERVICES_BY_NAME }),
    endpointSlices: registry.informer(client, { kind: 'endpointslices', namespace, labelSelector, ...ENDPOINTSLICES_BY_SERVICE }),
    claims: registry.informer(client, { kind: 'persistentvolumeclaims', namespace, labelSelector, ...CLAIMS_BY_NAME }),
  };
}

export interface NamespaceInformers {
  readonly deployments: SharedInformer<V1Deployment>;
  readonly pods: SharedInformer<V1Pod>;
  readonly services: SharedInformer<V1Service>;
  readonly endpointSlices: SharedInformer<V1EndpointSlice>;
  readonly claims: SharedInformer<V1PersistentVolumeClaim>;
}

/** The informer is looked up at subscription time, so an idle one is never kept around. */
function snapshots<K extends WatchedKind>(
  registry: InformerRegistry,
  client: KubernetesClient,
  request: InformerRequest<K>,
  key: string,
): Observable<readonly KindMap[K][]> {
  return defer(() => registry.informer(client, request).observe(key));
}
