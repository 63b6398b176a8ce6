// Generated watch streams for the hostile-server tests: valid Deployment and Pod events
// mixed with junk lines, wrong types, missing fields and truncation, cut into arbitrary
// chunks. Plus a KubernetesClient that plays such streams through the transport's own
// stream reader (WatchStreamReader), on a scheduler, and after a fault serves a healthy
// stream in which the rollout completes, so a test can tell "recovered" from "hung".
import fc from 'fast-check';
import type { SchedulerLike, Subscription } from 'rxjs';
import type { KindMap, KubernetesClient, ObjectList, WatchHandle, WatchHandlers, WatchParams, WatchedKind } from '../../src/kube/client.js';
import { WatchStreamReader } from '../../src/kube/watch-stream.js';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../src/informers/reflector.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL } from '../../src/input/labels.js';

export const NAME = 'web';
export const UID = 'uid-web';
export const CONTAINER_ID = '1';
const RS = `${NAME}-5d8f7c9b4`;
const LABELS = { [MANAGED_LABEL]: 'true', [CONTAINER_ID_LABEL]: CONTAINER_ID, 'pod-template-hash': '5d8f7c9b4' };

type Json = Record<string, unknown>;

/** What kind of line it is, for the figures. */
export type LineKind = 'valid' | 'junk' | 'wrong-type' | 'missing-field' | 'error-event';

export interface GeneratedLine {
  readonly kind: LineKind;
  readonly watch: WatchedKind;
  readonly text: string;
}

export interface GeneratedStream {
  readonly lines: readonly GeneratedLine[];
  /** How each watch's body ends: cleanly, cut by the network, or in the middle of a line. */
  readonly ending: Readonly<Record<WatchedKind, 'clean' | 'cut' | 'truncated'>>;
  /** Where each watch's body is split into chunks (fractions of its length). */
  readonly splits: Readonly<Record<WatchedKind, readonly number[]>>;
}

// ---- objects --------------------------------------------------------------------------

function condition(type: string, status: string, reason: string, message: string): Json {
  return { type, status, reason, message, lastUpdateTime: '2025-01-01T00:00:00Z', lastTransitionTime: '2025-01-01T00:00:00Z' };
}

const DEPLOYMENT_STATES = ['created', 'progressing', 'complete', 'deadlineExceeded', 'otherUid', 'generationBehind'] as const;

export function deploymentObject(state: (typeof DEPLOYMENT_STATES)[number], resourceVersion: number): Json {
  const status: Json =
    state === 'created'
      ? {}
      : {
          observedGeneration: state === 'generationBehind' ? 1 : 2,
          replicas: 1,
          updatedReplicas: 1,
          readyReplicas: state === 'complete' || state === 'otherUid' ? 1 : 0,
          availableReplicas: state === 'complete' || state === 'otherUid' ? 1 : 0,
          conditions:
            state === 'complete' || state === 'otherUid'
              ? [
                  condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
                  condition('Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${RS}" has successfully progressed.`),
                ]
              : state === 'deadlineExceeded'
                ? [condition('Progressing', 'False', 'ProgressDeadlineExceeded', `ReplicaSet "${RS}" has timed out progressing.`)]
                : [condition('Progressing', 'True', 'ReplicaSetUpdated', `ReplicaSet "${RS}" is progressing.`)],
        };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: NAME,
      namespace: 'default',
      uid: state === 'otherUid' ? 'uid-other' : UID,
      resourceVersion: String(resourceVersion),
      generation: 2,
      labels: { [MANAGED_LABEL]: 'true', [CONTAINER_ID_LABEL]: CONTAINER_ID },
      managedFields: [{ manager: 'kube-controller-manager', operation: 'Update' }],
    },
    spec: {
      replicas: 1,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: LABELS },
      template: { spec: { containers: [{ name: NAME }] } },
    },
    status,
  };
}

const POD_STATES = ['pending', 'unschedulable', 'pullBackOff', 'crashLoop', 'ready', 'invalidImage'] as const;

