// npm run bench:micro: the pure pipeline with synthetic events, no cluster. One
// SharedInformer is fed by a Subject (a fake reflector stream, as the unit tests do),
// keyed and projected as provision()'s Deployment informer (its transform is measured); W
// waiters each run awaitRollout() on their own Deployment name; a fixed number of
// MODIFIED events (InProgress statuses, so every waiter stays subscribed) go to random
// keys. Measured per W: events per second, CPU microseconds per event, heap bytes per
// waiter. For contrast (not the library's design): the same waiters fed by a broadcast
// Subject that every waiter filters by name, i.e. O(W) work per event. As diagnostics,
// the informer is also run with W waiters subscribed but events going to only 100 of the
// keys, or to ONE key (a Deployment or Pod that keeps changing while thousands of others
// are cached): the memory touched per event is then the same for every W, which tells
// work that grows with W apart from cache-locality and GC effects of a bigger live heap.
//
// Flags (or environment):
//   --waiters 1,100,10000   BENCH_MICRO_WAITERS
//   --events 200000         BENCH_MICRO_EVENTS    events per measured repetition
//   --reps 5                BENCH_MICRO_REPS      repetitions (the median is reported)
//   --no-contrast                                 skip the broadcast contrast and the one-key run
//   --out bench/results     BENCH_OUT
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { V1Deployment as WireDeployment } from '@kubernetes/client-node';
import type { V1Deployment } from '../src/kube/objects.js';
import { NEVER, Subject, filter, map, type Observable, type Subscription } from 'rxjs';
import type { ReflectorEvent } from '../src/informers/reflector.js';
import type * as SharedInformerModule from '../src/informers/shared-informer.js';
import type * as AwaitRolloutModule from '../src/rollout/await-rollout.js';
import type * as DeploymentMemberModule from '../src/members/deployment/member.js';
import { machineInfo, machineMarkdown } from './lib/machine.js';
import { fmt, markdownTable, median } from './lib/stats.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// The library's modules from src/, compiled by tsx's esbuild as the build's bundle is (the
// published dist/ is one bundle that does not export these internals).
const fromSrc = (path: string): Promise<unknown> => import(resolve(REPO_ROOT, 'src', path));
const { SharedInformer } = (await fromSrc('informers/shared-informer.ts')) as typeof SharedInformerModule;
const { awaitRollout } = (await fromSrc('rollout/await-rollout.ts')) as typeof AwaitRolloutModule;
const { DEPLOYMENTS_BY_NAME } = (await fromSrc('members/deployment/member.ts')) as typeof DeploymentMemberModule;

const { values } = parseArgs({
  options: {
    waiters: { type: 'string' },
    events: { type: 'string' },
    reps: { type: 'string' },
    'no-contrast': { type: 'boolean' },
    out: { type: 'string' },
  },
  strict: true,
});
const env = process.env;
const waiterCounts = (values.waiters ?? env.BENCH_MICRO_WAITERS ?? '1,100,10000').split(',').map((value) => Number.parseInt(value, 10));
const eventCount = Number(values.events ?? env.BENCH_MICRO_EVENTS ?? 200_000);
const reps = Number(values.reps ?? env.BENCH_MICRO_REPS ?? 5);
const contrast = values['no-contrast'] !== true;
const outDir = resolve(REPO_ROOT, values.out ?? env.BENCH_OUT ?? 'bench/results');
/** The broadcast contrast costs O(W) per event: fewer events keep it short. */
const CONTRAST_EVENTS = Math.min(eventCount, 5_000);

// A real full GC even when not started with --expose-gc.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const collect = (): void => {
  gc();
  gc();
};

// Garbage-collection pauses, to tell the pipeline's own per-event work from GC work that
// grows with the live heap (W cached objects and waiters).
const gcEntries: PerformanceEntry[] = [];
const gcObserver = new PerformanceObserver((list) => gcEntries.push(...list.getEntries()));
gcObserver.observe({ entryTypes: ['gc'] });
const nextTick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

