// EventChannel: one subscription to an event stream, shared by every viewer that watches
// it over Server-Sent Events (toEventStream). The channel, not a viewer, owns the
// subscription: viewers come and go (a closed tab, a reconnect) without touching the
// operation being watched; only the channel's owner ends it, with close().
//
// Each event is serialized once into an SSE frame (`id`, `event`, one `data` line of JSON)
// and kept in a bounded ring of the last `replay` frames, shared by all viewers. A viewer
// is a cursor into that ring: a reconnecting browser resumes after its Last-Event-ID, and
// a slow one catches up from the ring when its socket drains. A viewer whose position has
// left the ring is resynchronized: it gets a `snapshot` event when the owner can describe
// the current state, else a `gap` event saying how many events it lost, then the ring.
//
// Event IDs are `<epoch>.<sequence>`: the epoch is random per channel, so an ID from
// another process (a restarted server) is never mistaken for a position in this one.
import { randomBytes } from 'node:crypto';
import type { Observable, Subscription } from 'rxjs';
import { InvalidOptionError } from '../errors/input.js';
import { errorForViewers } from './error-for-viewers.js';

export const DEFAULT_REPLAY = 1000;

/** The event a stream's normal end is sent as (data `{}`); a viewer then closes its EventSource. */
export const END_EVENT = 'stream-end';
/** The event a stream's error is sent as (data `{ name, message }`). Not `error`: EventSource uses that name for its own connection errors. */
export const ERROR_EVENT = 'stream-error';
/** Sent instead of lost events when the owner can describe the current state (data: the snapshot). */
export const SNAPSHOT_EVENT = 'snapshot';
/** Sent when events a viewer should have seen have left the replay buffer (data `{ missed }`). */
export const GAP_EVENT = 'gap';

export interface EventChannelOptions<T> {
  /** How many of the latest events are kept for reconnecting and slow viewers. Default 1000. */
  readonly replay?: number;
  /** The SSE event name of a value. Default: its `type` field when that is a string, else `message`. */
  readonly eventName?: (value: T) => string;
  /**
   * The current state, as of the last event sent. When given, a new viewer and one that
   * cannot be resumed from the buffer get it as a `snapshot` event instead of old events.
   */
  readonly snapshot?: () => unknown;
}

/** One SSE frame, ready to write; shared by all viewers. */
export interface ChannelFrame {
  readonly sequence: number;
  readonly text: string;
}

/** What the channel needs from a viewer (toEventStream implements it). */
export interface ChannelViewer {
  /** New frames are available (or the stream has ended). */
  wake(): void;
  /** The channel was closed by its owner: end the response. */
  shutdown(): void;
}

export type ViewerStart =
  | { readonly kind: 'resume'; readonly from: number }
  | { readonly kind: 'snapshot'; readonly frame: ChannelFrame; readonly from: number }
  | { readonly kind: 'gap'; readonly frame: ChannelFrame; readonly from: number }
  /** The viewer has seen everything, the end included: nothing more will come. */
  | { readonly kind: 'finished' };

export class EventChannel<T = unknown> {
  /** Random per channel: IDs from another channel (or process) never resume this one. */
  readonly epoch: string = randomBytes(6).toString('base64url');
  private readonly capacity: number;
  private readonly ring: (ChannelFrame | undefined)[];
  /** Index in `ring` of the oldest kept frame. */
  private start = 0;
  private count = 0;
  private nextSequence = 1;
  private ended = false;
  private isClosed = false;
  private readonly viewers = new Set<ChannelViewer>();
  private readonly subscription: Subscription;
  private readonly eventName: (value: T) => string;
  private readonly snapshot: (() => unknown) | undefined;
  /** The snapshot as of the last event, serialized once for every viewer that starts with it. */
  private snapshotFrame: ChannelFrame | undefined;

  constructor(source$: Observable<T>, options: EventChannelOptions<T> = {}) {
    const replay = options.replay ?? DEFAULT_REPLAY;
    if (!Number.isInteger(replay) || replay < 1) {
      throw new InvalidOptionError('replay', `replay must be a whole number of events, at least 1 (got ${String(replay)})`);
    }
    this.capacity = replay;
    this.ring = new Array<ChannelFrame | undefined>(replay);
    const eventName = options.eventName ?? defaultEventName;
    this.eventName = (value) => sanitizeEventName(eventName(value));
    this.snapshot = options.snapshot;
    // Subscribed at once and kept until the source ends or the owner closes the channel.
    this.subscription = source$.subscribe({
      next: (value) => this.push(this.eventName(value), serialize(value)),
      error: (error: unknown) => this.finish(ERROR_EVENT, JSON.stringify(errorForViewers(error))),
      complete: () => this.finish(END_EVENT, '{}'),
    });
  }

  /** How many viewers are attached right now. */
  get viewerCount(): number {
    return this.viewers.size;
  }

  /** The ID of the newest event, or undefined before the first. */
  get lastEventId(): string | undefined {
    return this.nextSequence > 1 ? this.idOf(this.nextSequence - 1) : undefined;
  }

  /** The source has completed or failed (its end is in the buffer). */
  get finished(): boolean {
    return this.ended;
  }

  /** The owner closed the channel. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** True while the channel holds its source's subscription. */
  get subscribed(): boolean {
    return !this.subscription.closed;
  }

