// Unit tests of EventChannel and toEventStream with a fake http.ServerResponse
// (test/support/fake-response.ts) and virtual time (rxjs VirtualTimeScheduler): framing,
// replay after Last-Event-ID, backpressure and its bound, heartbeats, cleanup.
import { Observable, Subject, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ApiUnreachableError } from '../../src/errors/api.js';
import { InvalidOptionError } from '../../src/errors/input.js';
import { EventChannel } from '../../src/sse/event-channel.js';
import { toEventStream } from '../../src/sse/to-event-stream.js';
import { FakeResponse } from '../support/fake-response.js';

interface Sample {
  readonly type: string;
  readonly n: number;
  readonly text?: string;
}

function setup(options: { replay?: number; snapshot?: () => unknown } = {}) {
  const source = new Subject<Sample>();
  let subscriptions = 0;
  let teardowns = 0;
  const counted$ = new Observable<Sample>((subscriber) => {
    subscriptions += 1;
    const inner = source.subscribe(subscriber);
    return () => {
      teardowns += 1;
      inner.unsubscribe();
    };
  });
  const channel = new EventChannel<Sample>(counted$, options);
  const clock = new VirtualTimeScheduler();
  const emit = (from: number, to: number) => {
    for (let n = from; n <= to; n += 1) source.next({ type: 'progress', n });
  };
  const advanceTo = (ms: number) => {
    clock.maxFrames = ms;
    clock.flush();
  };
  const view = (headers: Record<string, string> = {}, heartbeatMs = 15_000) => {
    const response = new FakeResponse(headers);
    const subscription = toEventStream(channel, response.asResponse(), { scheduler: clock, heartbeatMs });
    return { response, subscription };
  };
  return {
    source,
    channel,
    clock,
    emit,
    advanceTo,
    view,
    counts: () => ({ subscriptions, teardowns }),
  };
}

const numbers = (response: FakeResponse) =>
  response.events.filter((event) => event.event === 'progress').map((event) => (JSON.parse(event.data!) as Sample).n);

