// The kubelet's follow of a log can go quiet for good at a rotation without ending: when it
// sees the file renamed before the runtime has opened the new one, it keeps reading the
// renamed file, which no longer grows, while the container writes to the new one. Only the
// log's current file can be read again, so the follow itself must be let read the renamed
// file to its end before it is replaced. A follow quiet for a while asks the kubelet for the
// log's last line: newer than the last line delivered means the follow is behind; once it
// has stayed quiet long enough to have drained the renamed file (the kubelet rereads it at
// least every second), it is stopped, to be reopened from the last line delivered.
import { setLongTimeout, type LongTimeout } from '../rx/long-timer.js';
import { splitTimestamp, timestampNanos } from './log-lines.js';

export interface StallWatchTimings {
  /** Quiet before the first look at the log's last line; it doubles while nothing is behind. */
  readonly firstCheckMs: number;
  /** Longest quiet between two looks. */
  readonly maxCheckMs: number;
  /** Quiet, once behind, before the follow is given up (the renamed file read to its end). */
  readonly drainMs: number;
  /** Bound on one look. */
  readonly lookTimeoutMs: number;
}

export const DEFAULT_STALL_WATCH: StallWatchTimings = { firstCheckMs: 2_000, maxCheckMs: 16_000, drainMs: 2_500, lookTimeoutMs: 10_000 };

export interface StallWatchHooks {
  /** The kubelet timestamp (nanoseconds) of the last line delivered, if any. */
  lastDelivered(): bigint | undefined;
  /** The log's last line as the kubelet has it now (with its timestamp), or '' for none. */
  lookAtLastLine(signal: AbortSignal): Promise<string>;
  /** The follow is behind and has drained what it could: stop it. */
  onStalled(): void;
}

/** Watches one open follow; `heard()` on every piece of text it brings, `stop()` when it ends. */
export class StallWatch {
  private timer: LongTimeout | undefined;
  private look: AbortController | undefined;
  private quietFor: number;
  private behind = false;
  private stopped = false;

  constructor(
    private readonly hooks: StallWatchHooks,
    private readonly timings: StallWatchTimings = DEFAULT_STALL_WATCH,
  ) {
    this.quietFor = timings.firstCheckMs;
    this.arm(this.quietFor);
  }

  /** The follow brought text: it is alive; a look under way still counts. */
  heard(): void {
    if (this.stopped) return;
    if (!this.behind) this.quietFor = this.timings.firstCheckMs;
    this.arm(this.behind ? this.timings.drainMs : this.quietFor);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.clear();
    this.look?.abort();
  }

  private arm(delayMs: number): void {
    this.timer?.clear();
    this.timer = setLongTimeout(() => this.quiet(), delayMs);
  }

  private quiet(): void {
    if (this.stopped) return;
    if (this.behind) {
      this.stop();
      this.hooks.onStalled();
      return;
    }
    if (this.look !== undefined) return;
    const delivered = this.hooks.lastDelivered();
    // Before any line there is nothing to reopen from (a tail or a since would be lost).
    if (delivered === undefined) {
      this.arm(this.quietFor);
      return;
    }
    const look = new AbortController();
    this.look = look;
    const bound = setLongTimeout(() => look.abort(), this.timings.lookTimeoutMs);
    void this.hooks
      .lookAtLastLine(look.signal)
      .then(
        (text) => {
          const time = splitTimestamp(text.split('\n', 1)[0] ?? '', false).time;
          const newest = time === undefined ? undefined : timestampNanos(time);
          const last = this.hooks.lastDelivered();
          return newest !== undefined && last !== undefined && newest > last;
        },
        // A look that fails says nothing about the follow; the next one may.
        () => false,
      )
      .then((isBehind) => {
        bound.clear();
        this.look = undefined;
        if (this.stopped) return;
        if (isBehind) {
          this.behind = true;
          this.arm(this.timings.drainMs);
          return;
        }
        this.quietFor = Math.min(this.quietFor * 2, this.timings.maxCheckMs);
        this.arm(this.quietFor);
      });
  }
}
