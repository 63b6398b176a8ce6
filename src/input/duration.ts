// Every duration a caller can set, in the library (timeoutMs, requestTimeoutMs, the failure
// policy's grace windows, the informers' inactivityMs and backoff) or on the command line
// (--timeout, --request-timeout, --progress-deadline), is checked here and nowhere else.
//
// The rule, one for all: a whole number of milliseconds from the option's minimum (0 or 1)
// up to MAX_DURATION_MS. `Infinity` is accepted only where it has a meaning, which the
// option's rule names ("no bound"); elsewhere it is refused like NaN. Nothing is rounded or
// clamped: a value outside the rule is an error, never quietly replaced by another.
// Timers longer than Node's limit (2^31-1 ms) are chained (src/rx/long-timer.ts), so every
// value the rule accepts fires when it says.

import { InvalidOptionError } from '../errors/input.js';
import { describeValue } from './given.js';

/** The longest duration any option accepts: 365 days, in milliseconds. */
export const MAX_DURATION_MS = 365 * 24 * 60 * 60 * 1000;

/** The largest value a Kubernetes int32 field holds (progressDeadlineSeconds, replicas). */
export const MAX_INT32 = 2 ** 31 - 1;

export interface DurationRule {
  /** The smallest value: 0 where "at once" makes sense (a grace window), else 1. */
  readonly min: 0 | 1;
  /** What `Infinity` means for this option; without it, `Infinity` is refused. */
  readonly infinity?: string;
}

/** The rule of each kind of duration option. */
export const DURATION_RULES = {
  /** provision(): the whole provisioning. */
  timeoutMs: { min: 1, infinity: 'no bound: wait until the rollout completes, fails or is aborted' },
  /** KubernetesApi: each API request; a request is always bounded. */
  requestTimeoutMs: { min: 1 },
  /** status(), list(), check(), nodes(): one bounded read; a read is always bounded. */
  readTimeoutMs: { min: 1 },
  /** Failure policy grace windows: 0 fails at once. */
  graceMs: { min: 0, infinity: 'never fail on the time alone' },
  /** Informers: a watch silent this long is cut. */
  inactivityMs: { min: 1 },
  /** Informers: restart delays. */
  backoffMs: { min: 1 },
  /** provision(): the deletion after a failure; 0 sends the delete and waits for nothing. Always bounded. */
  cleanupTimeoutMs: { min: 0 },
} as const satisfies Record<string, DurationRule>;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The problem with `value` as a duration in milliseconds under `rule`, or undefined. */
export function durationProblem(value: unknown, rule: DurationRule): string | undefined {
  if (typeof value !== 'number') return `must be a number of milliseconds (got ${describeValue(value)})`;
  if (Number.isNaN(value)) return 'must be a number of milliseconds (got NaN)';
  if (value === Infinity) {
    return rule.infinity !== undefined
      ? undefined
      : `must be finite (got Infinity); the longest allowed is ${MAX_DURATION_MS} ms (${MAX_DURATION_MS / DAY_MS} days)`;
  }
  if (value < 0) return `must not be negative (got ${value})`;
  if (value < rule.min) {
    return `must be at least ${rule.min} ms (got ${value})${rule.infinity !== undefined ? `; Infinity means ${rule.infinity}` : ''}`;
  }
  if (!Number.isInteger(value)) return `must be a whole number of milliseconds (got ${value})`;
  if (value > MAX_DURATION_MS) {
    return (
      `must be at most ${MAX_DURATION_MS} ms (${MAX_DURATION_MS / DAY_MS} days; got ${value})` +
      (rule.infinity !== undefined ? `; Infinity means ${rule.infinity}` : '')
    );
  }
  return undefined;
}

/** Throws InvalidOptionError naming `option` (a field path) unless `value` fits `rule`. */
export function requireDuration(option: string, value: unknown, rule: DurationRule): void {
  const problem = durationProblem(value, rule);
  if (problem) throw new InvalidOptionError(option, `${option} ${problem}`);
}

/**
 * The problem with `value` as a Deployment's progressDeadlineSeconds, or undefined: the API
 * server holds it as an int32, so 1 to 2^31-1 (and it must exceed minReadySeconds, which
 * buildDeployment checks with both in hand). The deployment controller reads 2^31-1 as
 * "no deadline" (see rollout-status.ts).
 */
export function progressDeadlineProblem(value: unknown): string | undefined {
  if (typeof value !== 'number' || Number.isNaN(value)) return `must be a whole number of seconds (got ${describeValue(value)})`;
  if (!Number.isInteger(value)) return `must be a whole number of seconds (got ${value})`;
  if (value < 1) return `must be at least 1 second (got ${value})`;
  if (value > MAX_INT32) return `must be at most ${MAX_INT32} seconds, the largest value Kubernetes holds (got ${value})`;
  return undefined;
}

/** The problem with `value` as a Deployment's minReadySeconds, or undefined: an int32 from 0. */
export function minReadySecondsProblem(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value)) return `must be a whole number of seconds (got ${describeValue(value)})`;
  if (value < 0) return `must be at least 0 seconds (got ${value})`;
  if (value >= MAX_INT32) return `must be less than ${MAX_INT32} seconds (got ${value})`;
  return undefined;
}

/** The problem with `value` as a count (back-offs, restarts): a whole number from 0, or undefined. */
export function countProblem(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    return `must be a whole number from 0 (got ${describeValue(value)})`;
  }
  return undefined;
}
