// provision$() and provision(): from a Manager container description to a rolled-out
// workload and its provider ID "namespace/name".
//
//   validate -> build the workload set -> create each member (or adopt it on 409)
//   -> created/adopted event (the Deployment's)
//   -> progress events from the shared informers until the rollout completes -> ready
//
// The whole of it, the create included, races one deadline (`timeoutMs`) and the caller's
// AbortSignal; on every way out the informer subscriptions, timers and any request in
// flight are released. When it fails after creating members, the error (with its
// diagnosis) is held while those are deleted (cleanup.ts), for at most `cleanupTimeoutMs`,
// unless the caller keeps them; `error.cleanup` and the message say which happened. So the
// whole call settles within timeoutMs + cleanupTimeoutMs. An abort deletes nothing.
import {
  asyncScheduler,
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
  type SchedulerLike,
} from 'rxjs';
import { isoTime } from '../../rx/clock-time.js';
import { ProvisionAbortedError, RolloutTimeoutError, WAITING_FOR_CREATE, WAITING_FOR_ROLLOUT } from '../../errors/rollout.js';
import { WorkloadDriftError } from '../../members/drift.js';
import { DURATION_RULES, minReadySecondsProblem, progressDeadlineProblem } from '../../input/duration.js';
import { abortSignal, checkOptions, checkedLater, duration, oneOf, trueOrFalse, type OptionTable } from '../../input/options.js';
import { defaultInformerRegistry, type InformerRegistry } from '../../informers/registry.js';
import type { KubernetesClient } from '../../kube/client.js';
import { parseWorkloadSpec } from '../../input/workload-spec.js';
import { abortOn } from '../../rx/abort-on.js';
import { deadline } from '../../rx/deadline.js';
import { maskOutput } from '../../rx/mask-output.js';
import { maskOf } from '../../mask.js';
import type { ClaimSummary, ProgressEvent, ProvisionEvent, ReadyEvent, RolloutStatus } from '../../rollout/events.js';
import { resolveFailurePolicy, type FailurePolicyOverrides } from '../../rollout/failure-policy.js';
import { awaitReady } from '../toolkit/await-ready.js';
import { deleteCreated, withCleanup } from './cleanup.js';
import { createOrAdopt, type MemberOutcome } from './create-or-adopt.js';
import { checkManifestSize } from '../../members/deployment/manifest.js';
import { chooseStorageClass, type StorageClassChoice } from './storage-class-choice.js';
import { CLASS_SOURCE_ANNOTATION, claimName } from '../../members/claim/manifest.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import { buildWorkload, deploymentOf, ownedBy, serviceOf, type BuildWorkloadOptions, type WorkloadSet } from '../../members/set.js';
import { HeldConnections, heldRouted, heldWorkload, routedStreams } from '../toolkit/workload-streams.js';
import { servicePorts, type ServiceStatusValue } from '../../rollout/service-status.js';
import { writtenVersionOf } from '../../rollout/written-version.js';
import { NotFoundError } from '../../errors/api.js';
import { KINDS } from '../../kube/kinds.js';
import { serviceForDeployment, writeService } from './set-ports.js';
import { isReconfigurable } from '../../members/drift.js';
import { DEFAULT_TIMEOUT_MS, operationContext } from '../toolkit/operation.js';
import { reconfigureAdopted } from './reconfigure.js';
import { chooseStopSignal$ } from './stop-signal-choice.js';

