// guardGeneration(): the informer's snapshots of one Deployment, narrowed to the generation
// an operation waits for. An operation writes generation G (or, writing nothing, reads G)
// and then waits; meanwhile:
//   - the cache may still hold an older generation (it lags the write): skipped, never
//     read as the outcome (a stale "complete" must not finish a start);
//   - a newer generation means another operation took over (a stop while a start waits, a
//     second reconfigure): waiting for G could never end, so it fails at once with
//     WorkloadSupersededError naming what superseded it;
//   - a deletion (or a deletionTimestamp) or a replacement by another UID fails the same way.
// Passes on `[ours]` for generation G only, so the waiters downstream read one object.
import type { V1Deployment } from '../../kube/objects.js';
import { Observable, type OperatorFunction } from 'rxjs';
import { KubeProvisionerError } from '../../errors/base.js';
import { WORKLOAD_KIND, type FailureContext } from '../../errors/rollout.js';
import { describeOperation, type WorkloadOperation } from './operation.js';

/** What took over a workload while an operation waited on it. */
export type Supersession =
  /** Another operation scaled it to `replicas`. */
  | { readonly by: 'scale'; readonly replicas: number; readonly generation: number }
  /** Another change to its spec (the pod template: reconfigure, restart) made a newer generation. */
  | { readonly by: 'spec'; readonly generation: number }
  /** It was deleted, or is being deleted. */
  | { readonly by: 'deletion' }
  /** It was deleted and another object of the same name took its place. */
  | { readonly by: 'replacement' };

/**
 * A concurrent operation took over while this one waited (a stop while a start waits, a
 * newer reconfigure): waiting for the older target could never end, so it ends at once.
 */
export class WorkloadSupersededError extends KubeProvisionerError {
  override readonly name = 'WorkloadSupersededError';
  readonly namespace: string;
  /** The kind of the object that moved on: `Deployment`. */
  readonly kind: string;
  /** The name of the object that moved on. */
  readonly object: string;
  readonly operation: WorkloadOperation;
  /** The generation this operation waited for. */
  readonly expectedGeneration: number;
  readonly supersededBy: Supersession;
  constructor(operation: WorkloadOperation, where: FailureContext, expectedGeneration: number, supersededBy: Supersession) {
    super(
      `${describeOperation(operation, where)} was superseded: ${describeSupersession(supersededBy)} while waiting for generation ${expectedGeneration}`,
    );
    this.namespace = where.namespace;
    this.kind = where.kind ?? WORKLOAD_KIND;
    this.object = where.name;
    this.operation = operation;
    this.expectedGeneration = expectedGeneration;
    this.supersededBy = supersededBy;
  }

  /** @deprecated The object's name: use `object` (and `kind`). */
  get deployment(): string {
    return this.object;
  }
}

function describeSupersession(supersededBy: Supersession): string {
  switch (supersededBy?.by) {
    case 'scale':
      return `the Deployment was scaled to ${supersededBy.replicas} (generation ${supersededBy.generation})`;
    case 'spec':
      return `the Deployment was changed again (generation ${supersededBy.generation}: its pod template or another spec field)`;
    case 'deletion':
      return 'the Deployment was deleted';
    case 'replacement':
      return 'the Deployment was deleted and replaced by another object of the same name';
    default:
      return 'the Deployment changed';
  }
}

export interface GenerationTarget {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** The generation this operation wrote (or read, when it wrote nothing). */
  readonly generation: number;
  /** The replica count of that generation: a newer one with another count was a scale. */
  readonly replicas: number;
}

export function guardGeneration(
  operation: WorkloadOperation,
  target: GenerationTarget,
): OperatorFunction<readonly V1Deployment[], readonly V1Deployment[]> {
  return (source) =>
    new Observable<readonly V1Deployment[]>((subscriber) => {
      let seen = false;
      const supersede = (by: Supersession): void => subscriber.error(new WorkloadSupersededError(operation, target, target.generation, by));
      return source.subscribe({
        next: (objects) => {
          const ours = objects.find((object) => object.metadata?.uid === target.uid);
          if (!ours) {
            // Not seen yet: the cache has not caught up with the object read. Seen before:
            // it is gone, or another object of the same name took its place.
            if (seen) supersede(objects.length > 0 ? { by: 'replacement' } : { by: 'deletion' });
            return;
          }
          seen = true;
          if (ours.metadata?.deletionTimestamp) {
            supersede({ by: 'deletion' });
            return;
          }
          const generation = ours.metadata?.generation ?? 0;
          if (generation < target.generation) return;
          if (generation > target.generation) {
            const replicas = ours.spec?.replicas ?? 1;
            supersede(replicas !== target.replicas ? { by: 'scale', replicas, generation } : { by: 'spec', generation });
            return;
          }
          subscriber.next(objects.length === 1 ? objects : [ours]);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}
