// Unit tests of LiveHub with a fake backend (Subjects as statuses$ and operations), the fake
// client and virtual time: what a page receives, the bounds, and who ends what.
import { Observable, Subject, VirtualTimeScheduler, throwError } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, InvalidSpecError } from '../../../src/errors/input.js';
import { RolloutFailedError } from '../../../src/errors/rollout.js';
import type { OperationEvent, UiBackend, WorkloadStatusEvent } from '../../../src/ui/backend.js';
import { LiveHub, STATUSES_RETRY_MS, type HubSnapshot } from '../../../src/ui/live-hub.js';
import { toEventStream } from '../../../src/sse/to-event-stream.js';
import { FakeKubernetes } from '../../support/fake-kube.js';
import { FakeResponse } from '../../support/fake-response.js';

const NS = 'team-a';

function status(name: string, state: WorkloadStatusEvent['status']['state']): WorkloadStatusEvent {
  return {
    type: 'status',
    at: '2026-01-01T00:00:00.000Z',
    namespace: NS,
    name,
    providerId: `${NS}/${name}`,
    containerId: '1',
    nodeId: '2',
    status: { state, reason: 'r', message: 'm', podIp: null, nodeName: null, restarts: 0, image: null, generation: 1 },
  };
}

function event(type: string, name = 'web'): OperationEvent {
  return { type, at: '2026-01-01T00:00:00.000Z', namespace: NS, name, providerId: `${NS}/${name}` };
}

function setup(backend: Partial<UiBackend> = {}, options: { keepFinishedOperations?: number; eventsPerOperation?: number } = {}) {
  const statuses = new Subject<WorkloadStatusEvent>();
  const clock = new VirtualTimeScheduler();
  const hub = new LiveHub({
    api: new FakeKubernetes(),
    namespace: NS,
    backend: { statuses$: () => statuses, ...backend },
    scheduler: clock,
    ...options,
  });
  const view = (headers: Record<string, string> = {}) => {
    const response = new FakeResponse(headers);
    toEventStream(hub.channel, response.asResponse(), { scheduler: clock });
    return response;
  };
  return { statuses, clock, hub, view };
}

/** An operation whose subscriptions are counted. */
function counted() {
  const subject = new Subject<OperationEvent>();
  const counts = { subscribed: 0, unsubscribed: 0 };
  const events$ = new Observable<OperationEvent>((subscriber) => {
    counts.subscribed += 1;
    const inner = subject.subscribe(subscriber);
    return () => {
      counts.unsubscribed += 1;
      inner.unsubscribe();
    };
  });
  return { subject, counts, events$ };
}

