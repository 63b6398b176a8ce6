// Messages between bench/statuses.ts and its child (bench/lib/statuses-child.ts), over the
// IPC channel. Times are milliseconds on the monotonic clock (hrNow), comparable with
// the parent's observer on the same machine.
import type { Implementation } from './protocol.js';

export interface StatusesChildInput {
  readonly impl: Implementation;
  /** Kubeconfig pointing at the run's counting ApiProxy. */
  readonly kubeconfigPath: string;
  readonly namespace: string;
  /** How many managed workloads the namespace holds (the child waits for all of them). */
  readonly count: number;
  /** Where the child writes its StatusesChildResult (JSON). */
  readonly resultPath: string;
}

/** One status event as the child saw it. */
export interface Emission {
  readonly name: string;
  readonly at: number;
  readonly state: string;
  /** The Deployment resourceVersion the status was computed from. */
  readonly resourceVersion: string;
  /**
   * What reached the child last for this workload before the event: its Deployment (then
   * `receivedAt` is when that watch event arrived in the child) or one of its Pods.
   */
  readonly trigger: 'deployment' | 'pod' | 'none';
  readonly receivedAt?: number;
  /** The child's CPU time between `receivedAt` and the event (all threads). */
  readonly cpuMsSinceReceived?: number;
}

export interface StatusesChildResult {
  readonly emissions: readonly Emission[];
  /** Subscribe to the first event of every workload. */
  readonly initialSyncMs: number;
  /** heapUsed after a forced full GC once every workload was reported, minus the baseline before subscribing, per workload. */
  readonly heapBytesPerWorkload: number;
  readonly heapBaselineBytes: number;
  readonly heapSampleBytes: number;
  readonly gcAvailable: boolean;
  /** Events equal to the one before for the same workload (should be 0). */
  readonly repeats: number;
  /** CPU time (user + system) from subscribing to the finish message, minus the forced GC. */
  readonly cpuMs: number;
  /** API requests the child sent (its own count). */
  readonly requestsSent: number;
  /** Watch events (not bookmarks) the child's client received, Deployments and Pods. */
  readonly watchEvents: number;
  /** Informer changes that reached statuses$, and the statuses it computed (its diagnostics channel). */
  readonly notices: number;
  readonly evaluations: number;
  /** Handles still open 300 ms after unsubscribing (a leak if non-empty). */
  readonly activeHandlesAfter: readonly string[];
}

export type ParentMessage = { readonly type: 'await'; readonly state: string } | { readonly type: 'finish' };

export type ChildMessage =
  | { readonly type: 'synced'; readonly initialSyncMs: number; readonly heapBytesPerWorkload: number }
  | { readonly type: 'reached'; readonly state: string }
  | { readonly type: 'done' };
