// The kubelet's follow of a log can go quiet for good at a rotation without ending: when it
// sees the file renamed before the runtime has opened the new one, it keeps reading the
// renamed file, which no longer grows, while the container writes to the new one. Only the
// log's current file can be read again, so the follow itself must be let read the renamed
// file to its end before it is replaced. A follow quiet for a while asks the kubelet for the
// log's last line: newer than the last line delivered means the follow is behind; once it
// has stayed quiet long enough to have drained the renamed file (the kubelet rereads it at
// least every second), it is stopped, to be reopened from the last line delivered.
import { setLongTimeout, type LongTimeout } from '../../rx/long-timer.js';
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
  private lastHeard = Date.now();
  /** The quiet wanted before the next step: a look, or (behind) giving the follow up. */
  private wait: number;
  private quietFor: number;
  private behind = false;
  private stopped = false;

  constructor(
    private readonly hooks: StallWatchHooks,
    private readonly timings: StallWatchTimings = DEFAULT_STALL_WATCH,
  ) {
    this.quietFor = timings.firstCheckMs;
    this.wait = this.quietFor;
    this.arm();
  }

  /** The follow brought text: it is alive. Only noted: the timer, when it fires, counts from here. */
  heard(): void {
    this.lastHeard = Date.now();
    if (!this.behind) {
      this.quietFor = this.timings.firstCheckMs;
      this.wait = this.quietFor;
    }
  }

  stop(): void {
    this.stopped = true;
    this.timer?.clear();
    this.look?.abort();
  }

  private arm(): void {
    this.timer?.clear();
    this.timer = setLongTimeout(() => this.due(), Math.max(0, this.lastHeard + this.wait - Date.now()));
  }

  private due(): void {
    if (this.stopped) return;
    if (Date.now() - this.lastHeard < this.wait) this.arm();
    else this.quiet();
  }

  private quiet(): void {
    if (this.behind) {
      this.stop();
      this.hooks.onStalled();
      return;
    }
    const delivered = this.hooks.lastDelivered();
    // Before any line there is nothing to reopen from (a tail or a since would be lost).
    if (delivered === undefined) {
      this.arm();
      return;
    }
    const look = new AbortController();
    this.look = look;
    const asked = Date.now();
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
          this.wait = this.timings.drainMs;
          this.lastHeard = Date.now();
        } else if (this.lastHeard < asked) {
          this.quietFor = Math.min(this.quietFor * 2, this.timings.maxCheckMs);
          this.wait = this.quietFor;
        }
        this.arm();
      });
  }
}
