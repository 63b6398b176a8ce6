// The Pod as its informer caches it: what diagnosePod(), currentRolloutPods() and
// workloadStatus() read, labels included.
import type { V1Container, V1ContainerState, V1ContainerStatus, V1Pod, V1PodCondition, V1Probe } from '../../kube/objects.js';
import { sharedValue } from '../../interning.js';
import { Fields, cachedCondition, deletionOf, owners, pathsOf, readLabels, type Json } from './fields.js';

export function cachedPodFields(pod: V1Pod): V1Pod {
  const f = new Fields('Pod', pod);
  const root = f.root(pod);
  const metadata = f.object(root.metadata, 'metadata');
  const spec = f.object(root.spec, 'spec');
  const status = f.object(root.status, 'status');
  return {
    metadata: {
      name: f.string(metadata?.name, 'metadata.name'),
      namespace: f.common(metadata?.namespace, 'metadata.namespace'),
      uid: f.string(metadata?.uid, 'metadata.uid'),
      resourceVersion: f.string(metadata?.resourceVersion, 'metadata.resourceVersion'),
      deletionTimestamp: deletionOf(metadata),
      labels: readLabels(f, metadata?.labels),
      // A Pod's owner by kind and name (currentRolloutPods).
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

/** A container's memory limit as `resources`, one shared copy per value; undefined without one. */
function memoryLimitOf(f: Fields, value: unknown): V1Container['resources'] {
  const resources = f.object(value, CONTAINER.resources);
  const memory = f.common(f.strings(resources?.limits, `${CONTAINER.resources}.limits`)?.memory, `${CONTAINER.resources}.limits.memory`);
  return memory === undefined ? undefined : sharedValue('memory-limit', { limits: { memory } });
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
