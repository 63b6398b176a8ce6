// Where this process's time goes while a benchmark runs (bench --diagnose): stalls of the
// event loop (a 1 ms timer that fires late), garbage-collection pauses, the synchronous
// work of each watch event the library's transport delivers (decode, informer, every
// subscriber reached synchronously), and spans a benchmark marks itself (a child process
// spawned). All stamped on hrNow, the clock the independent observer stamps with, so a late
// detection can be laid against what blocked this process in the same window.
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { WatchStreamReader } from '../../src/kube/watch-stream.js';
import { hrNow } from './stats.js';

export interface Span {
  readonly start: number;
  readonly end: number;
  readonly what: string;
}

/** One watch event as this process's transport delivered it. */
export interface Delivery {
  readonly kind: string;
  /** ADDED, MODIFIED or DELETED. */
  readonly type: string;
  readonly name: string;
  readonly resourceVersion: string;
  readonly at: number;
  /** The synchronous handling of the event (decode to the last subscriber reached synchronously), ms. */
  readonly handlingMs: number;
  /** The CPU time this process used meanwhile (all its threads), ms: below handlingMs, the rest was waiting for a CPU. */
  readonly cpuMs: number;
}

export class LoopProbe {
  readonly stalls: Span[] = [];
  readonly pauses: Span[] = [];
  readonly marks: Span[] = [];
  readonly deliveries: Delivery[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private gc: PerformanceObserver | undefined;
  private restore: (() => void) | undefined;

  /** `stallMs`: a timer firing this much later than due counts as a stall. */
  start(stallMs = 3): void {
    for (const list of [this.stalls, this.pauses, this.marks, this.deliveries]) list.length = 0;
    let last = hrNow();
    this.timer = setInterval(() => {
      const now = hrNow();
      if (now - last - 1 > stallMs) this.stalls.push({ start: last + 1, end: now, what: 'stall' });
      last = now;
    }, 1);
    // performance's clock and hrtime are both monotonic; the offset is fixed for the process.
    const offset = hrNow() - performance.now();
    this.gc = new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        this.pauses.push({ start: entry.startTime + offset, end: entry.startTime + offset + entry.duration, what: `gc ${entry.name}` });
    });
    this.gc.observe({ entryTypes: ['gc'] });
    const prototype = WatchStreamReader.prototype as unknown as { deliver: (line: string) => void };
    const deliver = prototype.deliver;
    const deliveries = this.deliveries;
    prototype.deliver = function (this: unknown, line: string): void {
      const at = hrNow();
      const cpu = process.cpuUsage();
      deliver.call(this, line);
      const used = process.cpuUsage(cpu);
      const kind = /"kind":"([A-Za-z]+)"/.exec(line)?.[1] ?? '';
      const name = /"name":"([^"]+)"/.exec(line)?.[1] ?? '';
      const resourceVersion = /"resourceVersion":"(\d+)"/.exec(line)?.[1] ?? '';
      const type = /^\{"type":"([A-Z]+)"/.exec(line)?.[1] ?? '';
      deliveries.push({ kind, type, name, resourceVersion, at, handlingMs: hrNow() - at, cpuMs: (used.user + used.system) / 1000 });
    };
    this.restore = () => (prototype.deliver = deliver);
  }

  /** Marks a span of the benchmark's own work (a spawn, say). */
  mark(what: string, start: number, end = hrNow()): void {
    this.marks.push({ start, end, what });
  }

  stop(): void {
    clearInterval(this.timer);
    this.gc?.disconnect();
    this.restore?.();
  }

  /** Everything recorded that overlaps [from, to]. */
  within(from: number, to: number): Span[] {
    return [...this.stalls, ...this.pauses, ...this.marks]
      .filter((span) => span.end >= from && span.start <= to)
      .sort((a, b) => a.start - b.start);
  }

  /** Per kind of object: how many events were delivered and their synchronous handling (ms). */
  handlingByKind(): Record<string, { count: number; p50: number; p99: number; max: number; totalMs: number; slowest: unknown[] }> {
    const byKind = new Map<string, number[]>();
    for (const entry of this.deliveries) byKind.set(entry.kind, [...(byKind.get(entry.kind) ?? []), entry.handlingMs]);
    return Object.fromEntries(
      [...byKind].map(([kind, list]) => {
        const sorted = [...list].sort((a, b) => a - b);
        const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
        const slowest = this.deliveries
          .filter((entry) => entry.kind === kind)
          .sort((a, b) => b.handlingMs - a.handlingMs)
          .slice(0, 5)
          .map(({ type, name, handlingMs, cpuMs }) => ({ type, name, handlingMs, cpuMs }));
        const totalMs = sorted.reduce((a, b) => a + b, 0);
        return [kind, { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1)!, totalMs, slowest }];
      }),
    );
  }

  delivered(kind: string, resourceVersion: string): Delivery | undefined {
    return this.deliveries.find((entry) => entry.kind === kind && entry.resourceVersion === resourceVersion);
  }
}
