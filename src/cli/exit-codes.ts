// Exit codes that tell a job runner what went wrong without parsing text. Every error the
// library can end with has its code here; 1 is left for what no rule foresaw (a bug).
import { ApiError, ApiTimeoutError, ConflictError, MalformedObjectError, WatchInactiveError } from '../errors/api.js';
import { DiscoveryTimeoutError, OperationAbortedError } from '../errors/operation.js';
import { ExecPluginError, KubeconfigInvalidError, KubeconfigNotFoundError, UnknownContextError } from '../errors/kubeconfig.js';
import { InvalidOptionError, InvalidSpecError, ShellWordsError, UsageError } from '../errors/input.js';
import { OperationTimeoutError } from '../workload/toolkit/operation.js';
import {
  ExecConnectionLostError,
  ExecFailedError,
  ExecSessionTimeoutError,
  KubeletUnreachableError,
  NoRunningContainerError,
  ShellNotFoundError,
} from '../errors/exec.js';
import { ProvisionAbortedError, RolloutFailedError, RolloutTimeoutError } from '../errors/rollout.js';
import { WorkloadDriftError } from '../members/drift.js';
import { WorkloadNotFoundError } from '../workload/toolkit/ownership.js';
import { WorkloadSupersededError } from '../workload/toolkit/guard-generation.js';
import { StorageResizeError } from '../workload/operations/resize-claim.js';
import { NoDefaultStorageClassError, StorageClassNotFoundError } from '../workload/operations/storage-class-choice.js';

export const EXIT = {
  ok: 0,
  /** An internal error no rule foresaw: a bug, to be reported. */
  unexpected: 1,
  /**
   * Bad flags, an invalid spec or option: nothing was sent to the cluster. Also storage the
   * cluster cannot give as asked (no default StorageClass and none named, a named one that
   * does not exist, a resize refused): found by reads, before anything is written.
   */
  invalidInput: 2,
  /** The rollout failed (ProgressDeadlineExceeded, ImagePullBackOff, CrashLoopBackOff, ...). */
  rolloutFailed: 3,
  /**
   * No answer in time: the operation did not complete within --timeout, or the API server
   * did not answer a request within --request-timeout (every command, check included).
   */
  timeout: 4,
  /** Kubeconfig, exec credential plugin, connection, TLS, authentication, authorization or other API errors. */
  apiError: 5,
  /**
   * A Deployment of that name exists and belongs to another container (or to no Manager
   * container); or, on create, this container's Deployment differs from the request.
   */
  conflict: 6,
  /** start, stop, restart, reconfigure: no Deployment of that name (Manager's "missing"). */
  notFound: 7,
  /**
   * A concurrent operation on the same workload took over (a stop while a start waited, a
   * newer reconfigure): this one's target can no longer be reached. Nothing is wrong with
   * the workload; the newer operation decides its state.
   */
  superseded: 8,
  /** Interrupted (SIGINT/SIGTERM). */
  aborted: 130,
} as const;

/**
 * "No answer": the API server said nothing within a bound (a request's, or the command's).
 * One rule for every command: exit code 4, as a timeout. An unreachable server (refused,
 * reset, no route) is exit code 5.
 */
const NO_ANSWER_REASONS: ReadonlySet<string> = new Set(['Timeout', 'ApiTimeout']);

/** A status read (get PROVIDER_ID, status): 0 whatever it says, unless it could not be read. */
export function exitCodeForStatus(status: { readonly state: string; readonly reason: string }): number {
  if (status.state !== 'unknown') return EXIT.ok;
  return NO_ANSWER_REASONS.has(status.reason) ? EXIT.timeout : EXIT.apiError;
}

/** check: 0 when ready; 4 when the API server gave no answer in time; 5 when a needed item failed. */
export function exitCodeForCheck(report: {
  readonly ok: boolean;
  readonly items: readonly { id: string; status: string; error?: string }[];
}): number {
  if (report.ok) return EXIT.ok;
  const api = report.items.find((item) => item.id === 'api');
  const noAnswer = api?.status === 'fail' && (api.error === 'ApiTimeoutError' || api.error === 'DiscoveryTimeoutError');
  return noAnswer ? EXIT.timeout : EXIT.apiError;
}

export function exitCodeFor(error: unknown): number {
  if (
    error instanceof UsageError ||
    error instanceof InvalidSpecError ||
    error instanceof InvalidOptionError ||
    error instanceof ShellWordsError ||
    error instanceof NoDefaultStorageClassError ||
    error instanceof StorageClassNotFoundError ||
    error instanceof StorageResizeError
  ) {
    return EXIT.invalidInput;
  }
  if (error instanceof RolloutFailedError) return EXIT.rolloutFailed;
  if (
    error instanceof RolloutTimeoutError ||
    error instanceof OperationTimeoutError ||
    error instanceof DiscoveryTimeoutError ||
    error instanceof ApiTimeoutError ||
    error instanceof ExecSessionTimeoutError
  )
    return EXIT.timeout;
  if (error instanceof ConflictError || error instanceof WorkloadDriftError) return EXIT.conflict;
  if (error instanceof WorkloadNotFoundError) return EXIT.notFound;
  if (error instanceof WorkloadSupersededError) return EXIT.superseded;
  if (error instanceof ProvisionAbortedError || error instanceof OperationAbortedError) return EXIT.aborted;
  if (
    error instanceof ApiError ||
    error instanceof KubeconfigNotFoundError ||
    error instanceof KubeconfigInvalidError ||
    error instanceof UnknownContextError ||
    error instanceof ExecPluginError ||
    error instanceof MalformedObjectError ||
    error instanceof WatchInactiveError ||
    error instanceof NoRunningContainerError ||
    error instanceof KubeletUnreachableError ||
    error instanceof ExecFailedError ||
    error instanceof ShellNotFoundError ||
    error instanceof ExecConnectionLostError
  ) {
    return EXIT.apiError;
  }
  return EXIT.unexpected;
}
