// When reading the cluster fails: which failures mean "cannot tell right now" (the
// status is `unknown`, with the reason) and which need the caller to act (bad
// credentials, missing RBAC verbs, an untrusted certificate: thrown as typed errors).
import { ApiError } from '../../errors/api.js';
import { classifyInformerError } from '../../informers/classify-error.js';
import { unknownStatus } from '../../rollout/unknown-status.js';
import type { WorkloadStatusValue } from '../../rollout/workload-status.js';

/** Network failures, timeouts, 5xx and 429: the API may answer again by itself. */
export function isUnreachable(error: unknown): boolean {
  return error instanceof ApiError && classifyInformerError(error).action !== 'fail';
}

/** The `unknown` status for a failure, e.g. reason ApiUnreachable with the error's message. */
export function unreachableStatus(error: unknown, last?: WorkloadStatusValue): WorkloadStatusValue {
  return unknownStatus(reasonOf(error), error instanceof Error ? error.message : String(error), last);
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return 'Disconnected';
  if (error instanceof ApiError && error.name === 'ApiError' && error.statusCode !== undefined) return `Http${error.statusCode}`;
  return error.name.replace(/Error$/, '') || 'Disconnected';
}
