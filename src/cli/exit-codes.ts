// Exit codes that tell a job runner what went wrong without parsing text. Every error the
// library can end with has its code here; 1 is left for what no rule foresaw (a bug).
import {
  ApiError,
  ConflictError,
  ExecPluginError,
  InvalidOptionError,
  InvalidSpecError,
  KubeconfigInvalidError,
  KubeconfigNotFoundError,
  MalformedObjectError,
  ProvisionAbortedError,
  RolloutFailedError,
  RolloutTimeoutError,
  ShellWordsError,
  UnknownContextError,
  UsageError,
  WatchInactiveError,
} from '../errors.js';

export const EXIT = {
  ok: 0,
  /** An internal error no rule foresaw: a bug, to be reported. */
  unexpected: 1,
  /** Bad flags, options or spec: nothing was sent to the cluster. */
  invalidInput: 2,
  /** The rollout failed (ProgressDeadlineExceeded, ImagePullBackOff, CrashLoopBackOff, ...). */
  rolloutFailed: 3,
  /** The rollout did not complete within --timeout. */
  timeout: 4,
  /** Kubeconfig, exec credential plugin, connection, TLS, authentication, authorization or other API errors. */
  apiError: 5,
  /** A Deployment of that name exists and belongs to another container. */
  conflict: 6,
  /** Interrupted (SIGINT/SIGTERM). */
  aborted: 130,
} as const;

export function exitCodeFor(error: unknown): number {
  if (
    error instanceof UsageError ||
    error instanceof InvalidSpecError ||
    error instanceof InvalidOptionError ||
    error instanceof ShellWordsError
  ) {
    return EXIT.invalidInput;
  }
  if (error instanceof RolloutFailedError) return EXIT.rolloutFailed;
  if (error instanceof RolloutTimeoutError) return EXIT.timeout;
  if (error instanceof ConflictError) return EXIT.conflict;
  if (error instanceof ProvisionAbortedError) return EXIT.aborted;
  if (
    error instanceof ApiError ||
    error instanceof KubeconfigNotFoundError ||
    error instanceof KubeconfigInvalidError ||
    error instanceof UnknownContextError ||
    error instanceof ExecPluginError ||
    error instanceof MalformedObjectError ||
    error instanceof WatchInactiveError
  ) {
    return EXIT.apiError;
  }
  return EXIT.unexpected;
}
