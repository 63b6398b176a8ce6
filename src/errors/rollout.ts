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
