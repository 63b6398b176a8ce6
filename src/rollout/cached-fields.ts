// What the rollout streams keep of each watched object: the informers apply these
// projections before caching (client-go's SetTransform), so a cached Deployment or Pod
// holds only the fields rolloutStatus(), currentRolloutPods(), diagnosePod(),
// awaitRollout() and workloadStatus() read, plus what the informers route by (a
// Deployment's name, a Pod's container-id label). Most of a watched Deployment is
// managedFields and the pod template, which nothing here reads; each object stays cached
// until its next event, so whatever is kept is paid in memory per waiter and in garbage
// collection (bench/results/cluster.md measures the heap per waiter).
//
// Every field is always present (undefined when absent), so all cached objects of a kind
// are built alike and every reader meets the same object whatever the watch sent. The
// projections are pure, and they are also the check that an object fits the fields read: a field of
// the wrong type (`conditions` that is not a list, a Pod whose spec has no container list,
// a restart count that is a string) throws MalformedObjectError, and the informer skips
// the object instead of letting a reader throw on it. A JSON null counts as absent. Parts
// many objects carry alike are one frozen copy shared by all (shared-values.ts), and so
// are the strings they repeat (below): a cached object is never modified.
import type {
  CoreV1Event,
  V1Probe,
  V1Time,
  V1PersistentVolumeClaim,
  V1Container,
  V1ContainerState,
  V1ContainerStatus,
  V1Deployment,
  V1LabelSelector,
  V1DeploymentCondition,
  V1OwnerReference,
  V1Pod,
  V1PodCondition,
  V1PodTemplateSpec,
  V1EndpointSlice,
  V1Service,
} from '../kube/objects.js';
import { SERVICE_NAME_LABEL } from '../kube/objects.js';
import { MalformedObjectError } from '../errors/api.js';
import { REVISION_ANNOTATION } from './workload-status.js';
import { NODE_ADDRESS_ANNOTATION } from './service-status.js';
import { STORAGE_VOLUME_NAME } from '../input/storage.js';
import { CONTAINER_ID_LABEL, INSTANCE_LABEL, MANAGED_LABEL, NODE_ID_LABEL } from '../input/labels.js';
import { POD_TEMPLATE_HASH_LABEL } from './rollout-pods.js';
import { sharedValue } from './shared-values.js';

const NO_SELECTOR = Object.freeze({});

function selectorOf(f: Fields, value: unknown): V1LabelSelector {
  const matchLabels = f.strings(f.object(value, 'spec.selector')?.matchLabels, 'spec.selector.matchLabels');
  return matchLabels === undefined ? NO_SELECTOR : { matchLabels };
}

type Json = Record<string, unknown>;

/**
 * JSON.parse shares one copy of a very short string only (how short differs between V8
 * versions), so each cached object kept its own copy of the namespace, of a condition's
 * reason and message, of an image, of a node name, of an owner's kind. Those fields take one
 * shared copy from this table instead; it is bounded (and starts afresh when full), so
 * strings that do not repeat cost nothing lasting.
 */
const SHARED_STRINGS = new Map<string, string>();
const MAX_SHARED_STRINGS = 4096;
/** The shortest string that JSON.parse copies on some Node line we run on (Node 24's). */
const SHORTEST_COPIED = 10;

function sharedString(text: string): string {
  if (text.length < SHORTEST_COPIED) return text;
  const known = SHARED_STRINGS.get(text);
  if (known !== undefined) return known;
  if (SHARED_STRINGS.size >= MAX_SHARED_STRINGS) SHARED_STRINGS.clear();
  SHARED_STRINGS.set(text, text);
  return text;
}

/** Reads typed fields of one object, naming the field at fault when a type is wrong. */
class Fields {
  constructor(
    private readonly kind: string,
    private readonly subject: unknown,
  ) {}

  fail(field: string, problem: string): never {
    const metadata = isJson(this.subject) && isJson(this.subject.metadata) ? this.subject.metadata : undefined;
    const name = typeof metadata?.name === 'string' ? metadata.name : undefined;
    throw new MalformedObjectError(this.kind, name, field, problem);
  }

  object(value: unknown, field: string): Json | undefined {
    if (value == null) return undefined;
    return isJson(value) ? value : this.fail(field, `must be an object (got ${typeName(value)})`);
  }

