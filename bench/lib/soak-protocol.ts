// Messages between bench/soak.ts and its long-lived child (bench/lib/soak-child.ts), over
// the IPC channel. Times are milliseconds on the monotonic clock (hrNow), comparable
// with the parent's observer on the same machine.
import type { Implementation } from './protocol.js';

export interface SoakChildInput {
  readonly impl: Implementation;
  /** Kubeconfig pointing at the run's counting ApiProxy. */
  readonly kubeconfigPath: string;
  readonly image: string;
  readonly storageClass: string;
  /** Per operation. */
  readonly timeoutMs: number;
}

/** One workload a wave works on. */
export interface WaveItem {
  readonly namespace: string;
  readonly name: string;
  readonly containerId: string;
}

export type WaveOp = 'create' | 'stop' | 'start' | 'reconfigure' | 'delete';

export type ParentMessage =
  /** Subscribe statuses$ for the namespace; `synced` once `expect` workloads were reported. */
  | { readonly type: 'watch'; readonly namespace: string; readonly expect: number }
  | { readonly type: 'unwatch'; readonly namespace: string }
  /** `reached` once exactly `count` workloads of the namespace are in `state`. */
  | { readonly type: 'await'; readonly id: number; readonly namespace: string; readonly state: string; readonly count: number }
  /** Record every status event (name, state, resourceVersion, time) until told otherwise. */
  | { readonly type: 'record'; readonly on: boolean }
  /** A forced full GC (unless gc is false), then the process's figures. */
  | { readonly type: 'sample'; readonly id: number; readonly gc: boolean }
  /** Light sampling of heapUsed and RSS every `everyMs` (0 stops it; the peaks come back in the next sample). */
  | { readonly type: 'watchMemory'; readonly everyMs: number }
  | { readonly type: 'wave'; readonly id: number; readonly op: WaveOp; readonly items: readonly WaveItem[]; readonly cpus?: number }
  | { readonly type: 'finish' };

export interface Recorded {
  readonly key: string;
  readonly at: number;
  readonly state: string;
  readonly resourceVersion: string;
  /** The kind of watch event being handled when statuses$ emitted it ('timer': none, a recheck). */
  readonly trigger: string;
}

export interface InformerFigure {
  readonly kind: string;
  readonly namespace: string;
  readonly labelSelector: string;
  readonly fieldSelector: string;
  readonly consumers: number;
  readonly objects: number;
  readonly keys: number;
}

export interface Sample {
  readonly at: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly rss: number;
  /** Peaks seen by watchMemory since the last sample (0 when it was off). */
  readonly peakHeapUsed: number;
  readonly peakRss: number;
  /** The process's CPU time so far (user + system), without the CPU of the forced collections. */
  readonly cpuMs: number;
  /** process.getActiveResourcesInfo(), counted by type. */
  readonly activeResources: Readonly<Record<string, number>>;
  readonly fds: number;
  /** `abort` listeners on AbortSignals that are alive and not aborted. */
  readonly abortListeners: number;
  readonly informers: readonly InformerFigure[];
  /** Operations started and not settled. */
  readonly pendingOps: number;
  /** Workloads statuses$ reports (per namespace watched), and the bench's own map of them. */
  readonly known: Readonly<Record<string, number>>;
  readonly statusEvents: number;
  readonly repeats: number;
  /** Informer changes statuses$ received, and the statuses it computed (its diagnostics channel). */
  readonly informerChanges: number;
  readonly evaluations: number;
  /** Informer connection changes so far (the registry's onDisconnected / onConnected), and when the last ones were. */
  readonly connection: {
    readonly disconnects: number;
    readonly connects: number;
    readonly lastConnectedAt: number;
    readonly lastDisconnectedAt: number;
  };
  readonly gcMs: number;
}

export interface WaveResult {
  readonly ok: number;
  readonly failed: number;
  readonly errors: readonly string[];
  readonly ms: number;
}

export type ChildMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'synced'; readonly namespace: string; readonly ms: number; readonly cpuMs: number }
  | { readonly type: 'reached'; readonly id: number }
  | { readonly type: 'sample'; readonly id: number; readonly sample: Sample }
  | { readonly type: 'waveDone'; readonly id: number; readonly result: WaveResult }
  | { readonly type: 'recorded'; readonly events: readonly Recorded[] }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'done'; readonly activeHandlesAfter: readonly string[] };
