// Errors of operations other than provisioning: aborted through their AbortSignal, or a
// discovery that got no complete answer in time.
import { KubeProvisionerError } from './base.js';
import type { FailureContext } from './rollout.js';

/** An operation other than provisioning (a status read, a live status list, a check, a node listing) was aborted through its AbortSignal. */
export class OperationAbortedError extends KubeProvisionerError {
  override readonly name = 'OperationAbortedError';
  /** What was aborted: a workload operation (`start`, `stop`, ...), or `status`, `list`, `statuses`, `check`, `nodes`. */
  readonly operation: string;
  /** @param noun the operation as a message names it ("Stop"); default: `operation` itself. */
  constructor(operation: string, where: FailureContext | string | undefined, reason: unknown, noun: string = operation) {
    const subject = where === undefined ? '' : typeof where === 'string' ? ` of ${where}` : ` of ${where.namespace}/${where.name}`;
    super(`${noun}${subject} was aborted`, { cause: reason });
    this.operation = operation;
  }
}

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
