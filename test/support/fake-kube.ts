// A fake KubernetesClient for unit tests: an in-memory namespace store with resource
// versions, label-selected lists and watches that replay from a resourceVersion, and
// hooks to inject API errors and drop watches. It stands in for the API server only in
// unit tests; the integration suite uses the real control plane.
import type { V1Deployment, V1Pod } from '../../src/kube/objects.js';
import { ConflictError, InvalidObjectError, NotFoundError, ResourceExpiredError } from '../../src/errors.js';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../src/informers/reflector.js';
import { HASH, conditions, replicaSetName } from './fixtures.js';
import type {
  KindMap,
  KubernetesClient,
  ObjectList,
  RequestOptions,
  WatchHandle,
  WatchHandlers,
  WatchParams,
  WatchedKind,
} from '../../src/kube/client.js';

type AnyObject = V1Deployment | V1Pod;

interface LoggedEvent {
  readonly kind: WatchedKind;
  readonly namespace: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: AnyObject;
  readonly resourceVersion: number;
}

interface Watcher {
  readonly kind: WatchedKind;
  readonly namespace: string;
  readonly selector: string | undefined;
  readonly handlers: WatchHandlers<AnyObject>;
}

type Method = 'createDeployment' | 'readDeployment' | 'list' | 'watch';

