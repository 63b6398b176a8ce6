// Child process of `npm run bench:statuses`: one statuses$() subscription over a namespace
// of N managed workloads, through the run's counting proxy. It records every status event
// with the time it arrived and what triggered it, samples the heap once every workload
// has been reported, and tells the parent when every workload has reached a state.
//
// To attribute an event to the watch event behind it, the client handed to statuses$ is
// the library's KubernetesApi with each watch's handlers wrapped: a Deployment event
// notes (name, arrival time, the process's CPU time), a Pod event notes its workload. The
// wrapper reads the clock and the CPU time and writes one Map entry per watch event.
// The library's diagnostics channel counts the statuses statuses$ computes, so each watch
// event's cost shows as evaluations per event (a status is judged once per event).
import { subscribe } from 'node:diagnostics_channel';
import { readFileSync, writeFileSync } from 'node:fs';
import type { StatusEvent, WatchedKind, WorkloadStatusValue } from '../../src/index.js';
import { loadLibrary, withWatchEvents } from './child-harness.js';
import { hrNow } from './stats.js';
import type { ChildMessage, Emission, ParentMessage, StatusesChildInput, StatusesChildResult } from './statuses-protocol.js';

const input = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as StatusesChildInput;
const send = (message: ChildMessage): void => {
  process.send?.(message);
};
const library = await loadLibrary(input.impl);
let requestsSent = 0;
const api = library.KubernetesApi.fromConfig({
  kubeconfigPath: input.kubeconfigPath,
  namespace: input.namespace,
  onRequest: () => (requestsSent += 1),
});

const CONTAINER_ID_LABEL = library.CONTAINER_ID_LABEL;
let watchEvents = 0;
let notices = 0;
let evaluations = 0;
// The channel's name (src/workload/reads/status-board.ts): what the library publishes to it.
subscribe('kube-provisioner:status-evaluations', (message) => {
  if ((message as { event?: string }).event === 'evaluation') evaluations += 1;
  else notices += 1;
});
/** The last watch event that concerned each workload, by Deployment name. */
const lastTrigger = new Map<string, { kind: 'deployment' | 'pod'; at: number; cpuMicros: number }>();

/** This process's CPU time so far (user + system, µs): a slow event with little CPU was waiting for a core. */
function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}
/** Deployment names by container-id, learnt from the Deployment events. */
const nameByContainerId = new Map<string, string>();

/** Notes which workload each watch event concerns, then hands it on unchanged. */
function noteEvent(kind: WatchedKind, object: { metadata?: { name?: string; labels?: Record<string, string> } }): void {
  const at = hrNow();
  const metadata = object.metadata;
  if (kind === 'deployments' && metadata?.name) {
    lastTrigger.set(metadata.name, { kind: 'deployment', at, cpuMicros: cpuMicros() });
    const id = metadata.labels?.[CONTAINER_ID_LABEL];
    if (id) nameByContainerId.set(id, metadata.name);
  } else if (kind === 'pods') {
    const name = nameByContainerId.get(metadata?.labels?.[CONTAINER_ID_LABEL] ?? '');
    if (name) lastTrigger.set(name, { kind: 'pod', at, cpuMicros: cpuMicros() });
  }
}

// Every request goes to the library's client as it is; only watch handlers are wrapped.
const client = withWatchEvents(api, (kind, type, object, deliver) => {
  if (type !== 'BOOKMARK') watchEvents += 1;
  noteEvent(kind, object);
  deliver();
});

const emissions: Emission[] = [];
const last = new Map<string, WorkloadStatusValue>();
let repeats = 0;
let awaited: string | undefined;
const allIn = (state: string): boolean => last.size >= input.count && [...last.values()].every((value) => value.state === state);

const collect = (): number => {
  const gc = globalThis.gc;
  if (typeof gc !== 'function') return 0;
  const started = process.cpuUsage();
  gc();
  gc();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
};

collect();
const heapBaselineBytes = process.memoryUsage().heapUsed;
const subscribedAt = hrNow();
const cpuStart = process.cpuUsage();
let gcCpuMs = 0;
let initialSyncMs = Number.NaN;
let heapSampleBytes = Number.NaN;

const subscription = library.statuses$(client).subscribe({
  next: (event: StatusEvent) => {
    const at = hrNow();
    const trigger = lastTrigger.get(event.name);
    emissions.push({
      name: event.name,
      at,
      state: event.status.state,
      resourceVersion: event.resourceVersion,
      trigger: trigger?.kind ?? 'none',
      ...(trigger?.kind === 'deployment' ? { receivedAt: trigger.at, cpuMsSinceReceived: (cpuMicros() - trigger.cpuMicros) / 1000 } : {}),
    });
    const before = last.get(event.name);
    if (before && library.sameWorkloadStatus(before, event.status)) repeats += 1;
    last.set(event.name, event.status);
    if (Number.isNaN(initialSyncMs) && last.size >= input.count) {
      initialSyncMs = at - subscribedAt;
      // After the current burst: a full GC, then the heap with every workload watched.
      setImmediate(() => {
        gcCpuMs += collect();
        heapSampleBytes = process.memoryUsage().heapUsed;
        send({ type: 'synced', initialSyncMs, heapBytesPerWorkload: (heapSampleBytes - heapBaselineBytes) / input.count });
      });
    }
    if (awaited !== undefined && allIn(awaited)) {
      send({ type: 'reached', state: awaited });
      awaited = undefined;
    }
  },
  error: (error: unknown) => {
    process.stderr.write(`statuses$ failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
    process.exitCode = 1;
    process.disconnect?.();
  },
});

process.on('message', (message: ParentMessage) => {
  if (message.type === 'await') {
    awaited = message.state;
    if (allIn(message.state)) {
      send({ type: 'reached', state: message.state });
      awaited = undefined;
    }
    return;
  }
  const cpu = process.cpuUsage(cpuStart);
  subscription.unsubscribe();
  setTimeout(() => {
    const result: StatusesChildResult = {
      emissions,
      initialSyncMs,
      heapBytesPerWorkload: (heapSampleBytes - heapBaselineBytes) / input.count,
      heapBaselineBytes,
      heapSampleBytes,
      gcAvailable: typeof globalThis.gc === 'function',
      repeats,
      cpuMs: (cpu.user + cpu.system) / 1000 - gcCpuMs,
      requestsSent,
      watchEvents,
      notices,
      evaluations,
      activeHandlesAfter: process.getActiveResourcesInfo().filter((name) => /TCP|TLS|Timeout|Immediate/.test(name)),
    };
    writeFileSync(input.resultPath, JSON.stringify(result));
    send({ type: 'done' });
    // Nothing else keeps the process alive: the parent checks that it exits on its own.
    process.disconnect?.();
  }, 300);
});
