// Child process of `npm run bench:soak`: one long-lived process, as Manager's server is.
// It holds statuses$() over the namespaces the parent names, runs the parent's waves of
// provisionings (create, stop, start, reconfigure, delete, each wave all at once), and on
// request forces a full GC and reports what the process holds: heap, RSS, handles by type,
// file descriptors, live timers, abort listeners, what each shared informer caches, and
// operations not settled. Every operation and statuses$ share one InformerRegistry, so the
// informers are the library's own, as in Manager. Run with --expose-gc.
import { subscribe } from 'node:diagnostics_channel';
import { readdirSync, readFileSync } from 'node:fs';
import type { Subscription } from 'rxjs';
import type { StatusEvent, WatchedKind, WorkloadStatusValue } from '../../src/index.js';
import { describeError, loadLibrary, withWatchEvents } from './child-harness.js';
import type { ChildMessage, ParentMessage, Recorded, Sample, SoakChildInput, WaveItem, WaveOp } from './soak-protocol.js';
import { hrNow } from './stats.js';

// ---- abort listeners on live signals, counted before the library loads ---------------------
// Node offers no count of an AbortSignal's listeners: addEventListener/removeEventListener
// are wrapped to keep one Set per signal, held weakly so that counting keeps nothing alive.
const abortListeners = new WeakMap<AbortSignal, Set<unknown>>();
const signals = new Set<WeakRef<AbortSignal>>();
// Wrapped and re-applied with their own `this` below.
// eslint-disable-next-line @typescript-eslint/unbound-method
const addEventListener = EventTarget.prototype.addEventListener;
// eslint-disable-next-line @typescript-eslint/unbound-method
const removeEventListener = EventTarget.prototype.removeEventListener;
EventTarget.prototype.addEventListener = function (this: EventTarget, ...args: Parameters<EventTarget['addEventListener']>) {
  if (this instanceof AbortSignal && args[0] === 'abort' && args[1]) {
    let set = abortListeners.get(this);
    if (!set) {
      set = new Set();
      abortListeners.set(this, set);
      signals.add(new WeakRef(this));
    }
    set.add(args[1]);
  }
  addEventListener.apply(this, args);
};
EventTarget.prototype.removeEventListener = function (this: EventTarget, ...args: Parameters<EventTarget['removeEventListener']>) {
  if (this instanceof AbortSignal && args[0] === 'abort' && args[1]) abortListeners.get(this)?.delete(args[1]);
  removeEventListener.apply(this, args);
};
function liveAbortListeners(): number {
  let count = 0;
  for (const ref of signals) {
    const signal = ref.deref();
    if (!signal) signals.delete(ref);
    // An aborted signal never fires again: its listeners are garbage with it.
    else if (!signal.aborted) count += abortListeners.get(signal)?.size ?? 0;
  }
  return count;
}

const input = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as SoakChildInput;
const send = (message: ChildMessage): void => {
  process.send?.(message);
};
const library = await loadLibrary(input.impl);
let informerChanges = 0;
const rawApi = library.KubernetesApi.fromConfig({ kubeconfigPath: input.kubeconfigPath });
// statuses$ judges a workload synchronously inside the watch event that changed it, so the
// kind of the event being handled is what triggered a status event (a Pod-triggered one
// carries an older Deployment version: detection is measured on Deployment-triggered ones).
let handling: WatchedKind | undefined;
const api = withWatchEvents(rawApi, (kind, _type, _object, deliver) => {
  handling = kind;
  try {
    deliver();
  } finally {
    handling = undefined;
  }
});
// Connection changes of every informer, for the relist figures.
const connection = { disconnects: 0, connects: 0, lastConnectedAt: 0, lastDisconnectedAt: 0 };
const informers = new library.InformerRegistry({
  onDisconnected: () => {
    connection.disconnects += 1;
    connection.lastDisconnectedAt = hrNow();
    recording?.push({ key: '', at: connection.lastDisconnectedAt, state: 'disconnected', resourceVersion: '', trigger: 'connection' });
  },
  onConnected: () => {
    connection.connects += 1;
    connection.lastConnectedAt = hrNow();
    recording?.push({ key: '', at: connection.lastConnectedAt, state: 'connected', resourceVersion: '', trigger: 'connection' });
  },
});
let evaluations = 0;
// The channel's name (src/workload/reads/status-board.ts): what the library publishes to it.
subscribe('kube-provisioner:status-evaluations', (message) => {
  if ((message as { event?: string }).event === 'evaluation') evaluations += 1;
  else informerChanges += 1;
});

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

