// A fake KubernetesClient for unit tests: an in-memory store of every kind in the kind
// table (src/kube/kinds.ts), with resource versions, generic create/read/patch/delete,
// label-selected lists and watches that replay from a resourceVersion, and hooks to inject
// API errors and drop watches. It stands in for the API server only in unit tests; the
// integration suite uses the real control plane.
import type {
  V1Deployment,
  V1LimitRange,
  V1Namespace,
  V1Node,
  V1Pod,
  V1ResourceAttributes,
  V1ResourceQuota,
  V1SelfSubjectAccessReview,
  V1SelfSubjectReview,
  VersionInfo,
} from '../../src/kube/objects.js';
import { ApiError, ConflictError, ForbiddenError, InvalidObjectError, NotFoundError, ResourceExpiredError } from '../../src/errors/api.js';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../src/informers/reflector.js';
import { KINDS } from '../../src/kube/kinds.js';
import { HASH, conditions, replicaSetName } from './fixtures.js';
import type {
  ConnectionInfo,
  CreateOptions,
  DeleteOptions,
  KindMap,
  MergePatch,
  KubernetesClient,
  ListRequestOptions,
  ObjectList,
  PodLogParams,
  RequestOptions,
  WatchHandle,
  WatchHandlers,
  WatchParams,
  WatchedKind,
} from '../../src/kube/client.js';

/** Any object of the table; kinds without a spec or status (StorageClass, Event) get none. */
type AnyObject = KindMap[WatchedKind] & { spec?: unknown; status?: unknown };

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
  readonly fieldSelector?: string | undefined;
  readonly handlers: WatchHandlers<AnyObject>;
}

type Method =
  | 'create'
  | 'read'
  | 'patch'
  | 'delete'
  | 'list'
  | 'watch'
  | 'version'
  | 'selfSubjectReview'
  | 'selfSubjectAccessReview'
  | 'readNamespace'
  | 'listLimitRanges'
  | 'listResourceQuotas'
  | 'readPodLog';

