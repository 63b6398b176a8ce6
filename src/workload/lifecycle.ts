// What every operation on an existing workload (start, stop, restart, reconfigure, remove)
// shares: the provider ID and options checked before any request; one read of the
// Deployment that proves it is Manager's (managed=true, and the expected container-id);
// writes with preconditions, read again and rebuilt when the object changed meanwhile;
// the shared informers held for the whole operation (one Deployment and one Pod watch per
// namespace, whatever the number of operations); and one deadline and the caller's
// AbortSignal around all of it, releasing every watch, timer and request on the way out.
import type { V1Deployment, V1Pod } from '../kube/objects.js';
import {
  ReplaySubject,
  asyncScheduler,
  connectable,
  defer,
  filter,
  lastValueFrom,
  map,
  take,
  tap,
  using,
  type Connectable,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import {
  ConflictError,
  InvalidObjectError,
  InvalidOptionError,
  InvalidSpecError,
  NotFoundError,
  OperationAbortedError,
  OperationTimeoutError,
  WorkloadNotFoundError,
  WorkloadOwnershipError,
  type WorkloadOperation,
} from '../errors.js';
import { defaultInformerRegistry, type InformerRegistry } from '../informers/registry.js';
import type { DeploymentMergePatch, KubernetesClient } from '../kube/client.js';
import type { RolloutStatus } from '../rollout/events.js';
import { resolveFailurePolicy, type FailurePolicy, type FailurePolicyOverrides } from '../rollout/failure-policy.js';
import { awaitRollout } from '../rollout/await-rollout.js';
import { abortOn } from '../rx/abort-on.js';
import { isoTime } from '../rx/clock-time.js';
import { deadline } from '../rx/deadline.js';
import { maskOutput } from '../rx/mask-output.js';
import { maskOf } from '../mask.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL, belongsToInstance } from '../spec/labels.js';
import { DURATION_RULES, requireDuration } from '../spec/duration.js';
import { labelValueProblem } from '../spec/names.js';
import { parseProviderId } from '../spec/provider-id.js';
import { guardGeneration } from './guard-generation.js';
import type { LifecycleEvent, OutcomeEvent } from './lifecycle-events.js';
import { DEFAULT_TIMEOUT_MS } from './provision.js';
import { deploymentSnapshots, podSnapshots } from './rollout-sources.js';

export interface WorkloadOperationOptions {
  /** Bound on the whole operation, its writes included. Default 300000 (5 minutes). */
  readonly timeoutMs?: number;
  /** An already-aborted signal rejects at once; listeners are removed when the operation ends. */
  readonly signal?: AbortSignal;
  /**
   * The Manager container the caller means: a Deployment with another container-id label
   * is refused (WorkloadOwnershipError) and left untouched. Required by remove.
   */
  readonly containerId?: string | number;
  /** When a Pod problem fails a start, restart or reconfigure (see failure-policy.ts). */
  readonly failurePolicy?: FailurePolicyOverrides;
  /** Clock and timers (tests inject a TestScheduler or a virtual-time scheduler). */
  readonly scheduler?: SchedulerLike;
  /** Shared informers; default: one registry for the process. */
  readonly informers?: InformerRegistry;
  /**
   * The Manager installation (instance label) the workload belongs to; another
   * installation's Deployment is refused. Default: workloads without an instance label.
   */
  readonly instance?: string;
}

/** What the Promise forms resolve to. */
export interface OperationResult {
  readonly providerId: string;
  readonly namespace: string;
  readonly name: string;
  /** false: nothing had to be written (already running, already stopped, already gone). */
  readonly changed: boolean;
  readonly durationMs: number;
}

/**
 * The pod-template annotation `kubectl rollout restart` sets: a new value is a new pod
 * template, so the controller rolls out a new ReplicaSet (new Pods) from the same spec.
 */
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';

/** A write that was refused because the object changed is read again and rebuilt this often. */
const MAX_WRITE_ATTEMPTS = 5;

export interface OperationContext {
  readonly operation: WorkloadOperation;
  readonly client: KubernetesClient;
  readonly namespace: string;
  readonly name: string;
  readonly providerId: string;
  readonly expectedContainerId: string | undefined;
  readonly instance: string | undefined;
  readonly scheduler: SchedulerLike;
  readonly informers: InformerRegistry;
  readonly failurePolicy: FailurePolicy;
  /** The base of every event: `at` (now), `namespace`, `name`, `providerId`. */
  base(): { at: string; namespace: string; name: string; providerId: string };
  /** Milliseconds since the operation started. */
  elapsed(): number;
}

/** A Deployment read and found to be the expected Manager container's. */
export interface OwnedWorkload {
  readonly deployment: V1Deployment;
  readonly uid: string;
  readonly containerId: string;
  readonly generation: number;
  /** spec.replicas (the API's default, 1, when absent). */
  readonly replicas: number;
  readonly resourceVersion: string;
}

/**
 * Runs `body` as one operation: validates the provider ID and options when subscribed
 * (InvalidSpecError / InvalidOptionError before any request), then bounds the whole of
 * it with `timeoutMs` and the AbortSignal. Cold: each subscription runs it once.
 */
export function runOperation(
  operation: WorkloadOperation,
  client: KubernetesClient,
  providerId: string,
  options: WorkloadOperationOptions,
  body: (context: OperationContext) => Observable<LifecycleEvent>,
): Observable<LifecycleEvent> {
  return defer(() => {
    const { namespace, name } = parseProviderId(providerId);
    checkOperationOptions(operation, options);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const context = operationContext(operation, client, { namespace, name }, options);
    if (operation === 'remove' && context.expectedContainerId === undefined) {
      throw new InvalidSpecError([
        { path: 'containerId', message: 'is required to remove a workload (the container-id its Deployment must carry)' },
      ]);
    }
    const where = { namespace, name };
    const { scheduler } = context;
    let waitingFor: string | undefined;
    let lastStatus: RolloutStatus | undefined;
    return body(context).pipe(
      tap((event) => {
        if (event.type === 'progress') {
          lastStatus = event.status;
          waitingFor = event.message;
        } else if (event.type === 'waiting') {
          waitingFor = event.message;
        }
      }),
      deadline(timeoutMs, () => new OperationTimeoutError(operation, where, timeoutMs, { waitingFor, lastStatus }), scheduler),
      abortOn(options.signal, (reason) => new OperationAbortedError(operation, where, reason)),
    );
  }).pipe(maskOutput(maskOf(client)));
}

const OPERATION_OPTION_NAMES: readonly string[] = [
  'timeoutMs',
  'signal',
  'containerId',
  'instance',
  'failurePolicy',
  'scheduler',
  'informers',
];
/** Options only some operations take. */
const EXTRA_OPTION_NAMES: Partial<Record<WorkloadOperation, readonly string[]>> = { reconfigure: ['rollbackOnFailure'] };

/**
 * Every option, checked before anything is sent, under provision's rules: an unknown key is
 * a typo, never ignored; timeoutMs follows the duration rule (spec/duration.ts).
 */
function checkOperationOptions(operation: WorkloadOperation, options: WorkloadOperationOptions): void {
  if (options === null || typeof options !== 'object') throw new InvalidOptionError('options', `${operation} options must be an object`);
  const allowed = [...OPERATION_OPTION_NAMES, ...(EXTRA_OPTION_NAMES[operation] ?? [])];
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) throw new InvalidOptionError(key, `${key} is not a ${operation} option (allowed: ${allowed.join(', ')})`);
  }
  if (options.timeoutMs !== undefined) requireDuration('timeoutMs', options.timeoutMs, DURATION_RULES.timeoutMs);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new InvalidOptionError('signal', 'signal must be an AbortSignal');
  }
}

