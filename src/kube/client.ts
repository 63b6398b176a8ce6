// The narrow surface of the Kubernetes API that the provisioner and informers use: generic
// requests over the kind table (kinds.ts), and the cluster check's few questions.
// KubernetesApi implements it over HTTP; tests inject fakes.
import type { ExecSession, ExecSessionHandlers } from './exec-session.js';
import type { KindMap, WatchedKind } from './kinds.js';
import type {
  V1LimitRange,
  V1Namespace,
  V1ResourceAttributes,
  V1ResourceQuota,
  V1SelfSubjectAccessReview,
  V1SelfSubjectReview,
  VersionInfo,
} from './objects.js';

export type { KindMap, WatchedKind } from './kinds.js';

/** The namespace argument of list() and watch() that means every namespace (and the one a cluster-scoped kind takes). */
export const ALL_NAMESPACES = '';

export interface ObjectList<T> {
  readonly items: readonly T[];
  readonly resourceVersion: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchParams {
  readonly labelSelector?: string;
  /** e.g. `spec.nodeName!=,status.phase!=Succeeded`; only the fields the API server indexes. */
  readonly fieldSelector?: string;
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
  /**
   * The server accepted the watch (HTTP 200), before any event: the connection is healthy
   * again even when nothing changes. Optional; informers use it to report recovery.
   */
  onOpen?(): void;
}

export interface WatchHandle {
  /** Ends the watch and releases its socket; onClose is not called afterwards. */
  abort(): void;
}

export interface RequestOptions {
  readonly signal?: AbortSignal;
}

export interface ListRequestOptions extends RequestOptions {
  /** As in WatchParams. */
  readonly fieldSelector?: string;
}

export interface KubernetesClient {
  /** The namespace to use when a spec names none (option, else context, else `default`). */
  readonly namespace: string;
  /** The API server URL, for messages (never carries credentials). */
  readonly server: string;

  // ---- any kind of the table: namespaced kinds take a namespace, cluster-scoped ones ''.
  /** Creates the object; `dryRun` asks the server to validate it and store nothing. */
  create<K extends WatchedKind>(kind: K, namespace: string, body: KindMap[K], options?: CreateOptions): Promise<KindMap[K]>;
  read<K extends WatchedKind>(kind: K, namespace: string, name: string, options?: RequestOptions): Promise<KindMap[K]>;
  /**
   * A JSON merge patch (RFC 7386) of one object; answers with the object as stored (a
   * new `metadata.generation` when the spec changed). A `metadata.resourceVersion` in the
   * patch is an optimistic-concurrency precondition: the server refuses with 409 Conflict
   * when the object changed since that version was read.
   */
  patch<K extends WatchedKind>(kind: K, namespace: string, name: string, patch: MergePatch, options?: RequestOptions): Promise<KindMap[K]>;
  /**
   * Deletes one object. `preconditions.uid` makes the server refuse (409 Conflict) when
   * the object of that name is no longer the one that was checked; `propagationPolicy`
   * says what happens to its dependents (Foreground: a Deployment's ReplicaSets and Pods go
   * first, and the Deployment stays, with a deletionTimestamp, until they are gone).
   */
  delete<K extends WatchedKind>(kind: K, namespace: string, name: string, options?: DeleteOptions): Promise<void>;
  /** Namespace ALL_NAMESPACES lists every namespace. */
  list<K extends WatchedKind>(
    kind: K,
    namespace: string,
    labelSelector: string | undefined,
    options?: ListRequestOptions,
  ): Promise<ObjectList<KindMap[K]>>;
  watch<K extends WatchedKind>(kind: K, namespace: string, params: WatchParams, handlers: WatchHandlers<KindMap[K]>): WatchHandle;

