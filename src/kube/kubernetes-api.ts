// KubernetesApi: the KubernetesClient over a real API server.
import type { V1Deployment } from './objects.js';
import type {
  KindMap,
  KubernetesClient,
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

const RESOURCE_PATHS: Record<WatchedKind, (namespace: string) => string> = {
  deployments: (namespace) => `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/deployments`,
  pods: (namespace) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
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
    return new KubernetesApi(transport, loaded.namespace, loaded.context);
  }

  private constructor(
    private readonly transport: HttpTransport,
    readonly namespace: string,
    readonly context: string,
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

  async list<K extends WatchedKind>(
    kind: K,
    namespace: string,
    labelSelector: string | undefined,
    options: RequestOptions = {},
  ): Promise<ObjectList<KindMap[K]>> {
    const items: KindMap[K][] = [];
    let resourceVersion = '';
    let continueToken: string | undefined;
    do {
      const page: ListResponse<KindMap[K]> = await this.transport.requestJson({
        method: 'GET',
        path: RESOURCE_PATHS[kind](namespace),
        query: { labelSelector, limit: LIST_PAGE_SIZE, continue: continueToken },
        target: { verb: 'list', resource: kind, namespace },
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
        resourceVersion: params.resourceVersion || undefined,
        timeoutSeconds: params.timeoutSeconds,
        allowWatchBookmarks: params.allowWatchBookmarks,
        ...(params.sendInitialEvents ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' } : {}),
      },
      { verb: 'watch', resource: kind, namespace },
      {
        onEvent: (type, object) => handlers.onEvent(type, object as KindMap[K]),
        onClose: (error) => handlers.onClose(error),
      },
    );
  }
}

function requirePositiveInteger(option: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) {
    throw new InvalidOptionError(option, `KubernetesApi option ${option} must be a whole number >= 1 (got ${String(value)})`);
  }
}