/** The context of one operation on `namespace/name`, its clock started now. */
export function operationContext(
  operation: WorkloadOperation,
  client: KubernetesClient,
  where: { readonly namespace: string; readonly name: string },
  options: Omit<WorkloadOperationOptions, 'timeoutMs' | 'signal'>,
): OperationContext {
  const { namespace, name } = where;
  const scheduler = options.scheduler ?? asyncScheduler;
  const startedAt = scheduler.now();
  const providerId = `${namespace}/${name}`;
  return {
    operation,
    client,
    namespace,
    name,
    providerId,
    expectedContainerId: containerIdOption(options.containerId),
    instance: options.instance,
    scheduler,
    informers: options.informers ?? defaultInformerRegistry,
    failurePolicy: resolveFailurePolicy(options.failurePolicy),
    base: () => ({ at: isoTime(scheduler), namespace, name, providerId }),
    elapsed: () => scheduler.now() - startedAt,
  };
}

/** The Promise form: resolves with the outcome event's fields once the operation is done. */
export function outcomeOf<E extends OutcomeEvent, R extends OperationResult>(
  events$: Observable<LifecycleEvent>,
  type: E['type'],
  toResult: (event: E) => R,
): Promise<R> {
  return lastValueFrom(
    events$.pipe(
      filter((event): event is E => event.type === type),
      map(toResult),
    ),
  );
}

