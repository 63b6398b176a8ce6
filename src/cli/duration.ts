// kubectl-style durations: "300s", "5m", "1m30s", "1h", "250ms"; a bare number is seconds;
// "infinity" is the number Infinity. parseDuration only reads the text, exactly (decimal
// arithmetic, so "1.1s" is 1100 ms, not 1100.0000000000002); whether the value is allowed
// is the duration rule's call (src/input/duration.ts), the one the library applies, and
// durationFlag is the one place every command's duration flags go through.
import { UsageError } from '../errors/input.js';
import { DURATION_RULES, durationProblem, type DurationRule } from '../input/duration.js';

const UNIT_MS: Record<string, bigint> = { ms: 1n, s: 1000n, m: 60_000n, h: 3_600_000n };
const PART = /(\d+)(?:\.(\d+))?(ms|s|m|h)/y;
const BARE_NUMBER = /^(\d+)(?:\.(\d+))?$/;

/** Milliseconds as a number (possibly fractional, zero, negative or Infinity), or undefined if it is not a duration. */
export function parseDuration(text: string): number | undefined {
  let trimmed = text.trim();
  let sign = 1;
  if (trimmed.startsWith('-')) {
    sign = -1;
    trimmed = trimmed.slice(1);
  }
  if (/^infinity$/i.test(trimmed)) return sign * Infinity;
  const bare = BARE_NUMBER.exec(trimmed);
  if (bare) return sign * exactMs(bare[1]!, bare[2], UNIT_MS.s!);
  let total = 0;
  let consumed = 0;
  PART.lastIndex = 0;
  for (let match = PART.exec(trimmed); match; match = PART.exec(trimmed)) {
    total += exactMs(match[1]!, match[2], UNIT_MS[match[3]!]!);
    consumed = PART.lastIndex;
  }
  return consumed > 0 && consumed === trimmed.length ? sign * total : undefined;
}

/** whole.fraction × unit, computed in integers; a fraction of a millisecond stays a fraction. */
function exactMs(whole: string, fraction: string | undefined, unit: bigint): number {
  const digits = fraction ?? '';
  const scaled = BigInt(whole + digits) * unit;
  const divisor = 10n ** BigInt(digits.length);
  const ms = scaled / divisor;
  const rest = scaled % divisor;
  return rest === 0n ? Number(ms) : Number(ms) + Number(rest) / Number(divisor);
}

/** A duration flag's text as milliseconds, under the rule of the library option it sets (UsageError otherwise). */
export function durationFlag(flag: string, text: string, rule: DurationRule = DURATION_RULES.readTimeoutMs): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new UsageError(`${flag} must be a duration like 90s, 5m or 1m30s, not "${text}"`);
  const problem = durationProblem(ms, rule);
  if (problem) throw new UsageError(`${flag} ${problem}`);
  return ms;
}