  /**
   * Ends the channel: unsubscribes the source (which aborts a cold operation still
   * running: the owner's decision, never a viewer's) and ends every viewer's response.
   */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.subscription.unsubscribe();
    const viewers = [...this.viewers];
    this.viewers.clear();
    for (const viewer of viewers) viewer.shutdown();
  }

  // ---- for toEventStream ------------------------------------------------------------

  /** Where a viewer starts, given the Last-Event-ID it sent (if any). */
  startFor(lastEventId: string | undefined): ViewerStart {
    const oldest = this.oldest;
    const seen = this.parseId(lastEventId);
    if (seen !== undefined && seen + 1 >= oldest) {
      if (this.ended && seen + 1 >= this.nextSequence) return { kind: 'finished' };
      return { kind: 'resume', from: seen + 1 };
    }
    if (this.snapshot && !this.ended) return this.snapshotStart();
    // How many events this viewer lost: unknown for an ID of another channel.
    const missed = seen !== undefined ? oldest - (seen + 1) : lastEventId === undefined ? oldest - 1 : null;
    if (missed === 0) return { kind: 'resume', from: oldest };
    return { kind: 'gap', frame: this.gapFrame(missed), from: oldest };
  }

  /** For a viewer whose cursor has left the buffer while it was blocked. */
  restartAfterLag(cursor: number): ViewerStart {
    const oldest = this.oldest;
    if (this.snapshot && !this.ended) return this.snapshotStart();
    return { kind: 'gap', frame: this.gapFrame(oldest - cursor), from: oldest };
  }

  /** The frame with this sequence number, or undefined if it has left the buffer or does not exist yet. */
  frameAt(sequence: number): ChannelFrame | undefined {
    const oldest = this.nextSequence - this.count;
    if (sequence < oldest || sequence >= this.nextSequence) return undefined;
    return this.ring[(this.start + (sequence - oldest)) % this.capacity];
  }

  /** The sequence number the next event will get. */
  get end(): number {
    return this.nextSequence;
  }

  /** The oldest sequence number still in the buffer. */
  get oldest(): number {
    return this.nextSequence - this.count;
  }

  attach(viewer: ChannelViewer): void {
    if (this.isClosed) {
      viewer.shutdown();
      return;
    }
    this.viewers.add(viewer);
  }

  detach(viewer: ChannelViewer): void {
    this.viewers.delete(viewer);
  }

  // ---- internals ---------------------------------------------------------------------

  private push(event: string, data: string): void {
    const sequence = this.nextSequence;
    this.nextSequence += 1;
    const frame: ChannelFrame = { sequence, text: `id: ${this.idOf(sequence)}\nevent: ${event}\ndata: ${data}\n\n` };
    if (this.count < this.capacity) {
      this.ring[(this.start + this.count) % this.capacity] = frame;
      this.count += 1;
    } else {
      this.ring[this.start] = frame;
      this.start = (this.start + 1) % this.capacity;
    }
    for (const viewer of this.viewers) viewer.wake();
  }

  private finish(event: string, data: string): void {
    // Set first: a viewer woken by this last frame ends its response after writing it.
    this.ended = true;
    this.push(event, data);
  }

  private snapshotStart(): ViewerStart {
    const last = this.nextSequence - 1;
    // The state changes only with an event: until the next one, every new viewer shares this frame.
    if (this.snapshotFrame?.sequence !== last) {
      const data = serialize(this.snapshot!());
      this.snapshotFrame = { sequence: last, text: `id: ${this.idOf(last)}\nevent: ${SNAPSHOT_EVENT}\ndata: ${data}\n\n` };
    }
    return { kind: 'snapshot', frame: this.snapshotFrame, from: this.nextSequence };
  }

  private gapFrame(missed: number | null): ChannelFrame {
    // Carries the last ID before the buffer so a reconnect after it resumes at the buffer.
    const before = this.nextSequence - this.count - 1;
    return {
      sequence: before,
      text: `id: ${this.idOf(before)}\nevent: ${GAP_EVENT}\ndata: ${JSON.stringify({ missed })}\n\n`,
    };
  }

  private idOf(sequence: number): string {
    return `${this.epoch}.${sequence}`;
  }

  /** The sequence number of an ID of this channel, else undefined. */
  private parseId(id: string | undefined): number | undefined {
    if (id === undefined) return undefined;
    const dot = id.lastIndexOf('.');
    if (dot < 0 || id.slice(0, dot) !== this.epoch) return undefined;
    const text = id.slice(dot + 1);
    if (!/^\d{1,15}$/.test(text)) return undefined;
    const sequence = Number(text);
    return sequence < this.nextSequence ? sequence : undefined;
  }
}

function defaultEventName(value: unknown): string {
  const type = (value as { type?: unknown } | null)?.type;
  return typeof type === 'string' && type !== '' ? sanitizeEventName(type) : 'message';
}

/** An event name is one line of plain characters (a newline would end the field). */
export function sanitizeEventName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9._:-]/g, '_');
  return clean === '' ? 'message' : clean;
}

/** One line of JSON: JSON.stringify escapes every line break inside strings. */
function serialize(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    return JSON.stringify({ unserializable: errorForViewers(error) });
  }
}