export interface ProvisionOptions {
  /**
   * Bound on the whole provisioning, create included, in whole milliseconds from 1 to 365
   * days; `Infinity` means no bound (the rollout's own outcome, or the signal, ends it).
   * Default 300000 (5 minutes).
   */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /**
   * The Deployment's own progress deadline, in whole seconds from 1 to 2147483647 (which the
   * deployment controller reads as "no deadline"); default 600 s (Kubernetes' default).
   */
  readonly progressDeadlineSeconds?: number;
  /**
   * How long a new Pod must be Ready without a crash to count as running, in whole seconds
   * from 0, less than progressDeadlineSeconds; default 3 (DEFAULT_MIN_READY_SECONDS in
   * manifest.ts says why). 0 is Kubernetes' default: the first moment of readiness counts.
   */
  readonly minReadySeconds?: number;
  /** When a Pod problem fails the provisioning (see failure-policy.ts). */
  readonly failurePolicy?: FailurePolicyOverrides;
  /** Clock and timers (tests inject a TestScheduler or a virtual-time scheduler). */
  readonly scheduler?: SchedulerLike;
  /** Shared informers; default: one registry for the process. */
  readonly informers?: InformerRegistry;
  /**
   * On failure, keep the Deployment this run created, for debugging. Default false: it is
   * deleted with its Pods once the failure is diagnosed (an adopted one is never deleted).
   */
  readonly keepOnFailure?: boolean;
  /**
   * Bound on that deletion, its delete request included, in whole milliseconds from 0 to 365
   * days; past it `error.cleanup` says how far it got (`deleting`: accepted, not confirmed
   * gone; `unconfirmed`: sent, not answered). Default 5000. The whole call settles within
   * `timeoutMs` plus this.
   */
  readonly cleanupTimeoutMs?: number;
  /**
   * When a Deployment of this container-id exists already but differs from the request
   * (image, resources, env, entrypoint, args, replicas, labels): `fail` (default) with
   * WorkloadDriftError listing the fields, nothing changed; `reconfigure` rewrites its
   * containers to the request (and replicas to 1) and waits for that rollout. Labels are
   * never rewritten: a label difference fails either way.
   */
  readonly onDrift?: 'fail' | 'reconfigure';
}

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
};

