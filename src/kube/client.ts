// The narrow surface of the Kubernetes API that the provisioner and informers use.
// KubernetesApi implements it over @kubernetes/client-node; tests inject fakes.
import type { V1Deployment, V1Pod } from './objects.js';

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
}
