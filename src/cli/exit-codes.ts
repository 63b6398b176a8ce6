// Exit codes that tell a job runner what went wrong without parsing text.
import {
  ApiError,
  ConflictError,
  DiscoveryTimeoutError,
  InvalidOptionError,
  InvalidSpecError,
  KubeconfigInvalidError,
  KubeconfigNotFoundError,
  OperationAbortedError,
  ProvisionAbortedError,
  RolloutFailedError,
  RolloutTimeoutError,
  UnknownContextError,
  UsageError,
} from '../errors.js';

export const EXIT = {
  ok: 0,
  unexpected: 1,
  /** Bad flags, an invalid spec or option: nothing was sent to the cluster. */
  invalidInput: 2,
  /** The rollout failed (ProgressDeadlineExceeded, ImagePullBackOff, CrashLoopBackOff, ...). */
  rolloutFailed: 3,
  /** The rollout did not complete within --timeout. */
  timeout: 4,
  /** Kubeconfig, connection, TLS, authentication, authorization or other API errors. */
  apiError: 5,
  /** A Deployment of that name exists and belongs to another container. */
  conflict: 6,
  /** Interrupted (SIGINT/SIGTERM). */
  aborted: 130,
} as const;

export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError || error instanceof InvalidSpecError || error instanceof InvalidOptionError) return EXIT.invalidInput;
  if (error instanceof RolloutFailedError) return EXIT.rolloutFailed;
  if (error instanceof RolloutTimeoutError || error instanceof DiscoveryTimeoutError) return EXIT.timeout;
  if (error instanceof ConflictError) return EXIT.conflict;
  if (error instanceof ProvisionAbortedError || error instanceof OperationAbortedError) return EXIT.aborted;
  if (
    error instanceof ApiError ||
    error instanceof KubeconfigNotFoundError ||
    error instanceof KubeconfigInvalidError ||
    error instanceof UnknownContextError
  ) {
    return EXIT.apiError;
  }
  return EXIT.unexpected;
}
