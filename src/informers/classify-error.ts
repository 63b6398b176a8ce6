// What an informer does after its list or watch failed. Transient failures are retried
// with backoff (the waiters keep waiting); `relist` starts over from a fresh list; fatal
// ones cannot heal by waiting (bad credentials, missing RBAC verbs, a bad request), so
// every waiter on that informer fails at once with the error instead of at its timeout.
import { ApiError, ResourceExpiredError, TlsError, TooManyRequestsError } from '../errors/api.js';
import { ExecPluginError, KubeconfigInvalidError } from '../errors/kubeconfig.js';

export type FailureAction =
  { readonly action: 'relist' } | { readonly action: 'retry'; readonly notBeforeMs?: number } | { readonly action: 'fail' };

export function classifyInformerError(error: unknown): FailureAction {
  if (error instanceof ResourceExpiredError) return { action: 'relist' };
  if (error instanceof TooManyRequestsError) {
    return error.retryAfterMs !== undefined ? { action: 'retry', notBeforeMs: error.retryAfterMs } : { action: 'retry' };
  }
  // A certificate that does not verify now will not verify after a backoff either, and
  // neither does a credential the kubeconfig cannot supply.
  if (error instanceof TlsError || error instanceof ExecPluginError || error instanceof KubeconfigInvalidError) return { action: 'fail' };
  if (error instanceof ApiError && error.statusCode !== undefined) {
    const code = error.statusCode;
    if (code === 408 || code >= 500) return { action: 'retry' };
    return { action: 'fail' }; // 400, 401, 403, 404, 422, ...
  }
  // Network failures, timeouts, silent watches, malformed streams: the connection is
  // at fault, not the request.
  return { action: 'retry' };
}