describe('LiveHub', () => {
  it('a new page gets a snapshot of statuses and operations, then each change as its own event', () => {
    const { statuses, hub, view } = setup();
    statuses.next(status('web', 'creating'));
    const op = counted();
    const operation = hub.run('provision', `${NS}/web`, op.events$);
    op.subject.next(event('created'));

    const page = view();
    const snapshot = JSON.parse(page.events[0]!.data!) as HubSnapshot;
    expect(page.events[0]!.event).toBe('snapshot');
    expect(snapshot.statuses.map((s) => s.status.state)).toEqual(['creating']);
    expect(snapshot.operations).toMatchObject([{ id: operation.id, kind: 'provision', state: 'running', events: [{ type: 'created' }] }]);
    expect(snapshot.actions).toEqual([]);

    statuses.next(status('web', 'running'));
    op.subject.next(event('ready'));
    op.subject.complete();
    expect(page.events.slice(1).map((e) => e.event)).toEqual(['status', 'operation-event', 'operation-ended']);
    expect(JSON.parse(page.events.at(-1)!.data!)).toMatchObject({ operationId: operation.id, state: 'succeeded' });
  });

  it('a deleted workload leaves the snapshot (missing is sent once, then forgotten)', () => {
    const { statuses, hub } = setup();
    statuses.next(status('web', 'running'));
    statuses.next(status('web', 'missing'));
    expect(hub.snapshot().statuses).toEqual([]);
    expect(hub.status(`${NS}/web`)).toBeUndefined();
  });

  it('runs an operation once, however many pages and callers watch it; a page leaving ends nothing', () => {
    const { hub, view } = setup();
    const op = counted();
    const operation = hub.run('provision', `${NS}/web`, op.events$);
    const pages = Array.from({ length: 50 }, () => view());
    const seen: string[] = [];
    operation.events$.subscribe((e) => seen.push(e.type));
    op.subject.next(event('created'));
    for (const page of pages) page.disconnect();
    expect(hub.channel.viewerCount).toBe(0);
    op.subject.next(event('ready'));
    op.subject.complete();
    expect(op.counts).toEqual({ subscribed: 1, unsubscribed: 1 }); // unsubscribed by completing, not by a page
    expect(seen).toEqual(['created', 'ready']);
    // A caller arriving late still gets the events from the start.
    const late: string[] = [];
    operation.events$.subscribe((e) => late.push(e.type));
    expect(late).toEqual(['created', 'ready']);
  });

  it('an operation’s error reaches pages as {name, message} only', () => {
    const { hub } = setup();
    const failure = new RolloutFailedError({ namespace: NS, name: 'web' }, 'ErrImagePull', 'image not found', {
      pod: 'web-1',
      cause: new Error('token=secret'),
    });
    const operation = hub.run(
      'provision',
      `${NS}/web`,
      throwError(() => failure),
    );
    const [summary] = hub.snapshot().operations;
    expect(summary).toMatchObject({ id: operation.id, state: 'failed', error: { name: 'RolloutFailedError', message: failure.message } });
    expect(Object.keys(summary!.error!)).toEqual(['name', 'message']);
  });

  it('bounds: events kept per operation, and finished operations kept', () => {
    const { hub } = setup({}, { eventsPerOperation: 3, keepFinishedOperations: 2 });
    const op = counted();
    const first = hub.run('provision', `${NS}/web`, op.events$);
    for (let i = 0; i < 10; i += 1) op.subject.next(event(`e${i}`));
    expect(hub.snapshot().operations[0]).toMatchObject({ omitted: 7, events: [{ type: 'e7' }, { type: 'e8' }, { type: 'e9' }] });
    op.subject.complete();
    const others = [1, 2, 3].map(() => counted());
    const ids = others.map((other, index) => hub.run('start', `${NS}/web-${index}`, other.events$).id);
    for (const other of others) other.subject.complete();
    expect(hub.snapshot().operations.map((o) => o.id)).toEqual(ids.slice(1));
    expect(hub.snapshot().operations.map((o) => o.id)).not.toContain(first.id);
  });

  it('actions come from the backend: a missing one is refused by name; a bad spec or provider ID before anything runs', () => {
    const start = counted();
    const { hub } = setup({ start$: () => start.events$ });
    expect(hub.snapshot().actions).toEqual(['start']);
    expect(hub.snapshot().canProvision).toBe(false);
    expect(() => hub.act('stop', `${NS}/web`)).toThrow(InvalidOptionError);
    expect(() => hub.act('stop', `${NS}/web`)).toThrow(/stop\$/);
    expect(() => hub.act('start', 'not a provider id')).toThrow(InvalidSpecError);
    expect(() => hub.provision({ hostname: 'web' })).toThrow(/provision\$/);
    expect(start.counts.subscribed).toBe(0);
    hub.act('start', `${NS}/web`);
    expect(start.counts.subscribed).toBe(1);

    const provisions = counted();
    const withProvision = setup({ provision$: () => provisions.events$ }).hub;
    expect(() => withProvision.provision({ hostname: 'Bad_Name' })).toThrow(InvalidSpecError);
    expect(provisions.counts.subscribed).toBe(0);
    expect(withProvision.snapshot().operations).toEqual([]);
  });

  it('a failed status feed is reported to pages and resubscribed after a delay (virtual time)', () => {
    let attempts = 0;
    const statuses = new Subject<WorkloadStatusEvent>();
    const { hub, clock, view } = setup({
      statuses$: () => {
        attempts += 1;
        return attempts === 1 ? throwError(() => new Error('watch failed')) : statuses;
      },
    });
    const page = view();
    expect(attempts).toBe(1);
    clock.maxFrames = STATUSES_RETRY_MS - 1;
    clock.flush();
    expect(attempts).toBe(1);
    clock.maxFrames = STATUSES_RETRY_MS;
    clock.flush();
    expect(attempts).toBe(2);
    statuses.next(status('web', 'running'));
    expect(hub.status(`${NS}/web`)?.status.state).toBe('running');
    expect(page.events.map((e) => e.event)).toEqual(['snapshot', 'status']);
    // The error came before this page connected: it is in the channel, not in the snapshot.
    expect(hub.channel.lastEventId).toMatch(/\.2$/);
  });

  it('close() ends the status feed, the operations still running and every page', () => {
    const statusCounts = { subscribed: 0, unsubscribed: 0 };
    const statuses$ = new Observable<WorkloadStatusEvent>(() => {
      statusCounts.subscribed += 1;
      return () => (statusCounts.unsubscribed += 1);
    });
    const { hub, view } = setup({ statuses$: () => statuses$ });
    const op = counted();
    hub.run('provision', `${NS}/web`, op.events$);
    const page = view();
    hub.close();
    expect(statusCounts).toEqual({ subscribed: 1, unsubscribed: 1 });
    expect(op.counts).toEqual({ subscribed: 1, unsubscribed: 1 });
    expect(page.writableEnded).toBe(true);
    expect(() => hub.run('provision', `${NS}/web`, op.events$)).toThrow(InvalidOptionError);
  });
});
