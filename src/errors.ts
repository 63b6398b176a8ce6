// The project's error hierarchy. Each class has a const `name`, a short message with
// context (namespace/name, verb, resource) and the original error in `cause`. Messages
// never contain a token, client key or certificate: the client's own error (which embeds
// response bodies and headers) is only ever attached as `cause`, after the client's
// scrubber (src/kube/scrub.ts) has masked every credential in it. Every message is one
// line: control characters in echoed or relayed text are escaped here, once for all.
import { escapeControlCharacters } from './text.js';

export interface RolloutStatusLike {
  readonly state: string;
  readonly reason: string;
  readonly message: string;
}

export class KubeProvisionerError extends Error {
  override readonly name: string = 'KubeProvisionerError';
  /**
   * Set when a provisioning failed after its Deployment existed: what became of it.
   * Undefined otherwise (nothing was created, or the error is not a provisioning's).
   */
  declare cleanup: WorkloadCleanup | undefined;
  constructor(message: string, options?: { cause?: unknown }) {
    super(escapeControlCharacters(message), options);
  }
}

/** What a failed provisioning did with its Deployment (`error.cleanup`). */
export interface WorkloadCleanup {
  /**
   * - `deleted`: this run created it; it is gone, with its Pods, so a retry starts clean.
   * - `deleting`: this run created it and asked for its deletion, which had not finished
   *   within the cleanup bound; a retry before it is gone fails with ConflictError.
   * - `kept`: this run created it and kept it, as asked (keepOnFailure), for debugging.
   * - `adopted`: it existed before this run (same container), so it was left as it is.
   * - `failed`: this run created it and could not delete it (`error` says why); it remains.
   */
  readonly outcome: 'deleted' | 'deleting' | 'kept' | 'adopted' | 'failed';
  readonly providerId: string;
  readonly uid: string;
  readonly error?: Error;
}

/** The cleanup in words, as appended to the failed provisioning's message. */
export function describeCleanup(cleanup: WorkloadCleanup): string {
  const deployment = `the Deployment ${cleanup.providerId}`;
  switch (cleanup.outcome) {
    case 'deleted':
      return `${deployment} this run created was deleted with its pods`;
    case 'deleting':
      return `${deployment} this run created is being deleted`;
    case 'kept':
      return `${deployment} this run created was kept for debugging, as asked; delete it before a retry`;
    case 'adopted':
      return `${deployment} existed before this run and was left as it is`;
    case 'failed':
      return `${deployment} this run created could not be deleted (${cleanup.error?.message ?? 'unknown error'})`;
  }
}

// ---- input -------------------------------------------------------------------------

/** A caller's option is outside its rule (a library option, not a spec field). */
export class InvalidOptionError extends KubeProvisionerError {
  override readonly name = 'InvalidOptionError';
  /** The option as the caller wrote it, e.g. `progressDeadlineSeconds`. */
  readonly option: string;
  constructor(option: string, message: string) {
    super(message);
    this.option = option;
  }
}

/** The command line is wrong: an unknown flag, a missing value (the CLI exits 2). */
export class UsageError extends KubeProvisionerError {
  override readonly name = 'UsageError';
}

/** An entrypoint line cannot be split: an unterminated quote or a trailing backslash. */
export class ShellWordsError extends KubeProvisionerError {
  override readonly name = 'ShellWordsError';
  /** Zero-based index in the line where the unfinished construct starts. */
  readonly position: number;
  constructor(problem: string, position: number) {
    super(`${problem} at character ${position + 1}`);
    this.position = position;
  }
}

export interface SpecIssue {
  /** Dotted field path, e.g. `env.MY_VAR` or `image`. */
  readonly path: string;
  readonly message: string;
  /**
   * On the command line: where the user typed the value, e.g. `--memory-mb`,
   * `--env MY_VAR` or `--spec-file field memoryMb`. Messages name this instead of the path.
   */
  readonly flag?: string;
}

export class InvalidSpecError extends KubeProvisionerError {
  override readonly name = 'InvalidSpecError';
  readonly issues: readonly SpecIssue[];
  constructor(issues: readonly SpecIssue[]) {
    super(`Invalid workload spec: ${issues.map((issue) => `${issue.flag ?? (issue.path || '(root)')}: ${issue.message}`).join('; ')}`);
    this.issues = issues.map((issue) => ({
      ...issue,
      path: escapeControlCharacters(issue.path),
      ...(issue.flag !== undefined ? { flag: escapeControlCharacters(issue.flag) } : {}),
    }));
  }
}

