// KubernetesApi: the KubernetesClient over a real API server.
import type { V1Deployment } from '@kubernetes/client-node';
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
import { readFileSync } from 'node:fs';
import { InvalidOptionError, MalformedResponseError, type RequestTarget } from '../errors.js';
import { DURATION_RULES, requireDuration } from '../spec/duration.js';
import { dns1123LabelProblem } from '../spec/names.js';
import { HttpTransport, type RequestInfo } from './http-transport.js';
import { loadKubeconfig, type KubeconfigOptions } from './kubeconfig.js';
import { Scrubber, credentialValues } from './scrub.js';
import { describe as describeValue, isRecord } from './watch-decoder.js';

export interface KubernetesApiOptions extends KubeconfigOptions {
  /**
   * Bound on every API request (and on a watch until the server answers), in whole
   * milliseconds from 1 to 365 days; a request is always bounded (no Infinity). Default 30 s.
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
    checkApiOptions(options);
    const loaded = loadKubeconfig(options);
    const scrubber = new Scrubber(credentialValues(loaded.config, readIfPossible));
    const transport = new HttpTransport(loaded.config, loaded.server, {
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
      ...(options.onRequest ? { onRequest: options.onRequest } : {}),
      scrubber,
      kubeconfigPath: loaded.path,
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

  /**
   * `text` with every credential this client knows masked (those of the kubeconfig, and
   * those an exec plugin returned so far). Errors and events from this client are already
   * scrubbed; this is for text a caller relays from elsewhere, and for a last check.
   */
  scrub(text: string): string {
    return this.transport.scrubber.scrub(text);
  }

  async createDeployment(
    namespace: string,
    body: V1Deployment,
    options: RequestOptions & { dryRun?: boolean } = {},
  ): Promise<V1Deployment> {
    const target = { verb: 'create', resource: 'deployments', namespace, name: body.metadata?.name };
    const created = await this.transport.requestJson<unknown>({
      method: 'POST',
      path: RESOURCE_PATHS.deployments(namespace),
      query: { fieldManager: FIELD_MANAGER, dryRun: options.dryRun ? 'All' : undefined },
      body,
      target,
      signal: options.signal,
    });
    return this.expectObject(created, target);
  }

  async readDeployment(namespace: string, name: string, options: RequestOptions = {}): Promise<V1Deployment> {
    const target = { verb: 'get', resource: 'deployments', namespace, name };
    const found = await this.transport.requestJson<unknown>({
      method: 'GET',
      path: `${RESOURCE_PATHS.deployments(namespace)}/${encodeURIComponent(name)}`,
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

  async list<K extends WatchedKind>(
    kind: K,
    namespace: string,
    labelSelector: string | undefined,
    options: RequestOptions = {},
  ): Promise<ObjectList<KindMap[K]>> {
    const items: KindMap[K][] = [];
    let resourceVersion = '';
    let continueToken: string | undefined;
    const target = { verb: 'list', resource: kind, namespace };
    do {
      const page = listPage<KindMap[K]>(
        await this.transport.requestJson<unknown>({
          method: 'GET',
          path: RESOURCE_PATHS[kind](namespace),
          query: { labelSelector, limit: LIST_PAGE_SIZE, continue: continueToken },
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
        onEvent: (type, object) => handlers.onEvent(type, object),
        onClose: (error) => handlers.onClose(error),
      },
    );
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

/** Every KubernetesApi option, checked before the kubeconfig is read. */
function checkApiOptions(options: KubernetesApiOptions): void {
  if (options === null || typeof options !== 'object') {
    throw new InvalidOptionError('options', 'KubernetesApi options must be an object');
  }
  for (const option of ['kubeconfigPath', 'context', 'namespace'] as const) {
    const value: unknown = options[option];
    if (value !== undefined && (typeof value !== 'string' || value === '')) {
      throw new InvalidOptionError(option, `${option} must be a non-empty string (got ${describeValue(value)})`);
    }
  }
  if (options.namespace !== undefined) {
    const problem = dns1123LabelProblem(options.namespace);
    if (problem) throw new InvalidOptionError('namespace', `namespace ${problem}`);
  }
  if (options.tlsVerify !== undefined && typeof options.tlsVerify !== 'boolean') {
    throw new InvalidOptionError('tlsVerify', `tlsVerify must be true or false (got ${describeValue(options.tlsVerify)})`);
  }
  if (options.requestTimeoutMs !== undefined)
    requireDuration('requestTimeoutMs', options.requestTimeoutMs, DURATION_RULES.requestTimeoutMs);
  const connections: unknown = options.maxConnections;
  if (connections !== undefined && !(typeof connections === 'number' && Number.isSafeInteger(connections) && connections >= 1)) {
    throw new InvalidOptionError(
      'maxConnections',
      `maxConnections must be a whole number >= 1 (got ${typeof connections === 'number' ? connections : describeValue(connections)})`,
    );
  }
  if (options.onRequest !== undefined && typeof options.onRequest !== 'function') {
    throw new InvalidOptionError('onRequest', 'onRequest must be a function');
  }
}

function readIfPossible(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
