// Unit tests for the informer's backoff schedule and error classification (pure functions).
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ApiTimeoutError,
  ApiUnreachableError,
  ForbiddenError,
  NotFoundError,
  ResourceExpiredError,
  TlsError,
  TooManyRequestsError,
  UnauthorizedError,
  WatchInactiveError,
} from '../../src/errors/api.js';
import { DEFAULT_BACKOFF, backoffDelay } from '../../src/rx/backoff.js';
import { classifyInformerError } from '../../src/informers/classify-error.js';

describe('backoffDelay', () => {
  it('doubles from 0.5 s up to the 30 s cap (no jitter drawn)', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((failures) => backoffDelay(failures, DEFAULT_BACKOFF, () => 0));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it('takes up to `jitter` off the delay, never adding to it', () => {
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 1)).toBe(1600);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0.5)).toBe(1800);
    for (let i = 0; i < 200; i++) {
      const delay = backoffDelay(10, DEFAULT_BACKOFF);
      expect(delay).toBeGreaterThanOrEqual(24_000);
      expect(delay).toBeLessThanOrEqual(30_000);
    }
  });
});

describe('classifyInformerError', () => {
  const target = { verb: 'watch', resource: 'deployments', namespace: 'default' };
  it.each([
    ['410 Gone', new ResourceExpiredError(), 'relist'],
    ['network failure', new ApiUnreachableError('https://x', 'ECONNRESET'), 'retry'],
    ['request timeout', new ApiTimeoutError('https://x', 100), 'retry'],
    ['silent watch', new WatchInactiveError('deployments', 'default', 1000), 'retry'],
    ['500', new ApiError('boom', { statusCode: 500 }), 'retry'],
    ['503', new ApiError('unavailable', { statusCode: 503 }), 'retry'],
    ['429', new TooManyRequestsError(undefined), 'retry'],
    ['401', new UnauthorizedError('https://x'), 'fail'],
    ['403 on watch', new ForbiddenError(target), 'fail'],
    ['404', new NotFoundError('namespaces "x" not found'), 'fail'],
    ['400', new ApiError('bad selector', { statusCode: 400 }), 'fail'],
    ['TLS', new TlsError('https://x', 'untrusted'), 'fail'],
    ['a plain Error (socket)', new Error('socket hang up'), 'retry'],
  ])('%s -> %s', (_label, error, action) => {
    expect(classifyInformerError(error).action).toBe(action);
  });

  it('honours Retry-After on 429', () => {
    expect(classifyInformerError(new TooManyRequestsError(7000))).toEqual({ action: 'retry', notBeforeMs: 7000 });
  });
});