  // ---- cluster discovery and preflight (src/cluster/: check, nodes, fits) ----------------
  /** The server's build (GET /version). */
  version(options?: RequestOptions): Promise<VersionInfo>;
  /** Who the API server takes us for (authentication.k8s.io/v1, served from Kubernetes 1.28). */
  selfSubjectReview(options?: RequestOptions): Promise<V1SelfSubjectReview>;
  /** Whether we may do one thing, as `kubectl auth can-i` asks it (authorization.k8s.io/v1). */
  selfSubjectAccessReview(attributes: V1ResourceAttributes, options?: RequestOptions): Promise<V1SelfSubjectAccessReview>;
  readNamespace(name: string, options?: RequestOptions): Promise<V1Namespace>;
  listLimitRanges(namespace: string, options?: RequestOptions): Promise<readonly V1LimitRange[]>;
  listResourceQuotas(namespace: string, options?: RequestOptions): Promise<readonly V1ResourceQuota[]>;

  // ---- diagnosis ------------------------------------------------------------------------
  /**
   * The text a container wrote, from the kubelet through the API server (GET
   * pods/{name}/log), scrubbed. Optional: without it, failures carry no log lines.
   */
  readPodLog?(namespace: string, name: string, params: PodLogParams, options?: RequestOptions): Promise<string>;
  /**
   * Runs a command in a Pod's container over a WebSocket (GET pods/{name}/exec, channel
   * protocol v5, else v4). Resolves once the server accepted the upgrade. Optional: a
   * client without it cannot open terminals.
   */
  openPodExec?(namespace: string, name: string, params: PodExecParams): Promise<ExecSession>;
  /**
   * A container's log as a stream (GET pods/{name}/log, `follow` to keep it open). Optional:
   * a client without it cannot follow logs.
   */
  streamPodLog?(namespace: string, name: string, params: PodLogStreamParams, handlers: TextStreamHandlers): WatchHandle;
  /** Where this client's settings came from, for reports; never a credential. Absent on fakes. */
  readonly connection?: ConnectionInfo;
  /**
   * Masks this client's credentials (and every credential shape) in text. The operations
   * mask every event and error they emit with it; without it (a fake), the shapes alone.
   */
  scrub?(text: string): string;
}

export interface PodLogParams {
  readonly container: string;
  /** Only the last lines. */
  readonly tailLines?: number;
  /** At most this many bytes (the server cuts the text there). */
  readonly limitBytes?: number;
  /** The previous run of a restarted container instead of the current one. */
  readonly previous?: boolean;
}

export interface PodExecParams extends ExecSessionHandlers {
  readonly container: string;
  /** The argv to run (no shell is added). */
  readonly command: readonly string[];
  readonly stdin: boolean;
  readonly tty: boolean;
  /** Bound on the upgrade (the server's acceptance). */
  readonly connectTimeoutMs: number;
  readonly pingIntervalMs?: number;
  readonly maxSessionMs?: number;
  readonly signal?: AbortSignal;
}

export interface TextStreamHandlers {
  /** The server answered 200: the stream is open. */
  onOpen?(): void;
  /** Text as it arrives (UTF-8 decoded across chunk boundaries). */
  onText(text: string): void;
  /** Once: `undefined` when the server ended the stream, a project error otherwise; never after abort(). */
  onClose(error: Error | undefined): void;
}

export interface PodLogStreamParams {
  readonly container: string;
  readonly follow?: boolean;
  readonly timestamps?: boolean;
  readonly tailLines?: number;
  readonly sinceSeconds?: number;
  /** RFC 3339; the API server passes it on to the second. */
  readonly sinceTime?: string;
  readonly previous?: boolean;
  readonly limitBytes?: number;
}

export interface ConnectionInfo {
  readonly kubeconfigPath: string;
  readonly context: string;
  readonly server: string;
  /** False only when the caller turned verification off explicitly. */
  readonly tlsVerify: boolean;
  /** Whether the kubeconfig supplies a CA for the server (else the system's CAs apply). */
  readonly customCa: boolean;
}

/** A merge patch body: any subset of the object's fields; null removes a field. */
export type MergePatch = Readonly<Record<string, unknown>>;

/** @deprecated The same as MergePatch, which every kind takes. */
export type DeploymentMergePatch = MergePatch;

export interface CreateOptions extends RequestOptions {
  readonly dryRun?: boolean;
}

export interface DeleteOptions extends RequestOptions {
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
}