// ---- synthetic Deployments ---------------------------------------------------------------

const NAMESPACE = 'bench';
/** InProgress shapes a real rollout passes through; each gives a different progress line. */
const PHASES = 4;

function deploymentName(index: number): string {
  return `ct-${index}`;
}

function uidOf(index: number): string {
  return `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
}

/** JSON.parse leaves RFC 3339 strings where client-node's types say Date. */
const timestamp = (text: string): Date => text as unknown as Date;

/**
 * A Deployment as a watch delivers it (JSON.parse of the API server's response): what
 * buildDeployment() sends plus the server's defaults, metadata.managedFields of our
 * create and of the controller's status updates, timestamps as strings, and the status
 * the controller writes in phase `phase` of a rollout.
 */
function deployment(index: number, phase: number, resourceVersion: number): WireDeployment {
  const name = deploymentName(index);
  const containerId = String(index);
  const observed = phase === 0 ? 0 : 1;
  const updated = phase >= 2 ? 1 : 0;
  const ready = phase >= 3 ? 1 : 0;
  const labels = (): Record<string, string> => ({
    'app.kubernetes.io/managed-by': 'kube-provisioner',
    'app.kubernetes.io/name': name,
    'org.mieweb.opensource-server.container-id': containerId,
    'org.mieweb.opensource-server.managed': 'true',
    'org.mieweb.opensource-server.node-id': 'node-1',
  });
  const labelFields = (): Record<string, object> => ({
    '.': {},
    'f:app.kubernetes.io/managed-by': {},
    'f:app.kubernetes.io/name': {},
    'f:org.mieweb.opensource-server.container-id': {},
    'f:org.mieweb.opensource-server.managed': {},
    'f:org.mieweb.opensource-server.node-id': {},
  });
  const created = timestamp('2025-01-15T10:00:00Z');
  const updatedAt = timestamp(`2025-01-15T10:00:${String(phase * 3).padStart(2, '0')}Z`);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: NAMESPACE,
      uid: uidOf(index),
      resourceVersion: String(resourceVersion),
      generation: 1,
      creationTimestamp: created,
      labels: labels(),
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      managedFields: [
        {
          manager: 'kube-provisioner',
          operation: 'Update',
          apiVersion: 'apps/v1',
          time: created,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': labelFields() },
            'f:spec': {
              'f:progressDeadlineSeconds': {},
              'f:replicas': {},
              'f:revisionHistoryLimit': {},
              'f:selector': {},
              'f:strategy': { 'f:type': {} },
              'f:template': {
                'f:metadata': { 'f:labels': labelFields() },
                'f:spec': {
                  'f:automountServiceAccountToken': {},
                  'f:containers': {
                    'k:{"name":"manager"}': {
                      '.': {},
                      'f:env': { '.': {}, 'k:{"name":"MANAGER_URL"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
                      'f:image': {},
                      'f:imagePullPolicy': {},
                      'f:name': {},
                      'f:resources': {
                        '.': {},
                        'f:limits': { '.': {}, 'f:cpu': {}, 'f:memory': {} },
                        'f:requests': { '.': {}, 'f:cpu': {}, 'f:memory': {} },
                      },
                      'f:terminationMessagePath': {},
                      'f:terminationMessagePolicy': {},
                    },
                  },
                  'f:dnsPolicy': {},
                  'f:enableServiceLinks': {},
                  'f:hostname': {},
                  'f:restartPolicy': {},
                  'f:schedulerName': {},
                  'f:securityContext': {},
                  'f:terminationGracePeriodSeconds': {},
                },
              },
            },
          },
        },
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'apps/v1',
          time: updatedAt,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} } },
            'f:status': {
              'f:availableReplicas': {},
              'f:conditions': {
                '.': {},
                'k:{"type":"Available"}': {
                  '.': {},
                  'f:lastTransitionTime': {},
                  'f:lastUpdateTime': {},
                  'f:message': {},
                  'f:reason': {},
                  'f:status': {},
                  'f:type': {},
                },
                'k:{"type":"Progressing"}': {
                  '.': {},
                  'f:lastTransitionTime': {},
                  'f:lastUpdateTime': {},
                  'f:message': {},
                  'f:reason': {},
                  'f:status': {},
                  'f:type': {},
                },
              },
              'f:observedGeneration': {},
              'f:readyReplicas': {},
              'f:replicas': {},
              'f:unavailableReplicas': {},
              'f:updatedReplicas': {},
            },
          },
          subresource: 'status',
        },
      ],
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { 'org.mieweb.opensource-server.container-id': containerId } },
      template: {
        metadata: { labels: labels() },
        spec: {
          containers: [
            {
              name: 'manager',
              image: 'registry.example.com/manager:1.0',
              env: [{ name: 'MANAGER_URL', value: 'https://manager.example.com' }],
              resources: { limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: '1', memory: '512Mi' } },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              imagePullPolicy: 'IfNotPresent',
            },
          ],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          automountServiceAccountToken: false,
          hostname: name,
          securityContext: {},
          schedulerName: 'default-scheduler',
          enableServiceLinks: false,
        },
      },
      strategy: { type: 'Recreate' },
      revisionHistoryLimit: 2,
      progressDeadlineSeconds: 600,
    },
    status: {
      observedGeneration: observed,
      replicas: updated,
      updatedReplicas: updated,
      readyReplicas: ready,
      availableReplicas: 0,
      unavailableReplicas: updated,
      conditions: [
        {
          type: 'Available',
          status: 'False',
          lastUpdateTime: created,
          lastTransitionTime: created,
          reason: 'MinimumReplicasUnavailable',
          message: 'Deployment does not have minimum availability.',
        },
        {
          type: 'Progressing',
          status: 'True',
          lastUpdateTime: updatedAt,
          lastTransitionTime: created,
          reason: 'ReplicaSetUpdated',
          message: `ReplicaSet "${name}-7c9f5d" is progressing.`,
        },
      ],
    },
  };
}

/** A small deterministic PRNG (mulberry32), so every run pushes the same key sequence. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- one measurement ------------------------------------------------------------------

interface Measurement {
  readonly eventsPerSecond: number;
  readonly cpuMicrosPerEvent: number;
  readonly heapBytesPerWaiter: number;
  /** Main-thread GC pause time during the measured events (building included), per event. */
  readonly gcMicrosPerEvent: number;
  /** Progress events the waiters emitted during the measured events. */
  readonly progressEvents: number;
  readonly waitersStillSubscribed: number;
}

type Feed = (
  waiters: number,
  subscribe: (index: number, deployments$: Observable<readonly V1Deployment[]>) => Subscription,
) => { readonly push: (event: ReflectorEvent<V1Deployment>) => void; readonly consumers: () => number; readonly close: () => void };

/** The library's way: one SharedInformer, routed by name (a Map lookup per event). */
const sharedInformerFeed: Feed = (waiters, subscribe) => {
  const events = new Subject<ReflectorEvent<V1Deployment>>();
  // Keyed and projected as provision() does.
  const informer = new SharedInformer<V1Deployment>(events, {
    routingKey: DEPLOYMENTS_BY_NAME.routingKey,
    transform: DEPLOYMENTS_BY_NAME.transform,
  });
  const subscriptions: Subscription[] = [];
  for (let index = 0; index < waiters; index += 1) {
    const name = deploymentName(index);
    subscriptions.push(subscribe(index, informer.observe(name)));
  }
  return {
    push: (event) => events.next(event),
    consumers: () => informer.consumers,
    close: () => subscriptions.forEach((subscription) => subscription.unsubscribe()),
  };
};

/** For contrast only: every waiter sees every event and filters by name (O(W) per event). */
const broadcastFeed: Feed = (waiters, subscribe) => {
  const events = new Subject<ReflectorEvent<V1Deployment>>();
  const subscriptions: Subscription[] = [];
  for (let index = 0; index < waiters; index += 1) {
    const name = deploymentName(index);
    const own$ = events.pipe(
      filter(
        (event): event is Extract<ReflectorEvent<V1Deployment>, { object: V1Deployment }> =>
          event.type !== 'listed' && event.object.metadata?.name === name,
      ),
      map((event) => [event.object] as readonly V1Deployment[]),
    );
    subscriptions.push(subscribe(index, own$));
  }
  return {
    push: (event) => events.next(event),
    consumers: () => events.observers.length,
    close: () => subscriptions.forEach((subscription) => subscription.unsubscribe()),
  };
};

/**
 * How events reach the informer: as objects, or as watch lines the informer's transport
 * decodes (JSON.parse, fresh strings and all), the per-event cost a process pays.
 */
type EventInput = 'objects' | 'watch-lines';

async function measure(
  feed: Feed,
  waiters: number,
  events: number,
  seed: number,
  keys: KeyPattern,
  input: EventInput = 'objects',
): Promise<Measurement> {
  collect();
  const heapBefore = process.memoryUsage().heapUsed;
  let progressEvents = 0;
  let ended = 0;
  const initial: V1Deployment[] = [];
  for (let index = 0; index < waiters; index += 1) initial.push(deployment(index, 0, index + 1));
  const { push, consumers, close } = feed(waiters, (index, deployments$) =>
    awaitRollout(
      { namespace: NAMESPACE, name: deploymentName(index), uid: uidOf(index), providerId: `${NAMESPACE}/${deploymentName(index)}` },
      deployments$,
      NEVER,
    ).subscribe({ next: () => (progressEvents += 1), error: () => (ended += 1), complete: () => (ended += 1) }),
  );
  // The informer's first list: the cache now holds every waiter's object.
  push({ type: 'listed', items: initial, resourceVersion: String(waiters) });
  initial.length = 0;
  collect();
  const heapBytesPerWaiter = (process.memoryUsage().heapUsed - heapBefore) / waiters;

  // The event stream: random keys, each key cycling through its InProgress phases. Each
  // event is a fresh object, as a watch's JSON.parse makes one; building it is measured
  // on its own (same keys, nothing pushed) and subtracted, so the figures are the
  // pipeline's own.
  const random = prng(seed);
  const warmup = Math.min(events, 20_000);
  const keySequence = new Uint32Array(events + warmup);
  for (let index = 0; index < keySequence.length; index += 1)
    keySequence[index] = keys === 'one-key' ? 0 : Math.floor(random() * (keys === 'hundred-keys' ? Math.min(HUNDRED, waiters) : waiters));
  const phaseOf = new Uint8Array(waiters);
  const nextEvent = (index: number): { type: 'MODIFIED'; object: V1Deployment } => {
    const key = keySequence[index]!;
    const phase = (phaseOf[key]! + 1) % PHASES;
    phaseOf[key] = phase;
    return { type: 'MODIFIED', object: deployment(key, phase, waiters + index + 1) };
  };
  // Watch lines: building one includes serialising it, so only decoding is left in the
  // difference between the build-alone and build-and-push passes.
  const pushBuilt =
    input === 'objects'
      ? (index: number): void => push(nextEvent(index))
      : (index: number): void => {
          const line = JSON.stringify(nextEvent(index).object);
          push({ type: 'MODIFIED', object: JSON.parse(line) as V1Deployment });
        };
  const buildOnly = input === 'objects' ? nextEvent : (index: number): string => JSON.stringify(nextEvent(index).object);
  for (let index = 0; index < warmup; index += 1) pushBuilt(index);
  progressEvents = 0;

  // Chunks of events, each built twice: once alone (timed and thrown away), then again
  // and pushed (timed). Interleaving the two keeps drifts between them (GC state, other
  // processes, clock speed) from landing on one side, so the difference is steadier.
  let buildMicros = 0;
  let totalMicros = 0;
  let buildElapsedMs = 0;
  let totalElapsedMs = 0;
  let sink: unknown;
  const windows: [number, number][] = [];
  for (let chunkStart = warmup; chunkStart < keySequence.length; chunkStart += MEASURE_CHUNK) {
    const chunkEnd = Math.min(keySequence.length, chunkStart + MEASURE_CHUNK);
    const phasesBefore = phaseOf.slice();
    const buildCpuBefore = process.cpuUsage();
    const buildStartedAt = performance.now();
    for (let index = chunkStart; index < chunkEnd; index += 1) sink = buildOnly(index);
    buildElapsedMs += performance.now() - buildStartedAt;
    const buildCpu = process.cpuUsage(buildCpuBefore);
    buildMicros += buildCpu.user + buildCpu.system;
    phaseOf.set(phasesBefore);

    const cpuBefore = process.cpuUsage();
    const startedAt = performance.now();
    for (let index = chunkStart; index < chunkEnd; index += 1) pushBuilt(index);
    const elapsed = performance.now() - startedAt;
    const cpu = process.cpuUsage(cpuBefore);
    totalElapsedMs += elapsed;
    totalMicros += cpu.user + cpu.system;
    windows.push([startedAt, startedAt + elapsed]);
  }
  if (sink === undefined && events > 0) throw new Error('no events built');
  const elapsedMs = Math.max(1e-3, totalElapsedMs - buildElapsedMs);
  const pipelineMicros = totalMicros - buildMicros;
  // GC entries are delivered after the synchronous loop; keep those inside its window.
  await nextTick();
  const gcMs = gcEntries
    .filter((entry) => windows.some(([from, to]) => entry.startTime >= from && entry.startTime <= to))
    .reduce((sum, entry) => sum + entry.duration, 0);
  gcEntries.length = 0;

  const waitersStillSubscribed = consumers();
  close();
  if (ended > 0) throw new Error(`${ended} waiter(s) ended during the run: the events must keep them InProgress`);
  return {
    eventsPerSecond: events / (elapsedMs / 1000),
    cpuMicrosPerEvent: pipelineMicros / events,
    heapBytesPerWaiter,
    gcMicrosPerEvent: (gcMs * 1000) / events,
    progressEvents,
    waitersStillSubscribed,
  };
}

/** Events per measured repetition when each is decoded from a watch line. */
const WIRE_EVENTS = 100_000;

/** Events per chunk of the interleaved build-alone / build-and-push measurement. */
const MEASURE_CHUNK = 10_000;

/** Which keys the events go to: all W at random, one key, or 100 keys (of the W) at random. */
type KeyPattern = 'random' | 'one-key' | 'hundred-keys';
const HUNDRED = 100;
const KEY_LABELS: Record<KeyPattern, string> = {
  random: 'all W keys, random',
  'hundred-keys': `diagnostic: ${HUNDRED} of the W keys, random`,
  'one-key': 'diagnostic: one key',
};

interface Row {
  readonly design: 'shared-informer' | 'broadcast-contrast';
  readonly keys: KeyPattern;
  readonly input: EventInput;
  readonly waiters: number;
  readonly events: number;
  readonly reps: number;
  readonly eventsPerSecond: number;
  readonly cpuMicrosPerEvent: number;
  readonly cpuMicrosPerEventAll: readonly number[];
  readonly heapBytesPerWaiter: number;
  readonly gcMicrosPerEvent: number;
  readonly progressEventsPerEvent: number;
  readonly waitersStillSubscribed: number;
}

async function run(
  design: Row['design'],
  feed: Feed,
  waiters: number,
  events: number,
  keys: KeyPattern,
  input: EventInput = 'objects',
): Promise<Row> {
  const results: Measurement[] = [];
  for (let rep = 0; rep < reps; rep += 1) results.push(await measure(feed, waiters, events, 1234 + rep, keys, input));
  const row: Row = {
    design,
    keys,
    input,
    waiters,
    events,
    reps,
    eventsPerSecond: median(results.map((result) => result.eventsPerSecond)),
    cpuMicrosPerEvent: median(results.map((result) => result.cpuMicrosPerEvent)),
    cpuMicrosPerEventAll: results.map((result) => Math.round(result.cpuMicrosPerEvent * 1000) / 1000),
    heapBytesPerWaiter: median(results.map((result) => result.heapBytesPerWaiter)),
    gcMicrosPerEvent: median(results.map((result) => result.gcMicrosPerEvent)),
    progressEventsPerEvent: median(results.map((result) => result.progressEvents / events)),
    waitersStillSubscribed: results[0]?.waitersStillSubscribed ?? 0,
  };
  process.stderr.write(
    `[micro] ${design}${input === 'watch-lines' ? ' from watch lines' : ''} (${KEY_LABELS[keys]}) W=${waiters}: ${fmt(row.eventsPerSecond, 0)} events/s, ${fmt(row.cpuMicrosPerEvent, 2)} µs CPU/event ` +
      `(reps ${row.cpuMicrosPerEventAll.join(', ')}; GC ${fmt(row.gcMicrosPerEvent, 2)} µs/event), ${fmt(row.heapBytesPerWaiter, 0)} B heap/waiter\n`,
  );
  return row;
}

/** Median CPU µs to JSON.parse one watch line carrying a full Deployment, and its size. */
function decodeCost(): { micros: number; lineBytes: number } {
  const lines = Array.from({ length: 2_000 }, (_, index) =>
    JSON.stringify({ type: 'MODIFIED', object: deployment(index, 1 + (index % 3), 1_000 + index) }),
  );
  const passes = 10;
  const samples: number[] = [];
  let sink = 0;
  for (let rep = 0; rep < reps + 1; rep += 1) {
    const before = process.cpuUsage();
    for (let pass = 0; pass < passes; pass += 1) {
      for (const line of lines) sink += (JSON.parse(line) as { type: string }).type.length;
    }
    const used = process.cpuUsage(before);
    if (rep > 0) samples.push((used.user + used.system) / (passes * lines.length)); // rep 0 warms up
  }
  if (sink === 0) throw new Error('decoding produced nothing');
  return { micros: median(samples), lineBytes: Buffer.byteLength(lines[0] ?? '') };
}

async function main(): Promise<void> {
  const machine = machineInfo();
  // One discarded pass first, so the first measured W does not pay for JIT warm-up.
  await measure(sharedInformerFeed, 100, Math.min(eventCount, 50_000), 1, 'random');
  const rows: Row[] = [];
  for (const waiters of waiterCounts) rows.push(await run('shared-informer', sharedInformerFeed, waiters, eventCount, 'random'));
  // Decoding is most of each event's cost: fewer events keep these runs short.
  const wireEvents = Math.min(eventCount, WIRE_EVENTS);
  for (const waiters of waiterCounts)
    rows.push(await run('shared-informer', sharedInformerFeed, waiters, wireEvents, 'random', 'watch-lines'));
  if (contrast) {
    for (const waiters of waiterCounts.filter((count) => count > HUNDRED)) {
      rows.push(await run('shared-informer', sharedInformerFeed, waiters, eventCount, 'hundred-keys'));
    }
    // Few events only where a run is slow (O(W) per event); elsewhere as many as the main rows.
    const eventsFor = (waiters: number, slow: boolean): number => (slow && waiters > HUNDRED ? CONTRAST_EVENTS : eventCount);
    for (const waiters of waiterCounts)
      rows.push(await run('shared-informer', sharedInformerFeed, waiters, eventsFor(waiters, false), 'one-key'));
    for (const waiters of waiterCounts)
      rows.push(await run('broadcast-contrast', broadcastFeed, waiters, eventsFor(waiters, true), 'random'));
  }
  gcObserver.disconnect();

  const extremes = (input: EventInput): { smallest: Row; largest: Row } => {
    const shared = rows.filter((row) => row.design === 'shared-informer' && row.keys === 'random' && row.input === input);
    return {
      smallest: shared.reduce((a, b) => (b.waiters < a.waiters ? b : a)),
      largest: shared.reduce((a, b) => (b.waiters > a.waiters ? b : a)),
    };
  };
  const judge = (input: EventInput, what: string) => {
    const { smallest, largest } = extremes(input);
    const ratio = largest.cpuMicrosPerEvent / smallest.cpuMicrosPerEvent;
    return {
      target: `per-event CPU within 2x from ${smallest.waiters} to ${largest.waiters} waiters, ${what}`,
      met: ratio <= 2,
      ratio,
      evidence: `${fmt(smallest.cpuMicrosPerEvent, 2)} µs at W=${smallest.waiters} vs ${fmt(largest.cpuMicrosPerEvent, 2)} µs at W=${largest.waiters} (${fmt(ratio, 2)}x)`,
    };
  };
  const targets = [
    judge('objects', 'the pipeline alone (events as objects)'),
    judge('watch-lines', 'as the process pays it (each event decoded from its watch line, then the pipeline)'),
  ];
  // The diagnostics below compare with the pipeline-alone rows.
  const { smallest, largest } = extremes('objects');
  for (const check of targets) process.stderr.write(`[micro] target ${check.met ? 'met' : 'MISSED'}: ${check.target}: ${check.evidence}\n`);

  // What the diagnostic runs say, in numbers.
  const diagnostics: string[] = [];
  const find = (keys: KeyPattern, waiters: number): Row | undefined =>
    rows.find((row) => row.design === 'shared-informer' && row.keys === keys && row.input === 'objects' && row.waiters === waiters);
  const hundred = find('hundred-keys', largest.waiters);
  if (hundred) {
    diagnostics.push(
      `same working set, more waiters: events to ${HUNDRED} keys with W=${largest.waiters} cost ${fmt(hundred.cpuMicrosPerEvent, 2)} µs/event ` +
        `(${fmt(hundred.cpuMicrosPerEvent / smallest.cpuMicrosPerEvent, 2)}x W=${smallest.waiters}); events to all ${largest.waiters} keys cost ${fmt(largest.cpuMicrosPerEvent, 2)} µs/event`,
    );
  }
  const oneSmall = find('one-key', smallest.waiters);
  const oneLarge = find('one-key', largest.waiters);
  if (oneSmall && oneLarge) {
    diagnostics.push(
      `one busy key: ${fmt(oneSmall.cpuMicrosPerEvent, 2)} µs/event with W=${smallest.waiters}, ${fmt(oneLarge.cpuMicrosPerEvent, 2)} µs/event with W=${largest.waiters} ` +
        `(${fmt(oneLarge.cpuMicrosPerEvent / oneSmall.cpuMicrosPerEvent, 2)}x): ${oneLarge.cpuMicrosPerEvent / oneSmall.cpuMicrosPerEvent > 2 ? 'per-event work grows with the number of cached keys' : 'no per-event work grows with W'}`,
    );
  }
  // For scale: what decoding the same event from its watch line costs before it reaches
  // the informer (the transport's JSON.parse), which every design pays once per event.
  const { micros: decodeMicros, lineBytes } = decodeCost();
  diagnostics.push(
    `for scale: decoding one such event from its watch line (JSON.parse, ${fmt(lineBytes / 1024, 1)} KB) costs ${fmt(decodeMicros, 2)} µs; ` +
      `with it, an event costs ${fmt(decodeMicros + smallest.cpuMicrosPerEvent, 2)} µs at W=${smallest.waiters} and ${fmt(decodeMicros + largest.cpuMicrosPerEvent, 2)} µs at W=${largest.waiters} ` +
      `(${fmt((decodeMicros + largest.cpuMicrosPerEvent) / (decodeMicros + smallest.cpuMicrosPerEvent), 2)}x)`,
  );
  for (const line of diagnostics) process.stderr.write(`[micro] ${line}\n`);

  const table = markdownTable(
    [
      'design',
      'events as',
      'event keys',
      'waiters W',
      'events',
      'events/s',
      'CPU µs/event (median)',
      'CPU µs/event per rep',
      'of which GC µs/event',
      'heap B/waiter',
      'progress events per event',
      'still subscribed',
    ],
    rows.map((row) => [
      row.design === 'shared-informer' ? 'SharedInformer + awaitRollout (the library)' : 'broadcast + filter by name (contrast only)',
      row.input === 'objects' ? 'objects' : 'watch lines (decoded)',
      KEY_LABELS[row.keys],
      String(row.waiters),
      String(row.events),
      fmt(row.eventsPerSecond, 0),
      fmt(row.cpuMicrosPerEvent, 2),
      row.cpuMicrosPerEventAll.map((value) => fmt(value, 2)).join(', '),
      fmt(row.gcMicrosPerEvent, 2),
      // A few KB of noise swamp one waiter's share below ~100 waiters.
      row.waiters >= 100 ? fmt(row.heapBytesPerWaiter, 0) : 'n/a (noise)',
      fmt(row.progressEventsPerEvent, 2),
      String(row.waitersStillSubscribed),
    ]),
  );
  const markdown = [
    '# Micro-benchmark: the pipeline without a cluster',
    '',
    'Generated by `npm run bench:micro` (bench/micro.ts). See bench/README.md.',
    '',
    machineMarkdown(machine, {
      options: `waiters=${waiterCounts.join(',')} events=${eventCount} (broadcast contrast above ${HUNDRED} waiters: ${CONTRAST_EVENTS}) reps=${reps}`,
    }),
    '',
    '## Results',
    '',
    table,
    '',
    'One SharedInformer fed by a Subject, keyed by name and caching the projection provision() caches (the transform runs inside the measured CPU); W waiters, each awaitRollout() on its own Deployment; MODIFIED events with InProgress statuses to uniformly random keys (after a warm-up), or all to one key (diagnostic). Each event is a freshly built full Deployment as a watch delivers it (about 4 KB of JSON: managedFields, pod template, server defaults, conditions with timestamps; built as object literals, so constant strings are shared where JSON.parse would copy them); events as watch lines are serialised while being built and decoded (JSON.parse) before being pushed, so they carry fresh strings as watch events do, and their figures include decoding; events are measured in chunks of 10,000, each chunk built once alone (timed, thrown away) and then built again and pushed (timed), and the first time is subtracted from the second. CPU is process.cpuUsage() (all threads, GC included; the GC column is main-thread pause time during the measured loop, building included); heap per waiter is heapUsed after the first list (W cached Deployments and W subscribed waiters) minus before, after a full GC, divided by W (not shown below 100 waiters, where a few KB of noise swamp it).',
    '',
    '## Target',
    '',
    ...targets.map((check) => `- ${check.target}: ${check.met ? 'met' : '**MISSED**'}: ${check.evidence}`),
    '',
    ...(diagnostics.length > 0 ? ['## Diagnostics', '', ...diagnostics.map((line) => `- ${line}`), ''] : []),
  ].join('\n');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'micro.md'), markdown);
  writeFileSync(
    join(outDir, 'micro.json'),
    `${JSON.stringify({ machine, options: { waiterCounts, eventCount, contrastEvents: CONTRAST_EVENTS, reps }, rows, targets, diagnostics }, null, 2)}\n`,
  );
  process.stderr.write(`[micro] wrote ${join(outDir, 'micro.md')} and micro.json\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`[micro] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
