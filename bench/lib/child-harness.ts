// The measuring half of a provisioning child: CPU time, peak RSS, heap per waiter, event
// loop stalls, TLS connections opened, and the handles left open at the end. Both the
// provisioner child and the poller child use it, so their figures are taken the same way.
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type * as Library from '../../src/index.js';
import type { KindMap, KubernetesClient, WatchEventType, WatchHandle, WatchHandlers, WatchParams, WatchedKind } from '../../src/index.js';
import type { ChildInput, ChildResult, ProvisioningRecord } from './protocol.js';
import { hrNow, percentile } from './stats.js';

export type LibraryModule = typeof Library;

const MiB = 2 ** 20;
/** The stall probe's period: one wake-up per 10 ms, as monitorEventLoopDelay's own timer would cost. */
const STALL_PROBE_MS = 10;

export function readChildInput(): ChildInput {
  const path = process.argv[2];
  if (!path) throw new Error('usage: <child> <input.json>');
  return JSON.parse(readFileSync(path, 'utf8')) as ChildInput;
}

/** The library as the child is told to load it: the built package, or the TypeScript source. */
export async function loadLibrary(impl: ChildInput['impl']): Promise<LibraryModule> {
  const specifier = impl === 'dist' ? 'kube-provisioner' : '../../src/index.js';
  return (await import(specifier)) as LibraryModule;
}

/** The spec of provisioning `index` (same for every waiter kind). */
export function benchSpec(input: ChildInput, index: number): Record<string, unknown> {
  return {
    containerId: `${index + 1}`,
    nodeId: 1,
    hostname: deploymentName(index),
    image: input.image,
    cpus: 0.01,
    memoryMb: 16,
    namespace: input.namespace,
    ...(input.ports ? { ports: input.ports } : {}),
    ...(input.storage ? { storage: input.storage } : {}),
  };
}

export function deploymentName(index: number): string {
  return `bench-${String(index).padStart(4, '0')}`;
}

export class ChildMeter {
  requests = 0;
  connections = 0;
  readonly informerRetries: string[] = [];
  /** How late each probe tick ran: the event loop's stalls. */
  private readonly lateness: number[] = [];
  private cpuStart: NodeJS.CpuUsage = process.cpuUsage();
  private startedAt = 0;
  private startRss = 0;
  private heapBaseline = 0;
  private heapSample = 0;
  private gcPauseMs = 0;
  /** CPU the forced GC of the heap sample used: the benchmark's own, not the waiters'. */
  private gcCpuMicros = 0;
  private settledAtSample = -1;
  /**
   * Event-loop stalls of 10 ms or more: when each ended (hrNow), how long it was, and the
   * CPU the process used meanwhile (about as long: it was busy; far less: it was not
   * given a core).
   */
  readonly stalls: { endedAt: number; ms: number; cpuMs: number }[] = [];
  private stallProbe: NodeJS.Timeout | undefined;

  constructor() {
    // Every TLS connection a client opens goes through an https.Agent.
    // Wrapped and re-applied with its own `this` below.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const original = https.Agent.prototype.createConnection;
    const count = (): void => {
      this.connections += 1;
    };
    https.Agent.prototype.createConnection = function (this: https.Agent, ...args: Parameters<typeof original>) {
      count();
      return original.apply(this, args);
    };
  }

  get gcAvailable(): boolean {
    return typeof globalThis.gc === 'function';
  }

  /** A full GC if available; returns how long it blocked. */
  collect(): number {
    const gc = globalThis.gc;
    if (typeof gc !== 'function') return 0;
    const started = performance.now();
    gc();
    gc();
    return performance.now() - started;
  }

