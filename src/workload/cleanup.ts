// After a failed provisioning: delete the Deployment this run created (never one it
// adopted), with its ReplicaSet and Pods, and wait until it is gone, so its requests stop
// counting against the namespace quota and a retry creates a fresh one instead of adopting
// the broken one. The delete names the UID this run created (a newer object of the same
// name is never touched) and is Foreground: the Deployment disappears only after its Pods.
// The wait is the shared Deployment informer seeing the UID go. All of it, the delete
// request included, is bounded by one timer (`cleanupTimeoutMs`): past it the outcome says
// how far it got (accepted but not confirmed gone, or sent but not answered).
import { catchError, filter, first, map, of, race, switchMap, timer, type Observable, type SchedulerLike } from 'rxjs';
import { ConflictError, KubeProvisionerError, NotFoundError, describeCleanup, type WorkloadCleanup } from '../errors.js';
import type { InformerRegistry } from '../informers/registry.js';
import type { KubernetesClient } from '../kube/client.js';
import { fromAbortable } from '../rx/from-abortable.js';
import { deploymentSnapshots } from './rollout-sources.js';

/** How long a cleanup may take, its delete request included, unless `cleanupTimeoutMs` says otherwise. */
export const DEFAULT_CLEANUP_TIMEOUT_MS = 5_000;

export interface CreatedDeployment {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly providerId: string;
  readonly instance: string | undefined;
}

export interface CleanupOptions {
  readonly registry: InformerRegistry;
  readonly scheduler: SchedulerLike;
  /** The bound on the whole cleanup; default DEFAULT_CLEANUP_TIMEOUT_MS. */
  readonly timeoutMs?: number;
}

/**
 * Deletes the Deployment, then emits the outcome once it is gone, refused, or the bound has
 * passed (`deleting` when the delete was accepted, `unconfirmed` when it was not answered);
 * never errors.
 */
export function deleteCreated(client: KubernetesClient, created: CreatedDeployment, options: CleanupOptions): Observable<WorkloadCleanup> {
  const { namespace, name, uid, providerId } = created;
  const timeoutMs = options.timeoutMs ?? DEFAULT_CLEANUP_TIMEOUT_MS;
  const outcome = (result: WorkloadCleanup['outcome'], error?: Error): WorkloadCleanup => ({
    outcome: result,
    providerId,
    uid,
    ...(error ? { error } : {}),
    ...(result === 'deleting' || result === 'unconfirmed' ? { timeoutMs } : {}),
  });
  let accepted = false;
  const gone$ = deploymentSnapshots(options.registry, client, namespace, name, created.instance).pipe(
    filter((deployments) => !deployments.some((deployment) => deployment.metadata?.uid === uid)),
    first(),
    map(() => outcome('deleted')),
  );
  const attempt$ = fromAbortable((signal) =>
    client.deleteDeployment(namespace, name, { preconditions: { uid }, propagationPolicy: 'Foreground', signal }),
  ).pipe(
    // Accepted: wait until the informer no longer holds our UID. Should the informer fail,
    // the delete was still accepted: report it as under way.
    switchMap(() => {
      accepted = true;
      return gone$.pipe(catchError(() => of(outcome('deleting'))));
    }),
    catchError((error: unknown) => {
      // Gone already, or the name now holds another object (UID precondition): ours is gone.
      if (error instanceof NotFoundError || (error instanceof ConflictError && error.reason === 'Conflict')) return of(outcome('deleted'));
      return of(outcome('failed', error instanceof Error ? error : new Error(String(error))));
    }),
  );
  // The first to arrive wins; losing, the other is unsubscribed (a delete still in flight is aborted).
  const bound$ = timer(timeoutMs, options.scheduler).pipe(map(() => outcome(accepted ? 'deleting' : 'unconfirmed')));
  return race(attempt$, bound$);
}

/** The failed provisioning's error, now saying what became of its Deployment. */
export function withCleanup(error: unknown, cleanup: WorkloadCleanup): unknown {
  if (error instanceof KubeProvisionerError) {
    error.cleanup = cleanup;
    error.message = `${error.message}; ${describeCleanup(cleanup)}`;
  }
  return error;
}
