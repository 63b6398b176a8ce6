// The operations on one workload, as messages name them, and the error of one that ran out
// of time.
import { KubeProvisionerError } from '../errors/base.js';
import type { FailureContext, RolloutStatusLike } from '../errors/rollout.js';

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
