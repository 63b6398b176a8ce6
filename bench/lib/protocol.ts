// What the parent (bench/run.ts) hands a provisioning child and what the child reports back.
// Times are milliseconds on the machine's monotonic clock (hrNow in stats.ts), comparable
// with the parent's observer on the same machine.

export type ChildKind = 'provisioner' | 'poller';

/** Which build of the library the child loads: dist/ through the package name, or src/ via tsx. */
export type Implementation = 'dist' | 'src';

export interface ChildInput {
  readonly kind: ChildKind;
  readonly impl: Implementation;
  /** Where the child writes its ChildResult (JSON). */
  readonly resultPath: string;
  /** Kubeconfig pointing at this run's ApiProxy. */
  readonly kubeconfigPath: string;
  readonly namespace: string;
  readonly count: number;
  readonly image: string;
  readonly timeoutMs: number;
  /** The poller's interval (Helm 3: 2 s). */
  readonly pollIntervalMs: number;
  /**
   * `latency`: provision and wait; nothing else runs in the child. `memory`: provision
   * (with an image whose Pods never become Ready), sample the heap with a forced full GC
   * once all N are waiting, then stop every waiter. The GC pause of the heap sample would
   * otherwise delay completions and count in detection latency.
   */
  readonly mode: 'latency' | 'memory';
  /**
   * Stamp when each Deployment event reaches the child's watch (bench/network.ts): the
   * records then carry completeArrivedAt. Off elsewhere, so no run pays for it.
   */
  readonly traceArrivals?: boolean;
  /** The ports of every provisioning (bench/network.ts): each then gets a Service. */
  readonly ports?: readonly { readonly port: number; readonly protocol: 'tcp' | 'udp' }[];
  /** The storage of every provisioning (bench/storage.ts): each then gets a claim. */
  readonly storage?: { readonly sizeGb: number; readonly storageClass: string; readonly paths: readonly string[] };
}

export interface ProvisioningRecord {
  readonly name: string;
  /** When the create was sent. */
  readonly startedAt: number;
  /** When the create answered (our provisioner: the `created` event). */
  readonly createdAt?: number;
  /** When the waiter resolved: our `ready` event, or the poller's first Complete GET. */
  readonly readyAt?: number;
  /**
   * The Deployment resourceVersion completion was read from: the resourceVersion of our
   * last progress event, or the first Complete version the poller saw.
   */
  readonly completeResourceVersion?: string;
  /** When the progress event of completeResourceVersion reached the child (our provisioner). */
  readonly completeAt?: number;
  /**
   * traceArrivals only: when the later of the Deployment event of completeResourceVersion
   * and the workload's latest EndpointSlice event reached the child's watch.
   */
  readonly completeArrivedAt?: number;
  /** The Service address the `ready` event carried (provisionings with ports). */
  readonly address?: string | null;
  /** Progress events (provisioner) or GETs (poller) for this provisioning. */
  readonly steps: number;
  readonly error?: string;
}

export interface ChildResult {
  readonly kind: ChildKind;
  readonly count: number;
  readonly records: readonly ProvisioningRecord[];
  /** First create sent to last waiter settled. */
  readonly wallMs: number;
  /**
   * CPU time (user + system, all threads) between the first create and the last settle,
   * minus the CPU of the benchmark's own forced GC at the heap sample.
   */
  readonly cpuMs: number;
  /** CPU time of the whole child process, module loading included. */
  readonly processCpuMs: number;
  /** Peak resident set size of the child (process.resourceUsage().maxRSS). */
  readonly peakRssMiB: number;
  /** RSS after loading modules, before the first create. */
  readonly startRssMiB: number;
  /** heapUsed once all N were created and waiting, minus the baseline, divided by N (memory mode; NaN otherwise). */
  readonly heapBytesPerWaiter: number;
  readonly heapBaselineBytes: number;
  readonly heapSampleBytes: number;
  /** Whether global.gc ran before both heap samples (child started with --expose-gc). */
  readonly gcAvailable: boolean;
  /** How long the forced GC before the heap sample blocked the event loop. */
  readonly gcPauseMs: number;
  /** Waiters already settled when the heap was sampled (ideally 0). */
  readonly settledBeforeHeapSample: number;
  /** API requests the child itself sent (its own count; the proxy counts too). */
  readonly requestsSent: number;
  /** TLS connections the child opened (https.Agent createConnection calls). */
  readonly connectionsOpened: number;
  /** Longest event-loop stall, first create to last settle (how late a 10 ms tick ran; memory mode: after the heap sample). */
  readonly eventLoopDelayMaxMs: number;
  readonly eventLoopDelayP99Ms: number;
  /**
   * Event-loop stalls of 10 ms or more (how late a 10 ms tick ran), with when each ended and
   * the process's CPU time over the probe interval (all threads).
   */
  readonly stalls: readonly { readonly endedAt: number; readonly ms: number; readonly cpuMs: number }[];
  /** Handles still open 300 ms after the last waiter settled (a leak if non-empty). */
  readonly activeHandlesAfter: readonly string[];
  /** Informer failures that were retried (our provisioner only): error name and message, with the delay chosen. */
  readonly informerRetries: readonly string[];
}

/** A record a child fills in as its provisioning progresses. */
export type MutableRecord = { -readonly [K in keyof ProvisioningRecord]: ProvisioningRecord[K] };
