// Jittered exponential backoff for informer restarts (client-go style): the delay doubles
// per consecutive failure from `initialMs` up to `maxMs`, and a random share of up to
// `jitter` is taken off so many informers that failed together do not retry in lockstep.

export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
  /** 0..1: the delay is drawn from [(1 - jitter) * d, d]. */
  readonly jitter: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 30_000, factor: 2, jitter: 0.2 };

/** Delay before retry number `failures` (1 = the first retry). */
export function backoffDelay(failures: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const exponent = Math.max(0, failures - 1);
  const ceiling = Math.min(policy.maxMs, policy.initialMs * policy.factor ** exponent);
  return Math.round(ceiling * (1 - policy.jitter * random()));
}
