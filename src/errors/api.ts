// Errors of talking to the API server: what was asked (RequestTarget), how it answered
// (ApiError and its subclasses, one per answer a caller acts on), and answers or watches
// that do not decode or went silent.
import { KubeProvisionerError } from './base.js';

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
  /**
   * false: the request never left this process (every connection stayed busy that long),
   * so the server did nothing with it; true: sent, and not answered in time.
   */
  readonly sent: boolean;
  constructor(
    server: string,
    timeoutMs: number,
    options: { target?: RequestTarget; cause?: unknown; notSent?: { readonly connections: number } } = {},
  ) {
    const what = options.target ? describeTarget(options.target) : 'the request';
    super(
      options.notSent
        ? `Kubernetes API at ${server}: ${what} was not sent within ${timeoutMs} ms: every connection (maxConnections ${options.notSent.connections}) stayed busy`
        : `Kubernetes API at ${server} did not answer ${what} within ${timeoutMs} ms`,
      options,
    );
    this.sent = options.notSent === undefined;
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

/**
 * 403 from admission, not RBAC: the API server refused to grow a claim whose StorageClass
 * does not allow expansion (or a statically provisioned one). No verb is missing.
 */
export class ExpansionRefusedError extends ApiError {
  override readonly name = 'ExpansionRefusedError';
  constructor(serverMessage: string, options: { target?: RequestTarget; cause?: unknown } = {}) {
    super(`the API server refused to grow the claim: ${serverMessage}`, { ...options, statusCode: 403 });
  }
}

/**
 * 403 from the namespace's ResourceQuota, not from RBAC: the quota has no room for the
 * object (a claim asking for more storage than is left, a count of Services, LoadBalancers,
 * NodePorts, Deployments). `detail` is the API
 * server's words: what was requested, used and limited.
 */
export class QuotaExceededError extends ApiError {
  override readonly name = 'QuotaExceededError';
  readonly detail: string;
  constructor(detail: string, options: { target?: RequestTarget; cause?: unknown } = {}) {
    super(`Quota exceeded (403)${options.target ? ` for ${describeTarget(options.target)}` : ''}: ${detail}`, {
      statusCode: 403,
      reason: 'Forbidden',
      target: options.target,
      cause: options.cause,
    });
    this.detail = detail;
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

/** A watch stayed silent longer than the inactivity limit: treated as a dead connection. */
export class WatchInactiveError extends KubeProvisionerError {
  override readonly name = 'WatchInactiveError';
  readonly inactiveMs: number;
  constructor(resource: string, namespace: string, inactiveMs: number) {
    super(`Watch on ${resource} ${namespace ? `in namespace ${namespace}` : 'cluster-wide'} was silent for ${inactiveMs} ms; reconnecting`);
    this.inactiveMs = inactiveMs;
  }
}