// ---- statuses$ over each namespace ------------------------------------------------------------
interface Watched {
  readonly subscription: Subscription;
  /** The last status of each workload statuses$ reports; a `missing` one is dropped. */
  readonly last: Map<string, WorkloadStatusValue>;
  readonly byState: Map<string, number>;
}
const watched = new Map<string, Watched>();
let statusEvents = 0;
let repeats = 0;
let recording: Recorded[] | undefined;
const awaits = new Map<number, { namespace: string; state: string; count: number }>();

function checkAwaits(): void {
  for (const [id, wanted] of awaits) {
    if ((watched.get(wanted.namespace)?.byState.get(wanted.state) ?? 0) === wanted.count) {
      awaits.delete(id);
      send({ type: 'reached', id });
    }
  }
}

function watch(namespace: string, expect: number): void {
  const last = new Map<string, WorkloadStatusValue>();
  const byState = new Map<string, number>();
  const started = hrNow();
  const cpuStarted = cpuMs();
  let synced = false;
  const move = (state: string | undefined, delta: number): void => {
    if (state !== undefined) byState.set(state, (byState.get(state) ?? 0) + delta);
  };
  const subscription = library.statuses$(api, { namespace, informers }).subscribe({
    next: (event: StatusEvent) => {
      statusEvents += 1;
      const before = last.get(event.name);
      if (before && library.sameWorkloadStatus(before, event.status)) repeats += 1;
      move(before?.state, -1);
      if (event.status.state === 'missing') last.delete(event.name);
      else {
        last.set(event.name, event.status);
        move(event.status.state, 1);
      }
      recording?.push({
        key: `${namespace}/${event.name}`,
        at: hrNow(),
        state: event.status.state,
        resourceVersion: event.resourceVersion,
        trigger: handling ?? 'timer',
      });
      if (!synced && last.size >= expect) {
        synced = true;
        const ms = hrNow() - started;
        const cpu = cpuMs() - cpuStarted;
        // After the current burst, so the figure is the time to the last first status.
        setImmediate(() => send({ type: 'synced', namespace, ms, cpuMs: cpu }));
      }
      if (awaits.size > 0) checkAwaits();
    },
    error: (error: unknown) => send({ type: 'failed', message: `statuses$ ${namespace}: ${describeError(error)}` }),
  });
  watched.set(namespace, { subscription, last, byState });
  // An empty namespace has nothing to report: whole at once.
  if (expect === 0 && !synced) {
    synced = true;
    send({ type: 'synced', namespace, ms: hrNow() - started, cpuMs: cpuMs() - cpuStarted });
  }
}

// ---- waves of operations -------------------------------------------------------------------
let pendingOps = 0;
const options = { informers, timeoutMs: input.timeoutMs };

function runOp(op: WaveOp, item: WaveItem, cpus: number): Promise<unknown> {
  const providerId = `${item.namespace}/${item.name}`;
  const own = { ...options, containerId: item.containerId };
  switch (op) {
    case 'create':
      return library.provision(
        api,
        {
          containerId: item.containerId,
          nodeId: 1,
          hostname: item.name,
          image: input.image,
          cpus,
          memoryMb: 16,
          namespace: item.namespace,
          ports: [{ port: 80, protocol: 'tcp' }],
          storage: { sizeGb: 1, storageClass: input.storageClass, paths: ['/srv'] },
        },
        options,
      );
    case 'stop':
      return library.stop(api, providerId, own);
    case 'start':
      return library.start(api, providerId, own);
    case 'reconfigure':
      return library.reconfigure(api, providerId, { cpus }, own);
    case 'delete':
      return library.remove(api, providerId, own);
  }
}