// ---- configuration -----------------------------------------------------------------

export class KubeconfigNotFoundError extends KubeProvisionerError {
  override readonly name = 'KubeconfigNotFoundError';
  readonly path: string;
  constructor(path: string, options?: { cause?: unknown }) {
    super(`Kubeconfig not found at ${path}`, options);
    this.path = path;
  }
}

export class KubeconfigInvalidError extends KubeProvisionerError {
  override readonly name = 'KubeconfigInvalidError';
  readonly path: string;
  constructor(path: string, detail: string, options?: { cause?: unknown }) {
    super(`Kubeconfig at ${path} is invalid: ${detail}`, options);
    this.path = path;
  }
}

/**
 * The kubeconfig's exec credential plugin failed: it could not be started, exited non-zero,
 * or printed something other than an ExecCredential. `detail` is its output, scrubbed of
 * every credential the kubeconfig holds and cut to a few hundred characters.
 */
export class ExecPluginError extends KubeProvisionerError {
  override readonly name = 'ExecPluginError';
  readonly command: string;
  readonly detail: string;
  constructor(command: string, detail: string) {
    super(`The kubeconfig's exec credential plugin "${command}" failed${detail ? `: ${detail}` : ''}`);
    this.command = command;
    this.detail = detail;
  }
}

export class UnknownContextError extends KubeProvisionerError {
  override readonly name = 'UnknownContextError';
  readonly context: string;
  readonly available: readonly string[];
  constructor(context: string, available: readonly string[]) {
    super(`Context "${context}" is not in the kubeconfig (available: ${available.length ? available.join(', ') : 'none'})`);
    this.context = context;
    this.available = available;
  }
}

// ---- talking to the API server -----------------------------------------------------

/** What was being attempted when the API answered, for messages and RBAC hints. */
export interface RequestTarget {
  readonly verb: string;
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
}

export function describeTarget(target: RequestTarget): string {
  const where = target.namespace
    ? target.name
      ? `${target.namespace}/${target.name}`
      : `namespace ${target.namespace}`
    : (target.name ?? 'cluster scope');
  return `${target.verb} ${target.resource} (${where})`;
}

export interface ApiErrorOptions {
  readonly statusCode?: number;
  /** The Kubernetes Status `reason` (AlreadyExists, Conflict, NotFound, Expired, ...). */
  readonly reason?: string;
  readonly target?: RequestTarget;
  readonly cause?: unknown;
}

export class ApiError extends KubeProvisionerError {
  override readonly name: string = 'ApiError';
  readonly statusCode: number | undefined;
  readonly reason: string | undefined;
  readonly target: RequestTarget | undefined;
  constructor(message: string, options: ApiErrorOptions) {
    super(message, { cause: options.cause });
    this.statusCode = options.statusCode;
    this.reason = options.reason;
    this.target = options.target;
  }
}

export class ApiUnreachableError extends ApiError {
  override readonly name = 'ApiUnreachableError';
  constructor(server: string, detail: string, options: { target?: RequestTarget; cause?: unknown } = {}) {
    super(`Kubernetes API at ${server} is unreachable: ${detail}`, options);
  }
}

export class ApiTimeoutError extends ApiError {
  override readonly name = 'ApiTimeoutError';
  constructor(server: string, timeoutMs: number, options: { target?: RequestTarget; cause?: unknown } = {}) {
    super(
      `Kubernetes API at ${server} did not answer ${options.target ? describeTarget(options.target) : 'the request'} within ${timeoutMs} ms`,
      options,
    );
  }
}

export class TlsError extends ApiError {
  override readonly name = 'TlsError';
  constructor(server: string, detail: string, options: { target?: RequestTarget; cause?: unknown } = {}) {
    super(`TLS verification failed for ${server}: ${detail}`, options);
  }
}

export class UnauthorizedError extends ApiError {
  override readonly name = 'UnauthorizedError';
  constructor(server: string, options: { target?: RequestTarget; cause?: unknown } = {}) {
    super(`Unauthorized (401) by ${server}: the credentials in the kubeconfig were rejected`, {
      ...options,
      statusCode: 401,
    });
  }
}