export class FakeKubernetes implements KubernetesClient {
  readonly server = 'https://fake.invalid:6443';
  private resourceVersion = 100;
  private compactedRevision = 0;
  private uidCounter = 0;
  private serviceIps = 0;
  private readonly objects = new Map<string, AnyObject>();
  private readonly log: LoggedEvent[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly failures = new Map<Method, Error[]>();
  private readonly kindFailures = new Map<WatchedKind, Error>();
  readonly calls: {
    method: Method;
    kind?: WatchedKind;
    namespace: string;
    name?: string;
    streamingList?: true;
    fieldSelector?: string;
    body?: unknown;
  }[] = [];
  watchesOpened = 0;
  /** false: refuse streaming lists with 422, as a server without the WatchList feature does. */
  supportsStreamingLists = true;

  constructor(readonly namespace = 'default') {}

  /** The next create of a `kind` object fails with `error` (the other kinds' creates go through). */
  failCreateOf(kind: WatchedKind, error: Error): void {
    this.kindFailures.set(kind, error);
  }

  /** Kinds the caller may not list or watch: both answer 403 (RBAC without those verbs). */
  readonly forbiddenKinds = new Set<WatchedKind>();

  private forbidden(kind: WatchedKind, verb: 'list' | 'watch', namespace: string): ForbiddenError | undefined {
    return this.forbiddenKinds.has(kind) ? new ForbiddenError({ verb, resource: kind, namespace }) : undefined;
  }

  /** The next call(s) of `method` fail with these errors, in order. */
  failNext(method: Method, ...errors: Error[]): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), ...errors]);
  }

  get activeWatches(): number {
    return this.watchers.size;
  }

  async create<K extends WatchedKind>(kind: K, namespace: string, body: KindMap[K], options: CreateOptions = {}): Promise<KindMap[K]> {
    const name = body.metadata?.name ?? '';
    this.calls.push({ method: 'create', kind, namespace, name });
    options.signal?.throwIfAborted();
    this.throwInjected('create');
    const kindFailure = this.kindFailures.get(kind);
    if (kindFailure) {
      this.kindFailures.delete(kind);
      throw kindFailure;
    }
    const scope = scopeOf(kind, namespace);
    if (this.objects.has(key(kind, scope, name))) {
      throw new ConflictError(`${qualified(kind)} "${name}" already exists`, {
        reason: 'AlreadyExists',
        target: { verb: 'create', resource: kind, namespace, name },
      });
    }
    const created = structuredClone(body) as AnyObject;
    if (this.dropsStopSignals && kind === 'deployments') dropStopSignals(created as V1Deployment);
    created.metadata = { ...created.metadata, namespace: scope || undefined, uid: `uid-${++this.uidCounter}`, generation: 1 };
    if (!KINDS[kind].namespaced) delete created.metadata.namespace;
    // EndpointSlices have no status; a Service gets its virtual IP from the API server.
    if (kind !== 'endpointslices') (created as { status?: unknown }).status = {};
    if (kind === 'services') allocateServiceFields(created as KindMap['services'], ++this.serviceIps);
    if (options.dryRun) return created as KindMap[K];
    return this.store(kind, 'ADDED', created) as KindMap[K];
  }

  async read<K extends WatchedKind>(kind: K, namespace: string, name: string, options: RequestOptions = {}): Promise<KindMap[K]> {
    this.calls.push({ method: 'read', kind, namespace, name });
    options.signal?.throwIfAborted();
    this.throwInjected('read');
    const found = this.objects.get(key(kind, scopeOf(kind, namespace), name));
    if (!found) throw new NotFoundError(`${qualified(kind)} "${name}" not found`);
    return structuredClone(found) as KindMap[K];
  }

  async list<K extends WatchedKind>(
    kind: K,
    namespace: string,
    labelSelector: string | undefined,
    options: ListRequestOptions = {},
  ): Promise<ObjectList<KindMap[K]>> {
    this.calls.push({ method: 'list', kind, namespace, ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}) });
    await this.answer('list', options.signal);
    const refused = this.forbidden(kind, 'list', namespace);
    if (refused) throw refused;
    const items = [...this.objects.entries()]
      .filter(
        ([k, object]) => inScope(k, kind, namespace) && matches(object, labelSelector) && matchesFields(object, options.fieldSelector),
      )
      .map(([, object]) => structuredClone(object) as KindMap[K]);
    return { items, resourceVersion: String(this.resourceVersion) };
  }

  watch<K extends WatchedKind>(kind: K, namespace: string, params: WatchParams, handlers: WatchHandlers<KindMap[K]>): WatchHandle {
    this.calls.push({
      method: 'watch',
      kind,
      namespace,
      ...(params.sendInitialEvents ? { streamingList: true as const } : {}),
      ...(params.fieldSelector ? { fieldSelector: params.fieldSelector } : {}),
    });
    this.watchesOpened += 1;
    const injected = this.failures.get('watch')?.shift() ?? this.forbidden(kind, 'watch', namespace);
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
    const watcher: Watcher = { kind, namespace, selector: params.labelSelector, fieldSelector: params.fieldSelector, handlers: handlers };
    this.watchers.add(watcher);
    handlers.onOpen?.();
    for (const event of this.log) {
      if (
        event.resourceVersion > from &&
        event.kind === kind &&
        (namespace === '' || event.namespace === namespace) &&
        matches(event.object, params.labelSelector) &&
        matchesFields(event.object, params.fieldSelector)
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
    const watcher: Watcher = { kind, namespace, selector: params.labelSelector, fieldSelector: params.fieldSelector, handlers: handlers };
    this.watchers.add(watcher);
    handlers.onOpen?.();
    for (const [k, object] of this.objects) {
      if (inScope(k, kind, namespace) && matches(object, params.labelSelector) && matchesFields(object, params.fieldSelector))
        handlers.onEvent('ADDED', structuredClone(object) as KindMap[K]);
    }
    const bookmark = {
      metadata: { resourceVersion: String(this.resourceVersion), annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } },
    };
    handlers.onEvent('BOOKMARK', bookmark);
    return { abort: () => this.watchers.delete(watcher) };
  }

  /**
   * A JSON merge patch, as kube-apiserver applies one: metadata.resourceVersion is a
   * precondition (409 Conflict), a different metadata.uid is refused (422, immutable), and
   * a change to the spec or the annotations makes a new generation.
   */
  async patch<K extends WatchedKind>(
    kind: K,
    namespace: string,
    name: string,
    patch: MergePatch,
    options: RequestOptions = {},
  ): Promise<KindMap[K]> {
    this.calls.push({ method: 'patch', kind, namespace, name, body: structuredClone(patch) });
    options.signal?.throwIfAborted();
    this.throwInjected('patch');
    const current = this.objects.get(key(kind, scopeOf(kind, namespace), name));
    if (!current) throw new NotFoundError(`${qualified(kind)} "${name}" not found`);
    const meta = (patch.metadata ?? {}) as { uid?: string; resourceVersion?: string };
    if (meta.uid !== undefined && meta.uid !== current.metadata?.uid) {
      throw new InvalidObjectError(`${KINDS[kind].kind}${KINDS[kind].group ? `.${KINDS[kind].group}` : ''} "${name}" is invalid`, [
        { field: 'metadata.uid', reason: 'FieldValueInvalid', message: 'field is immutable' },
      ]);
    }
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== current.metadata?.resourceVersion) {
      throw new ConflictError(`Operation cannot be fulfilled on ${qualified(kind)} "${name}": the object has been modified`, {
        reason: 'Conflict',
        target: { verb: 'patch', resource: kind, namespace, name },
      });
    }
    const next = mergePatch(structuredClone(current), patch) as AnyObject;
    next.metadata = { ...next.metadata, uid: current.metadata?.uid, resourceVersion: current.metadata?.resourceVersion };
    const specOf = (object: AnyObject): unknown => (object as { spec?: unknown }).spec;
    const specChanged = JSON.stringify(specOf(next)) !== JSON.stringify(specOf(current));
    const annotationsChanged = JSON.stringify(next.metadata.annotations ?? {}) !== JSON.stringify(current.metadata?.annotations ?? {});
    if (!specChanged && !annotationsChanged && JSON.stringify(next.metadata) === JSON.stringify(current.metadata)) {
      return structuredClone(current) as KindMap[K];
    }
    if (specChanged || annotationsChanged) next.metadata.generation = (current.metadata?.generation ?? 0) + 1;
    return this.store(kind, 'MODIFIED', next) as KindMap[K];
  }

  /**
   * Like an API server with the ContainerStopSignals feature gate off: a Deployment's
   * `lifecycle.stopSignal` is accepted and dropped, by a dry run as by a create.
   */
  dropsStopSignals = false;

  /** Foreground deletions stay (with a deletionTimestamp) while `holdForegroundDeletions` is set. */
  holdForegroundDeletions = false;

  async delete<K extends WatchedKind>(kind: K, namespace: string, name: string, options: DeleteOptions = {}): Promise<void> {
    this.calls.push({ method: 'delete', kind, namespace, name, body: { ...options, signal: undefined } });
    options.signal?.throwIfAborted();
    this.throwInjected('delete');
    const scope = scopeOf(kind, namespace);
    const current = this.objects.get(key(kind, scope, name));
    if (!current) throw new NotFoundError(`${qualified(kind)} "${name}" not found`);
    const uid = options.preconditions?.uid;
    if (uid !== undefined && uid !== current.metadata?.uid) {
      throw new ConflictError(`Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata?.uid}`, {
        reason: 'Conflict',
        target: { verb: 'delete', resource: kind, namespace, name },
      });
    }
    if (options.propagationPolicy === 'Foreground' && this.holdForegroundDeletions) {
      this.update(
        kind,
        name,
        (object) => {
          object.metadata = { ...object.metadata, deletionTimestamp: new Date(), finalizers: ['foregroundDeletion'] };
        },
        scope,
      );
      return;
    }
    if (kind === 'deployments' && options.propagationPolicy !== 'Orphan') {
      // The garbage collector's work, done at once: the Pods the Deployment selects go first.
      const selector = Object.entries((current as V1Deployment).spec?.selector?.matchLabels ?? {})
        .map(([label, value]) => `${label}=${value}`)
        .join(',');
      for (const [stored, pod] of [...this.objects]) {
        if (selector && stored.startsWith(`pods/${scope}/`) && matches(pod, selector))
          this.removeObject('pods', pod.metadata?.name ?? '', scope);
      }
    }
    this.removeObject(kind, name, scope);
    if (kind === 'services') this.collectSlicesOf(current.metadata?.uid ?? '', scope);
  }

  /** The garbage collector's work for a deleted Service: its slices go, a slice with a finalizer only terminates. */
  private collectSlicesOf(uid: string, namespace: string): void {
    for (const [stored, slice] of [...this.objects]) {
      if (!stored.startsWith(`endpointslices/${namespace}/`)) continue;
      if (!slice.metadata?.ownerReferences?.some((owner) => owner.kind === 'Service' && owner.uid === uid)) continue;
      const name = slice.metadata.name ?? '';
      if ((slice.metadata.finalizers ?? []).length === 0) this.removeObject('endpointslices', name, namespace);
      else this.update('endpointslices', name, (held) => (held.metadata = { ...held.metadata, deletionTimestamp: new Date() }), namespace);
    }
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
    const current = this.objects.get(key(kind, scopeOf(kind, namespace), name));
    if (!current) throw new Error(`fake: no ${kind} ${namespace}/${name}`);
    const next = structuredClone(current) as KindMap[K];
    mutate(next);
    return this.store(kind, 'MODIFIED', next) as KindMap[K];
  }

  /** Removes a stored object at once and emits DELETED, as a controller or the garbage collector would. */
  removeObject(kind: WatchedKind, name: string, namespace = this.namespace): void {
    const k = key(kind, scopeOf(kind, namespace), name);
    const current = this.objects.get(k);
    if (!current) return;
    this.objects.delete(k);
    this.resourceVersion += 1;
    const object = structuredClone(current);
    object.metadata = { ...object.metadata, resourceVersion: String(this.resourceVersion) };
    this.emit(kind, namespace, 'DELETED', object);
  }

  private readonly heldKinds = new Set<WatchedKind>();
  private readonly heldDeliveries: (() => void)[] = [];

  /**
   * Open watches get no event of `kind` until releaseWatchEvents(): the moment a running
   * informer still holds the version before a write, its watch event on the way.
   */
  holdWatchEvents(kind: WatchedKind): void {
    this.heldKinds.add(kind);
  }

  /** Delivers the held events, in order, and holds no more. */
  releaseWatchEvents(): void {
    this.heldKinds.clear();
    for (const deliver of this.heldDeliveries.splice(0)) deliver();
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

  get<K extends WatchedKind>(kind: K, name: string, namespace = this.namespace): KindMap[K] | undefined {
    return this.objects.get(key(kind, scopeOf(kind, namespace), name)) as KindMap[K] | undefined;
  }

  private store(kind: WatchedKind, type: 'ADDED' | 'MODIFIED', object: AnyObject): AnyObject {
    this.resourceVersion += 1;
    const namespace = KINDS[kind].namespaced ? (object.metadata?.namespace ?? this.namespace) : '';
    object.metadata = { ...object.metadata, resourceVersion: String(this.resourceVersion) };
    const storeKey = key(kind, namespace, object.metadata.name ?? '');
    const previous = this.objects.get(storeKey);
    this.objects.set(storeKey, object);
    this.emit(kind, namespace, type, object, previous);
    return structuredClone(object);
  }

  private emit(
    kind: WatchedKind,
    namespace: string,
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    object: AnyObject,
    previous?: AnyObject,
  ): void {
    this.log.push({ kind, namespace, type, object: structuredClone(object), resourceVersion: this.resourceVersion });
    for (const watcher of [...this.watchers]) {
      if (watcher.kind !== kind || (watcher.namespace !== '' && watcher.namespace !== namespace) || !matches(object, watcher.selector))
        continue;
      // As the API server does for a field-selected watch: an object that starts matching
      // arrives as ADDED, one that stops matching leaves as DELETED.
      const now = matchesFields(object, watcher.fieldSelector);
      const before = type === 'MODIFIED' && previous !== undefined && matchesFields(previous, watcher.fieldSelector);
      const delivered =
        type !== 'MODIFIED' ? (now ? type : undefined) : now ? (before ? 'MODIFIED' : 'ADDED') : before ? 'DELETED' : undefined;
      if (!delivered) continue;
      const copy = structuredClone(object);
      if (this.heldKinds.has(kind)) this.heldDeliveries.push(() => this.watchers.has(watcher) && watcher.handlers.onEvent(delivered, copy));
      else watcher.handlers.onEvent(delivered, copy);
    }
  }

  private throwInjected(method: Method): void {
    const error = this.failures.get(method)?.shift();
    if (error) throw error;
  }

  // ---- cluster discovery and preflight (src/cluster/) -----------------------------------

  /** What version() answers. */
  versionInfo: VersionInfo = {
    major: '1',
    minor: '36',
    gitVersion: 'v1.36.3',
    gitCommit: 'fake',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.26',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
  /** Who selfSubjectReview() says we are. */
  user = { username: 'fake-admin', groups: ['system:masters', 'system:authenticated'] };
  /** Namespaces readNamespace() finds. */
  readonly namespaces = new Set<string>(['default']);
  /** Decides each access review; default: everything allowed. */
  authorize: (attributes: V1ResourceAttributes) => boolean | { allowed: boolean; reason?: string } = () => true;
  readonly limitRanges: V1LimitRange[] = [];
  readonly resourceQuotas: V1ResourceQuota[] = [];
  private readonly hanging = new Set<Method>();
  /** What a KubernetesApi would report of its kubeconfig; a fake has none unless a test sets it. */
  connection: ConnectionInfo | undefined = undefined;

  /** Calls of `method` never answer (until their signal aborts them), as a silent server. */
  hang(method: Method): void {
    this.hanging.add(method);
  }

  async version(options: RequestOptions = {}): Promise<VersionInfo> {
    this.calls.push({ method: 'version', namespace: '' });
    await this.answer('version', options.signal);
    return structuredClone(this.versionInfo);
  }

  async selfSubjectReview(options: RequestOptions = {}): Promise<V1SelfSubjectReview> {
    this.calls.push({ method: 'selfSubjectReview', namespace: '' });
    await this.answer('selfSubjectReview', options.signal);
    return { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', status: { userInfo: structuredClone(this.user) } };
  }

  async selfSubjectAccessReview(attributes: V1ResourceAttributes, options: RequestOptions = {}): Promise<V1SelfSubjectAccessReview> {
    this.calls.push({
      method: 'selfSubjectAccessReview',
      namespace: attributes.namespace ?? '',
      name: `${attributes.verb} ${attributes.resource}`,
    });
    await this.answer('selfSubjectAccessReview', options.signal);
    const decision = this.authorize(attributes);
    const { allowed, reason } = typeof decision === 'boolean' ? { allowed: decision, reason: undefined } : decision;
    return {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: attributes },
      status: { allowed, ...(reason ? { reason } : {}) },
    };
  }

  async readNamespace(name: string, options: RequestOptions = {}): Promise<V1Namespace> {
    this.calls.push({ method: 'readNamespace', namespace: '', name });
    await this.answer('readNamespace', options.signal);
    if (!this.namespaces.has(name)) {
      throw new NotFoundError(`namespaces "${name}" not found`, { target: { verb: 'get', resource: 'namespaces', name } });
    }
    return { metadata: { name }, status: { phase: 'Active' } };
  }

  async listLimitRanges(namespace: string, options: RequestOptions = {}): Promise<readonly V1LimitRange[]> {
    this.calls.push({ method: 'listLimitRanges', namespace });
    await this.answer('listLimitRanges', options.signal);
    return structuredClone(this.limitRanges.filter((item) => item.metadata?.namespace === namespace));
  }

  async listResourceQuotas(namespace: string, options: RequestOptions = {}): Promise<readonly V1ResourceQuota[]> {
    this.calls.push({ method: 'listResourceQuotas', namespace });
    await this.answer('listResourceQuotas', options.signal);
    return structuredClone(this.resourceQuotas.filter((item) => item.metadata?.namespace === namespace));
  }

  /** What readPodLog() answers, by `namespace/pod/container` (see servePodLogs). */
  readonly podLogs = new Map<string, string>();
  /** The parameters of every readPodLog() call. */
  readonly podLogReads: (PodLogParams & { namespace: string; pod: string })[] = [];
  /**
   * Absent until servePodLogs(), like a client without the log subresource: reading a log
   * is a promise, which virtual-time (marble) tests cannot wait for.
   */
  readPodLog: KubernetesClient['readPodLog'] = undefined;

  /** From now on readPodLog() answers from podLogs; a pod without an entry answers 400, as the kubelet does for a container that never ran. */
  servePodLogs(): void {
    this.readPodLog = async (namespace, name, params, options = {}) => {
      this.calls.push({ method: 'readPodLog', namespace, name });
      this.podLogReads.push({ namespace, pod: name, ...params });
      await this.answer('readPodLog', options.signal);
      const text = this.podLogs.get(`${namespace}/${name}/${params.container}`);
      if (text === undefined) {
        throw new ApiError(`Bad request (400): container "${params.container}" in pod "${name}" is waiting to start: ContainerCreating`, {
          statusCode: 400,
          reason: 'BadRequest',
          target: { verb: 'get', resource: 'pods/log', namespace, name },
        });
      }
      const lines = text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      const tail = params.tailLines === undefined ? lines : lines.slice(-params.tailLines);
      return tail.map((line) => `${line}\n`).join('');
    };
  }

  /** Adds or replaces a Node (cluster-scoped), emitting ADDED or MODIFIED. */
  addNode(node: V1Node): V1Node {
    const stored = structuredClone(node);
    stored.metadata = { ...stored.metadata, uid: stored.metadata?.uid ?? `uid-${++this.uidCounter}` };
    delete stored.metadata.namespace;
    const exists = this.objects.has(key('nodes', '', stored.metadata.name ?? ''));
    return this.store('nodes', exists ? 'MODIFIED' : 'ADDED', stored) as V1Node;
  }

  /** An injected error, a hang until aborted, or nothing. */
  private async answer(method: Method, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.hanging.has(method)) {
      await new Promise<never>((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    }
    this.throwInjected(method);
  }
}

/** Objects of `kind` in `namespace`; the empty namespace is every namespace (and the one of nodes). */
function inScope(storeKey: string, kind: WatchedKind, namespace: string): boolean {
  return storeKey.startsWith(namespace === '' ? `${kind}/` : `${kind}/${namespace}/`);
}

/** `field=value` and `field!=value` terms on the fields the project selects by (spec.nodeName, status.phase, an Event's type). */
function matchesFields(object: AnyObject, selector: string | undefined): boolean {
  if (!selector) return true;
  const fields: Record<string, string> = {
    'spec.nodeName': (object as V1Pod).spec?.nodeName ?? '',
    'status.phase': (object as V1Pod).status?.phase ?? '',
    'metadata.name': object.metadata?.name ?? '',
    type: (object as { type?: string }).type ?? '',
  };
  return selector.split(',').every((term) => {
    const negated = term.includes('!=');
    const [field = '', value = ''] = term.split(negated ? '!=' : '=');
    const actual = fields[field];
    if (actual === undefined) throw new Error(`fake: field selector on ${field} is not supported`);
    return negated ? actual !== value : actual === value;
  });
}

/** RFC 7386: objects merge key by key, null removes a key, anything else (lists included) replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return structuredClone(patch);
  const result: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name];
    else result[name] = mergePatch(result[name], value);
  }
  return result;
}

function key(kind: WatchedKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** Where an object of `kind` is stored: its namespace, or '' for a cluster-scoped kind. */
function scopeOf(kind: WatchedKind, namespace: string): string {
  return KINDS[kind].namespaced ? namespace : '';
}

/** The resource as the API server's messages name it: `deployments.apps`, `pods`. */
function qualified(kind: WatchedKind): string {
  const { group } = KINDS[kind];
  return group ? `${kind}.${group}` : kind;
}

/** Equality (`a=b`) and does-not-exist (`!a`) terms, which is all the project uses. */
function matches(object: AnyObject, selector: string | undefined): boolean {
  if (!selector) return true;
  const labels = object.metadata?.labels ?? {};
  return selector.split(',').every((term) => {
    if (term.startsWith('!')) return !Object.hasOwn(labels, term.slice(1));
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

/**
 * What the EndpointSlice controller writes for Service `name`: one slice, with the
 * Service's labels, owned by it, listing `pods` (ready or not) on the Service's ports.
 */
export function publishEndpoints(
  fake: FakeKubernetes,
  name: string,
  pods: readonly { readonly pod: V1Pod; readonly ready: boolean; readonly terminating?: boolean }[],
  namespace = fake.namespace,
): KindMap['endpointslices'] {
  const service = fake.get('services', name, namespace);
  if (!service) throw new Error(`no Service ${namespace}/${name}`);
  const sliceName = `${name}-slice`;
  const slice: KindMap['endpointslices'] = {
    metadata: {
      name: sliceName,
      namespace,
      labels: { ...service.metadata?.labels, 'kubernetes.io/service-name': name },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name, uid: service.metadata?.uid ?? '', controller: true }],
    },
    addressType: 'IPv4',
    ...(pods.length > 0
      ? {
          endpoints: pods.map(({ pod, ready, terminating }) => ({
            addresses: [pod.status?.podIP ?? '10.244.0.1'],
            conditions: { ready, serving: ready || terminating === true, terminating: terminating === true },
            targetRef: { kind: 'Pod', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '', namespace },
          })),
          ports: (service.spec?.ports ?? []).map((port) => ({ name: port.name ?? '', port: port.port, protocol: port.protocol ?? 'TCP' })),
        }
      : { ports: [] }),
  };
  if (fake.get('endpointslices', sliceName, namespace)) {
    return fake.update(
      'endpointslices',
      sliceName,
      (live) =>
        Object.assign(live, {
          metadata: { ...live.metadata, labels: slice.metadata?.labels, ownerReferences: slice.metadata?.ownerReferences },
          endpoints: slice.endpoints,
          ports: slice.ports,
        }),
      namespace,
    );
  }
  void fake.create('endpointslices', namespace, slice);
  return slice;
}

/** What kube-apiserver fills in on a Service: its ClusterIP (the one asked for, if any) and the ports' defaults. */
function allocateServiceFields(service: KindMap['services'], index: number): void {
  const spec = (service.spec ??= {});
  spec.clusterIP ??= `10.0.${Math.floor(index / 250)}.${(index % 250) + 1}`;
  spec.clusterIPs = [spec.clusterIP];
  spec.type ??= 'ClusterIP';
  let nodePort = 30000;
  spec.ports = (spec.ports ?? []).map((port) => ({
    protocol: 'TCP',
    targetPort: port.port,
    ...port,
    ...(spec.type !== 'ClusterIP' && port.nodePort === undefined ? { nodePort: (nodePort += 1) + index * 10 } : {}),
  }));
}

/** What an API server without ContainerStopSignals does to a pod template: the field is gone. */
function dropStopSignals(deployment: V1Deployment): void {
  for (const container of deployment.spec?.template.spec?.containers ?? []) {
    if (container.lifecycle) {
      delete container.lifecycle.stopSignal;
      if (Object.keys(container.lifecycle).length === 0) delete container.lifecycle;
    }
  }
}
