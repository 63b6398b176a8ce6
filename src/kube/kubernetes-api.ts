// KubernetesApi: the KubernetesClient over a real API server.
import type {
  V1LimitRange,
  V1Namespace,
  V1ResourceAttributes,
  V1ResourceQuota,
  V1SelfSubjectAccessReview,
  V1SelfSubjectReview,
  VersionInfo,
} from './objects.js';
import type {
  ConnectionInfo,
  CreateOptions,
  DeleteOptions,
  KubernetesClient,
  ListRequestOptions,
  PodExecParams,
  PodLogParams,
  PodLogStreamParams,
  MergePatch,
  TextStreamHandlers,
  ObjectList,
  RequestOptions,
  WatchHandle,
  WatchHandlers,
  WatchParams,
} from './client.js';
import { collectionPath, objectPath, type KindMap, type WatchedKind } from './kinds.js';
import { MalformedResponseError, type RequestTarget } from '../errors/api.js';
import { DURATION_RULES } from '../input/duration.js';
import { namespaceProblem, type FieldRule } from '../input/fields.js';
import { aFunction, checkOptions, duration, type OptionTable } from '../input/options.js';
import { EXEC_PROTOCOLS, ExecSession } from './exec-session.js';
import { HttpTransport, type RequestInfo, type TransportOptions } from './http-transport.js';
import { loadKubeconfig, type KubeconfigOptions } from './kubeconfig.js';
import { Masker } from '../mask.js';
import { credentialValues } from './credential-values.js';
import { serverCredentials, type ServerOptions } from './server-credentials.js';
import { describe as describeValue, isRecord } from './watch-decoder.js';

/** How requests are sent; the same for a kubeconfig and for a server URL with a token. */
export interface ConnectionOptions {
  /**
   * Bound on the server's answer to every API request (and on a watch until the server
   * answers), in whole milliseconds from 1 to 365 days; a request is always bounded (no
   * Infinity). A request waiting for a free connection (see maxConnections) waits its turn
   * for as long as its signal allows (every operation passes one that carries its deadline);
   * one without a signal waits at most this long, then fails with `ApiTimeoutError` whose
   * `sent` is false. Default 75 s (DEFAULT_REQUEST_TIMEOUT_MS says why).
   */
  readonly requestTimeoutMs?: number;
  /**
   * Connections to the API server open at once for requests other than watches (creates,
   * reads, lists); further requests wait for a free one. Idle connections close after 5 s
   * and never keep the process alive. Default 64.
   */
  readonly maxConnections?: number;
  /** Called once per API request sent; benchmarks count calls with it. */
  readonly onRequest?: (info: RequestInfo) => void;
}

export interface KubernetesApiOptions extends KubeconfigOptions, ConnectionOptions {}

/** `KubernetesApi.fromServer`: a server URL and a bearer token instead of a kubeconfig file. */
export interface KubernetesServerOptions extends ServerOptions, ConnectionOptions {}

/**
 * Beyond the API server's own bound on a request (its --request-timeout, one minute by
 * default, after which it answers 504 itself): a busy server still working on a create is
 * waited for, and only one gone silent is given up on. A shorter bound abandoned creates a
 * loaded control plane went on to make (bench/results/network.md).
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 75_000;
/** Objects per page when listing, so a huge namespace is fetched in bounded chunks. */
const LIST_PAGE_SIZE = 500;
const FIELD_MANAGER = 'kube-provisioner';