export class ForbiddenError extends ApiError {
  override readonly name = 'ForbiddenError';
  readonly verb: string;
  readonly resource: string;
  constructor(target: RequestTarget, options: { cause?: unknown } = {}) {
    super(
      `Forbidden (403): the user may not ${target.verb} ${target.resource}` +
        (target.namespace ? ` in namespace ${target.namespace}` : '') +
        `; grant the "${target.verb}" verb on "${target.resource}" in its RBAC Role`,
      { ...options, statusCode: 403, target },
    );
    this.verb = target.verb;
    this.resource = target.resource;
  }
}

export class NotFoundError extends ApiError {
  // Typed as string: subclasses (Workload*Error, ReconfigureFailedError) name themselves.
  override readonly name: string = 'NotFoundError';
  constructor(what: string, options: Omit<ApiErrorOptions, 'statusCode'> = {}) {
    super(`Not found (404): ${what}`, { ...options, statusCode: 404 });
  }
}

export class ConflictError extends ApiError {
  // Typed as string: subclasses (Workload*Error, ReconfigureFailedError) name themselves.
  override readonly name: string = 'ConflictError';
  constructor(message: string, options: Omit<ApiErrorOptions, 'statusCode'> = {}) {
    super(message, { ...options, statusCode: 409 });
  }
}

/**
 * The API server (or something between us and it) answered with something that does not
 * decode, or does not fit the fields we read: a watch line that is not a JSON event, an
 * object whose `conditions` is not a list, a 2xx body that is not JSON. A fault of that
 * answer, not of the request: a watch is restarted, an object is skipped.
 */
export class MalformedResponseError extends ApiError {
  override readonly name = 'MalformedResponseError';
  constructor(server: string, problem: string, options: { target?: RequestTarget; cause?: unknown } = {}) {
    super(
      `Kubernetes API at ${server} sent a malformed answer${options.target ? ` to ${describeTarget(options.target)}` : ''}: ${problem}`,
      options,
    );
  }
}

/**
 * A watched or listed object does not fit the fields the library reads (`status.conditions`
 * that is not a list, a Pod whose spec has no container list). The informer skips it and
 * reports it through its retry hook; it never reaches a waiter.
 */
export class MalformedObjectError extends KubeProvisionerError {
  override readonly name = 'MalformedObjectError';
  /** The field at fault, e.g. `status.conditions[0].type`. */
  readonly field: string;
  constructor(kind: string, objectName: string | undefined, field: string, problem: string) {
    super(`A ${kind}${objectName ? ` named ${objectName}` : ''} does not fit the fields read: ${field} ${problem}; skipped`);
    this.field = field;
  }
}

/** 410 Gone: the resourceVersion a watch asked for is too old; relist. */
export class ResourceExpiredError extends ApiError {
  override readonly name = 'ResourceExpiredError';
  constructor(options: Omit<ApiErrorOptions, 'statusCode'> = {}) {
    super(`Resource version expired (410 Gone)${options.target ? ` during ${describeTarget(options.target)}` : ''}: relisting`, {
      ...options,
      statusCode: 410,
      reason: options.reason ?? 'Expired',
    });
  }
}

/** 429: the API server asks us to slow down, for `retryAfterMs` if it said. */
export class TooManyRequestsError extends ApiError {
  override readonly name = 'TooManyRequestsError';
  readonly retryAfterMs: number | undefined;
  constructor(retryAfterMs: number | undefined, options: Omit<ApiErrorOptions, 'statusCode'> = {}) {
    super(
      `Too many requests (429)${options.target ? ` for ${describeTarget(options.target)}` : ''}` +
        (retryAfterMs !== undefined ? `; retry after ${retryAfterMs} ms` : ''),
      { ...options, statusCode: 429 },
    );
    this.retryAfterMs = retryAfterMs;
  }
}

export interface FieldCause {
  readonly field: string;
  readonly reason: string;
  readonly message: string;
}

export class InvalidObjectError extends ApiError {
  override readonly name = 'InvalidObjectError';
  readonly causes: readonly FieldCause[];
  constructor(summary: string, causes: readonly FieldCause[], options: { target?: RequestTarget; cause?: unknown } = {}) {
    super(`Rejected by the API server (422): ${causes.length ? causes.map((c) => `${c.field}: ${c.message}`).join('; ') : summary}`, {
      ...options,
      statusCode: 422,
    });
    this.causes = causes;
  }
}

