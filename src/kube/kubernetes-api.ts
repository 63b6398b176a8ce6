// KubernetesApi: the KubernetesClient over a real API server.
import type {
  V1Deployment,
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
  DeleteOptions,
  DeploymentMergePatch,
  KindMap,
  KubernetesClient,
  ListRequestOptions,
  ObjectList,
  RequestOptions,
  WatchedKind,
  WatchHandle,
  WatchHandlers,
  WatchParams,
} from './client.js';
import { InvalidOptionError } from '../errors.js';
import { HttpTransport, type RequestInfo } from './http-transport.js';
import { loadKubeconfig, type KubeconfigOptions } from './kubeconfig.js';

export interface KubernetesApiOptions extends KubeconfigOptions {
  /** Bound on every API request (and on a watch until the server answers). Default 30 s. */
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

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Objects per page when listing, so a huge namespace is fetched in bounded chunks. */
const LIST_PAGE_SIZE = 500;
const FIELD_MANAGER = 'kube-provisioner';

/** A namespaced collection's path; the empty namespace (ALL_NAMESPACES) is every namespace. */
function collectionPath(groupVersion: string, resource: string, namespace: string): string {
  return namespace ? `${groupVersion}/namespaces/${encodeURIComponent(namespace)}/${resource}` : `${groupVersion}/${resource}`;
}

const RESOURCE_PATHS: Record<WatchedKind, (namespace: string) => string> = {
  deployments: (namespace) => collectionPath('/apis/apps/v1', 'deployments', namespace),
  pods: (namespace) => collectionPath('/api/v1', 'pods', namespace),
  nodes: () => '/api/v1/nodes',
};

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
    requirePositiveInteger('requestTimeoutMs', options.requestTimeoutMs);
    requirePositiveInteger('maxConnections', options.maxConnections);
    const loaded = loadKubeconfig(options);
    const transport = new HttpTransport(loaded.config, loaded.server, {
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
      ...(options.onRequest ? { onRequest: options.onRequest } : {}),
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

  private constructor(
    private readonly transport: HttpTransport,
    readonly namespace: string,
    readonly context: string,
    readonly connection: ConnectionInfo,
  ) {}

  get server(): string {
    return this.transport.server;
  }

  createDeployment(namespace: string, body: V1Deployment, options: RequestOptions & { dryRun?: boolean } = {}): Promise<V1Deployment> {
    return this.transport.requestJson<V1Deployment>({
      method: 'POST',
      path: RESOURCE_PATHS.deployments(namespace),
      query: { fieldManager: FIELD_MANAGER, dryRun: options.dryRun ? 'All' : undefined },
      body,
      target: { verb: 'create', resource: 'deployments', namespace, name: body.metadata?.name },
      signal: options.signal,
    });
  }

  readDeployment(namespace: string, name: string, options: RequestOptions = {}): Promise<V1Deployment> {
    return this.transport.requestJson<V1Deployment>({
      method: 'GET',
      path: `${RESOURCE_PATHS.deployments(namespace)}/${encodeURIComponent(name)}`,
      target: { verb: 'get', resource: 'deployments', namespace, name },
      signal: options.signal,
    });
  }

  patchDeployment(namespace: string, name: string, patch: DeploymentMergePatch, options: RequestOptions = {}): Promise<V1Deployment> {
    return this.transport.requestJson<V1Deployment>({
      method: 'PATCH',
      path: `${RESOURCE_PATHS.deployments(namespace)}/${encodeURIComponent(name)}`,
      query: { fieldManager: FIELD_MANAGER },
      contentType: 'application/merge-patch+json',
      body: patch,
      target: { verb: 'patch', resource: 'deployments', namespace, name },
      signal: options.signal,
    });
  }

  async deleteDeployment(namespace: string, name: string, options: DeleteOptions = {}): Promise<void> {
    await this.transport.requestJson<unknown>({
      method: 'DELETE',
      path: `${RESOURCE_PATHS.deployments(namespace)}/${encodeURIComponent(name)}`,
      body: {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        ...(options.preconditions ? { preconditions: options.preconditions } : {}),
        ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
      },
      target: { verb: 'delete', resource: 'deployments', namespace, name },
      signal: options.signal,
    });
  }

  async list<K extends WatchedKind>(
    kind: K,
    namespace: string,
    labelSelector: string | undefined,
    options: ListRequestOptions = {},
  ): Promise<ObjectList<KindMap[K]>> {
    return this.listPages<KindMap[K]>(RESOURCE_PATHS[kind](namespace), kind, namespace, {
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
    do {
      const page: ListResponse<T> = await this.transport.requestJson({
        method: 'GET',
        path,
        query: {
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          limit: LIST_PAGE_SIZE,
          continue: continueToken,
        },
        target: { verb: 'list', resource, namespace },
        signal: options.signal,
      });
      items.push(...(page.items ?? []));
      // Every page of one paginated list shares the first page's snapshot.
      resourceVersion ||= page.metadata?.resourceVersion ?? '';
      continueToken = page.metadata?.continue || undefined;
    } while (continueToken);
    return { items, resourceVersion };
  }

  watch<K extends WatchedKind>(kind: K, namespace: string, params: WatchParams, handlers: WatchHandlers<KindMap[K]>): WatchHandle {
    return this.transport.watch(
      RESOURCE_PATHS[kind](namespace),
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
        onEvent: (type, object) => handlers.onEvent(type, object as KindMap[K]),
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
    const list = await this.listPages<V1LimitRange>(collectionPath('/api/v1', 'limitranges', namespace), 'limitranges', namespace, options);
    return list.items;
  }

  async listResourceQuotas(namespace: string, options: RequestOptions = {}): Promise<readonly V1ResourceQuota[]> {
    const list = await this.listPages<V1ResourceQuota>(
      collectionPath('/api/v1', 'resourcequotas', namespace),
      'resourcequotas',
      namespace,
      options,
    );
    return list.items;
  }
}

function requirePositiveInteger(option: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) {
    throw new InvalidOptionError(option, `KubernetesApi option ${option} must be a whole number >= 1 (got ${String(value)})`);
  }
}