async function wave(id: number, op: WaveOp, items: readonly WaveItem[], cpus: number): Promise<void> {
  const started = hrNow();
  const errors: string[] = [];
  let ok = 0;
  await Promise.all(
    items.map(async (item) => {
      pendingOps += 1;
      try {
        await runOp(op, item, cpus);
        ok += 1;
      } catch (error) {
        if (errors.length < 5) errors.push(`${op} ${item.name}: ${describeError(error)}`);
      } finally {
        pendingOps -= 1;
      }
    }),
  );
  send({ type: 'waveDone', id, result: { ok, failed: items.length - ok, errors, ms: hrNow() - started } });
}

// ---- samples -------------------------------------------------------------------------------
let peakHeapUsed = 0;
/** CPU the forced collections used so far: left out of every cpuMs figure. */
let gcCpuTotal = 0;
let peakRss = 0;
let memoryTimer: NodeJS.Timeout | undefined;

function sample(collect: boolean): Sample {
  // Read before the forced GC: the figure is the process's work, not the benchmark's.
  const cpuBefore = cpuMs();
  const gc = globalThis.gc;
  const gcStarted = hrNow();
  if (collect && typeof gc === 'function') {
    gc();
    gc();
  }
  const gcMs = hrNow() - gcStarted;
  gcCpuTotal += cpuMs() - cpuBefore;
  const memory = process.memoryUsage();
  const activeResources: Record<string, number> = {};
  for (const name of process.getActiveResourcesInfo()) activeResources[name] = (activeResources[name] ?? 0) + 1;
  const known: Record<string, number> = {};
  for (const [namespace, { last }] of watched) known[namespace] = last.size;
  const figures: Sample = {
    at: hrNow(),
    heapUsed: memory.heapUsed,
    heapTotal: memory.heapTotal,
    external: memory.external,
    rss: memory.rss,
    peakHeapUsed,
    peakRss,
    cpuMs: cpuBefore - gcCpuTotal,
    activeResources,
    fds: readdirSync('/proc/self/fd').length,
    abortListeners: liveAbortListeners(),
    informers: informers.describe(api).map(({ kind, namespace, labelSelector, fieldSelector, consumers, objects, keys }) => ({
      kind,
      namespace,
      labelSelector,
      fieldSelector,
      consumers,
      objects,
      keys,
    })),
    pendingOps,
    known,
    statusEvents,
    repeats,
    informerChanges,
    evaluations,
    connection: { ...connection },
    gcMs,
  };
  if (collect) {
    peakHeapUsed = 0;
    peakRss = 0;
  }
  return figures;
}

process.on('message', (message: ParentMessage) => {
  switch (message.type) {
    case 'watch':
      watch(message.namespace, message.expect);
      return;
    case 'unwatch':
      watched.get(message.namespace)?.subscription.unsubscribe();
      watched.delete(message.namespace);
      return;
    case 'await':
      awaits.set(message.id, { namespace: message.namespace, state: message.state, count: message.count });
      checkAwaits();
      return;
    case 'record':
      if (message.on) recording = [];
      else {
        send({ type: 'recorded', events: recording ?? [] });
        recording = undefined;
      }
      return;
    case 'sample':
      send({ type: 'sample', id: message.id, sample: sample(message.gc) });
      return;
    case 'watchMemory':
      if (memoryTimer) clearInterval(memoryTimer);
      memoryTimer = undefined;
      if (message.everyMs > 0) {
        memoryTimer = setInterval(() => {
          const memory = process.memoryUsage();
          peakHeapUsed = Math.max(peakHeapUsed, memory.heapUsed);
          peakRss = Math.max(peakRss, memory.rss);
        }, message.everyMs);
      }
      return;
    case 'wave':
      void wave(message.id, message.op, message.items, message.cpus ?? 0.01);
      return;
    case 'finish':
      finishing = true;
      if (memoryTimer) clearInterval(memoryTimer);
      for (const { subscription } of watched.values()) subscription.unsubscribe();
      watched.clear();
      setTimeout(() => {
        send({
          type: 'done',
          activeHandlesAfter: process.getActiveResourcesInfo().filter((name) => /TCP|TLS|Timeout|Immediate/.test(name)),
        });
        // Nothing else keeps the process alive: the parent checks that it exits on its own.
        process.disconnect?.();
      }, 1000);
      return;
  }
});
// The parent gone (finished, or interrupted): nothing here may outlive it.
let finishing = false;
process.on('disconnect', () => {
  if (!finishing) process.exit(0);
});
send({ type: 'ready' });