  list(value: unknown, field: string): unknown[] | undefined {
    if (value == null) return undefined;
    return Array.isArray(value) ? (value as unknown[]) : this.fail(field, `must be a list (got ${typeName(value)})`);
  }

  string(value: unknown, field: string): string | undefined {
    if (value == null) return undefined;
    return typeof value === 'string' ? value : this.fail(field, `must be a string (got ${typeName(value)})`);
  }

  /** string(), for values many objects carry alike: one shared copy (see sharedString). */
  common(value: unknown, field: string): string | undefined {
    const text = this.string(value, field);
    return text === undefined ? undefined : sharedString(text);
  }

  number(value: unknown, field: string): number | undefined {
    if (value == null) return undefined;
    return typeof value === 'number' && Number.isFinite(value) ? value : this.fail(field, `must be a number (got ${typeName(value)})`);
  }

  /** A time as the API gives it (a string), or as a client decoded it (a Date). */
  time(value: unknown, field: string): V1Time | undefined {
    if (value == null) return undefined;
    return typeof value === 'string' || value instanceof Date ? value : this.fail(field, `must be a time (got ${typeName(value)})`);
  }

  boolean(value: unknown, field: string): boolean | undefined {
    if (value == null) return undefined;
    return typeof value === 'boolean' ? value : this.fail(field, `must be true or false (got ${typeName(value)})`);
  }

  /** A map of strings (labels). */
  strings(value: unknown, field: string): Record<string, string> | undefined {
    const map = this.object(value, field);
    if (map)
      for (const [key, item] of Object.entries(map))
        if (typeof item !== 'string') this.fail(`${field}.${key}`, `must be a string (got ${typeName(item)})`);
    return map as Record<string, string> | undefined;
  }

  /**
   * Each item of a list, checked by `read`. Field paths name the list as `field[]` and are
   * built once per call site, not per object: a projection runs on every watch event.
   */
  each<T>(value: unknown, field: string, read: (item: Json) => T): T[] | undefined {
    // map, not push: a list built by push keeps room for more items, and these are cached.
    return this.list(value, field)?.map((item) =>
      read(this.object(item, `${field}[]`) ?? this.fail(`${field}[]`, 'must be an object (got null)')),
    );
  }
}

/**
 * A Deployment's fields that rolloutStatus(), newReplicaSetName(), awaitRollout() and
 * workloadStatus() read: of the pod template, only each container's name, image and
 * resources, and the claim its storage volume mounts (statuses$ shows it); of the
 * annotations, only the revision.
 */
