// isoTime(): reuses the last millisecond's string, never a stale one.
import type { SchedulerLike } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../../src/rx/clock-time.js';

const clockAt = (ms: number): SchedulerLike => ({
  now: () => ms,
  schedule: () => {
    throw new Error('unused');
  },
});

describe('isoTime', () => {
  it('formats each millisecond, reusing the string within one', () => {
    const t = Date.UTC(2025, 0, 15, 10, 0, 0);
    expect(isoTime(clockAt(t))).toBe('2025-01-15T10:00:00.000Z');
    expect(isoTime(clockAt(t))).toBe('2025-01-15T10:00:00.000Z');
    expect(isoTime(clockAt(t + 1))).toBe('2025-01-15T10:00:00.001Z');
    expect(isoTime(clockAt(t))).toBe('2025-01-15T10:00:00.000Z');
  });
});