/** A core-group collection the kind table does not hold (the cluster check's few reads). */
function coreCollectionPath(resource: string, namespace: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/${resource}`;
}

interface ListResponse<T> {
  readonly items?: T[];
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
}

export class KubernetesApi implements KubernetesClient {
  /**
   * Loads the kubeconfig (path, else $KUBECONFIG, else ~/.kube/config; never a silent
   * localhost fallback), validates the context, and resolves the namespace (option, else
   * the context's, else `default`). TLS verification stays on unless `tlsVerify: false`.
   */
  static fromConfig(options: KubernetesApiOptions = {}): KubernetesApi {
    checkOptions(options, KUBECONFIG_OPTIONS, { noun: 'KubernetesApi options' });
    const loaded = loadKubeconfig(options);
    const masker = new Masker(credentialValues(loaded.config));
    const transport = new HttpTransport(loaded.config, loaded.server, {
      ...transportOptions(options),
      masker,
      kubeconfigPath: loaded.path,
    });
    const cluster = loaded.config.getCurrentCluster();
    const connection: ConnectionInfo = {
      kubeconfigPath: loaded.path,
      context: loaded.context,
      server: loaded.server,
      tlsVerify: options.tlsVerify !== false,
      customCa: Boolean(cluster?.caData || cluster?.caFile),
    };
    return new KubernetesApi(transport, loaded.namespace, loaded.context, connection);
  }

  /**
   * Without a kubeconfig: the API server's URL and a bearer token (e.g. a ServiceAccount
   * token), with the CA to trust (`caData`, default Node's trusted CAs) and TLS verification
   * on unless `tlsVerify: false`. Reads no file and no environment variable; `context` is ''.
   */
  static fromServer(options: KubernetesServerOptions): KubernetesApi {
    checkOptions(options, CONNECTION_OPTIONS, { noun: 'KubernetesApi options' });
    const { credentials, server, namespace } = serverCredentials(options);
    const connection: ConnectionInfo = {
      kubeconfigPath: '',
      context: '',
      server,
      tlsVerify: options.tlsVerify !== false,
      customCa: Boolean(options.caData),
    };
    const masker = new Masker([options.token]);
    return new KubernetesApi(new HttpTransport(credentials, server, { ...transportOptions(options), masker }), namespace, '', connection);
  }

  private constructor(
    private readonly transport: HttpTransport,
    readonly namespace: string,
    readonly context: string,
    readonly connection: ConnectionInfo,
  ) {}

  get server(): string {
    return this.transport.server;
  }

  /**
   * `text` with every credential this client knows masked (those of the kubeconfig, and
   * those an exec plugin returned lately), in any encoding, and every credential shape
   * (src/mask.ts). The library's errors and events are masked with it already; this is for
   * text a caller relays from elsewhere.
   */
  scrub(text: string): string {
    return this.transport.masker.mask(text);
  }

  async create<K extends WatchedKind>(kind: K, namespace: string, body: KindMap[K], options: CreateOptions = {}): Promise<KindMap[K]> {
    const target = { verb: 'create', resource: kind, namespace, name: body.metadata?.name };
    const created = await this.transport.requestJson<unknown>({
      method: 'POST',
      path: collectionPath(kind, namespace),
      query: { fieldManager: FIELD_MANAGER, dryRun: options.dryRun ? 'All' : undefined },
      body,
      target,
      signal: options.signal,
    });
    return this.expectObject(created, target);
  }

  async read<K extends WatchedKind>(kind: K, namespace: string, name: string, options: RequestOptions = {}): Promise<KindMap[K]> {
    const target = { verb: 'get', resource: kind, namespace, name };
    const found = await this.transport.requestJson<unknown>({
      method: 'GET',
      path: objectPath(kind, namespace, name),
      target,
      signal: options.signal,
    });
    return this.expectObject(found, target);
  }

  /** An answer that should be one Kubernetes object: an object whose metadata is one. */
  private expectObject(value: unknown, target: RequestTarget): Record<string, unknown> {
    if (!isRecord(value)) throw new MalformedResponseError(this.server, `the answer is ${describeValue(value)}, not an object`, { target });
    if (value.metadata !== undefined && !isRecord(value.metadata)) {
      throw new MalformedResponseError(this.server, `the object's metadata is ${describeValue(value.metadata)}`, { target });
    }
    return value;
  }

  patch<K extends WatchedKind>(
    kind: K,
    namespace: string,
    name: string,
    patch: MergePatch,
    options: RequestOptions = {},
  ): Promise<KindMap[K]> {
    return this.transport.requestJson<KindMap[K]>({
      method: 'PATCH',
      path: objectPath(kind, namespace, name),
      query: { fieldManager: FIELD_MANAGER },
      contentType: 'application/merge-patch+json',
      body: patch,
      target: { verb: 'patch', resource: kind, namespace, name },
      signal: options.signal,
    });
  }

  async delete<K extends WatchedKind>(kind: K, namespace: string, name: string, options: DeleteOptions = {}): Promise<void> {
    await this.transport.requestJson<unknown>({
      method: 'DELETE',
      path: objectPath(kind, namespace, name),
      body: {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        ...(options.preconditions ? { preconditions: options.preconditions } : {}),
        ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
      },
      target: { verb: 'delete', resource: kind, namespace, name },
      signal: options.signal,
    });
  }

  async list<K extends WatchedKind>(
    kind: K,
    namespace: string,
    labelSelector: string | undefined,
    options: ListRequestOptions = {},
  ): Promise<ObjectList<KindMap[K]>> {
    return this.listPages<KindMap[K]>(collectionPath(kind, namespace), kind, namespace, {
      labelSelector,
      fieldSelector: options.fieldSelector,
      signal: options.signal,
    });
  }

  private async listPages<T>(
    path: string,
    resource: string,
    namespace: string,
    options: { labelSelector?: string | undefined; fieldSelector?: string | undefined; signal?: AbortSignal | undefined },
  ): Promise<ObjectList<T>> {
    const items: T[] = [];
    let resourceVersion = '';
    let continueToken: string | undefined;
    const target = { verb: 'list', resource, namespace };
    do {
      const page = listPage<T>(
        await this.transport.requestJson<unknown>({
          method: 'GET',
          path,
          query: {
            labelSelector: options.labelSelector,
            fieldSelector: options.fieldSelector,
            limit: LIST_PAGE_SIZE,
            continue: continueToken,
          },
          target,
          signal: options.signal,
        }),
      );
      if (typeof page === 'string') throw new MalformedResponseError(this.server, page, { target });
      for (const item of page.items ?? []) items.push(item);
      // Every page of one paginated list shares the first page's snapshot.
      resourceVersion ||= page.metadata?.resourceVersion ?? '';
      continueToken = page.metadata?.continue || undefined;
    } while (continueToken);
    return { items, resourceVersion };
  }

  watch<K extends WatchedKind>(kind: K, namespace: string, params: WatchParams, handlers: WatchHandlers<KindMap[K]>): WatchHandle {
    return this.transport.watch(
      collectionPath(kind, namespace),
      {
        labelSelector: params.labelSelector,
        fieldSelector: params.fieldSelector,
        resourceVersion: params.resourceVersion || undefined,
        timeoutSeconds: params.timeoutSeconds,
        allowWatchBookmarks: params.allowWatchBookmarks,
        ...(params.sendInitialEvents ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' } : {}),
      },
      { verb: 'watch', resource: kind, namespace },
      {
        onEvent: (type, object) => handlers.onEvent(type, object),
        onClose: (error) => handlers.onClose(error),
        onOpen: () => handlers.onOpen?.(),
      },
    );
  }

  // ---- cluster discovery and preflight ------------------------------------------------

  version(options: RequestOptions = {}): Promise<VersionInfo> {
    return this.transport.requestJson<VersionInfo>({
      method: 'GET',
      path: '/version',
      target: { verb: 'get', resource: 'version' },
      signal: options.signal,
    });
  }

  selfSubjectReview(options: RequestOptions = {}): Promise<V1SelfSubjectReview> {
    return this.transport.requestJson<V1SelfSubjectReview>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      target: { verb: 'create', resource: 'selfsubjectreviews.authentication.k8s.io' },
      signal: options.signal,
    });
  }

  selfSubjectAccessReview(attributes: V1ResourceAttributes, options: RequestOptions = {}): Promise<V1SelfSubjectAccessReview> {
    return this.transport.requestJson<V1SelfSubjectAccessReview>({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attributes } },
      target: { verb: 'create', resource: 'selfsubjectaccessreviews.authorization.k8s.io' },
      signal: options.signal,
    });
  }

  readNamespace(name: string, options: RequestOptions = {}): Promise<V1Namespace> {
    return this.transport.requestJson<V1Namespace>({
      method: 'GET',
      path: `/api/v1/namespaces/${encodeURIComponent(name)}`,
      target: { verb: 'get', resource: 'namespaces', name },
      signal: options.signal,
    });
  }

  async listLimitRanges(namespace: string, options: RequestOptions = {}): Promise<readonly V1LimitRange[]> {
    const list = await this.listPages<V1LimitRange>(coreCollectionPath('limitranges', namespace), 'limitranges', namespace, options);
    return list.items;
  }

  readPodLog(namespace: string, name: string, params: PodLogParams, options: RequestOptions = {}): Promise<string> {
    return this.transport.requestText({
      method: 'GET',
      path: `${objectPath('pods', namespace, name)}/log`,
      query: { container: params.container, tailLines: params.tailLines, limitBytes: params.limitBytes, previous: params.previous },
      target: { verb: 'get', resource: 'pods/log', namespace, name },
      signal: options.signal,
    });
  }

  openPodExec(namespace: string, name: string, params: PodExecParams): Promise<ExecSession> {
    return this.transport.openWebSocket(
      `${objectPath('pods', namespace, name)}/exec`,
      {
        container: params.container,
        command: params.command,
        stdin: params.stdin,
        stdout: true,
        // A terminal's output is one stream: the kubelet refuses stderr with a tty.
        stderr: !params.tty,
        tty: params.tty,
      },
      EXEC_PROTOCOLS,
      { verb: 'create', resource: 'pods/exec', namespace, name },
      { connectTimeoutMs: params.connectTimeoutMs, signal: params.signal },
      (socket) =>
        new ExecSession(socket, {
          where: { namespace, pod: name, container: params.container },
          ...(params.onStdout ? { onStdout: params.onStdout } : {}),
          ...(params.onStderr ? { onStderr: params.onStderr } : {}),
          ...(params.pingIntervalMs !== undefined ? { pingIntervalMs: params.pingIntervalMs } : {}),
          ...(params.maxSessionMs !== undefined ? { maxSessionMs: params.maxSessionMs } : {}),
        }),
    );
  }

  streamPodLog(namespace: string, name: string, params: PodLogStreamParams, handlers: TextStreamHandlers): WatchHandle {
    return this.transport.streamText(
      `${objectPath('pods', namespace, name)}/log`,
      {
        container: params.container,
        follow: params.follow,
        timestamps: params.timestamps,
        tailLines: params.tailLines,
        sinceSeconds: params.sinceSeconds,
        sinceTime: params.sinceTime,
        previous: params.previous,
        limitBytes: params.limitBytes,
      },
      { verb: 'get', resource: 'pods/log', namespace, name },
      handlers,
    );
  }

  async listResourceQuotas(namespace: string, options: RequestOptions = {}): Promise<readonly V1ResourceQuota[]> {
    const list = await this.listPages<V1ResourceQuota>(
      coreCollectionPath('resourcequotas', namespace),
      'resourcequotas',
      namespace,
      options,
    );
    return list.items;
  }
}

