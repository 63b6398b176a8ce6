// provision$() and provision(): from a Manager container description to a rolled-out
// workload and its provider ID "namespace/name".
//
//   validate and build the set -> choose the claim's storage class -> create or adopt
//   each member -> resolve drift (fail, or reconfigure) -> await ready -> ready event
//   (and on failure: clean up what this run created)
//
// The whole of it, the create included, races one deadline (`timeoutMs`) and the caller's
// AbortSignal; on every way out the informer subscriptions, timers and any request in
// flight are released. When it fails after creating members, the error (with its
// diagnosis) is held while those are deleted (cleanup.ts), for at most `cleanupTimeoutMs`,
// unless the caller keeps them; `error.cleanup` and the message say which happened. So the
// whole call settles within timeoutMs + cleanupTimeoutMs. An abort deletes nothing.
import {
  catchError,
  concat,
  defer,
  filter,
  lastValueFrom,
  map,
  of,
  switchMap,
  tap,
  throwError,
  using,
  type Observable,
  type Unsubscribable,
} from 'rxjs';
import { ProvisionAbortedError, WAITING_FOR_ROLLOUT } from '../../errors/rollout.js';
import { WorkloadDriftError, isReconfigurable } from '../../members/drift.js';
import { DURATION_RULES, minReadySecondsProblem, progressDeadlineProblem } from '../../input/duration.js';
import { abortSignal, checkOptions, checkedLater, duration, oneOf, trueOrFalse, type OptionTable } from '../../input/options.js';
import type { KubernetesClient } from '../../kube/client.js';
import { abortOn } from '../../rx/abort-on.js';
import { deadline } from '../../rx/deadline.js';
import { maskOutput } from '../../rx/mask-output.js';
import { maskOf } from '../../mask.js';
import type { ClaimSummary, ProgressEvent, ProvisionEvent, ReadyEvent } from '../../rollout/events.js';
import { awaitReady } from '../toolkit/await-ready.js';
import { cleanUpAfterFailure } from './cleanup.js';
import { createOrAdopt, type MemberOutcome } from './create-or-adopt.js';
import { chooseStorageClass, type StorageClassChoice } from './storage-class-choice.js';
import { CLASS_SOURCE_ANNOTATION, claimName } from '../../members/claim/manifest.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import { aMemberTable, deploymentOf, serviceOf } from '../../members/set.js';
import type { ServiceStatusValue } from '../../rollout/service-status.js';
import { writtenVersionOf } from '../../rollout/written-version.js';
import { KINDS } from '../../kube/kinds.js';
import { serviceForDeployment, writeService } from './set-ports.js';
import { operationContext } from '../toolkit/operation.js';
import { reconfigureAdopted } from './reconfigure.js';
import { chooseStopSignal$ } from './stop-signal-choice.js';
import { ProvisionRun, type ProvisionOptions } from './provision-run.js';

export type { ProvisionOptions } from './provision-run.js';

export interface ProvisionResult {
  readonly providerId: string;
  readonly namespace: string;
  readonly name: string;
  readonly adopted: boolean;
  readonly durationMs: number;
  /** The Service's address, what Manager stores in `ipv4Address`; null without ports. */
  readonly address: string | null;
  /** The Service (type, address, ClusterIP, ports) as it routes to the Pod; null without ports. */
  readonly service: ServiceStatusValue | null;
}

const PROVISION_OPTIONS: OptionTable = {
  timeoutMs: duration(DURATION_RULES.timeoutMs),
  signal: abortSignal,
  progressDeadlineSeconds: progressDeadlineProblem,
  minReadySeconds: minReadySecondsProblem,
  failurePolicy: checkedLater,
  scheduler: checkedLater,
  informers: checkedLater,
  onDrift: oneOf('fail', 'reconfigure'),
  keepOnFailure: trueOrFalse,
  cleanupTimeoutMs: duration(DURATION_RULES.cleanupTimeoutMs),
  members: aMemberTable,
};

/**
 * Cold: nothing happens until subscribed; each subscription provisions once, as a chain of
 * steps over one run's state (provision-run.ts).
 */