export class FakeKubernetes implements KubernetesClient {
  readonly server = 'https://fake.invalid:6443';
  private resourceVersion = 100;
  private compactedRevision = 0;
  private uidCounter = 0;
  private readonly objects = new Map<string, AnyObject>();
  private readonly log: LoggedEvent[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly failures = new Map<Method, Error[]>();
  readonly calls: { method: Method; kind?: WatchedKind; namespace: string; name?: string; streamingList?: true }[] = [];
  watchesOpened = 0;
  /** false: refuse streaming lists with 422, as a server without the WatchList feature does. */
  supportsStreamingLists = true;

  constructor(readonly namespace = 'default') {}

  /** The next call(s) of `method` fail with these errors, in order. */
  failNext(method: Method, ...errors: Error[]): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), ...errors]);
  }

  get activeWatches(): number {
    return this.watchers.size;
  }

  async createDeployment(
    namespace: string,
    body: V1Deployment,
    options: RequestOptions & { dryRun?: boolean } = {},
  ): Promise<V1Deployment> {
    this.calls.push({ method: 'createDeployment', namespace, name: body.metadata?.name });
    options.signal?.throwIfAborted();
    this.throwInjected('createDeployment');
    const name = body.metadata?.name ?? '';
    if (this.objects.has(key('deployments', namespace, name))) {
      throw new ConflictError(`deployments.apps "${name}" already exists`, {
        reason: 'AlreadyExists',
        target: { verb: 'create', resource: 'deployments', namespace, name },
      });
    }
    const created: V1Deployment = structuredClone(body);
    created.metadata = { ...created.metadata, namespace, uid: `uid-${++this.uidCounter}`, generation: 1 };
    created.status = {};
    if (options.dryRun) return created;
    return this.store('deployments', 'ADDED', created) as V1Deployment;
  }

  async readDeployment(namespace: string, name: string): Promise<V1Deployment> {
    this.calls.push({ method: 'readDeployment', namespace, name });
    this.throwInjected('readDeployment');
    const found = this.objects.get(key('deployments', namespace, name));
    if (!found) throw new NotFoundError(`deployments.apps "${name}" not found`);
    return structuredClone(found) as V1Deployment;
  }

  async list<K extends WatchedKind>(kind: K, namespace: string, labelSelector: string | undefined): Promise<ObjectList<KindMap[K]>> {
    this.calls.push({ method: 'list', kind, namespace });
    this.throwInjected('list');
    const items = [...this.objects.entries()]
      .filter(([k, object]) => k.startsWith(`${kind}/${namespace}/`) && matches(object, labelSelector))
      .map(([, object]) => structuredClone(object) as KindMap[K]);
    return { items, resourceVersion: String(this.resourceVersion) };
  }

  watch<K extends WatchedKind>(kind: K, namespace: string, params: WatchParams, handlers: WatchHandlers<KindMap[K]>): WatchHandle {
    this.calls.push({ method: 'watch', kind, namespace, ...(params.sendInitialEvents ? { streamingList: true as const } : {}) });
    this.watchesOpened += 1;
    const injected = this.failures.get('watch')?.shift();
    if (injected) {
      queueMicrotask(() => handlers.onClose(injected));
      return { abort: () => {} };
    }
    if (params.sendInitialEvents) {
      if (!this.supportsStreamingLists) {
        queueMicrotask(() =>
          handlers.onClose(
            new InvalidObjectError('sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled', [
              { field: 'sendInitialEvents', reason: 'FieldValueForbidden', message: 'Forbidden' },
            ]),
          ),
        );
        return { abort: () => {} };
      }
      return this.streamList(kind, namespace, params, handlers);
    }
    const from = Number(params.resourceVersion || 0);
    if (params.resourceVersion && from < this.compactedRevision) {
      queueMicrotask(() => handlers.onClose(new ResourceExpiredError()));
      return { abort: () => {} };
    }
    const watcher: Watcher = { kind, namespace, selector: params.labelSelector, handlers: handlers };
    this.watchers.add(watcher);
    for (const event of this.log) {
      if (
        event.resourceVersion > from &&
        event.kind === kind &&
        event.namespace === namespace &&
        matches(event.object, params.labelSelector)
      ) {
        handlers.onEvent(event.type, structuredClone(event.object) as KindMap[K]);
      }
    }
    return { abort: () => this.watchers.delete(watcher) };
  }

  /** The current objects as ADDED, the end-of-initial-events bookmark, then changes. */
  private streamList<K extends WatchedKind>(
    kind: K,
    namespace: string,
    params: WatchParams,
    handlers: WatchHandlers<KindMap[K]>,
  ): WatchHandle {
    const watcher: Watcher = { kind, namespace, selector: params.labelSelector, handlers: handlers };
    this.watchers.add(watcher);
    for (const [k, object] of this.objects) {
      if (k.startsWith(`${kind}/${namespace}/`) && matches(object, params.labelSelector))
        handlers.onEvent('ADDED', structuredClone(object) as KindMap[K]);
    }
    const bookmark = {
      metadata: { resourceVersion: String(this.resourceVersion), annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } },
    };
    handlers.onEvent('BOOKMARK', bookmark);
    return { abort: () => this.watchers.delete(watcher) };
  }

  // ---- driving the fake -------------------------------------------------------------

  addPod(pod: V1Pod, namespace = this.namespace): V1Pod {
    const stored = structuredClone(pod);
    stored.metadata = { ...stored.metadata, namespace, uid: stored.metadata?.uid ?? `uid-${++this.uidCounter}` };
    const exists = this.objects.has(key('pods', namespace, stored.metadata.name ?? ''));
    return this.store('pods', exists ? 'MODIFIED' : 'ADDED', stored) as V1Pod;
  }

  /** Applies `mutate` to a stored object and emits MODIFIED, as a controller would. */
  update<K extends WatchedKind>(kind: K, name: string, mutate: (object: KindMap[K]) => void, namespace = this.namespace): KindMap[K] {
    const current = this.objects.get(key(kind, namespace, name));
    if (!current) throw new Error(`fake: no ${kind} ${namespace}/${name}`);
    const next = structuredClone(current) as KindMap[K];
    mutate(next);
    return this.store(kind, 'MODIFIED', next) as KindMap[K];
  }

  delete(kind: WatchedKind, name: string, namespace = this.namespace): void {
    const k = key(kind, namespace, name);
    const current = this.objects.get(k);
    if (!current) return;
    this.objects.delete(k);
    this.resourceVersion += 1;
    const object = structuredClone(current);
    object.metadata = { ...object.metadata, resourceVersion: String(this.resourceVersion) };
    this.emit(kind, namespace, 'DELETED', object);
  }

  /** Ends every open watch: cleanly (undefined) or with an error. */
  dropWatches(error?: Error): void {
    const watchers = [...this.watchers];
    this.watchers.clear();
    for (const watcher of watchers) watcher.handlers.onClose(error);
  }

  /** Forgets the event log, so a watch from an older resourceVersion gets 410 Gone, as after etcd compaction. */
  compact(): void {
    this.log.length = 0;
    this.compactedRevision = this.resourceVersion;
  }

  get(kind: WatchedKind, name: string, namespace = this.namespace): AnyObject | undefined {
    return this.objects.get(key(kind, namespace, name));
  }

  private store(kind: WatchedKind, type: 'ADDED' | 'MODIFIED', object: AnyObject): AnyObject {
    this.resourceVersion += 1;
    const namespace = object.metadata?.namespace ?? this.namespace;
    object.metadata = { ...object.metadata, resourceVersion: String(this.resourceVersion) };
    this.objects.set(key(kind, namespace, object.metadata.name ?? ''), object);
    this.emit(kind, namespace, type, object);
    return structuredClone(object);
  }

  private emit(kind: WatchedKind, namespace: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: AnyObject): void {
    this.log.push({ kind, namespace, type, object: structuredClone(object), resourceVersion: this.resourceVersion });
    for (const watcher of [...this.watchers]) {
      if (watcher.kind === kind && watcher.namespace === namespace && matches(object, watcher.selector)) {
        watcher.handlers.onEvent(type, structuredClone(object));
      }
    }
  }

  private throwInjected(method: Method): void {
    const error = this.failures.get(method)?.shift();
    if (error) throw error;
  }
}

