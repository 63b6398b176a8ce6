// toEventStream(): one viewer of an EventChannel, written as Server-Sent Events to a Node
// http.ServerResponse (Express's response is one). The viewer:
//   - starts after the request's Last-Event-ID when the channel still holds what came
//     after it, else with a snapshot or a gap event (see EventChannel);
//   - writes each frame as `id`, `event` and one `data` line, a `retry` hint first, and a
//     heartbeat comment every `heartbeatMs` so proxies and browsers keep the connection;
//   - respects backpressure: when `write()` returns false it writes nothing more until
//     'drain', and its place is only a cursor into the channel's shared buffer, so a slow
//     client costs no memory per event it is behind. One that falls out of the buffer is
//     resynchronized; one whose socket accepts nothing for `maxBlockedMs` is dropped (its
//     browser reconnects and resumes after its Last-Event-ID);
//   - ends the response after the stream's end or error event;
//   - on a closed connection detaches from the channel and stops its heartbeat: nothing
//     else. The channel's subscription, and so the operation watched, goes on.
import type { ServerResponse } from 'node:http';
import { asyncScheduler, Subscription, type SchedulerLike } from 'rxjs';
import { scheduleEvery } from '../rx/long-timer.js';
import { InvalidOptionError } from '../errors/input.js';
import type { ChannelViewer, EventChannel, ViewerStart } from './event-channel.js';

export const DEFAULT_HEARTBEAT_MS = 15_000;
export const DEFAULT_RETRY_MS = 2_000;
export const DEFAULT_MAX_BLOCKED_MS = 60_000;

export interface EventStreamOptions {
  /** Where to resume; default: the request's `Last-Event-ID` header (pass a query parameter's value here if you use one). */
  readonly lastEventId?: string;
  /** Interval of the heartbeat comment. Default 15000. */
  readonly heartbeatMs?: number;
  /** Sent as the `retry` field: how long the browser waits before reconnecting. Default 2000. */
  readonly retryMs?: number;
  /** A viewer whose socket has accepted nothing for this long is dropped. Default 60000. */
  readonly maxBlockedMs?: number;
  /** Clock and timers (tests inject a virtual-time scheduler). */
  readonly scheduler?: SchedulerLike;
}

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  // Reverse proxies (nginx) must not buffer the stream.
  'X-Accel-Buffering': 'no',
} as const;

const HEARTBEAT = ': heartbeat\n\n';

type EndReason = 'finished' | 'owner-closed' | 'unsubscribed' | 'client-closed' | 'dropped';

/**
 * Streams `channel` to `response` until the stream ends, the client goes away, or the
 * returned Subscription is unsubscribed (which ends this response only).
 */
export function toEventStream<T>(channel: EventChannel<T>, response: ServerResponse, options: EventStreamOptions = {}): Subscription {
  const scheduler = options.scheduler ?? asyncScheduler;
  const heartbeatMs = positiveMs('heartbeatMs', options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  const retryMs = positiveMs('retryMs', options.retryMs ?? DEFAULT_RETRY_MS);
  const maxBlockedMs = positiveMs('maxBlockedMs', options.maxBlockedMs ?? DEFAULT_MAX_BLOCKED_MS);
  const lastEventId = options.lastEventId ?? headerValue(response.req?.headers['last-event-id']);

  if (response.writableEnded || response.destroyed) return Subscription.EMPTY;
  const start = channel.startFor(lastEventId);
  if (start.kind === 'finished') {
    // 204 tells EventSource to stop reconnecting: this viewer has seen the end.
    response.writeHead(204).end();
    return Subscription.EMPTY;
  }

  let cursor = 0;
  let blocked = false;
  let blockedSince = 0;
  let done = false;

  const write = (text: string): boolean => {
    if (response.write(text)) return true;
    blocked = true;
    blockedSince = scheduler.now();
    response.once('drain', onDrain);
    return false;
  };

  const begin = (from: ViewerStart): boolean => {
    if (from.kind === 'finished') return true;
    cursor = from.from;
    return from.kind === 'resume' ? true : write(from.frame.text);
  };

  const pump = (): void => {
    if (done || blocked) return;
    while (cursor < channel.end) {
      const frame = channel.frameAt(cursor);
      if (frame === undefined) {
        // The viewer's position has left the shared buffer while it was blocked.
        if (!begin(channel.restartAfterLag(cursor))) return flush();
        continue;
      }
      cursor += 1;
      if (!write(frame.text)) return flush();
    }
    flush();
    if (channel.finished && cursor >= channel.end) end('finished');
  };

  const flush = (): void => {
    // Compression middleware buffers until flushed; a plain ServerResponse has no flush().
    (response as { flush?: () => void }).flush?.();
  };

  function onDrain(): void {
    blocked = false;
    pump();
  }

  const onClose = (): void => end('client-closed');

  const viewer: ChannelViewer = { wake: pump, shutdown: () => end('owner-closed') };

  const heartbeat = scheduleEvery(scheduler, heartbeatMs, () => {
    if (done) return;
    if (blocked) {
      if (scheduler.now() - blockedSince >= maxBlockedMs) end('dropped');
    } else {
      write(HEARTBEAT);
      flush();
    }
  });

  function end(reason: EndReason): void {
    if (done) return;
    done = true;
    heartbeat.unsubscribe();
    channel.detach(viewer);
    response.off('close', onClose);
    response.off('drain', onDrain);
    if (reason === 'client-closed') return;
    if (reason === 'dropped') response.destroy();
    else response.end();
  }

  response.writeHead(200, SSE_HEADERS);
  response.on('close', onClose);
  write(`retry: ${retryMs}\n\n`);
  channel.attach(viewer);
  if (!done) {
    if (begin(start)) pump();
    else flush();
  }
  return new Subscription(() => end('unsubscribed'));
}

function positiveMs(option: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new InvalidOptionError(option, `${option} must be a positive number of milliseconds (got ${value})`);
  return value;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}