/**
 * 403 from the namespace's ResourceQuota, not from RBAC: the quota has no room for the
 * object (a count of Services, LoadBalancers, NodePorts, Deployments). `detail` is the API
 * server's words: what was requested, used and limited.
 */
export class QuotaExceededError extends ApiError {
  override readonly name = 'QuotaExceededError';
  readonly detail: string;
  constructor(detail: string, options: { target: RequestTarget; cause?: unknown }) {
    super(`Quota exceeded (403) for ${describeTarget(options.target)}: ${detail}`, {
      statusCode: 403,
      reason: 'Forbidden',
      target: options.target,
      cause: options.cause,
    });
    this.detail = detail;
  }
}

/**
 * Why the API server refused a container's Service:
 * - `NodePortAllocated`: a fixed node port another Service holds;
 * - `NodePortOutOfRange`: a fixed node port outside the cluster's node port range;
 * - `NodePortRangeFull`: no node port left to allocate;
 * - `ServiceIpRangeFull`: no address left in the cluster's service IP range;
 * - `ServiceTypeRefused`: the type is not allowed here (quota, admission policy, webhook);
 * - `Invalid`: any other field the API server refused.
 */
export type ServiceRefusal =
  'NodePortAllocated' | 'NodePortOutOfRange' | 'NodePortRangeFull' | 'ServiceIpRangeFull' | 'ServiceTypeRefused' | 'Invalid';

/** The API server refused a container's Service: `field` is the spec field at fault, `detail` the server's words. */
export class ServiceRejectedError extends ApiError {
  override readonly name = 'ServiceRejectedError';
  readonly refusal: ServiceRefusal;
  /** The spec field at fault: `ports.0.nodePort`, `serviceType`, `ports`. */
  readonly field: string;
  /** The API server's words. */
  readonly detail: string;
  constructor(
    where: FailureContext,
    refusal: ServiceRefusal,
    field: string,
    detail: string,
    options: { statusCode?: number; reason?: string; target?: RequestTarget; cause?: unknown } = {},
  ) {
    super(`The Service ${where.namespace}/${where.name} was refused (${refusal}): ${field}: ${detail}`, options);
    this.refusal = refusal;
    this.field = field;
    this.detail = detail;
  }
}

// ---- the rollout -------------------------------------------------------------------

export interface FailureContext {
  readonly namespace: string;
  readonly name: string;
}

export class RolloutFailedError extends KubeProvisionerError {
  // Typed as string: subclasses (Workload*Error, ReconfigureFailedError) name themselves.
  override readonly name: string = 'RolloutFailedError';
  readonly namespace: string;
  readonly deployment: string;
  /** Machine-readable reason, e.g. ProgressDeadlineExceeded, ImagePullBackOff. */
  readonly reason: string;
  /** The controller's, kubelet's or scheduler's own words. */
  readonly detail: string;
  readonly pod: string | undefined;
  readonly container: string | undefined;
  constructor(where: FailureContext, reason: string, detail: string, options: { pod?: string; container?: string; cause?: unknown } = {}) {
    const who = options.container
      ? ` (container ${options.container}${options.pod ? ` in pod ${options.pod}` : ''})`
      : options.pod
        ? ` (pod ${options.pod})`
        : '';
    super(`Rollout of ${where.namespace}/${where.name} failed: ${reason}${who}${detail ? `: ${detail}` : ''}`, {
      cause: options.cause,
    });
    this.namespace = where.namespace;
    this.deployment = where.name;
    this.reason = reason;
    this.detail = detail;
    this.pod = options.pod;
    this.container = options.container;
  }
}

export class RolloutTimeoutError extends KubeProvisionerError {
  override readonly name = 'RolloutTimeoutError';
  readonly timeoutMs: number;
  readonly lastStatus: RolloutStatusLike | undefined;
  constructor(where: FailureContext, timeoutMs: number, lastStatus: RolloutStatusLike | undefined) {
    super(
      `Rollout of ${where.namespace}/${where.name} did not complete within ${timeoutMs} ms` +
        (lastStatus ? `; last status: ${lastStatus.state} (${lastStatus.reason}) ${lastStatus.message}` : ''),
    );
    this.timeoutMs = timeoutMs;
    this.lastStatus = lastStatus;
  }
}