export function podObject(state: (typeof POD_STATES)[number], resourceVersion: number, suffix: string): Json {
  const waiting = (reason: string, message: string): Json => ({
    containerStatuses: [
      { name: NAME, image: 'nginx', imageID: '', ready: false, restartCount: 4, state: { waiting: { reason, message } } },
    ],
  });
  const statusByState: Record<(typeof POD_STATES)[number], Json> = {
    pending: { phase: 'Pending' },
    unschedulable: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available' }],
    },
    pullBackOff: { phase: 'Pending', ...waiting('ImagePullBackOff', 'Back-off pulling image "nginx"') },
    crashLoop: { phase: 'Running', ...waiting('CrashLoopBackOff', 'back-off 40s restarting failed container') },
    invalidImage: { phase: 'Pending', ...waiting('InvalidImageName', 'Failed to apply default image tag') },
    ready: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [
        { name: NAME, image: 'nginx', imageID: 'x', ready: true, restartCount: 0, state: { running: { startedAt: 'x' } } },
      ],
    },
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${RS}-${suffix}`,
      namespace: 'default',
      uid: `pod-${suffix}`,
      resourceVersion: String(resourceVersion),
      labels: LABELS,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: RS, uid: 'rs', controller: true }],
    },
    spec: { nodeName: 'node-0', containers: [{ name: NAME, image: 'nginx' }] },
    status: statusByState[state],
  };
}

// ---- mutations: wrong types and missing fields ----------------------------------------

const WRONG_VALUES: readonly unknown[] = ['x', 5, true, null, [], {}, [null], [5], ['x'], { a: 1 }];

/** Every path (as keys) to a value inside `object`, arrays included. */
function paths(object: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (object === null || typeof object !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(object) ? object.map((v, i) => [i, v]) : Object.entries(object);
  return entries.flatMap(([key, value]) => [[...prefix, key], ...paths(value, [...prefix, key])]);
}

function withValueAt(object: Json, path: readonly (string | number)[], value: unknown, remove: boolean): Json {
  const copy = structuredClone(object);
  let parent: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (remove) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else parent[last] = value;
  return copy;
}

// ---- arbitraries ------------------------------------------------------------------------

const eventType = fc.constantFrom('ADDED', 'MODIFIED', 'DELETED');

const validDeploymentLine = fc
  .tuple(eventType, fc.constantFrom(...DEPLOYMENT_STATES), fc.integer({ min: 2, max: 999 }))
  .map(([type, state, rv]): GeneratedLine => ({
    kind: 'valid',
    watch: 'deployments',
    text: JSON.stringify({ type, object: deploymentObject(state, rv) }),
  }));

const validPodLine = fc
  .tuple(eventType, fc.constantFrom(...POD_STATES), fc.integer({ min: 2, max: 999 }), fc.constantFrom('a1', 'b2'))
  .map(([type, state, rv, suffix]): GeneratedLine => ({
    kind: 'valid',
    watch: 'pods',
    text: JSON.stringify({ type, object: podObject(state, rv, suffix) }),
  }));

const bookmarkLine = fc
  .tuple(fc.constantFrom<WatchedKind>('deployments', 'pods'), fc.integer({ min: 2, max: 999 }), fc.boolean())
  .map(([watch, rv, end]): GeneratedLine => ({
    kind: 'valid',
    watch,
    text: JSON.stringify({
      type: 'BOOKMARK',
      object: {
        kind: watch === 'pods' ? 'Pod' : 'Deployment',
        metadata: { resourceVersion: String(rv), ...(end ? { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } : {}) },
      },
    }),
  }));

const JUNK_TEXT = [
  'null',
  '[]',
  '42',
  '"a string"',
  'true',
  '{}',
  '{"type":"ADDED"}',
  '{"object":{}}',
  '{"type":5,"object":{}}',
  '{"type":"ADDED","object":null}',
  '{"type":"ADDED","object":"x"}',
  '{"type":"ADDED","object":[1]}',
  '{"type":"NOPE","object":{}}',
  '{"type":"added","object":{}}',
  '{',
  '}{',
  '<html>502 Bad Gateway</html>',
  '\u0000\u0001\u0002',
  '{"type":"ADDED","object":{"metadata":"x"}}',
  '{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":7}}}',
  '{"type":"MODIFIED","object":{"metadata":{"name":["web"]}}}',
];

const junkLine = fc
  .tuple(
    fc.constantFrom<WatchedKind>('deployments', 'pods'),
    fc.oneof(
      fc.constantFrom(...JUNK_TEXT),
      fc.string({ maxLength: 40 }).filter((text) => !text.includes('\n') && text.trim() !== ''),
    ),
  )
  .map(([watch, text]): GeneratedLine => ({ kind: 'junk', watch, text }));

const errorEventLine = fc
  .tuple(
    fc.constantFrom<WatchedKind>('deployments', 'pods'),
    fc.oneof(fc.constantFrom<unknown>(410, 500, 401, 403, 429, 422, 0, -1, 'x', null, 99999, 3.5), fc.integer({ min: 100, max: 599 })),
    fc.constantFrom<unknown>('Expired', 'InternalError', 5, null, ['x']),
    fc.constantFrom<unknown>('too old resource version', 'boom\nsecond line', 7, { a: 1 }),
    fc.constantFrom<unknown>(undefined, { causes: 'x' }, { causes: [null, 5, { field: 3 }] }, 'details', { retryAfterSeconds: 'soon' }),
  )
  .map(([watch, code, reason, message, details]): GeneratedLine => ({
    kind: 'error-event',
    watch,
    text: JSON.stringify({
      type: 'ERROR',
      object: { kind: 'Status', code, reason, message, ...(details === undefined ? {} : { details }) },
    }),
  }));

function mutatedLine(kind: 'wrong-type' | 'missing-field') {
  return fc
    .tuple(
      fc.oneof(
        fc.tuple(
          fc.constant<WatchedKind>('deployments'),
          fc.constantFrom(...DEPLOYMENT_STATES).map((state) => deploymentObject(state, 500)),
        ),
        fc.tuple(
          fc.constant<WatchedKind>('pods'),
          fc.constantFrom(...POD_STATES).map((state) => podObject(state, 500, 'a1')),
        ),
      ),
      eventType,
      fc.nat(),
      fc.constantFrom(...WRONG_VALUES),
    )
    .map(([[watch, object], type, pick, value]): GeneratedLine => {
      const all = paths(object);
      const path = all[pick % all.length]!;
      return { kind, watch, text: JSON.stringify({ type, object: withValueAt(object, path, value, kind === 'missing-field') }) };
    });
}

const line = fc.oneof(
  { weight: 4, arbitrary: fc.oneof(validDeploymentLine, validPodLine) },
  { weight: 1, arbitrary: bookmarkLine },
  { weight: 2, arbitrary: junkLine },
  { weight: 2, arbitrary: mutatedLine('wrong-type') },
  { weight: 2, arbitrary: mutatedLine('missing-field') },
  { weight: 1, arbitrary: errorEventLine },
);

const ending = fc.constantFrom<'clean' | 'cut' | 'truncated'>('clean', 'cut', 'truncated');
const splits = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });

export const watchStreams: fc.Arbitrary<GeneratedStream> = fc.record({
  lines: fc.array(line, { minLength: 1, maxLength: 12 }),
  // Nodes, claims, classes, events, Services and EndpointSlices are never watched by these
  // provisionings (no storage, no ports): their entries are fixed.
  ending: fc.record({
    deployments: ending,
    pods: ending,
    nodes: fc.constant('clean' as const),
    persistentvolumeclaims: fc.constant('clean' as const),
    storageclasses: fc.constant('clean' as const),
    runtimeclasses: fc.constant('clean' as const),
    events: fc.constant('clean' as const),
    services: fc.constant('clean' as const),
    endpointslices: fc.constant('clean' as const),
    configmaps: fc.constant('clean' as const),
  }),
  splits: fc.record({
    deployments: splits,
    pods: splits,
    nodes: fc.constant<readonly number[]>([]),
    persistentvolumeclaims: fc.constant<readonly number[]>([]),
    storageclasses: fc.constant<readonly number[]>([]),
    runtimeclasses: fc.constant<readonly number[]>([]),
    events: fc.constant<readonly number[]>([]),
    services: fc.constant<readonly number[]>([]),
    endpointslices: fc.constant<readonly number[]>([]),
    configmaps: fc.constant<readonly number[]>([]),
  }),
});

/** One watch's body as chunks, per the stream's ending and split points. */
export function bodyChunks(stream: GeneratedStream, watch: WatchedKind): string[] {
  const lines = stream.lines.filter((l) => l.watch === watch).map((l) => l.text);
  let text = lines.map((l) => `${l}\n`).join('');
  // Truncated: the last line loses its newline and some of its end.
  if (stream.ending[watch] === 'truncated' && text.length > 1) text = text.slice(0, Math.max(1, Math.floor(text.length * 0.7)) - 1);
  const cuts = [...new Set(stream.splits[watch].map((f) => Math.floor(f * text.length)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    if (cut > from) chunks.push(text.slice(from, cut));
    from = Math.max(from, cut);
  }
  chunks.push(text.slice(from));
  return chunks.filter((chunk) => chunk.length > 0);
}

// ---- the scripted client ---------------------------------------------------------------

/** After the generated stream: the healthy state, as a streaming list or as changes. */
function recoveryLines(kind: WatchedKind, params: WatchParams): string[] {
  const object = kind === 'deployments' ? deploymentObject('complete', 2000) : podObject('ready', 2000, 'a1');
  if (!params.sendInitialEvents) return [JSON.stringify({ type: 'MODIFIED', object })];
  const end = {
    type: 'BOOKMARK',
    object: { metadata: { resourceVersion: '2000', annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } },
  };
  return [JSON.stringify({ type: 'ADDED', object }), JSON.stringify(end)];
}

/**
 * A KubernetesClient whose first watch of each kind plays the generated body through the
 * transport's WatchStreamReader, one chunk per millisecond of `scheduler` time; later
 * watches serve the healthy state and stay open. Lists serve the healthy state.
 */
const notUsed = (): Promise<never> => Promise.reject(new Error('not used'));

export class ScriptedWatchClient implements KubernetesClient {
  readonly namespace = 'default';
  readonly server = 'https://scripted.invalid';
  readonly watches: Record<WatchedKind, number> = {
    deployments: 0,
    pods: 0,
    nodes: 0,
    persistentvolumeclaims: 0,
    storageclasses: 0,
    runtimeclasses: 0,
    events: 0,
    services: 0,
    endpointslices: 0,
    configmaps: 0,
  };
  /** Watches the reader ended with an error while their consumer still listened. */
  faultsRaised = 0;

  constructor(
    private readonly stream: GeneratedStream,
    private readonly scheduler: SchedulerLike,
  ) {}

  // Single objects, the cluster checks and the lifecycle writes: not used by the watch property test.
  readonly create = notUsed;
  readonly read = notUsed;
  readonly version = notUsed;
  readonly selfSubjectReview = notUsed;
  readonly selfSubjectAccessReview = notUsed;
  readonly readNamespace = notUsed;
  readonly listLimitRanges = notUsed;
  readonly listResourceQuotas = notUsed;
  readonly patch = notUsed;
  readonly delete = notUsed;
  readonly connection = { kubeconfigPath: '(scripted)', context: 'scripted', server: this.server, tlsVerify: true, customCa: false };

  async list<K extends WatchedKind>(kind: K): Promise<ObjectList<KindMap[K]>> {
    const object = kind === 'deployments' ? deploymentObject('complete', 2000) : podObject('ready', 2000, 'a1');
    return { items: [object], resourceVersion: '2000' };
  }

  watch<K extends WatchedKind>(kind: K, _namespace: string, params: WatchParams, handlers: WatchHandlers<KindMap[K]>): WatchHandle {
    this.watches[kind] += 1;
    const first = this.watches[kind] === 1;
    const chunks = first ? bodyChunks(this.stream, kind) : recoveryLines(kind, params).map((text) => `${text}\n`);
    const reader = new WatchStreamReader(
      this.server,
      { verb: 'watch', resource: kind, namespace: this.namespace },
      {
        onEvent: (type, object) => handlers.onEvent(type, object),
        onClose: (error) => {
          if (aborted) return;
          if (error) this.faultsRaised += 1;
          handlers.onClose(error);
        },
      },
    );
    const pending: Subscription[] = [];
    let aborted = false;
    chunks.forEach((chunk, index) => {
      pending.push(this.scheduler.schedule(() => reader.push(chunk), index + 1));
    });
    if (first) {
      const complete = this.stream.ending[kind] !== 'cut';
      pending.push(this.scheduler.schedule(() => reader.end(complete), chunks.length + 1));
    }
    return {
      abort: () => {
        aborted = true;
        pending.forEach((action) => action.unsubscribe());
      },
    };
  }
}