/** The fields every result carries. */
export function resultBase(event: OutcomeEvent): OperationResult {
  const { providerId, namespace, name, changed, durationMs } = event;
  return { providerId, namespace, name, changed, durationMs };
}

function containerIdOption(value: string | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value > 0) return String(value);
    throw new InvalidSpecError([{ path: 'containerId', message: `must be a positive integer or a label-safe string (got ${value})` }]);
  }
  const problem = typeof value === 'string' ? labelValueProblem(value) : 'must be a positive integer or a label-safe string';
  if (problem) throw new InvalidSpecError([{ path: 'containerId', message: problem }]);
  return value;
}

/** Throws WorkloadOwnershipError unless `deployment` is the expected Manager container's. */
export function ownedWorkload(context: OperationContext, deployment: V1Deployment): OwnedWorkload {
  const labels = deployment.metadata?.labels ?? {};
  const managed = labels[MANAGED_LABEL] === 'true';
  const containerId = labels[CONTAINER_ID_LABEL];
  const expected = context.expectedContainerId;
  if (
    !managed ||
    containerId === undefined ||
    (expected !== undefined && containerId !== expected) ||
    !belongsToInstance(deployment, context.instance)
  ) {
    throw new WorkloadOwnershipError(context.operation, context, {
      expectedContainerId: expected,
      actualContainerId: containerId,
      managed,
    });
  }
  return {
    deployment,
    uid: deployment.metadata?.uid ?? '',
    containerId,
    generation: deployment.metadata?.generation ?? 0,
    replicas: deployment.spec?.replicas ?? 1,
    resourceVersion: deployment.metadata?.resourceVersion ?? '',
  };
}

/** Reads the Deployment: WorkloadNotFoundError when missing, WorkloadOwnershipError when not ours. */
export async function readOwned(context: OperationContext, signal: AbortSignal): Promise<OwnedWorkload> {
  let deployment: V1Deployment;
  try {
    deployment = await context.client.readDeployment(context.namespace, context.name, { signal });
  } catch (error) {
    if (error instanceof NotFoundError) throw new WorkloadNotFoundError(context, { cause: error });
    throw error;
  }
  return ownedWorkload(context, deployment);
}

export interface PatchOutcome {
  /** The object as stored after the write; undefined when nothing had to be written. */
  readonly written: V1Deployment | undefined;
  /** The object the patch was built from (read again after a refused write). */
  readonly live: OwnedWorkload;
}

/**
 * Writes the merge patch `build` makes from the live object, with its UID as a
 * precondition (and, with `exact`, its resourceVersion: any change since the read, even by
 * the controllers, refuses the write). A refused write (409 Conflict, or 422 on the UID:
 * another object took the name) is read again and rebuilt from what is there now, so a
 * concurrent change is never overwritten unseen. `build` returns undefined when the live
 * object needs no write.
 */
