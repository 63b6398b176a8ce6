// The lines for people that the CLI prints and Manager's job log shows (the core's
// formatEventLine, describeEvent, formatErrorLine, escapeControlCharacters). Pure, no fakes.
import { describe, expect, it } from 'vitest';
import { RolloutFailedError } from '../../src/errors/rollout.js';
import { describeEvent, formatErrorLine, formatEventLine } from '../../src/workload/toolkit/event-lines.js';
import type { ProgressEvent, RolloutStatus } from '../../src/rollout/events.js';
import { escapeControlCharacters } from '../../src/text.js';

const status: RolloutStatus = {
  state: 'InProgress',
  reason: 'WaitingForAvailable',
  message: '0 of 1 replicas available',
  generation: 1,
  observedGeneration: 1,
  replicas: { desired: 1, total: 1, updated: 1, ready: 0, available: 0 },
};

const progress = (message: string): ProgressEvent => ({
  type: 'progress',
  at: '2026-11-30T17:07:33.270Z',
  namespace: 'team-a',
  name: 'web',
  providerId: 'team-a/web',
  status,
  message,
});

describe('escapeControlCharacters', () => {
  it('escapes line breaks, tabs, ESC, DEL, C1 controls and the Unicode line separators; keeps printable Unicode', () => {
    expect(escapeControlCharacters('a\nb\r\tc\u001b[31m\u007f\u0085\u2028\u2029 héllo ✓')).toBe(
      'a\\nb\\r\\tc\\u001b[31m\\u007f\\u0085\\u2028\\u2029 héllo ✓',
    );
  });
});

describe('event and error lines', () => {
  it('one progress event is one line: time of day, provider ID, words', () => {
    expect(formatEventLine(progress('waiting to be scheduled'))).toBe('17:07:33.270 team-a/web waiting to be scheduled');
  });

  it('a message with line breaks or terminal escapes stays one line', () => {
    const line = formatEventLine(progress('first\nsecond\u001b]0;title\u0007'));
    expect(line.split('\n')).toHaveLength(1);
    expect(line).not.toMatch(/\p{Cc}/u);
    expect(describeEvent(progress('a\r\nb'))).toBe('team-a/web a\\r\\nb');
  });

  it('an error is one line naming its class', () => {
    const error = new RolloutFailedError({ namespace: 'team-a', name: 'web' }, 'CrashLoopBackOff', 'exit code 1\npanic: boom');
    const line = formatErrorLine(error);
    expect(line).toMatch(/^error: RolloutFailedError: Rollout of team-a\/web failed: CrashLoopBackOff: exit code 1\\npanic: boom$/);
    expect(formatErrorLine('plain\ntext')).toBe('error: plain\\ntext');
  });
});