/** Cold: nothing happens until subscribed; each subscription provisions once. */
export function provision$(client: KubernetesClient, input: unknown, options: ProvisionOptions = {}): Observable<ProvisionEvent> {
  return defer(() => {
    checkOptions(options, PROVISION_OPTIONS, { noun: 'provision options', known: 'a provision option' });
    const scheduler = options.scheduler ?? asyncScheduler;
    const registry = options.informers ?? defaultInformerRegistry;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const spec = parseWorkloadSpec(input);
    const failurePolicy = resolveFailurePolicy(options.failurePolicy);
    // Every build of the set takes these (the one with the chosen class too): one list, none left out.
    const buildOptions: BuildWorkloadOptions = {
      namespace: client.namespace,
      ...(options.progressDeadlineSeconds !== undefined ? { progressDeadlineSeconds: options.progressDeadlineSeconds } : {}),
      ...(options.minReadySeconds !== undefined ? { minReadySeconds: options.minReadySeconds } : {}),
    };
    const set = buildWorkload(spec, buildOptions);
    // Before any request: the API server (or etcd behind it) would refuse it after.
    checkManifestSize(deploymentOf(set), spec);
    const { namespace, name, providerId } = set;
    const target = { namespace, name };
    const startedAt = scheduler.now();
    const deadlineOfCreate = { at: startedAt + timeoutMs, timeoutMs };
    const at = (): string => isoTime(scheduler);
    let lastStatus: RolloutStatus | undefined;
    let waitingFor = WAITING_FOR_CREATE;
    // What this run found or made, member by member; a failure before any leaves nothing to clean up.
    const outcomes: MemberOutcome[] = [];

    const onDrift = options.onDrift ?? 'fail';

    const readyEvent = (adopted: boolean, service: ServiceStatusValue | null): ReadyEvent => ({
      type: 'ready',
      at: at(),
      namespace,
      name,
      providerId,
      adopted,
      durationMs: scheduler.now() - startedAt,
      address: service?.address ?? null,
      service,
    });
    const track = (event: ProgressEvent): void => {
      // While the Service is awaited, its state is what the provisioning waits for.
      lastStatus =
        event.service && !event.service.routed
          ? { ...event.status, state: 'InProgress', reason: event.service.reason, message: event.service.message }
          : event.status;
    };

    // The claim's class, found before anything is created: the spec's (it must exist), or
    // the cluster's default, or without one the class of the container's kept claim.
    const storage = spec.storage;
    const kept = { namespace, name: claimName(spec), owner: set.owner };
    const chosen$: Observable<StorageClassChoice | undefined> = storage
      ? fromAbortable((signal) => chooseStorageClass(client, storage, signal, kept))
      : of(undefined);
    // With a Service: its informers from the start, synced by the time the rollout completes.
    const routedScope = { informers: registry, client, namespace, name, instance: spec.instance };
    const routed = serviceOf(set) ? heldRouted(routedScope) : undefined;
    // The Deployment's and Pods' from the moment the Deployment exists, through the writes
    // after it: a provisioning whose Service create is slow then keeps them running for the
    // next, instead of the last to finish stopping them and the next listing everything again.
    const workload = heldWorkload(routedScope, spec.containerId);
    const heldStreams = new HeldConnections();
    // A system container's Pod names systemd's stop signal where the cluster keeps it: asked before the build.
    let stopSignals = false;
    const stopSignal$ = chooseStopSignal$(client, spec, set, scheduler, (kept) => (stopSignals = kept));
    const build = (choice: StorageClassChoice | undefined): WorkloadSet =>
      buildWorkload(spec, { ...buildOptions, stopSignals, ...(choice ? { storageClass: choice.name } : {}) });
    const work$ = chosen$.pipe(
      switchMap((choice) =>
        createOrAdopt(client, build(choice), outcomes, (outcome) => {
          if (outcome.kind === 'deployments') heldStreams.hold(workload);
        }),
      ),
      switchMap((members) =>
        set.members.some((member) => member.kind === 'services') ? of(members) : withLeftoverService(client, set, members),
      ),
      switchMap((members) => {
        waitingFor = WAITING_FOR_ROLLOUT;
        const { object: deployment, adopted } = deploymentOutcome(members);
        const claim = claimOutcome(members);
        const uid = deployment.metadata?.uid ?? '';
        const serviceMember = members.find((member) => member.kind === 'services');
        const drift = members.flatMap((member) => member.drift);
        if (drift.length > 0) {
          const fixed = onDrift === 'reconfigure' && drift.every(isReconfigurable);
          if (!fixed) {
            const hint =
              onDrift === 'reconfigure'
                ? `${drift
                    .filter((field) => !isReconfigurable(field))
                    .map((field) => field.field)
                    .join(', ')} cannot be reconfigured (remove and create the container to change them); nothing was changed`
                : "nothing was changed (onDrift: 'reconfigure', or --on-drift reconfigure, applies the requested spec)";
            const kinds = [...new Set(members.filter((member) => member.drift.length > 0).map((member) => KINDS[member.kind].kind))];
            throw new WorkloadDriftError({ ...target, kind: kinds.join(' and ') }, drift, hint);
          }
          const context = {
            ...operationContext('create', client, target, {
              ...options,
              containerId: spec.containerId,
              ...(spec.instance !== undefined ? { instance: spec.instance } : {}),
            }),
            deadline: deadlineOfCreate,
          };
          const desiredService =
            serviceOf(set) &&
            serviceForDeployment(deployment, { ports: spec.ports ?? [], ...(spec.serviceType ? { serviceType: spec.serviceType } : {}) });
          let service: ServiceStatusValue | null = null;
          return concat(
            of<ProvisionEvent>({
              type: 'adopted',
              at: at(),
              namespace,
              name,
              providerId,
              uid,
              reconfigured: drift.map((each) => each.field),
            }),
            // The Service first: the rollout's wait ends when it routes on the ports asked for.
            fromAbortable((signal) => writeService(context, spec.containerId, desiredService, signal)).pipe(
              switchMap((write) =>
                reconfigureAdopted(context, deployment, spec, writtenVersionOf(write.service)).pipe(
                  filter((event): event is ProgressEvent => event.type === 'progress'),
                  tap((event) => {
                    track(event);
                    if (event.service) service = event.service;
                  }),
                ),
              ),
            ),
            defer(() => of<ReadyEvent>(readyEvent(adopted, service))),
          );
        }
        let service: ServiceStatusValue | null = null;
        const rolloutTarget = { namespace, name, uid, providerId };
        const { deployments$, pods$ } = workload.streams;
        heldStreams.hold(workload);
        return concat(
          of<ProvisionEvent>({
            type: adopted ? 'adopted' : 'created',
            at: at(),
            namespace,
            name,
            providerId,
            uid,
            ...(claim ? { claim: claimSummary(claim) } : {}),
          }),
          // Ready means reachable: the rollout (the claim a gate of it), then the Service lists the new Pod as ready on every port.
          awaitReady({
            client,
            informers: registry,
            instance: spec.instance,
            scheduler,
            failurePolicy,
            target: rolloutTarget,
            deadline: deadlineOfCreate,
            deployments$,
            pods$,
            routed: routed?.streams ?? routedStreams(routedScope),
            claim: claim?.object,
            service: serviceMember ? { uid: serviceMember.object.metadata?.uid ?? '' } : undefined,
            written: deploymentOf(set),
          }).pipe(
            tap((event) => {
              track(event);
              if ('service' in event && event.service) service = event.service;
            }),
          ),
          defer(() => of<ReadyEvent>(readyEvent(adopted, service))),
        );
      }),
    );

    const heldWork$ = using(
      () => {
        if (routed) heldStreams.hold(routed);
        return heldStreams;
      },
      () => concat(stopSignal$, work$),
    );
    return heldWork$.pipe(
      deadline(timeoutMs, () => new RolloutTimeoutError(target, timeoutMs, lastStatus, waitingFor), scheduler),
      catchError((error: unknown) => {
        if (outcomes.length === 0) return throwError(() => error);
        const uid = outcomes.find((member) => member.kind === 'deployments')?.object.metadata?.uid ?? '';
        // A claim is deleted only with the Deployment this run created: an adopted Deployment's Pods may use it.
        const deploymentAdopted = outcomes.some((member) => member.kind === 'deployments' && member.adopted);
        const created = outcomes.filter((member) => !member.adopted && !(deploymentAdopted && member.kind === 'persistentvolumeclaims'));
        const claimMember = outcomes.find((member) => member.kind === 'persistentvolumeclaims');
        const claimKept =
          claimMember === undefined ? {} : { claim: claimMember.adopted || deploymentAdopted ? ('adopted' as const) : ('kept' as const) };
        if (created.length === 0 || options.keepOnFailure) {
          const outcome = created.length === 0 ? 'adopted' : 'kept';
          const kinds = created.map((member) => KINDS[member.kind].kind);
          return throwError(() => withCleanup(error, { outcome, providerId, uid, ...claimKept, ...(outcome === 'kept' ? { kinds } : {}) }));
        }
        const members = created.map(({ kind, object }) => ({ kind, name: object.metadata?.name ?? '', uid: object.metadata?.uid ?? '' }));
        return deleteCreated(
          client,
          { namespace, providerId, instance: spec.instance, members },
          { registry, scheduler, ...(options.cleanupTimeoutMs !== undefined ? { timeoutMs: options.cleanupTimeoutMs } : {}) },
        ).pipe(
          // A re-attached claim (kept data) is never deleted by a failed create.
          map((cleanup) => (claimMember?.adopted && cleanup.claim === undefined ? { ...cleanup, claim: 'adopted' as const } : cleanup)),
          switchMap((cleanup) => throwError(() => withCleanup(error, cleanup))),
        );
      }),
      abortOn(options.signal, (reason) => new ProvisionAbortedError(target, reason)),
    );
  }).pipe(maskOutput(maskOf(client)));
}

/**
 * A spec without ports whose Deployment was adopted: a Service of this container left from
 * an earlier spec is drift (`ports`), fixed by onDrift: 'reconfigure' (deleted). A create
 * that made the Deployment needs no look: a Service left over is owned by an older
 * Deployment, and the garbage collector removes it.
 */
function withLeftoverService(client: KubernetesClient, set: WorkloadSet, members: MemberOutcome[]): Observable<MemberOutcome[]> {
  if (!deploymentOutcome(members).adopted) return of(members);
  return fromAbortable(async (signal) => {
    try {
      const service = await client.read('services', set.namespace, set.name, { signal });
      if (!ownedBy(service, set.owner)) return members;
      const live = servicePorts(service)
        .map((port) => `${port.port}/${port.protocol}`)
        .join(', ');
      const drift = [{ field: 'ports', live, desired: '(none)' }];
      return [...members, { kind: 'services' as const, object: service, adopted: true, drift }];
    } catch (error) {
      if (error instanceof NotFoundError) return members;
      throw error;
    }
  });
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