describe('toEventStream: framing', () => {
  it('writes SSE headers, a retry hint, then id/event/data frames with one line of JSON each', () => {
    const t = setup();
    const { response } = t.view();
    expect(response.statusCode).toBe(200);
    expect(response.headers['Content-Type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['Cache-Control']).toContain('no-cache');
    expect(response.chunks[0]).toBe('retry: 2000\n\n');

    t.source.next({ type: 'progress', n: 1, text: 'two\nlines\r\nand a\rcarriage return, U+2028:\u2028.' });
    const frame = response.chunks[1]!;
    const lines = frame.split('\n');
    expect(lines).toHaveLength(5); // id, event, data, blank, '' after the final \n
    expect(lines[0]).toBe(`id: ${t.channel.epoch}.1`);
    expect(lines[1]).toBe('event: progress');
    expect(lines[2]).toMatch(/^data: \{/);
    expect(frame).not.toMatch(/\r/);
    expect(JSON.parse(lines[2]!.slice('data: '.length))).toEqual({
      type: 'progress',
      n: 1,
      text: 'two\nlines\r\nand a\rcarriage return, U+2028:\u2028.',
    });
  });

  it('turns an event type that could break a frame into a safe event name', () => {
    const source = new Subject<{ type: string }>();
    const channel = new EventChannel(source);
    const response = new FakeResponse();
    toEventStream(channel, response.asResponse(), { scheduler: new VirtualTimeScheduler() });
    source.next({ type: 'evil\n\ndata: injected' });
    source.next({ type: 42 } as unknown as { type: string });
    expect(response.events.map((event) => event.event)).toEqual(['evil__data:_injected', 'message']);
  });

  it('sends the end of the stream as its own event and ends the response; a reconnect after it gets 204', () => {
    const t = setup();
    const { response } = t.view();
    t.emit(1, 2);
    t.source.complete();
    expect(response.events.map((event) => event.event)).toEqual(['progress', 'progress', 'stream-end']);
    expect(response.events.at(-1)!.data).toBe('{}');
    expect(response.writableEnded).toBe(true);
    expect(t.channel.viewerCount).toBe(0);

    const again = t.view({ 'last-event-id': response.events.at(-1)!.id! }).response;
    expect(again.statusCode).toBe(204);
    expect(again.writableEnded).toBe(true);

    const late = t.view().response; // a viewer arriving after the end still sees everything
    expect(late.events.map((event) => event.event)).toEqual(['progress', 'progress', 'stream-end']);
  });

  it('sends an error as {name, message}: no stack, no cause, credentials masked', () => {
    const t = setup();
    const { response } = t.view();
    const error = new ApiUnreachableError('https://10.0.0.1:6443', 'connect ECONNREFUSED', {
      cause: new Error('token=abc123 secret stuff'),
    });
    t.source.error(error);
    const last = response.events.at(-1)!;
    expect(last.event).toBe('stream-error');
    expect(JSON.parse(last.data!)).toEqual({ name: 'ApiUnreachableError', message: error.message });
    expect(last.data).not.toContain('abc123');
    expect(last.data).not.toContain('stack');
    expect(response.writableEnded).toBe(true);

    const foreign = setup();
    const viewer = foreign.view().response;
    foreign.source.error(new Error('GET https://admin:hunter2@host/api with Authorization: Bearer eyJhbGciOi.x.y failed'));
    const data = JSON.parse(viewer.events.at(-1)!.data!) as { name: string; message: string };
    expect(data.name).toBe('Error');
    expect(data.message).not.toMatch(/hunter2|eyJhbGciOi/);
    expect(data.message).toContain('***');

    // The name is masked too: a foreign error's name is whatever its thrower made it.
    const named = setup();
    const namedViewer = named.view().response;
    const odd = new Error('plugin failed');
    odd.name = 'token=abc123secret';
    named.source.error(odd);
    expect(namedViewer.events.at(-1)!.data).not.toContain('abc123secret');
  });
});

describe('toEventStream: Last-Event-ID', () => {
  it('a reconnecting viewer gets exactly the events it missed', () => {
    const t = setup();
    const first = t.view();
    t.emit(1, 3);
    const lastSeen = first.response.events.at(-1)!.id!;
    first.response.disconnect();
    t.emit(4, 6);
    const second = t.view({ 'last-event-id': lastSeen });
    expect(numbers(second.response)).toEqual([4, 5, 6]);
    t.emit(7, 7);
    expect(numbers(second.response)).toEqual([4, 5, 6, 7]);
  });

  it('an ID older than the buffer gets a gap event with the number missed, then the buffer', () => {
    const t = setup({ replay: 3 });
    const first = t.view();
    t.emit(1, 2);
    const lastSeen = first.response.events.at(-1)!.id!;
    first.response.disconnect();
    t.emit(3, 10);
    const second = t.view({ 'last-event-id': lastSeen });
    expect(second.response.events[0]).toMatchObject({ event: 'gap', data: JSON.stringify({ missed: 5 }) });
    expect(numbers(second.response)).toEqual([8, 9, 10]);
  });

  it('an ID of another channel (a restarted server) is never taken as a position here', () => {
    const t = setup();
    t.emit(1, 2);
    const viewer = t.view({ 'last-event-id': 'otherEpoch.1' });
    expect(viewer.response.events[0]).toMatchObject({ event: 'gap', data: JSON.stringify({ missed: null }) });
    expect(numbers(viewer.response)).toEqual([1, 2]);
  });

  it('with a snapshot, a new viewer and one that cannot be resumed get the current state instead', () => {
    let state = 0;
    const t = setup({ replay: 2, snapshot: () => ({ state }) });
    const fresh = t.view();
    expect(fresh.response.events).toEqual([{ id: `${t.channel.epoch}.0`, event: 'snapshot', data: '{"state":0}' }]);
    for (let n = 1; n <= 5; n += 1) {
      state = n;
      t.source.next({ type: 'progress', n });
    }
    const stale = t.view({ 'last-event-id': `${t.channel.epoch}.1` });
    expect(stale.response.events).toEqual([{ id: `${t.channel.epoch}.5`, event: 'snapshot', data: '{"state":5}' }]);
    const resumable = t.view({ 'last-event-id': `${t.channel.epoch}.4` });
    expect(numbers(resumable.response)).toEqual([5]);
  });
});

describe('toEventStream: backpressure', () => {
  it('writes nothing while the socket is full, then catches up from the shared buffer on drain', () => {
    const t = setup({ replay: 100 });
    const { response } = t.view();
    t.emit(1, 1);
    response.accepting = false;
    t.emit(2, 2); // accepted by the socket, which now reports it is full
    const writesWhenFull = response.writes;
    t.emit(3, 50);
    expect(response.writes).toBe(writesWhenFull); // nothing queued per viewer
    response.drain();
    expect(numbers(response)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('bound: a viewer more than `replay` events behind is resynchronized, never buffered', () => {
    const t = setup({ replay: 100 });
    const { response } = t.view();
    response.accepting = false;
    t.emit(1, 1);
    t.emit(2, 10_000);
    expect(response.writes).toBe(2); // the retry hint and event 1: nothing for the 9,999 others
    response.drain();
    const events = response.events;
    expect(events[1]).toMatchObject({ event: 'gap', data: JSON.stringify({ missed: 9_899 }) });
    expect(numbers(response)).toEqual([1, ...Array.from({ length: 100 }, (_, i) => 9_901 + i)]);
  });

  it('with a snapshot, a viewer that fell out of the buffer gets the current state and goes on live', () => {
    let state = 0;
    const t = setup({ replay: 10, snapshot: () => ({ state }) });
    const { response } = t.view();
    response.accepting = false;
    t.emit(1, 1); // the snapshot was written first; this fills the socket
    for (let n = 2; n <= 500; n += 1) {
      state = n;
      t.source.next({ type: 'progress', n });
    }
    response.drain();
    t.emit(501, 501);
    const names = response.events.map((event) => event.event);
    expect(names).toEqual(['snapshot', 'progress', 'snapshot', 'progress']);
    expect(response.events[2]!.data).toBe('{"state":500}');
    expect(numbers(response)).toEqual([1, 501]);
  });

  it('drops a viewer whose socket accepts nothing for maxBlockedMs, leaving no timer behind', () => {
    const t = setup();
    const response = new FakeResponse();
    toEventStream(t.channel, response.asResponse(), { scheduler: t.clock, heartbeatMs: 1_000, maxBlockedMs: 5_000 });
    response.accepting = false;
    t.emit(1, 1);
    t.advanceTo(4_000);
    expect(response.destroyed).toBe(false);
    t.advanceTo(5_000);
    expect(response.destroyed).toBe(true);
    expect(t.channel.viewerCount).toBe(0);
    expect(t.clock.actions).toHaveLength(0);
    expect(t.counts()).toEqual({ subscriptions: 1, teardowns: 0 });
  });
});

describe('toEventStream: heartbeat (virtual clock)', () => {
  it('writes a heartbeat comment every heartbeatMs, none while the socket is full', () => {
    const t = setup();
    const { response } = t.view({}, 15_000);
    t.advanceTo(14_999);
    expect(response.heartbeats).toBe(0);
    t.advanceTo(15_000);
    expect(response.heartbeats).toBe(1);
    t.advanceTo(45_000);
    expect(response.heartbeats).toBe(3);
    response.accepting = false;
    t.emit(1, 1);
    t.advanceTo(59_999);
    expect(response.heartbeats).toBe(3);
    response.drain();
    t.advanceTo(60_000);
    expect(response.heartbeats).toBe(4);
  });
});

describe('toEventStream: viewers and the watched operation', () => {
  it('a closed connection detaches that viewer only: the source stays subscribed and no timer is left', () => {
    const t = setup();
    const a = t.view();
    const b = t.view();
    t.emit(1, 1);
    a.response.disconnect();
    expect(t.channel.viewerCount).toBe(1);
    t.emit(2, 2);
    expect(numbers(a.response)).toEqual([1]);
    expect(numbers(b.response)).toEqual([1, 2]);
    b.response.disconnect();
    expect(t.channel.viewerCount).toBe(0);
    expect(t.clock.actions).toHaveLength(0);
    expect(t.counts()).toEqual({ subscriptions: 1, teardowns: 0 });
    expect(t.channel.subscribed).toBe(true);
  });

  it('unsubscribing the returned Subscription ends that response only', () => {
    const t = setup();
    const a = t.view();
    const b = t.view();
    a.subscription.unsubscribe();
    expect(a.response.writableEnded).toBe(true);
    expect(b.response.writableEnded).toBe(false);
    expect(t.channel.viewerCount).toBe(1);
    expect(t.counts().teardowns).toBe(0);
  });

  it('a thousand viewers share one subscription, each gets every event, and leaving does not end it', () => {
    const t = setup();
    const viewers = Array.from({ length: 1000 }, () => t.view());
    t.emit(1, 3);
    expect(t.counts()).toEqual({ subscriptions: 1, teardowns: 0 });
    expect(viewers.every((viewer) => numbers(viewer.response).join() === '1,2,3')).toBe(true);
    for (const viewer of viewers) viewer.response.disconnect();
    expect(t.channel.viewerCount).toBe(0);
    expect(t.clock.actions).toHaveLength(0);
    expect(t.counts()).toEqual({ subscriptions: 1, teardowns: 0 });
  });

  it("the channel's owner ends it: close() unsubscribes the source and ends every response", () => {
    const t = setup();
    const a = t.view();
    t.channel.close();
    expect(t.counts()).toEqual({ subscriptions: 1, teardowns: 1 });
    expect(a.response.writableEnded).toBe(true);
    expect(t.clock.actions).toHaveLength(0);
    const late = t.view();
    expect(late.response.writableEnded).toBe(true);
  });

  it('rejects options outside their rule with an error naming the option', () => {
    const source = new Subject<Sample>();
    expect(() => new EventChannel(source, { replay: 0 })).toThrow(InvalidOptionError);
    expect(() => new EventChannel(source, { replay: 1.5 })).toThrow(/replay/);
    const channel = new EventChannel(source);
    expect(() => toEventStream(channel, new FakeResponse().asResponse(), { heartbeatMs: -1 })).toThrow(/heartbeatMs/);
  });
});
