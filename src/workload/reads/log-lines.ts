// The pure parts of following a container's log: cutting the stream into bounded lines,
// the kubelet's timestamp at the start of each (timestamps=true), and the filter that drops
// what a reopened follow sends again (the API server passes sinceTime on to the second, so
// a reopen repeats the last second's lines).

/** A line as it came: the kubelet's timestamp (RFC 3339, nanoseconds), its text, and whether it was cut. */
export interface RawLogLine {
  readonly time: string | undefined;
  readonly text: string;
  readonly truncated: boolean;
}

/** Splits streamed text into lines of at most maxChars; the rest of a longer line is dropped. */
export class LineSplitter {
  private partial = '';
  private cut = false;
  constructor(private readonly maxChars: number) {}

  /** The complete lines in `text` (with what came before it). */
  push(text: string): { line: string; truncated: boolean }[] {
    const lines: { line: string; truncated: boolean }[] = [];
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      this.append(text.slice(start, end));
      lines.push({ line: this.partial, truncated: this.cut });
      this.partial = '';
      this.cut = false;
      start = end + 1;
    }
    this.append(text.slice(start));
    return lines;
  }

  /** What is left after the stream's end (a last line without a newline), if anything. */
  end(): { line: string; truncated: boolean } | undefined {
    const rest = this.partial === '' ? undefined : { line: this.partial, truncated: this.cut };
    this.partial = '';
    this.cut = false;
    return rest;
  }

  private append(piece: string): void {
    if (this.cut || piece === '') return;
    const room = this.maxChars - this.partial.length;
    if (piece.length > room) {
      this.partial += piece.slice(0, room);
      this.cut = true;
    } else this.partial += piece;
  }
}

const TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d) /;

/** A timestamps=true line split into its timestamp and text; a line without one keeps its text. */
export function splitTimestamp(line: string, truncated: boolean): RawLogLine {
  const match = TIMESTAMP.exec(line);
  if (!match) return { time: undefined, text: line, truncated };
  return { time: match[0].slice(0, -1), text: line.slice(match[0].length), truncated };
}

/** A timestamp as nanoseconds since the epoch, for ordering; undefined when it does not parse. */
export function timestampNanos(time: string): bigint | undefined {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(time);
  if (!match) return undefined;
  const ms = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(ms)) return undefined;
  return BigInt(ms / 1000) * 1_000_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'));
}

/** sinceTime for a reopen: the second of `nanos` (the API server keeps no finer). */
export function sinceTimeOf(nanos: bigint): string {
  return new Date(Number(nanos / 1_000_000_000n) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * What a follow has delivered of one container run: the last timestamp and how many lines
 * of each text came at it. A reopen from that second drops lines older than it, and at it as
 * many of each text as were delivered: a line written twice in the same nanosecond stays twice.
 */
export class DeliveredMark {
  private last: bigint | undefined;
  private atLast = new Map<string, number>();

  /** Records a delivered line. */
  note(line: RawLogLine): void {
    const nanos = line.time === undefined ? undefined : timestampNanos(line.time);
    if (nanos === undefined) return;
    if (this.last === undefined || nanos > this.last) {
      this.last = nanos;
      this.atLast = new Map();
    }
    if (nanos === this.last) this.atLast.set(line.text, (this.atLast.get(line.text) ?? 0) + 1);
  }

  /** The timestamp (nanoseconds) of the last line delivered, or undefined before any. */
  lastNanos(): bigint | undefined {
    return this.last;
  }

  /** sinceTime for a reopen, or undefined before any line. */
  sinceTime(): string | undefined {
    return this.last === undefined ? undefined : sinceTimeOf(this.last);
  }

  /** A filter for one reopen: false for a line delivered before. */
  repeatFilter(): (line: RawLogLine) => boolean {
    const last = this.last;
    const remaining = new Map(this.atLast);
    let past = false;
    return (line) => {
      if (last === undefined || past) return true;
      const nanos = line.time === undefined ? undefined : timestampNanos(line.time);
      if (nanos === undefined) return true;
      if (nanos < last) return false;
      if (nanos === last) {
        const left = remaining.get(line.text) ?? 0;
        if (left > 0) {
          remaining.set(line.text, left - 1);
          return false;
        }
        return true;
      }
      past = true;
      return true;
    };
  }
}