export function cachedDeploymentFields(deployment: V1Deployment): V1Deployment {
  const f = new Fields('Deployment', deployment);
  const root = f.object(deployment, '(object)') ?? f.fail('(object)', 'must be an object');
  const metadata = f.object(root.metadata, 'metadata');
  const spec = f.object(root.spec, 'spec');
  const status = f.object(root.status, 'status');
  const revision = f.string(f.strings(metadata?.annotations, 'metadata.annotations')?.[REVISION_ANNOTATION], 'metadata.annotations');
  return {
    metadata: {
      name: f.string(metadata?.name, 'metadata.name'),
      namespace: f.common(metadata?.namespace, 'metadata.namespace'),
      uid: f.string(metadata?.uid, 'metadata.uid'),
      resourceVersion: f.string(metadata?.resourceVersion, 'metadata.resourceVersion'),
      generation: f.number(metadata?.generation, 'metadata.generation'),
      deletionTimestamp: (metadata?.deletionTimestamp ?? undefined) as Date | undefined,
      labels: readLabels(f, metadata?.labels),
      annotations: revision === undefined ? undefined : sharedValue('annotations', { [REVISION_ANNOTATION]: revision }),
    },
    spec: spec && {
      replicas: f.number(spec.replicas, 'spec.replicas'),
      paused: f.boolean(spec.paused, 'spec.paused'),
      progressDeadlineSeconds: f.number(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'),
      // Its labels only: a Service gate checks the Service selects the same Pods (service-gate.ts).
      selector: selectorOf(f, spec.selector),
      template: templateContainers(f, spec.template),
    },
    status: status && {
      observedGeneration: f.number(status.observedGeneration, 'status.observedGeneration'),
      replicas: f.number(status.replicas, 'status.replicas'),
      updatedReplicas: f.number(status.updatedReplicas, 'status.updatedReplicas'),
      readyReplicas: f.number(status.readyReplicas, 'status.readyReplicas'),
      availableReplicas: f.number(status.availableReplicas, 'status.availableReplicas'),
      conditions: f.each(status.conditions, 'status.conditions', (item) => cachedCondition(f, item)),
    },
  };
}

/**
 * The labels anything reads of a cached object: the ownership labels, the routing labels
 * (a Pod's template hash, an EndpointSlice's Service). Every label is still checked; the
 * others (app.kubernetes.io/*, the controllers' own) are not kept.
 */
const READ_LABELS = [
  MANAGED_LABEL,
  NODE_ID_LABEL,
  CONTAINER_ID_LABEL,
  INSTANCE_LABEL,
  POD_TEMPLATE_HASH_LABEL,
  SERVICE_NAME_LABEL,
] as const;

function readLabels(f: Fields, value: unknown): Record<string, string> | undefined {
  const labels = f.strings(value, 'metadata.labels');
  if (!labels) return undefined;
  const kept: Record<string, string> = {};
  for (const key of READ_LABELS) if (labels[key] !== undefined) kept[key] = labels[key];
  return kept;
}

/** The field paths of a list item's fields, built once. */
function pathsOf<K extends string>(list: string, fields: readonly K[]): Readonly<Record<K, string>> {
  return Object.fromEntries(fields.map((field) => [field, `${list}[].${field}`])) as Record<K, string>;
}

const CONDITION_FIELDS = ['type', 'status', 'reason', 'message'] as const;
const CONDITION = pathsOf('status.conditions', CONDITION_FIELDS);
const OWNER = pathsOf('metadata.ownerReferences', ['apiVersion', 'kind', 'name', 'uid', 'controller'] as const);
const INIT_CONTAINER = pathsOf('spec.initContainers', ['name', 'restartPolicy'] as const);
const CONTAINER = pathsOf('spec.containers', ['name', 'resources'] as const);
const STARTUP_PROBE = pathsOf('spec.containers[].startupProbe', [
  'initialDelaySeconds',
  'periodSeconds',
  'failureThreshold',
  'tcpSocket',
  'tcpSocket.port',
] as const);
/** The field paths of a container status and of its two states, built once. */
function statusPaths(list: string) {
  const state = (which: string) => {
    const at = `${list}[].${which}`;
    return {
      self: at,
      waiting: `${at}.waiting`,
      waitingReason: `${at}.waiting.reason`,
      waitingMessage: `${at}.waiting.message`,
      running: `${at}.running`,
      terminated: `${at}.terminated`,
      exitCode: `${at}.terminated.exitCode`,
      terminatedReason: `${at}.terminated.reason`,
      terminatedMessage: `${at}.terminated.message`,
      startedAt: `${at}.terminated.startedAt`,
      finishedAt: `${at}.terminated.finishedAt`,
    };
  };
  return {
    ...pathsOf(list, ['name', 'image', 'ready', 'restartCount', 'started'] as const),
    state: state('state'),
    lastState: state('lastState'),
  };
}
const CONTAINER_STATUS = statusPaths('status.containerStatuses');
const INIT_CONTAINER_STATUS = statusPaths('status.initContainerStatuses');

type StatusPaths = ReturnType<typeof statusPaths>;
type StatePaths = StatusPaths['state'];

/** A Deployment's, a Pod's or a claim's condition: they have the same fields. */
function cachedCondition(f: Fields, item: Json): V1DeploymentCondition & V1PodCondition {
  const condition = {
    type: f.common(item.type, CONDITION.type) ?? f.fail(CONDITION.type, 'is missing'),
    status: f.string(item.status, CONDITION.status) ?? f.fail(CONDITION.status, 'is missing'),
    reason: f.common(item.reason, CONDITION.reason),
    message: f.common(item.message, CONDITION.message),
  };
  return condition.message === undefined ? sharedValue('condition', condition) : condition;
}

const TEMPLATE_CONTAINER = pathsOf('spec.template.spec.containers', ['name', 'image', 'resources'] as const);

function templateContainers(f: Fields, value: unknown): V1PodTemplateSpec {
  const template = f.object(value, 'spec.template');
  const podSpec = f.object(template?.spec, 'spec.template.spec');
  const containers = f.each(podSpec?.containers, 'spec.template.spec.containers', (container) => templateContainer(f, container));
  const claimName = storageClaimName(f, podSpec?.volumes);
  return {
    spec: {
      containers: containers ?? [],
      ...(claimName === undefined ? {} : { volumes: [{ name: STORAGE_VOLUME_NAME, persistentVolumeClaim: { claimName } }] }),
    },
  };
}

/** Of the template's volumes, only the container's own (the claim its status shows); every one is checked. */
function storageClaimName(f: Fields, value: unknown): string | undefined {
  let claimName: string | undefined;
  for (const item of f.list(value, 'spec.template.spec.volumes') ?? []) {
    const volume = f.object(item, 'spec.template.spec.volumes[]');
    if (volume?.name !== STORAGE_VOLUME_NAME || claimName !== undefined) continue;
    const claim = f.object(volume.persistentVolumeClaim, 'spec.template.spec.volumes[].persistentVolumeClaim');
    claimName = f.string(claim?.claimName, 'spec.template.spec.volumes[].persistentVolumeClaim.claimName');
  }
  return claimName;
}

function templateContainer(f: Fields, container: Json): V1Container {
  const resources = f.object(container.resources, TEMPLATE_CONTAINER.resources);
  return {
    name: f.string(container.name, TEMPLATE_CONTAINER.name) ?? f.fail(TEMPLATE_CONTAINER.name, 'is missing'),
    image: f.common(container.image, TEMPLATE_CONTAINER.image),
    resources:
      resources && sharedValue('resources', { limits: copy(resources.limits, 'limits'), requests: copy(resources.requests, 'requests') }),
  };

  /** A copy: the shared value is frozen, and the input stays untouched. */
  function copy(value: unknown, field: string): Record<string, string> | undefined {
    const map = f.strings(value, `${TEMPLATE_CONTAINER.resources}.${field}`);
    return map && { ...map };
  }
}

/** A container's memory limit as `resources`, one shared copy per value; undefined without one. */
function memoryLimitOf(f: Fields, value: unknown): V1Container['resources'] {
  const resources = f.object(value, CONTAINER.resources);
  const memory = f.common(f.strings(resources?.limits, `${CONTAINER.resources}.limits`)?.memory, `${CONTAINER.resources}.limits.memory`);
  return memory === undefined ? undefined : sharedValue('memory-limit', { limits: { memory } });
}

/** A Pod's fields that diagnosePod(), currentRolloutPods() and workloadStatus() read, labels included. */
export function cachedPodFields(pod: V1Pod): V1Pod {
  const f = new Fields('Pod', pod);
  const root = f.object(pod, '(object)') ?? f.fail('(object)', 'must be an object');
  const metadata = f.object(root.metadata, 'metadata');
  const spec = f.object(root.spec, 'spec');
  const status = f.object(root.status, 'status');
  return {
    metadata: {
      name: f.string(metadata?.name, 'metadata.name'),
      namespace: f.common(metadata?.namespace, 'metadata.namespace'),
      uid: f.string(metadata?.uid, 'metadata.uid'),
      resourceVersion: f.string(metadata?.resourceVersion, 'metadata.resourceVersion'),
      deletionTimestamp: (metadata?.deletionTimestamp ?? undefined) as Date | undefined,
      labels: readLabels(f, metadata?.labels),
      ownerReferences: owners(f, metadata?.ownerReferences, ['kind', 'name']),
    },
    spec: spec && {
      nodeName: f.common(spec.nodeName, 'spec.nodeName'),
      // Only names and restart policies: a restartable init container is a sidecar.
      initContainers: sharedValue(
        'init-containers',
        f.each(spec.initContainers, 'spec.initContainers', (container) => ({
          name: f.common(container.name, INIT_CONTAINER.name) ?? f.fail(INIT_CONTAINER.name, 'is missing'),
          restartPolicy: f.string(container.restartPolicy, INIT_CONTAINER.restartPolicy),
        })),
      ),
      containers:
        f.each(spec.containers, 'spec.containers', (container) => ({
          name: f.string(container.name, CONTAINER.name) ?? f.fail(CONTAINER.name, 'is missing'),
          // Only the memory limit: an exit 137 under it is named as most likely out of memory.
          resources: memoryLimitOf(f, container.resources),
          // The startup probe's bound: a container stopped at its end is named for it.
          ...startupProbeOf(f, container.startupProbe),
        })) ?? f.fail('spec.containers', 'is missing'),
    },
    status: status && {
      phase: f.string(status.phase, 'status.phase'),
      reason: f.string(status.reason, 'status.reason'),
      message: f.string(status.message, 'status.message'),
      podIP: f.string(status.podIP, 'status.podIP'),
      hostIP: f.common(status.hostIP, 'status.hostIP'),
      // Every condition is checked; only those read are kept (the others are most of a Pod's).
      conditions: only(
        f.each(status.conditions, 'status.conditions', (item) => cachedCondition(f, item)),
        isReadPodCondition,
      ),
      initContainerStatuses: initContainerStatuses(f, status.initContainerStatuses),
      containerStatuses: f.each(status.containerStatuses, 'status.containerStatuses', (c) => containerStatus(f, c, CONTAINER_STATUS)),
    },
  };
}

/**
 * Of each owner reference, the fields read: a Pod's owner by kind and name (currentRolloutPods),
 * an EndpointSlice's by kind and uid (its Service's). Every field is still checked.
 */
function owners(f: Fields, value: unknown, read: readonly ('kind' | 'name' | 'uid')[]): V1OwnerReference[] | undefined {
  return f.each(value, 'metadata.ownerReferences', (owner) => {
    const checked = ownerReference(f, owner);
    const kept: Partial<V1OwnerReference> = {};
    for (const field of read) kept[field] = checked[field];
    return kept as V1OwnerReference;
  });
}

function ownerReference(f: Fields, owner: Json): V1OwnerReference {
  return {
    apiVersion: f.string(owner.apiVersion, OWNER.apiVersion) as string,
    kind: f.common(owner.kind, OWNER.kind) as string,
    name: f.string(owner.name, OWNER.name) as string,
    uid: f.string(owner.uid, OWNER.uid) as string,
    controller: f.boolean(owner.controller, OWNER.controller),
  };
}

/** The Pod conditions anything reads: PodScheduled (diagnosePod), Ready (workloadStatus, the Service gate). */
const READ_POD_CONDITIONS: ReadonlySet<string> = new Set(['PodScheduled', 'Ready']);

function isReadPodCondition(condition: V1PodCondition): boolean {
  return READ_POD_CONDITIONS.has(condition.type);
}

/** The items `keep` accepts, in a list of their size (filter's own result keeps room for more). */
function only<T>(items: T[] | undefined, keep: (item: T) => boolean): T[] | undefined {
  return items?.filter(keep).slice();
}

/** The fields of a startup probe its bound and its words are read from; none without one. */
function startupProbeOf(f: Fields, value: unknown): { startupProbe?: V1Probe } {
  const probe = f.object(value, 'spec.containers[].startupProbe');
  if (!probe) return {};
  const tcpSocket = f.object(probe.tcpSocket, STARTUP_PROBE.tcpSocket);
  const port = tcpSocket?.port;
  if (tcpSocket && typeof port !== 'number' && typeof port !== 'string')
    f.fail(STARTUP_PROBE['tcpSocket.port'], 'must be a number or a name');
  return {
    startupProbe: {
      initialDelaySeconds: f.number(probe.initialDelaySeconds, STARTUP_PROBE.initialDelaySeconds),
      periodSeconds: f.number(probe.periodSeconds, STARTUP_PROBE.periodSeconds),
      failureThreshold: f.number(probe.failureThreshold, STARTUP_PROBE.failureThreshold),
      ...(tcpSocket ? { tcpSocket: { port: port as number | string } } : {}),
    },
  };
}

function containerStatus(f: Fields, container: Json, at: StatusPaths): V1ContainerStatus {
  // Without imageID, which nothing reads (the type says required).
  return {
    name: f.common(container.name, at.name) ?? f.fail(at.name, 'is missing'),
    // Absent stays absent (the type says required; the readers default them themselves).
    image: f.common(container.image, at.image) as string,
    ready: f.boolean(container.ready, at.ready) as boolean,
    restartCount: f.number(container.restartCount, at.restartCount) as number,
    // Whether the startup probe passed (a main container's; nothing reads an init container's).
    ...(at === CONTAINER_STATUS ? { started: f.boolean(container.started, at.started) } : {}),
    state: containerState(f, container.state, at.state, false),
    // When the last run began and ended: a startup probe's bound reads them (startup-probe.ts).
    lastState: containerState(f, container.lastState, at.lastState, at === CONTAINER_STATUS),
  } as V1ContainerStatus;
}

// Shared by every cached container state alike: the empty `lastState` of a container that
// never restarted, and `running` (none of whose fields is read). Cached objects are never modified.
const RUNNING = Object.freeze({});
const NO_STATE: V1ContainerState = Object.freeze({ waiting: undefined, running: undefined, terminated: undefined });

function containerState(f: Fields, value: unknown, at: StatePaths, times: boolean): V1ContainerState | undefined {
  const state = f.object(value, at.self);
  if (!state) return undefined;
  const waiting = f.object(state.waiting, at.waiting);
  const running = f.object(state.running, at.running);
  const terminated = f.object(state.terminated, at.terminated);
  if (!waiting && !running && !terminated) return NO_STATE;
  const cached = {
    waiting: waiting && {
      reason: f.common(waiting.reason, at.waitingReason),
      message: f.string(waiting.message, at.waitingMessage),
    },
    running: running && RUNNING,
    terminated: terminated && {
      exitCode: f.number(terminated.exitCode, at.exitCode) ?? f.fail(at.exitCode, 'is missing'),
      reason: f.common(terminated.reason, at.terminatedReason),
      message: f.string(terminated.message, at.terminatedMessage),
      ...(times ? { startedAt: f.time(terminated.startedAt, at.startedAt), finishedAt: f.time(terminated.finishedAt, at.finishedAt) } : {}),
    },
  };
  // A last run's times are its own: not worth a shared copy.
  return hasMessage(cached) || (times && terminated) ? cached : sharedValue('state', cached);
}

function hasMessage(state: V1ContainerState | undefined): boolean {
  return state?.waiting?.message !== undefined || state?.terminated?.message !== undefined;
}

/**
 * Init containers are the pod template's (a volume's seed), alike in every workload made
 * from it: their statuses are shared while no state carries a message.
 */
function initContainerStatuses(f: Fields, value: unknown): V1ContainerStatus[] | undefined {
  const statuses = f.each(value, 'status.initContainerStatuses', (c) => containerStatus(f, c, INIT_CONTAINER_STATUS));
  return statuses?.some((status) => hasMessage(status.state) || hasMessage(status.lastState))
    ? statuses
    : sharedValue('init-statuses', statuses);
}

/** Set by the scheduler on a WaitForFirstConsumer claim: the node its volume must be provisioned for. */
export const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node';

/**
 * A claim's fields that claimStatus() and the storage diagnosis read: its identity and
 * labels, the class, the request and the bound volume, and the status a resize shows.
 */
export function cachedClaimFields(claim: V1PersistentVolumeClaim): V1PersistentVolumeClaim {
  const f = new Fields('PersistentVolumeClaim', claim);
  const root = f.object(claim, '(object)') ?? f.fail('(object)', 'must be an object');
  const metadata = f.object(root.metadata, 'metadata');
  const spec = f.object(root.spec, 'spec');
  const status = f.object(root.status, 'status');
  const requests = f.strings(f.object(spec?.resources, 'spec.resources')?.requests, 'spec.resources.requests');
  const capacity = f.strings(status?.capacity, 'status.capacity');
  const allocated = f.strings(status?.allocatedResourceStatuses, 'status.allocatedResourceStatuses');
  const selectedNode = f.strings(metadata?.annotations, 'metadata.annotations')?.[SELECTED_NODE_ANNOTATION];
  return {
    metadata: {
      name: f.string(metadata?.name, 'metadata.name'),
      namespace: f.common(metadata?.namespace, 'metadata.namespace'),
      uid: f.string(metadata?.uid, 'metadata.uid'),
      resourceVersion: f.string(metadata?.resourceVersion, 'metadata.resourceVersion'),
      deletionTimestamp: (metadata?.deletionTimestamp ?? undefined) as Date | undefined,
      labels: readLabels(f, metadata?.labels),
      annotations: selectedNode === undefined ? undefined : sharedValue('annotations', { [SELECTED_NODE_ANNOTATION]: selectedNode }),
    },
    spec: spec && {
      storageClassName: f.common(spec.storageClassName, 'spec.storageClassName'),
      volumeName: f.string(spec.volumeName, 'spec.volumeName'),
      resources: sharedValue('claim-resources', { requests: requests?.storage === undefined ? undefined : { storage: requests.storage } }),
    },
    status: status && {
      phase: f.string(status.phase, 'status.phase'),
      capacity: capacity?.storage === undefined ? undefined : sharedValue('capacity', { storage: capacity.storage }),
      conditions: f.each(status.conditions, 'status.conditions', (item) => cachedCondition(f, item)),
      allocatedResourceStatuses: allocated?.storage === undefined ? undefined : { storage: allocated.storage },
    },
  };
}

const INVOLVED_OBJECT = ['kind', 'name', 'uid'] as const;

/** An Event's fields the storage diagnosis reads: what it is about, why, and when it was last seen. */
export function cachedEventFields(event: CoreV1Event): CoreV1Event {
  const f = new Fields('Event', event);
  const root = f.object(event, '(object)') ?? f.fail('(object)', 'must be an object');
  const metadata = f.object(root.metadata, 'metadata');
  const involved = f.object(root.involvedObject, 'involvedObject');
  const series = f.object(root.series, 'series');
  const time = (value: unknown, field: string): string | undefined =>
    value instanceof Date ? value.toISOString() : f.string(value, field);
  return {
    metadata: {
      name: f.string(metadata?.name, 'metadata.name'),
      namespace: f.common(metadata?.namespace, 'metadata.namespace'),
      uid: f.string(metadata?.uid, 'metadata.uid'),
      resourceVersion: f.string(metadata?.resourceVersion, 'metadata.resourceVersion'),
      creationTimestamp: time(metadata?.creationTimestamp, 'metadata.creationTimestamp'),
    },
    involvedObject: involved && Object.fromEntries(INVOLVED_OBJECT.map((key) => [key, f.string(involved[key], `involvedObject.${key}`)])),
    reason: f.string(root.reason, 'reason'),
    message: f.string(root.message, 'message'),
    type: f.string(root.type, 'type'),
    lastTimestamp: time(root.lastTimestamp, 'lastTimestamp'),
    eventTime: time(root.eventTime, 'eventTime'),
    firstTimestamp: time(root.firstTimestamp, 'firstTimestamp'),
    series: series && { lastObservedTime: time(series.lastObservedTime, 'series.lastObservedTime') },
  };
}

function isJson(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A Service's fields that serviceStatus() and the drift check read: type, selector, ports, addresses. */
export function cachedServiceFields(service: V1Service): V1Service {
  const f = new Fields('Service', service);
  const root = f.object(service, '(object)') ?? f.fail('(object)', 'must be an object');
  const metadata = f.object(root.metadata, 'metadata');
  const spec = f.object(root.spec, 'spec');
  const status = f.object(root.status, 'status');
  const nodeAddress = f.string(f.strings(metadata?.annotations, 'metadata.annotations')?.[NODE_ADDRESS_ANNOTATION], 'metadata.annotations');
  // Checked, not kept: nothing reads a cached Service's owners.
  f.each(metadata?.ownerReferences, 'metadata.ownerReferences', (owner) => ownerReference(f, owner));
  return {
    metadata: {
      name: f.string(metadata?.name, 'metadata.name'),
      namespace: f.common(metadata?.namespace, 'metadata.namespace'),
      uid: f.string(metadata?.uid, 'metadata.uid'),
      resourceVersion: f.string(metadata?.resourceVersion, 'metadata.resourceVersion'),
      deletionTimestamp: (metadata?.deletionTimestamp ?? undefined) as Date | undefined,
      labels: readLabels(f, metadata?.labels),
      annotations: nodeAddress === undefined ? undefined : sharedValue('annotations', { [NODE_ADDRESS_ANNOTATION]: nodeAddress }),
    },
    spec: spec && {
      type: f.string(spec.type, 'spec.type'),
      clusterIP: f.string(spec.clusterIP, 'spec.clusterIP'),
      selector: f.strings(spec.selector, 'spec.selector'),
      ports: sharedValue(
        'service-ports',
        f.each(spec.ports, 'spec.ports', (port) => ({
          name: f.string(port.name, SERVICE_PORT.name),
          protocol: f.string(port.protocol, SERVICE_PORT.protocol),
          port: f.number(port.port, SERVICE_PORT.port) ?? f.fail(SERVICE_PORT.port, 'is missing'),
          nodePort: f.number(port.nodePort, SERVICE_PORT.nodePort),
          // Read by the Service gate: a port aimed at another target never routes as asked.
          targetPort: typeof port.targetPort === 'string' ? port.targetPort : f.number(port.targetPort, SERVICE_PORT.targetPort),
        })),
      ),
    },
    status: status && serviceStatusFields(f, status),
  };
}

function serviceStatusFields(f: Fields, status: Json): V1Service['status'] {
  const loadBalancer = f.object(status.loadBalancer, 'status.loadBalancer');
  const cached = {
    loadBalancer: loadBalancer && {
      ingress: f.each(loadBalancer.ingress, 'status.loadBalancer.ingress', (ingress) => ({
        ip: f.string(ingress.ip, LB_INGRESS.ip),
        hostname: f.string(ingress.hostname, LB_INGRESS.hostname),
      })),
    },
  };
  // Without a load balancer's address (a ClusterIP Service's), every status is alike.
  return cached.loadBalancer?.ingress === undefined ? sharedValue('service-status', cached) : cached;
}

/** An EndpointSlice's fields that podEndpoint() reads: its Service, its endpoints' Pods and conditions, its ports. */
export function cachedEndpointSliceFields(slice: V1EndpointSlice): V1EndpointSlice {
  const f = new Fields('EndpointSlice', slice);
  const root = f.object(slice, '(object)') ?? f.fail('(object)', 'must be an object');
  const metadata = f.object(root.metadata, 'metadata');
  return {
    metadata: {
      name: f.string(metadata?.name, 'metadata.name'),
      namespace: f.common(metadata?.namespace, 'metadata.namespace'),
      uid: f.string(metadata?.uid, 'metadata.uid'),
      resourceVersion: f.string(metadata?.resourceVersion, 'metadata.resourceVersion'),
      labels: readLabels(f, metadata?.labels),
      ownerReferences: owners(f, metadata?.ownerReferences, ['kind', 'uid']),
    },
    addressType: f.string(root.addressType, 'addressType'),
    endpoints: f.each(root.endpoints, 'endpoints', (endpoint) => {
      const conditions = f.object(endpoint.conditions, ENDPOINT.conditions);
      const ref = f.object(endpoint.targetRef, ENDPOINT.targetRef);
      return {
        addresses: (f.list(endpoint.addresses, ENDPOINT.addresses) ?? []).map(
          (address) => f.string(address, `${ENDPOINT.addresses}[]`) ?? f.fail(`${ENDPOINT.addresses}[]`, 'must be a string (got null)'),
        ),
        conditions:
          conditions &&
          sharedValue('endpoint-conditions', {
            ready: f.boolean(conditions.ready, ENDPOINT.ready),
            serving: f.boolean(conditions.serving, ENDPOINT.serving),
            terminating: f.boolean(conditions.terminating, ENDPOINT.terminating),
          }),
        targetRef: ref && {
          kind: f.string(ref.kind, ENDPOINT.refKind),
          name: f.string(ref.name, ENDPOINT.refName),
          uid: f.string(ref.uid, ENDPOINT.refUid),
        },
      };
    }),
    ports: sharedValue(
      'slice-ports',
      f.each(root.ports, 'ports', (port) => ({
        name: f.string(port.name, SLICE_PORT.name),
        protocol: f.string(port.protocol, SLICE_PORT.protocol),
        port: f.number(port.port, SLICE_PORT.port),
      })),
    ),
  };
}

const SERVICE_PORT = pathsOf('spec.ports', ['name', 'protocol', 'port', 'nodePort', 'targetPort']);
const LB_INGRESS = pathsOf('status.loadBalancer.ingress', ['ip', 'hostname']);
const SLICE_PORT = pathsOf('ports', ['name', 'protocol', 'port']);
const ENDPOINT = {
  ...pathsOf('endpoints', ['conditions', 'targetRef', 'addresses']),
  ready: 'endpoints[].conditions.ready',
  serving: 'endpoints[].conditions.serving',
  terminating: 'endpoints[].conditions.terminating',
  refKind: 'endpoints[].targetRef.kind',
  refName: 'endpoints[].targetRef.name',
  refUid: 'endpoints[].targetRef.uid',
};
