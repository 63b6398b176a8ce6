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
import type { V1Deployment } from '../kube/objects.js';
import { Observable, type OperatorFunction } from 'rxjs';
import { WorkloadSupersededError, type WorkloadOperation } from '../errors.js';

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
      const supersede = (by: WorkloadSupersededError['supersededBy']): void =>
        subscriber.error(new WorkloadSupersededError(operation, target, target.generation, by));
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