export function provision$(client: KubernetesClient, input: unknown, options: ProvisionOptions = {}): Observable<ProvisionEvent> {
  return defer(() => {
    checkOptions(options, PROVISION_OPTIONS, { noun: 'provision options', known: 'a provision option' });
    const run = new ProvisionRun(client, input, options);
    const steps$ = concat(
      chooseStopSignal$(client, run.spec, run.set, run.scheduler, (kept) => (run.stopSignals = kept)),
      chooseStorageClass$(run).pipe(
        switchMap((choice) => createOrAdopt$(run, choice)),
        switchMap((members) =>
          members.some((member) => member.drift.length > 0) ? resolveDrift$(run, members) : awaitReady$(run, members),
        ),
      ),
    );
    return using(
      () => holdGateWatches(run),
      () => steps$,
    ).pipe(
      deadline(run.timeoutMs, () => run.timeoutError(), run.scheduler),
      catchError((error: unknown) => cleanUpOnFailure$(run, error)),
      abortOn(options.signal, (reason) => new ProvisionAbortedError(run.target, reason)),
    );
  }).pipe(maskOutput(maskOf(client)));
}

/**
 * The claim's class, found before anything is created: the spec's (it must exist), or the
 * cluster's default, or without one the class of the container's kept claim.
 */
function chooseStorageClass$(run: ProvisionRun): Observable<StorageClassChoice | undefined> {
  const storage = run.spec.storage;
  if (!storage) return of(undefined);
  const kept = { namespace: run.set.namespace, name: claimName(run.spec), owner: run.set.owner };
  return fromAbortable((signal) => chooseStorageClass(run.client, storage, signal, kept));
}

/** Every member created, or adopted when it is this container's; the Deployment's streams held once it exists. */
function createOrAdopt$(run: ProvisionRun, choice: StorageClassChoice | undefined): Observable<MemberOutcome[]> {
  return createOrAdopt(run.client, run.build(choice), run.outcomes, (outcome) => {
    if (outcome.kind === 'deployments') run.held.hold(run.workload);
  });
}

/**
 * Adopted members that differ from the request: WorkloadDriftError naming the fields, or
 * with onDrift: 'reconfigure' (and every field reconfigurable) the adopted workload
 * rewritten to the request, its Service first, and awaited.
 */
function resolveDrift$(run: ProvisionRun, members: readonly MemberOutcome[]): Observable<ProvisionEvent> {
  run.waitingFor = WAITING_FOR_ROLLOUT;
  const { object: deployment, adopted } = deploymentOutcome(members);
  const drift = members.flatMap((member) => member.drift);
  const onDrift = run.options.onDrift ?? 'fail';
  if (onDrift !== 'reconfigure' || !drift.every(isReconfigurable)) {
    const hint =
      onDrift === 'reconfigure'
        ? `${drift
            .filter((field) => !isReconfigurable(field))
            .map((field) => field.field)
            .join(', ')} cannot be reconfigured (remove and create the container to change them); nothing was changed`
        : "nothing was changed (onDrift: 'reconfigure', or --on-drift reconfigure, applies the requested spec)";
    const kinds = [...new Set(members.filter((member) => member.drift.length > 0).map((member) => KINDS[member.kind].kind))];
    return throwError(() => new WorkloadDriftError({ ...run.target, kind: kinds.join(' and ') }, drift, hint));
  }
  const { spec } = run;
  const context = {
    ...operationContext('create', run.client, run.target, {
      ...run.options,
      containerId: spec.containerId,
      ...(spec.instance !== undefined ? { instance: spec.instance } : {}),
    }),
    deadline: run.deadline,
  };
  const desiredService =
    serviceOf(run.set) &&
    serviceForDeployment(deployment, { ports: spec.ports ?? [], ...(spec.serviceType ? { serviceType: spec.serviceType } : {}) });
  return concat(
    of<ProvisionEvent>({
      type: 'adopted',
      at: run.now(),
      ...run.target,
      providerId: run.providerId,
      uid: deployment.metadata?.uid ?? '',
      reconfigured: drift.map((each) => each.field),
    }),
    // The Service first: the rollout's wait ends when it routes on the ports asked for.
    fromAbortable((signal) => writeService(context, spec.containerId, desiredService, signal)).pipe(
      switchMap((write) =>
        reconfigureAdopted(context, deployment, spec, writtenVersionOf(write.service)).pipe(
          filter((event): event is ProgressEvent => event.type === 'progress'),
          tap((event) => run.track(event)),
        ),
      ),
    ),
    defer(() => of<ReadyEvent>(run.ready(adopted))),
  );
}