export class ProvisionAbortedError extends KubeProvisionerError {
  override readonly name = 'ProvisionAbortedError';
  constructor(where: FailureContext | undefined, reason: unknown) {
    super(`Provisioning${where ? ` of ${where.namespace}/${where.name}` : ''} was aborted`, { cause: reason });
  }
}

/** An operation other than provisioning (a status read, a live status list, a check, a node listing) was aborted through its AbortSignal. */
export class OperationAbortedError extends KubeProvisionerError {
  override readonly name = 'OperationAbortedError';
  /** What was aborted: a WorkloadOperation (`start`, `stop`, ...), or `status`, `list`, `statuses`, `check`, `nodes`. */
  readonly operation: string;
  constructor(operation: string, where: FailureContext | string | undefined, reason: unknown) {
    const subject = where === undefined ? '' : typeof where === 'string' ? ` of ${where}` : ` of ${where.namespace}/${where.name}`;
    const noun = Object.hasOwn(OPERATION_NOUNS, operation) ? OPERATION_NOUNS[operation as WorkloadOperation] : operation;
    super(`${noun}${subject} was aborted`, { cause: reason });
    this.operation = operation;
  }
}

// ---- informers ---------------------------------------------------------------------

/** A watch stayed silent longer than the inactivity limit: treated as a dead connection. */
export class WatchInactiveError extends KubeProvisionerError {
  override readonly name = 'WatchInactiveError';
  readonly inactiveMs: number;
  constructor(resource: string, namespace: string, inactiveMs: number) {
    super(`Watch on ${resource} ${namespace ? `in namespace ${namespace}` : 'cluster-wide'} was silent for ${inactiveMs} ms; reconnecting`);
    this.inactiveMs = inactiveMs;
  }
}

// ---- cluster discovery -------------------------------------------------------------