export async function patchLive(
  context: OperationContext,
  first: OwnedWorkload,
  build: (live: OwnedWorkload) => DeploymentMergePatch | undefined,
  signal: AbortSignal,
  options: { readonly exact: boolean },
): Promise<PatchOutcome> {
  let live = first;
  for (let attempt = 1; ; attempt += 1) {
    const patch = build(live);
    if (patch === undefined) return { written: undefined, live };
    const metadata = {
      ...(patch.metadata as Record<string, unknown> | undefined),
      uid: live.uid,
      ...(options.exact ? { resourceVersion: live.resourceVersion } : {}),
    };
    try {
      const written = await context.client.patchDeployment(context.namespace, context.name, { ...patch, metadata }, { signal });
      return { written, live };
    } catch (error) {
      if (attempt >= MAX_WRITE_ATTEMPTS || !refusedAsChanged(error)) throw error;
      live = await readOwned(context, signal);
    }
  }
}

/** The write was refused because the object is not the one read any more. */
function refusedAsChanged(error: unknown): boolean {
  if (error instanceof ConflictError) return error.reason === 'Conflict' || error.reason === undefined;
  return error instanceof InvalidObjectError && error.causes.some((cause) => cause.field === 'metadata.uid');
}

export interface WorkloadStreams {
  /** The informer's snapshots of the Deployment (by name), the latest replayed. */
  readonly deployments$: Observable<readonly V1Deployment[]>;
  /** The informer's snapshots of the workload's Pods (by container-id), the latest replayed. */
  readonly pods$: Observable<readonly V1Pod[]>;
}

/**
 * Runs `body` with the workload's two informer streams subscribed for its whole length:
 * one subscription each, however many steps read them (a diagnosis, a write, a wait, a
 * rollback), and released when `body` ends.
 */
export function withWorkloadStreams<T>(
  context: OperationContext,
  containerId: string,
  body: (streams: WorkloadStreams) => Observable<T>,
): Observable<T> {
  return defer(() => {
    const deployments = held(deploymentSnapshots(context.informers, context.client, context.namespace, context.name, context.instance));
    const pods = held(podSnapshots(context.informers, context.client, context.namespace, containerId, context.instance));
    return using(
      () => {
        const deploymentsConnection = deployments.connect();
        const podsConnection = pods.connect();
        return { unsubscribe: () => (deploymentsConnection.unsubscribe(), podsConnection.unsubscribe()) };
      },
      () => body({ deployments$: deployments, pods$: pods }),
    );
  });
}

function held<T>(source: Observable<T>): Connectable<T> {
  return connectable(source, { connector: () => new ReplaySubject<T>(1), resetOnDisconnect: false });
}

/**
 * The UIDs of the workload's Pods now (once the informer has synced): taken right before a
 * write, they name Pods that cannot belong to the revision the write makes.
 */
export function podsBefore(streams: WorkloadStreams): Observable<ReadonlySet<string>> {
  return streams.pods$.pipe(
    take(1),
    map((pods) => new Set(pods.map((pod) => pod.metadata?.uid ?? ''))),
  );
}

/**
 * The rollout of `generation` (creation's awaitRollout: progress events, fail-fast Pod
 * diagnosis), ended at once with WorkloadSupersededError when a newer generation or a
 * deletion takes over. Pods that existed before the write (`olderPods`) are left out:
 * until the controller names the new ReplicaSet in its Progressing condition, the
 * condition still names the previous one, whose failing Pod (the crash loop a
 * reconfiguration is meant to fix) must not fail the new revision.
 */
export function awaitGenerationRollout(
  context: OperationContext,
  owned: OwnedWorkload,
  target: { readonly generation: number; readonly replicas: number },
  streams: WorkloadStreams,
  olderPods: ReadonlySet<string> = NO_PODS,
): Observable<LifecycleEvent> {
  const pods$ =
    olderPods.size === 0 ? streams.pods$ : streams.pods$.pipe(map((pods) => pods.filter((pod) => !olderPods.has(pod.metadata?.uid ?? ''))));
  return awaitRollout(
    { namespace: context.namespace, name: context.name, uid: owned.uid, providerId: context.providerId },
    streams.deployments$.pipe(guardGeneration(context.operation, { ...context, uid: owned.uid, ...target })),
    pods$,
    { scheduler: context.scheduler, failurePolicy: context.failurePolicy },
  );
}

const NO_PODS: ReadonlySet<string> = new Set();
