// Errors of a rollout: it failed (in the controller's or kubelet's words), did not finish
// in time, or the provisioning waiting on it was aborted.
import { KubeProvisionerError } from './base.js';

export interface RolloutStatusLike {
  readonly state: string;
  readonly reason: string;
  readonly message: string;
}

/** The object a failure is about; without `kind`, the workload's Deployment. */
export interface FailureContext {
  readonly namespace: string;
  readonly name: string;
  readonly kind?: string;
}

/** The kind a FailureContext names when it names none. */
export const WORKLOAD_KIND = 'Deployment';

export class RolloutFailedError extends KubeProvisionerError {
  // Typed as string: subclasses (ReconfigureFailedError) name themselves.
  override readonly name: string = 'RolloutFailedError';
  readonly namespace: string;
  /** The kind of the object that failed: `Deployment`. */
  readonly kind: string;
  /** The name of the object that failed. */
  readonly object: string;
  /** Machine-readable reason, e.g. ProgressDeadlineExceeded, ImagePullBackOff. */
  readonly reason: string;
  /** The controller's, kubelet's or scheduler's own words. */
  readonly detail: string;
  readonly pod: string | undefined;
  readonly container: string | undefined;
  /** A crashed container's last log lines (bounded, scrubbed, one line each); empty when none were read. */
  readonly logs: readonly string[];
  constructor(
    where: FailureContext,
    reason: string,
    detail: string,
    options: { pod?: string; container?: string; cause?: unknown; logs?: readonly string[] } = {},
  ) {
    const who = options.container
      ? ` (container ${options.container}${options.pod ? ` in pod ${options.pod}` : ''})`
      : options.pod
        ? ` (pod ${options.pod})`
        : '';
    const logs = options.logs ?? [];
    const lastLines = logs.length > 0 ? `; its last log lines: ${logs.join(' | ')}` : '';
    super(`Rollout of ${where.namespace}/${where.name} failed: ${reason}${who}${detail ? `: ${detail}` : ''}${lastLines}`, {
      cause: options.cause,
    });
    this.logs = logs;
    this.namespace = where.namespace;
    this.kind = where.kind ?? WORKLOAD_KIND;
    this.object = where.name;
    this.reason = reason;
    this.detail = detail;
    this.pod = options.pod;
    this.container = options.container;
  }

  /** @deprecated The object's name: use `object` (and `kind`). */
  get deployment(): string {
    return this.object;
  }
}

/** What a provisioning still waited for when its time ran out. */
export const WAITING_FOR_CREATE = 'the API server to answer the create of the Deployment';
export const WAITING_FOR_ROLLOUT = 'the rollout to complete';

export class RolloutTimeoutError extends KubeProvisionerError {
  override readonly name = 'RolloutTimeoutError';
  readonly timeoutMs: number;
  readonly lastStatus: RolloutStatusLike | undefined;
  /** What it still waited for: the create's answer (WAITING_FOR_CREATE), or the rollout. */
  readonly waitingFor: string;
  constructor(
    where: FailureContext,
    timeoutMs: number,
    lastStatus: RolloutStatusLike | undefined,
    waitingFor: string = WAITING_FOR_ROLLOUT,
  ) {
    const id = `${where.namespace}/${where.name}`;
    super(
      waitingFor === WAITING_FOR_ROLLOUT
        ? `Rollout of ${id} did not complete within ${timeoutMs} ms` +
            (lastStatus
              ? `; last status: ${lastStatus.state} (${lastStatus.reason}) ${lastStatus.message}`
              : '; no status of it was seen yet')
        : `Provisioning of ${id} did not complete within ${timeoutMs} ms: still waiting for ${waitingFor}` +
            (waitingFor === WAITING_FOR_CREATE ? ' (the request was sent: the Deployment may exist, and a retry adopts it)' : ''),
    );
    this.timeoutMs = timeoutMs;
    this.lastStatus = lastStatus;
    this.waitingFor = waitingFor;
  }
}

export class ProvisionAbortedError extends KubeProvisionerError {
  override readonly name = 'ProvisionAbortedError';
  constructor(where: FailureContext | undefined, reason: unknown) {
    super(`Provisioning${where ? ` of ${where.namespace}/${where.name}` : ''} was aborted`, { cause: reason });
  }
}
