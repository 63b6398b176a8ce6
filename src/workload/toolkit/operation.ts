// One operation on an existing workload (start, stop, restart, reconfigure, remove), as
// every one of them runs: the provider ID and options checked before any request, its
// context (client, clock, informers, failure policy, the container and installation it
// must belong to), and one deadline and the caller's AbortSignal around all of it, which
// release every watch, timer and request on the way out. Also the operations' names in
// messages, and the error of one that ran out of time.
import { asyncScheduler, defer, filter, lastValueFrom, map, tap, type Observable, type SchedulerLike } from 'rxjs';
import { KubeProvisionerError } from '../../errors/base.js';
import { InvalidSpecError } from '../../errors/input.js';
import { OperationAbortedError } from '../../errors/operation.js';
import type { FailureContext, RolloutStatusLike } from '../../errors/rollout.js';
import { defaultInformerRegistry, type InformerRegistry } from '../../informers/registry.js';
import { DURATION_RULES } from '../../input/duration.js';
import { instanceProblem, labelId, labelIdProblem } from '../../input/fields.js';
import { abortSignal, checkOptions, checkedLater, duration, trueOrFalse, type OptionTable } from '../../input/options.js';
import { parseProviderId } from '../../input/provider-id.js';
import type { KubernetesClient } from '../../kube/client.js';
import type { RolloutStatus } from '../../rollout/events.js';
import { resolveFailurePolicy, type FailurePolicy, type FailurePolicyOverrides, type WaitDeadline } from '../../rollout/failure-policy.js';
import { abortOn } from '../../rx/abort-on.js';
import { isoTime } from '../../rx/clock-time.js';
import { deadline } from '../../rx/deadline.js';
import { maskOutput } from '../../rx/mask-output.js';
import { maskOf } from '../../mask.js';
import type { LifecycleEvent, OutcomeEvent } from './lifecycle-events.js';
import { MEMBERS, aMemberTable, type MemberTable } from '../../members/set.js';

/** Bound on a whole operation (and a provisioning) when the caller gives none: 5 minutes. */
export const DEFAULT_TIMEOUT_MS = 300_000;

/** The operations on one workload, as named in messages and errors. */
export type WorkloadOperation = 'create' | 'start' | 'stop' | 'restart' | 'reconfigure' | 'remove' | 'setPorts';

const OPERATION_NOUNS: Record<WorkloadOperation, string> = {
  create: 'Provisioning',
  start: 'Start',
  stop: 'Stop',
  restart: 'Restart',
  reconfigure: 'Reconfiguration',
  remove: 'Removal',
  setPorts: 'Ports change',
};

/** The operation as the first word of a message: "Stop", "Reconfiguration". */
export function operationNoun(operation: WorkloadOperation): string {
  return OPERATION_NOUNS[operation];
}

/** "Stop of team-a/web", for messages. */
export function describeOperation(operation: WorkloadOperation, where: FailureContext): string {
  return `${OPERATION_NOUNS[operation]} of ${where.namespace}/${where.name}`;
}

/** An operation did not finish within its `timeoutMs`. */
export class OperationTimeoutError extends KubeProvisionerError {
  override readonly name = 'OperationTimeoutError';
  readonly operation: WorkloadOperation;
  readonly timeoutMs: number;
  /** What it was still waiting for, in words. */
  readonly waitingFor: string | undefined;
  readonly lastStatus: RolloutStatusLike | undefined;
  constructor(
    operation: WorkloadOperation,
    where: FailureContext,
    timeoutMs: number,
    last: { waitingFor?: string | undefined; lastStatus?: RolloutStatusLike | undefined } = {},
  ) {
    super(
      `${describeOperation(operation, where)} did not complete within ${timeoutMs} ms` +
        (last.waitingFor ? `; still waiting for ${last.waitingFor}` : '') +
        (last.lastStatus ? `; last status: ${last.lastStatus.state} (${last.lastStatus.reason}) ${last.lastStatus.message}` : ''),
    );
    this.operation = operation;
    this.timeoutMs = timeoutMs;
    this.waitingFor = last.waitingFor;
    this.lastStatus = last.lastStatus;
  }
}

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
  /** The member kinds of a workload; default MEMBERS (claim, Deployment, Service). */
  readonly members?: MemberTable;
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
  readonly members: MemberTable;
  /** The base of every event: `at` (now), `namespace`, `name`, `providerId`. */
  base(): { at: string; namespace: string; name: string; providerId: string };
  /** Milliseconds since the operation started. */
  elapsed(): number;
  /** The operation's deadline (runOperation's timeout), for waits that must fail by name before it. */
  readonly deadline?: WaitDeadline;
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
    const started = operationContext(operation, client, { namespace, name }, options);
    const context: OperationContext = { ...started, deadline: { at: started.scheduler.now() + timeoutMs, timeoutMs } };
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
      abortOn(options.signal, (reason) => new OperationAbortedError(operation, where, reason, operationNoun(operation))),
    );
  }).pipe(maskOutput(maskOf(client)));
}

const OPERATION_OPTIONS: OptionTable = {
  timeoutMs: duration(DURATION_RULES.timeoutMs),
  signal: abortSignal,
  // A spec field as much as an option: its problem is reported as a spec issue (containerIdOption).
  containerId: checkedLater,
  instance: instanceProblem,
  failurePolicy: checkedLater,
  scheduler: checkedLater,
  informers: checkedLater,
  members: aMemberTable,
};

/** Options only some operations take. */
const EXTRA_OPTIONS: Partial<Record<WorkloadOperation, OptionTable>> = {
  reconfigure: { rollbackOnFailure: trueOrFalse },
  remove: { keepData: trueOrFalse },
};

/** Every option, checked before anything is sent: an unknown key is a typo, never ignored. */
function checkOperationOptions(operation: WorkloadOperation, options: WorkloadOperationOptions): void {
  checkOptions(
    options,
    { ...OPERATION_OPTIONS, ...EXTRA_OPTIONS[operation] },
    { noun: `${operation} options`, known: `a ${operation} option` },
  );
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
    members: options.members ?? MEMBERS,
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

/** The container-id the workload must carry, by the spec's own rule (a spec issue when broken). */
function containerIdOption(value: string | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  const problem = labelIdProblem(value);
  if (problem) throw new InvalidSpecError([{ path: 'containerId', message: problem }]);
  return labelId(value);
}