/** A list page as the fields we read, or why it is not one. */
function listPage<T>(value: unknown): ListResponse<T> | string {
  if (!isRecord(value)) return `the list is ${describeValue(value)}, not an object`;
  const { items, metadata } = value;
  if (items != null && !Array.isArray(items)) return `the list's items are ${describeValue(items)}, not a list`;
  const bad = (items as unknown[] | null | undefined)?.findIndex((item) => !isRecord(item)) ?? -1;
  if (bad !== -1) return `item ${bad} of the list is ${describeValue((items as unknown[])[bad])}, not an object`;
  if (metadata != null) {
    if (!isRecord(metadata)) return `the list's metadata is ${describeValue(metadata)}`;
    for (const field of ['resourceVersion', 'continue'] as const) {
      if (metadata[field] != null && typeof metadata[field] !== 'string')
        return `the list's metadata.${field} is ${describeValue(metadata[field])}`;
    }
  }
  return value;
}

function transportOptions(options: ConnectionOptions): TransportOptions {
  return {
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  };
}

const nonEmptyText: FieldRule = (value) =>
  typeof value === 'string' && value !== '' ? undefined : `must be a non-empty string (got ${describeValue(value)})`;
const connectionCount: FieldRule = (value) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1
    ? undefined
    : `must be a whole number >= 1 (got ${typeof value === 'number' ? value : describeValue(value)})`;
const tlsVerify: FieldRule = (value) => (typeof value === 'boolean' ? undefined : `must be true or false (got ${describeValue(value)})`);

/** The options every constructor shares, checked before anything is read or sent. */
const CONNECTION_OPTIONS: OptionTable = {
  requestTimeoutMs: duration(DURATION_RULES.requestTimeoutMs),
  maxConnections: connectionCount,
  onRequest: aFunction,
  namespace: namespaceProblem,
  tlsVerify,
};

const KUBECONFIG_OPTIONS: OptionTable = {
  requestTimeoutMs: CONNECTION_OPTIONS.requestTimeoutMs!,
  maxConnections: connectionCount,
  onRequest: aFunction,
  kubeconfigPath: nonEmptyText,
  context: nonEmptyText,
  namespace: namespaceProblem,
  tlsVerify,
};