/** nodes() got no complete answer (the node and pod lists) within its time bound. */
export class DiscoveryTimeoutError extends KubeProvisionerError {
  override readonly name = 'DiscoveryTimeoutError';
  readonly operation: string;
  readonly timeoutMs: number;
  constructor(operation: string, timeoutMs: number) {
    super(`${operation} did not complete within ${timeoutMs} ms`);
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}

// ---- the workload lifecycle (start, stop, restart, reconfigure, remove) ---------------

/** The operations on one workload, as named in messages and errors. */
export type WorkloadOperation = 'create' | 'start' | 'stop' | 'restart' | 'reconfigure' | 'remove';

const OPERATION_NOUNS: Record<WorkloadOperation, string> = {
  create: 'Provisioning',
  start: 'Start',
  stop: 'Stop',
  restart: 'Restart',
  reconfigure: 'Reconfiguration',
  remove: 'Removal',
};

/** "Stop of team-a/web", for messages. */
export function describeOperation(operation: WorkloadOperation, where: FailureContext): string {
  return `${OPERATION_NOUNS[operation]} of ${where.namespace}/${where.name}`;
}

/** No Deployment of that name: the workload to start, stop, restart or reconfigure is missing. */
export class WorkloadNotFoundError extends NotFoundError {
  override readonly name = 'WorkloadNotFoundError';
  readonly namespace: string;
  readonly deployment: string;
  constructor(where: FailureContext, options: { cause?: unknown } = {}) {
    super(`no Deployment ${where.namespace}/${where.name}: the workload does not exist`, {
      target: { verb: 'get', resource: 'deployments', namespace: where.namespace, name: where.name },
      reason: 'NotFound',
      cause: options.cause,
    });
    this.namespace = where.namespace;
    this.deployment = where.name;
  }
}

/**
 * The Deployment of that name is not the expected Manager container's: no managed=true
 * label, or another container-id. Nothing was changed.
 */
export class WorkloadOwnershipError extends ConflictError {
  override readonly name = 'WorkloadOwnershipError';
  readonly namespace: string;
  readonly deployment: string;
  /** The container-id the caller expected, if it named one. */
  readonly expectedContainerId: string | undefined;
  /** The container-id label the Deployment carries, if any. */
  readonly actualContainerId: string | undefined;
  constructor(
    operation: WorkloadOperation,
    where: FailureContext,
    facts: { expectedContainerId?: string | undefined; actualContainerId?: string | undefined; managed: boolean },
  ) {
    const whose = !facts.managed
      ? 'is not managed by Manager (no org.mieweb.opensource-server.managed=true label)'
      : facts.actualContainerId === undefined
        ? 'carries no container-id label'
        : `belongs to container-id ${facts.actualContainerId}` +
          (facts.expectedContainerId !== undefined ? `, not container-id ${facts.expectedContainerId}` : '');
    super(`Deployment ${where.namespace}/${where.name} ${whose}; the ${operation} was refused and nothing was changed`, {
      reason: 'NotOwned',
      target: { verb: 'get', resource: 'deployments', namespace: where.namespace, name: where.name },
    });
    this.namespace = where.namespace;
    this.deployment = where.name;
    this.expectedContainerId = facts.expectedContainerId;
    this.actualContainerId = facts.actualContainerId;
  }
}

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
  readonly deployment: string;
  readonly operation: WorkloadOperation;
  /** The generation this operation waited for. */
  readonly expectedGeneration: number;
  readonly supersededBy: Supersession;
  constructor(operation: WorkloadOperation, where: FailureContext, expectedGeneration: number, supersededBy: Supersession) {
    super(
      `${describeOperation(operation, where)} was superseded: ${describeSupersession(supersededBy)} while waiting for generation ${expectedGeneration}`,
    );
    this.namespace = where.namespace;
    this.deployment = where.name;
    this.operation = operation;
    this.expectedGeneration = expectedGeneration;
    this.supersededBy = supersededBy;
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

/** One field where a live workload differs from the requested spec. */
export interface DriftField {
  /** In the spec's words: `image`, `cpus`, `memoryMb`, `entrypoint`, `args`, `env.NAME`, `replicas`, `labels.KEY`. */
  readonly field: string;
  /** The live value, as text (`(none)` when absent). */
  readonly live: string;
  /** The requested value, as text (`(none)` when absent). */
  readonly desired: string;
}

/**
 * A create found the container's Deployment already there (same container-id) but not as
 * requested: adopting it would report ready for a spec that was never applied. Nothing was
 * changed; `onDrift: 'reconfigure'` applies the requested spec instead.
 */
export class WorkloadDriftError extends KubeProvisionerError {
  override readonly name = 'WorkloadDriftError';
  readonly namespace: string;
  readonly deployment: string;
  readonly fields: readonly DriftField[];
  constructor(where: FailureContext, fields: readonly DriftField[], hint: string) {
    super(
      `Deployment ${where.namespace}/${where.name} exists for this container but differs from the requested spec: ` +
        `${fields.map((drift) => `${drift.field} (live ${drift.live}, requested ${drift.desired})`).join('; ')}; ${hint}`,
    );
    this.namespace = where.namespace;
    this.deployment = where.name;
    this.fields = fields;
  }
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

/**
 * A reconfiguration's rollout failed and `rollbackOnFailure` was asked for: says whether
 * the previous pod template was restored (and rolled out), or why not. The failure itself
 * is in `reason`, `detail`, `pod` and `container`, as for RolloutFailedError.
 */
export class ReconfigureFailedError extends RolloutFailedError {
  override readonly name = 'ReconfigureFailedError';
  /** The previous pod template is back and its rollout completed (or, stopped, was observed). */
  readonly restored: boolean;
  /** Why the restore failed or was not attempted, when it was not restored. */
  readonly restoreError: Error | undefined;
  /** `restore`: the generation restored, or the error that kept it from being restored. */
  constructor(failure: RolloutFailedError, restore: { readonly generation: number } | Error) {
    super({ namespace: failure.namespace, name: failure.deployment }, failure.reason, failure.detail, {
      ...(failure.pod !== undefined ? { pod: failure.pod } : {}),
      ...(failure.container !== undefined ? { container: failure.container } : {}),
      cause: failure,
    });
    const restored = !(restore instanceof Error);
    this.message = restored
      ? `${failure.message}; the previous pod template was restored (generation ${restore.generation})`
      : `${failure.message}; restoring the previous pod template failed: ${restore.message}`;
    this.restored = restored;
    this.restoreError = restored ? undefined : restore;
  }
}