  /** Call right before the first create. */
  begin(): void {
    this.collect();
    this.heapBaseline = process.memoryUsage().heapUsed;
    this.startRss = process.memoryUsage().rss;
    // A tick that notes how late it ran: the event loop's stalls, and for the long ones
    // when, to set against the waiters' resolution times. One timer only: a faster probe
    // would add CPU of its own to the figures.
    let last = hrNow();
    let lastCpu = process.cpuUsage();
    this.stallProbe = setInterval(() => {
      const now = hrNow();
      const cpu = process.cpuUsage();
      const late = Math.max(0, now - last - STALL_PROBE_MS);
      this.lateness.push(late);
      if (late >= 10) this.stalls.push({ endedAt: now, ms: late, cpuMs: (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000 });
      last = now;
      lastCpu = cpu;
    }, STALL_PROBE_MS);
    this.stallProbe.unref();
    this.cpuStart = process.cpuUsage();
    this.startedAt = hrNow();
  }

  /** Memory mode: call once every waiter has been created and is waiting. */
  sampleHeap(settled: number): void {
    if (this.settledAtSample >= 0) return;
    const cpuBefore = process.cpuUsage();
    this.gcPauseMs = this.collect();
    const gcCpu = process.cpuUsage(cpuBefore);
    this.gcCpuMicros = gcCpu.user + gcCpu.system;
    this.heapSample = process.memoryUsage().heapUsed;
    this.settledAtSample = settled;
    // The forced GC is the benchmark's own stall; report the pipeline's stalls without it.
    this.lateness.length = 0;
    this.stalls.length = 0;
  }

  /** Call when the last waiter settled; writes the result file. */
  async finish(input: ChildInput, records: readonly ProvisioningRecord[]): Promise<void> {
    const wallMs = hrNow() - this.startedAt;
    const cpu = process.cpuUsage(this.cpuStart);
    clearInterval(this.stallProbe);
    const processCpu = process.cpuUsage();
    const usage = process.resourceUsage();
    // Let aborted sockets and cleared timers go, then see what is still open.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const activeHandlesAfter = process.getActiveResourcesInfo().filter((name) => /TCP|TLS|Timeout|Immediate/.test(name));
    const result: ChildResult = {
      kind: input.kind,
      count: input.count,
      records,
      wallMs,
      cpuMs: (cpu.user + cpu.system - this.gcCpuMicros) / 1000,
      processCpuMs: (processCpu.user + processCpu.system) / 1000,
      peakRssMiB: usage.maxRSS / 1024,
      startRssMiB: this.startRss / MiB,
      heapBytesPerWaiter: this.settledAtSample >= 0 ? (this.heapSample - this.heapBaseline) / input.count : Number.NaN,
      heapBaselineBytes: this.heapBaseline,
      heapSampleBytes: this.heapSample,
      gcAvailable: this.gcAvailable,
      gcPauseMs: this.gcPauseMs,
      settledBeforeHeapSample: Math.max(0, this.settledAtSample),
      requestsSent: this.requests,
      connectionsOpened: this.connections,
      eventLoopDelayMaxMs: this.lateness.reduce((max, late) => Math.max(max, late), 0),
      eventLoopDelayP99Ms: percentile(this.lateness, 99),
      stalls: this.stalls,
      activeHandlesAfter,
      informerRetries: this.informerRetries,
    };
    writeFileSync(input.resultPath, JSON.stringify(result));
  }
}

/** The message of anything thrown, with its name (project errors have a stable one). */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * `api` with every watch event handed to `around(kind, type, object, deliver)`, which must
 * call `deliver()` to pass it on: a child notes what each event concerns, or which kind is
 * being handled while the library reacts to it. Every other call goes to `api` as it is.
 */
export function withWatchEvents(
  api: KubernetesClient,
  around: (kind: WatchedKind, type: WatchEventType, object: KindMap[WatchedKind], deliver: () => void) => void,
): KubernetesClient {
  function watch<K extends WatchedKind>(kind: K, namespace: string, params: WatchParams, handlers: WatchHandlers<KindMap[K]>): WatchHandle {
    return api.watch(kind, namespace, params, {
      ...handlers,
      onEvent: (type, object) => around(kind, type, object, () => handlers.onEvent(type, object)),
    });
  }
  return new Proxy(api, {
    get(target, property) {
      if (property === 'watch') return watch;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
