// Decoding of a watch response: newline-delimited JSON, one event per line, as
// kube-apiserver writes it. A pure function of the text, so junk of every kind can be fed
// to it in tests. Anything that is not `{"type": <known type>, "object": {...}}` is a fault
// of the stream, described in words (never quoting the line: it may hold a secret).
import type { WatchEventType } from './client.js';

export const WATCH_EVENT_TYPES: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

export type DecodedWatchLine =
  | { readonly ok: true; readonly type: WatchEventType; readonly object: Record<string, unknown> }
  | { readonly ok: false; readonly problem: string };

export function decodeWatchLine(line: string): DecodedWatchLine {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    return { ok: false, problem: `a watch line is not JSON (${line.length} characters)` };
  }
  if (!isRecord(event)) return { ok: false, problem: `a watch line is ${describe(event)}, not an event object` };
  const { type, object } = event;
  if (typeof type !== 'string' || !WATCH_EVENT_TYPES.has(type)) {
    return {
      ok: false,
      problem: `a watch event has type ${typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : describe(type)}`,
    };
  }
  if (!isRecord(object)) return { ok: false, problem: `a ${type} watch event carries ${describe(object)}, not an object` };
  return { ok: true, type: type as WatchEventType, object };
}

/** Splits text arriving in chunks into lines; whatever follows the last newline waits. */
export class LineSplitter {
  private pending = '';

  /** The complete lines in `chunk` (with what was pending), blank lines dropped. */
  push(chunk: string): string[] {
    this.pending += chunk;
    const lines: string[] = [];
    let newline = this.pending.indexOf('\n');
    while (newline >= 0) {
      const line = this.pending.slice(0, newline);
      this.pending = this.pending.slice(newline + 1);
      if (line.trim()) lines.push(line);
      newline = this.pending.indexOf('\n');
    }
    return lines;
  }

  /** Text after the last newline when the stream ended: a truncated event, unless blank. */
  get rest(): string {
    return this.pending.trim();
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
