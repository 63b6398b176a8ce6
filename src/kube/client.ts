// The narrow surface of the Kubernetes API that the provisioner and informers use.
// KubernetesApi implements it over @kubernetes/client-node; tests inject fakes.
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';

export type WatchedKind = 'deployments' | 'pods';

export interface KindMap {
  deployments: V1Deployment;
  pods: V1Pod;
}

export interface ObjectList<T> {
  readonly items: readonly T[];
  readonly resourceVersion: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchParams {
  readonly labelSelector?: string;
  readonly resourceVersion: string;
  /** Ask the server to end the watch cleanly after this long (client-go style). */
  readonly timeoutSeconds?: number;
  readonly allowWatchBookmarks?: boolean;
  /**
   * A streaming list (KEP-3157): the server first sends the current objects as ADDED
   * events, read consistently (never from a stale cache), then a BOOKMARK annotated
   * `k8s.io/initial-events-end`, then changes, all on this one request. Needs an empty
   * resourceVersion here.
   */
  readonly sendInitialEvents?: boolean;
}

export interface WatchHandlers<T> {
  /** One decoded watch event; for ERROR, `object` is a metav1.Status. */
  onEvent(type: WatchEventType, object: T): void;
  /**
   * The watch ended: `undefined` for a clean close by the server, otherwise a project
   * error (ApiError subclasses) describing why. Never called after abort().
   */
  onClose(error: Error | undefined): void;
}

export interface WatchHandle {
  /** Ends the watch and releases its socket; onClose is not called afterwards. */
  abort(): void;
}

export interface RequestOptions {
  readonly signal?: AbortSignal;
}

export interface KubernetesClient {
  /** The namespace to use when a spec names none (option, else context, else `default`). */
  readonly namespace: string;
  /** The API server URL, for messages (never carries credentials). */
  readonly server: string;

  createDeployment(namespace: string, body: V1Deployment, options?: RequestOptions & { dryRun?: boolean }): Promise<V1Deployment>;
  readDeployment(namespace: string, name: string, options?: RequestOptions): Promise<V1Deployment>;

  list<K extends WatchedKind>(
    kind: K,
    namespace: string,
    labelSelector: string | undefined,
    options?: RequestOptions,
  ): Promise<ObjectList<KindMap[K]>>;
  watch<K extends WatchedKind>(kind: K, namespace: string, params: WatchParams, handlers: WatchHandlers<KindMap[K]>): WatchHandle;

  // ---- writes after creation (the workload lifecycle: start, stop, restart, reconfigure, remove)
  /**
   * A JSON merge patch (RFC 7386) of one Deployment; answers with the object as stored (a
   * new `metadata.generation` when the spec changed). A `metadata.resourceVersion` in the
   * patch is an optimistic-concurrency precondition: the server refuses with 409 Conflict
   * when the object changed since that version was read.
   */
  patchDeployment(namespace: string, name: string, patch: DeploymentMergePatch, options?: RequestOptions): Promise<V1Deployment>;
  /**
   * Deletes one Deployment. `preconditions.uid` makes the server refuse (409 Conflict) when
   * the object of that name is no longer the one that was checked; `propagationPolicy`
   * says what happens to its ReplicaSets and Pods (Foreground: they go first, and the
   * Deployment stays, with a deletionTimestamp, until they are gone).
   */
  deleteDeployment(namespace: string, name: string, options?: DeleteOptions): Promise<void>;
}

/** A merge patch body for a Deployment: any subset of its fields; null removes a field. */
export type DeploymentMergePatch = Readonly<Record<string, unknown>>;

export interface DeleteOptions extends RequestOptions {
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
}
