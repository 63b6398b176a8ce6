// kstatus style: each kind whose readiness decides a workload's has one pure status
// function, object in, value out ("not ready yet" is a value, never an exception), all
// speaking the same three states. The Deployment's is rolloutStatus(); a Service's or a
// claim's is one more entry here, and the tracker reads them all the same way.
import type { KindMap, WatchedKind } from '../kube/kinds.js';
import type { RolloutState } from './events.js';
import { claimReadiness } from './claim-status.js';
import { rolloutStatus } from './rollout-status.js';

/** What every status function returns, at least. */
export interface ObjectStatus {
  readonly state: RolloutState;
  /** Short and machine-readable: NewReplicaSetAvailable, ProgressDeadlineExceeded, ... */
  readonly reason: string;
  /** One human sentence. */
  readonly message: string;
}

type StatusFunctions = { readonly [K in WatchedKind]?: (object: KindMap[K]) => ObjectStatus };

/** The kinds that have a status function, and it. */
export const STATUS_OF_KIND = {
  deployments: rolloutStatus,
  persistentvolumeclaims: claimReadiness,
} as const satisfies StatusFunctions;

export type StatusKind = keyof typeof STATUS_OF_KIND;

/** The status of one object of a kind in the table. */
export function objectStatus<K extends StatusKind>(kind: K, object: KindMap[K]): ReturnType<(typeof STATUS_OF_KIND)[K]> {
  // One kind at a time: TypeScript cannot pair the kind's function with its object type by itself.
  const status = STATUS_OF_KIND[kind] as (object: KindMap[K]) => ObjectStatus;
  return status(object) as ReturnType<(typeof STATUS_OF_KIND)[K]>;
}
