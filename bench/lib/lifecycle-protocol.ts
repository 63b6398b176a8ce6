// What bench/lifecycle.ts hands its child (bench/lib/lifecycle-child.ts) and what the child
// reports back. Times are milliseconds on the monotonic clock (hrNow()), comparable
// with the parent's observer on the same machine.
import type { Implementation } from './protocol.js';

export interface LifecycleChildInput {
  readonly impl: Implementation;
  readonly resultPath: string;
  /** Kubeconfig pointing at the run's ApiProxy. */
  readonly kubeconfigPath: string;
  readonly namespace: string;
  /** The provider IDs to cycle, all at once. */
  readonly providerIds: readonly string[];
  readonly timeoutMs: number;
}

export interface CycleRecord {
  readonly providerId: string;
  readonly stopStartedAt?: number;
  readonly stopEndedAt?: number;
  readonly startStartedAt?: number;
  readonly startEndedAt?: number;
  /** The Deployment resourceVersion the start completed on (its last progress event). */
  readonly startResourceVersion?: string;
  /** Whether the stop and the start wrote anything (both should). */
  readonly stopChanged?: boolean;
  readonly startChanged?: boolean;
  readonly error?: string;
}

export interface LifecycleChildResult {
  readonly records: readonly CycleRecord[];
  /** First operation started to last one ended. */
  readonly wallMs: number;
  /** CPU time (user + system) over the same span. */
  readonly cpuMs: number;
  readonly peakRssMiB: number;
  /** API requests the child sent (its own count; the proxy counts too). */
  readonly requestsSent: number;
  /** Handles still open 300 ms after the last cycle ended (a leak if non-empty). */
  readonly activeHandlesAfter: readonly string[];
}