function key(kind: WatchedKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** Equality-based selectors only (`a=b,c=d`), which is all the project uses. */
function matches(object: AnyObject, selector: string | undefined): boolean {
  if (!selector) return true;
  const labels = object.metadata?.labels ?? {};
  return selector.split(',').every((term) => {
    const [name, value] = term.split('=');
    return name !== undefined && labels[name] === value;
  });
}

// ---- what the deployment controller and kubelet would write ---------------------------

/** Marks the stored Deployment as fully rolled out (observedGeneration caught up). */
export function completeRollout(fake: FakeKubernetes, name: string, namespace = fake.namespace): V1Deployment {
  return fake.update(
    'deployments',
    name,
    (deployment) => {
      deployment.status = {
        observedGeneration: deployment.metadata?.generation ?? 1,
        replicas: 1,
        updatedReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
        conditions: [conditions.available(), conditions.newReplicaSetAvailable(replicaSetName(name))],
      };
    },
    namespace,
  );
}

/** The controller has seen the Deployment and created its ReplicaSet, nothing ready yet. */
export function startRollout(fake: FakeKubernetes, name: string, namespace = fake.namespace): V1Deployment {
  return fake.update(
    'deployments',
    name,
    (deployment) => {
      deployment.status = {
        observedGeneration: deployment.metadata?.generation ?? 1,
        replicas: 1,
        updatedReplicas: 1,
        unavailableReplicas: 1,
        conditions: [conditions.unavailable(), conditions.replicaSetUpdated(replicaSetName(name))],
      };
    },
    namespace,
  );
}

/** A Pod of the Deployment's ReplicaSet, as the ReplicaSet controller creates it. */
export function podOf(deployment: V1Deployment, status: V1Pod['status'], suffix = 'x1'): V1Pod {
  const name = deployment.metadata?.name ?? '';
  const replicaSet = replicaSetName(name);
  return {
    metadata: {
      name: `${replicaSet}-${suffix}`,
      labels: { ...deployment.spec?.template.metadata?.labels, 'pod-template-hash': HASH },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: replicaSet, uid: 'rs-uid', controller: true }],
    },
    spec: { nodeName: 'kwok-node-0', containers: deployment.spec?.template.spec?.containers ?? [] },
    ...(status ? { status } : {}),
  };
}