/**
 * The created (or adopted) event, then awaitReady: the rollout with its members' gates (the
 * claim bound and attached, the Service routing to the new Pod: ready means reachable).
 */
function awaitReady$(run: ProvisionRun, members: readonly MemberOutcome[]): Observable<ProvisionEvent> {
  run.waitingFor = WAITING_FOR_ROLLOUT;
  const { object: deployment, adopted } = deploymentOutcome(members);
  const claim = claimOutcome(members);
  const uid = deployment.metadata?.uid ?? '';
  const { deployments$, pods$ } = run.workload.streams;
  run.held.hold(run.workload);
  return concat(
    of<ProvisionEvent>({
      type: adopted ? 'adopted' : 'created',
      at: run.now(),
      ...run.target,
      providerId: run.providerId,
      uid,
      ...(claim ? { claim: claimSummary(claim) } : {}),
    }),
    awaitReady({
      client: run.client,
      informers: run.registry,
      instance: run.spec.instance,
      scheduler: run.scheduler,
      failurePolicy: run.failurePolicy,
      target: { ...run.target, uid, providerId: run.providerId },
      deadline: run.deadline,
      deployments$,
      pods$,
      table: run.set.table,
      members,
      written: deploymentOf(run.set),
    }).pipe(tap((event) => run.track(event))),
    defer(() => of<ReadyEvent>(run.ready(adopted))),
  );
}

/** What this run created deleted (or kept, as asked) before its error goes on (cleanup.ts). */
function cleanUpOnFailure$(run: ProvisionRun, error: unknown): Observable<never> {
  const { options } = run;
  return cleanUpAfterFailure(
    error,
    {
      client: run.client,
      namespace: run.set.namespace,
      providerId: run.providerId,
      instance: run.spec.instance,
      outcomes: run.outcomes,
      keepOnFailure: options.keepOnFailure === true,
      table: run.set.table,
    },
    {
      registry: run.registry,
      scheduler: run.scheduler,
      ...(options.cleanupTimeoutMs !== undefined ? { timeoutMs: options.cleanupTimeoutMs } : {}),
    },
  );
}

/** The run's held streams, its gates' informers from the start: released together when the run ends. */
function holdGateWatches(run: ProvisionRun): Unsubscribable {
  run.held.hold(run.gateWatches);
  return run.held;
}

/** The Deployment as this run found or made it: its rollout is the provisioning's. */
function deploymentOutcome(members: readonly MemberOutcome[]): MemberOutcome & { readonly kind: 'deployments' } {
  const member = members.find((each): each is MemberOutcome & { readonly kind: 'deployments' } => each.kind === 'deployments');
  if (!member) throw new Error('a workload set without its Deployment');
  return member;
}

/** The claim as this run found or made it, when the workload has storage. */
function claimOutcome(members: readonly MemberOutcome[]): (MemberOutcome & { readonly kind: 'persistentvolumeclaims' }) | undefined {
  return members.find(
    (each): each is MemberOutcome & { readonly kind: 'persistentvolumeclaims' } => each.kind === 'persistentvolumeclaims',
  );
}

function claimSummary(claim: MemberOutcome & { readonly kind: 'persistentvolumeclaims' }): ClaimSummary {
  const { object } = claim;
  return {
    name: object.metadata?.name ?? '',
    uid: object.metadata?.uid ?? '',
    adopted: claim.adopted,
    storageClass: object.spec?.storageClassName ?? null,
    requested: object.spec?.resources?.requests?.storage ?? null,
    classSource: object.metadata?.annotations?.[CLASS_SOURCE_ANNOTATION] === 'spec' ? 'spec' : 'default',
  };
}

/** The Promise form: resolves with the provider ID once the rollout is complete. */
export function provision(client: KubernetesClient, input: unknown, options: ProvisionOptions = {}): Promise<ProvisionResult> {
  return lastValueFrom(
    provision$(client, input, options).pipe(
      filter((event): event is ReadyEvent => event.type === 'ready'),
      map(({ providerId, namespace, name, adopted, durationMs, address, service }) => ({
        providerId,
        namespace,
        name,
        adopted,
        durationMs,
        address,
        service,
      })),
    ),
  );
}
