// The kinds of Kubernetes object the library creates, reads, lists or watches, one entry
// each: what the API calls it, where it is served, and whether it lives in a namespace.
// The client's generic requests (create, read, patch, delete, list, watch), the informers
// and the test fake all go by this table, so a new kind is one entry here (with its line
// in KindMap and its wire type in objects.ts), not an edit in every band.
import type {
  CoreV1Event,
  V1Deployment,
  V1ConfigMap,
  V1EndpointSlice,
  V1Node,
  V1PersistentVolumeClaim,
  V1Pod,
  V1RuntimeClass,
  V1Service,
  V1StorageClass,
} from './objects.js';

/** Each resource (the plural the URL, RBAC and messages use) and the object type the API server sends for it. */
export interface KindMap {
  deployments: V1Deployment;
  pods: V1Pod;
  nodes: V1Node;
  persistentvolumeclaims: V1PersistentVolumeClaim;
  storageclasses: V1StorageClass;
  runtimeclasses: V1RuntimeClass;
  events: CoreV1Event;
  services: V1Service;
  endpointslices: V1EndpointSlice;
  configmaps: V1ConfigMap;
}

/**
 * The resources of the table: `deployments`, `pods`, `nodes`, `persistentvolumeclaims`,
 * `storageclasses`, `runtimeclasses`, `events`, `services`, `endpointslices`, `configmaps`.
 */
export type WatchedKind = keyof KindMap;

/** One kind of object. */
export interface KindInfo {
  /** As the API names it in `kind`: `Deployment`. */
  readonly kind: string;
  /** The API group (`apps`), '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Namespaced objects are addressed in a namespace; the others (nodes) at cluster scope. */
  readonly namespaced: boolean;
}

export const KINDS = {
  deployments: { kind: 'Deployment', group: 'apps', version: 'v1', namespaced: true },
  pods: { kind: 'Pod', group: '', version: 'v1', namespaced: true },
  nodes: { kind: 'Node', group: '', version: 'v1', namespaced: false },
  persistentvolumeclaims: { kind: 'PersistentVolumeClaim', group: '', version: 'v1', namespaced: true },
  storageclasses: { kind: 'StorageClass', group: 'storage.k8s.io', version: 'v1', namespaced: false },
  runtimeclasses: { kind: 'RuntimeClass', group: 'node.k8s.io', version: 'v1', namespaced: false },
  events: { kind: 'Event', group: '', version: 'v1', namespaced: true },
  services: { kind: 'Service', group: '', version: 'v1', namespaced: true },
  endpointslices: { kind: 'EndpointSlice', group: 'discovery.k8s.io', version: 'v1', namespaced: true },
  configmaps: { kind: 'ConfigMap', group: '', version: 'v1', namespaced: true },
} as const satisfies { readonly [K in WatchedKind]: KindInfo };

/** As the API names a kind in `kind`: `KindName<'services'>` is `'Service'`. */
export type KindName<K extends WatchedKind> = (typeof KINDS)[K]['kind'];

/** `apps/v1`, or `v1` for the core group. */
export function apiVersionOf(resource: WatchedKind): string {
  const { group, version } = KINDS[resource];
  return group ? `${group}/${version}` : version;
}

/** The collection's path: in `namespace`, or across every namespace (and at cluster scope) when it is ''. */
export function collectionPath(resource: WatchedKind, namespace: string): string {
  const info = KINDS[resource];
  const root = info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
  return info.namespaced && namespace ? `${root}/namespaces/${encodeURIComponent(namespace)}/${resource}` : `${root}/${resource}`;
}

/** One object's path. */
export function objectPath(resource: WatchedKind, namespace: string, name: string): string {
  return `${collectionPath(resource, namespace)}/${encodeURIComponent(name)}`;
}
