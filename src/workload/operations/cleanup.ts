// After a failed provisioning: delete the objects of the workload set this run created
// (never one it adopted; only the kinds whose rules say so), a Deployment with its
// ReplicaSet and Pods, and wait until they are gone, so their requests stop counting
// against the namespace quota and a retry creates fresh ones instead of adopting broken
// ones. Each delete names the UID this run created (a newer object of the same name is
// never touched) and follows its kind's propagation (Foreground: a Deployment disappears
// only after its Pods). The wait is the shared informer seeing each UID go. All of it, the
// delete requests included, is bounded by one timer (`cleanupTimeoutMs`): past it the
// outcome says how far it got (accepted but not confirmed gone, or sent but not answered).
import {
  catchError,
  defaultIfEmpty,
  filter,
  first,
  forkJoin,
  map,
  of,
  race,
  switchMap,
  throwError,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { ConflictError, NotFoundError } from '../../errors/api.js';
import { KubeProvisionerError } from '../../errors/base.js';
import type { InformerRegistry } from '../../informers/registry.js';
import type { KubernetesClient } from '../../kube/client.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import { longTimer } from '../../rx/long-timer.js';
import { KINDS } from '../../kube/kinds.js';
import type { MemberKind, MemberTable } from '../../members/set.js';
import type { MemberOutcome } from './create-or-adopt.js';

/** What a failed provisioning did with its Deployment (`error.cleanup`). */
export interface WorkloadCleanup {
  /**
   * - `deleted`: this run created it; it is gone, with its Pods, so a retry starts clean.
   * - `deleting`: this run created it and the API server accepted its deletion, which was
   *   not confirmed within the cleanup bound; a retry before it is gone fails with
   *   ConflictError.
   * - `unconfirmed`: this run created it and sent its delete, which the API server did not
   *   answer within the cleanup bound: it may still exist.
   * - `kept`: this run created it and kept it, as asked (keepOnFailure), for debugging.
   * - `adopted`: it existed before this run (same container), so it was left as it is.
   * - `failed`: this run created it and could not delete it (`error` says why); it remains.
   */
  readonly outcome: 'deleted' | 'deleting' | 'unconfirmed' | 'kept' | 'adopted' | 'failed';
  readonly providerId: string;
  readonly uid: string;
  readonly error?: Error;
  /**
   * With storage: the claim this run created went the same way as the Deployment (`deleted`,
   * `deleting`, `kept`), or it existed before this run and was left (`adopted`).
   */
  readonly claim?: 'deleted' | 'deleting' | 'kept' | 'adopted';
  /** `deleting`, `unconfirmed`: the cleanup bound it waited (cleanupTimeoutMs). */
  readonly timeoutMs?: number;
  /** The kinds this run created, in creation order (`Deployment`, `Service`); absent: the Deployment. */
  readonly kinds?: readonly string[];
}

// Every error of the hierarchy can end a provisioning, so the report is declared on the
// root class; it is made here, and only here.
declare module '../../errors/base.js' {
  interface KubeProvisionerError {
    /**
     * Set when a provisioning failed after its Deployment existed: what became of it.
     * Undefined otherwise (nothing was created, or the error is not a provisioning's).
     */
    cleanup: WorkloadCleanup | undefined;
  }
}

/** The cleanup in words, as appended to the failed provisioning's message. */
export function describeCleanup(cleanup: WorkloadCleanup): string {
  return `${describeDeploymentCleanup(cleanup)}${describeClaimCleanup(cleanup.claim)}`;
}

function describeClaimCleanup(claim: WorkloadCleanup['claim']): string {
  switch (claim) {
    case undefined:
      return '';
    case 'deleted':
      return '; so was the claim it created';
    case 'deleting':
      return '; the claim it created is being deleted';
    case 'kept':
      return '; so was the claim it created';
    case 'adopted':
      return '; the claim was left as it is (it existed before this run, or serves a Deployment that did)';
  }
}

function describeDeploymentCleanup(cleanup: WorkloadCleanup): string {
  const withService = cleanup.kinds?.includes('Service') === true && cleanup.outcome !== 'adopted';
  const deployment = `the Deployment ${cleanup.providerId}${withService ? ' (and its Service)' : ''}`;
  switch (cleanup.outcome) {
    case 'deleted':
      return `${deployment} this run created was deleted with its pods`;
    case 'deleting':
      return `${deployment} this run created was asked to be deleted; the deletion was not confirmed within ${cleanup.timeoutMs ?? 0} ms`;
    case 'unconfirmed':
      return `the delete of ${deployment} this run created was sent but not answered within ${cleanup.timeoutMs ?? 0} ms: it may still exist`;
    case 'kept':
      return `${deployment} this run created was kept for debugging, as asked; delete it before a retry`;
    case 'adopted':
      return `${deployment} existed before this run and was left as it is`;
    case 'failed':
      return `${deployment} this run created could not be deleted (${cleanup.error?.message ?? 'unknown error'})`;
  }
}

/** How long a cleanup may take, its delete requests included, unless `cleanupTimeoutMs` says otherwise. */
export const DEFAULT_CLEANUP_TIMEOUT_MS = 5_000;

/** An object a provisioning created. */
export interface CreatedMember {
  readonly kind: MemberKind;
  readonly name: string;
  readonly uid: string;
}

/** What a provisioning created of its workload set. */
export interface CreatedWorkload {
  readonly namespace: string;
  readonly providerId: string;
  readonly instance: string | undefined;
  /** In creation order. */
  readonly members: readonly CreatedMember[];
  /** Their kinds' rules. */
  readonly table: MemberTable;
}

export interface CleanupOptions {
  readonly registry: InformerRegistry;
  readonly scheduler: SchedulerLike;
  /** The bound on the whole cleanup; default DEFAULT_CLEANUP_TIMEOUT_MS. */
  readonly timeoutMs?: number;
}

/**
 * Deletes what this run created (the members their rules delete on failure, last created
 * first), then emits the outcome once all are gone, refused, or the bound has passed
 * (`deleting` when a delete was accepted, `unconfirmed` when one was not answered); never
 * errors.
 */
export function deleteCreated(client: KubernetesClient, created: CreatedWorkload, options: CleanupOptions): Observable<WorkloadCleanup> {
  const { providerId } = created;
  const uid = created.members.find((member) => member.kind === 'deployments')?.uid ?? '';
  const timeoutMs = options.timeoutMs ?? DEFAULT_CLEANUP_TIMEOUT_MS;
  const kinds = created.members.map((member) => KINDS[member.kind].kind);
  const deletable = [...created.members].reverse();
  const claimIndex = deletable.findIndex((member) => member.kind === 'persistentvolumeclaims');
  return forkJoin(deletable.map((member) => deleteMember(client, created, member, { ...options, timeoutMs }))).pipe(
    map((outcomes): WorkloadCleanup => {
      const claimOutcome = claimIndex < 0 ? undefined : outcomes[claimIndex]?.outcome;
      const claim = claimOutcome === 'deleted' || claimOutcome === 'deleting' ? { claim: claimOutcome } : {};
      const failed = outcomes.find((outcome) => outcome.outcome === 'failed');
      if (failed) return { outcome: 'failed', providerId, uid, kinds, ...(failed.error ? { error: failed.error } : {}), ...claim };
      // The least far any member got: not answered, then accepted but not gone, then gone.
      const worst = (['unconfirmed', 'deleting'] as const).find((result) => outcomes.some((outcome) => outcome.outcome === result));
      return worst
        ? { outcome: worst, providerId, uid, kinds, timeoutMs, ...claim }
        : { outcome: 'deleted', providerId, uid, kinds, ...claim };
    }),
    defaultIfEmpty<WorkloadCleanup, WorkloadCleanup>({ outcome: 'deleted', providerId, uid, kinds }),
  );
}

/** One member: deleted by UID, then gone from the informer or still going at the bound. */
function deleteMember(
  client: KubernetesClient,
  created: CreatedWorkload,
  member: CreatedMember,
  options: CleanupOptions & { readonly timeoutMs: number },
): Observable<Pick<WorkloadCleanup, 'outcome' | 'error'>> {
  const { namespace } = created;
  const { kind, name, uid } = member;
  const rules = created.table.rulesOf(kind);
  const outcome = (result: WorkloadCleanup['outcome'], error?: Error): Pick<WorkloadCleanup, 'outcome' | 'error'> => ({
    outcome: result,
    ...(error ? { error } : {}),
  });
  const gone$ = rules.snapshots(options.registry, client, namespace, name, created.instance).pipe(
    filter((objects) => !objects.some((object) => object.metadata?.uid === uid)),
    first(),
    map(() => outcome('deleted')),
  );
  let accepted = false;
  const attempt$ = fromAbortable((signal) =>
    client.delete(kind, namespace, name, { preconditions: { uid }, propagationPolicy: rules.propagationPolicy, signal }),
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
  const bound$ = longTimer(options.timeoutMs, options.scheduler).pipe(map(() => outcome(accepted ? 'deleting' : 'unconfirmed')));
  return race(attempt$, bound$);
}

/** A failed provisioning, as its cleanup sees it. */
export interface FailedProvisioning {
  readonly client: KubernetesClient;
  readonly namespace: string;
  readonly providerId: string;
  readonly instance: string | undefined;
  /** What the run found or made, member by member. */
  readonly outcomes: readonly MemberOutcome[];
  /** Keep what it created, for debugging. */
  readonly keepOnFailure: boolean;
  readonly table: MemberTable;
}

/**
 * The failed provisioning's error, after what it created is deleted (or kept, as asked):
 * never a member it adopted, nor one used by an adopted member (a claim an adopted
 * Deployment's Pods mount). Nothing to clean up: the error as it is.
 */
export function cleanUpAfterFailure(error: unknown, failed: FailedProvisioning, options: CleanupOptions): Observable<never> {
  const { outcomes, providerId } = failed;
  if (outcomes.length === 0) return throwError(() => error);
  const uid = outcomes.find((member) => member.kind === 'deployments')?.object.metadata?.uid ?? '';
  const adopted = (kind: MemberKind | undefined): boolean => outcomes.some((member) => member.kind === kind && member.adopted);
  const created = outcomes.filter((member) => !member.adopted && !adopted(failed.table.rulesOf(member.kind).usedBy));
  const claimMember = outcomes.find((member) => member.kind === 'persistentvolumeclaims');
  const claimLeft = claimMember !== undefined && !created.includes(claimMember);
  const claimKept = claimMember === undefined ? {} : { claim: claimLeft ? ('adopted' as const) : ('kept' as const) };
  if (created.length === 0 || failed.keepOnFailure) {
    const outcome = created.length === 0 ? 'adopted' : 'kept';
    const kinds = created.map((member) => KINDS[member.kind].kind);
    return throwError(() => withCleanup(error, { outcome, providerId, uid, ...claimKept, ...(outcome === 'kept' ? { kinds } : {}) }));
  }
  const members = created.map(({ kind, object }) => ({ kind, name: object.metadata?.name ?? '', uid: object.metadata?.uid ?? '' }));
  const workload = { namespace: failed.namespace, providerId, instance: failed.instance, members, table: failed.table };
  return deleteCreated(failed.client, workload, options).pipe(
    // A re-attached claim (kept data) is never deleted by a failed create.
    map((cleanup) => (claimLeft && cleanup.claim === undefined ? { ...cleanup, claim: 'adopted' as const } : cleanup)),
    switchMap((cleanup) => throwError(() => withCleanup(error, cleanup))),
  );
}

/** The failed provisioning's error, now saying what became of its Deployment. */
export function withCleanup(error: unknown, cleanup: WorkloadCleanup): unknown {
  if (error instanceof KubeProvisionerError) {
    error.cleanup = cleanup;
    error.message = `${error.message}; ${describeCleanup(cleanup)}`;
  }
  return error;
}
