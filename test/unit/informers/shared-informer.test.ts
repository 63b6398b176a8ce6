// Unit tests for SharedInformer routing, caching and ref-counting. The reflector stream is
// a Subject driven by the test (a fake source); no API server is involved.
import { Observable, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject, ReflectorEvent } from '../../../src/informers/reflector.js';
import { SharedInformer } from '../../../src/informers/shared-informer.js';

interface Obj extends KubeObject {
  readonly metadata: { readonly name: string; readonly resourceVersion?: string; readonly labels?: Record<string, string> };
}
const obj = (name: string, owner = name, rv = '1'): Obj => ({ metadata: { name, resourceVersion: rv, labels: { owner } } });

function setup() {
  const events = new Subject<ReflectorEvent<Obj>>();
  let starts = 0;
  let stops = 0;
  let idles = 0;
  const source = new Observable<ReflectorEvent<Obj>>((subscriber) => {
    starts += 1;
    const inner = events.subscribe(subscriber);
    return () => {
      stops += 1;
      inner.unsubscribe();
    };
  });
  const informer = new SharedInformer<Obj>(source, { routingKey: (o) => o.metadata.labels?.owner, onIdle: () => (idles += 1) });
  return { events, informer, counts: () => ({ starts, stops, idles }) };
}

function collect(informer: SharedInformer<Obj>, key: string) {
  const seen: (readonly Obj[])[] = [];
  const errors: unknown[] = [];
  const subscription = informer.observe(key).subscribe({ next: (s) => seen.push(s), error: (e) => errors.push(e) });
  return { seen, errors, subscription, names: () => seen.map((objects) => objects.map((o) => o.metadata.name).join(',')) };
}

describe('SharedInformer', () => {
  it('starts one source for many subscribers and stops it when the last one leaves', () => {
    const { informer, counts } = setup();
    const a = collect(informer, 'a');
    const b = collect(informer, 'b');
    expect(counts()).toEqual({ starts: 1, stops: 0, idles: 0 });
    expect(informer.consumers).toBe(2);
    a.subscription.unsubscribe();
    expect(counts().stops).toBe(0);
    b.subscription.unsubscribe();
    expect(counts()).toEqual({ starts: 1, stops: 1, idles: 1 });
    expect(informer.running).toBe(false);
  });

  it('delivers nothing before the first list, then every waiter its own key after it', () => {
    const { events, informer } = setup();
    const a = collect(informer, 'a');
    const b = collect(informer, 'b');
    events.next({ type: 'ADDED', object: obj('a') }); // before sync: cached, not delivered
    expect(a.seen).toHaveLength(0);
    events.next({ type: 'listed', items: [obj('a'), obj('b')], resourceVersion: '5' });
    expect(a.names()).toEqual(['a']);
    expect(b.names()).toEqual(['b']);
  });

  it('routes an event only to the waiters of its key', () => {
    const { events, informer } = setup();
    const a = collect(informer, 'a');
    const b = collect(informer, 'b');
    events.next({ type: 'listed', items: [], resourceVersion: '5' });
    events.next({ type: 'ADDED', object: obj('a', 'a', '6') });
    events.next({ type: 'MODIFIED', object: obj('a', 'a', '7') });
    expect(a.names()).toEqual(['', 'a', 'a']);
    expect(b.names()).toEqual(['']);
  });

  it('groups several objects under one key (pods of one container) and reports deletions', () => {
    const { events, informer } = setup();
    const pods = collect(informer, 'c1');
    events.next({ type: 'listed', items: [obj('p1', 'c1')], resourceVersion: '5' });
    events.next({ type: 'ADDED', object: obj('p2', 'c1', '6') });
    events.next({ type: 'DELETED', object: obj('p1', 'c1', '7') });
    expect(pods.names()).toEqual(['p1', 'p1,p2', 'p2']);
  });

  it('serves a late subscriber from the cache at once (nothing missed between create and subscribe)', () => {
    const { events, informer } = setup();
    const first = collect(informer, 'x');
    events.next({ type: 'listed', items: [], resourceVersion: '5' });
    events.next({ type: 'ADDED', object: obj('late') });
    const late = collect(informer, 'late');
    expect(late.names()).toEqual(['late']);
    first.subscription.unsubscribe();
  });

  it('re-evaluates every waiter after a relist (a change missed while disconnected)', () => {
    const { events, informer } = setup();
    const a = collect(informer, 'a');
    events.next({ type: 'listed', items: [obj('a', 'a', '1')], resourceVersion: '5' });
    events.next({ type: 'listed', items: [obj('a', 'a', '9')], resourceVersion: '90' });
    expect(a.seen.map((objects) => objects[0]?.metadata.resourceVersion)).toEqual(['1', '9']);
    events.next({ type: 'listed', items: [], resourceVersion: '95' });
    expect(a.names().at(-1)).toBe('');
  });

  it('fails every waiter at once on a fatal source error, and releases itself', () => {
    const { events, informer, counts } = setup();
    const a = collect(informer, 'a');
    const b = collect(informer, 'b');
    const fatal = new Error('forbidden');
    events.error(fatal);
    expect(a.errors).toEqual([fatal]);
    expect(b.errors).toEqual([fatal]);
    expect(informer.consumers).toBe(0);
    expect(counts().idles).toBe(1);
  });

  it('tolerates a waiter that unsubscribes while being notified', () => {
    const { events, informer } = setup();
    const seen: string[] = [];
    const subscription = informer.observe('a').subscribe((objects) => {
      seen.push(objects.map((o) => o.metadata.resourceVersion).join(','));
      subscription.unsubscribe();
    });
    const other = collect(informer, 'a');
    events.next({ type: 'listed', items: [obj('a')], resourceVersion: '5' });
    events.next({ type: 'MODIFIED', object: obj('a', 'a', '6') });
    expect(seen).toEqual(['1']);
    expect(other.names()).toEqual(['a', 'a']);
  });

  it('caches and delivers what its transform makes of listed and watched objects', () => {
    const events = new Subject<ReflectorEvent<Obj>>();
    const slim = (o: Obj): Obj => ({ metadata: { name: o.metadata.name, labels: { owner: o.metadata.labels?.owner ?? '' } } });
    const informer = new SharedInformer<Obj>(events, { routingKey: (o) => o.metadata.labels?.owner, transform: slim });
    const a = collect(informer, 'a');
    events.next({ type: 'listed', items: [obj('a1', 'a', '1')], resourceVersion: '1' });
    events.next({ type: 'MODIFIED', object: obj('a1', 'a', '2') });
    events.next({ type: 'ADDED', object: obj('a2', 'a', '3') });
    expect(a.seen).toEqual([[slim(obj('a1', 'a'))], [slim(obj('a1', 'a'))], [slim(obj('a1', 'a')), slim(obj('a2', 'a'))]]);
    events.next({ type: 'DELETED', object: obj('a1', 'a', '4') });
    expect(a.seen.at(-1)).toEqual([slim(obj('a2', 'a'))]);
  });

  it('never changes an array it has delivered (later events replace it)', () => {
    const { events, informer } = setup();
    const pods = collect(informer, 'c1');
    events.next({ type: 'listed', items: [obj('p1', 'c1', '1')], resourceVersion: '5' });
    const first = pods.seen[0];
    events.next({ type: 'ADDED', object: obj('p2', 'c1', '6') });
    events.next({ type: 'MODIFIED', object: obj('p1', 'c1', '7') });
    events.next({ type: 'DELETED', object: obj('p2', 'c1', '8') });
    expect(first).toEqual([obj('p1', 'c1', '1')]);
    expect(pods.seen.map((objects) => objects.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).join(','))).toEqual([
      'p1@1',
      'p1@1,p2@6',
      'p1@7,p2@6',
      'p1@7',
    ]);
  });

  it('hands every waiter of a key the same array for one change, and a new one for the next', () => {
    const { events, informer } = setup();
    const [one, other] = [collect(informer, 'a'), collect(informer, 'a')];
    events.next({ type: 'listed', items: [obj('a')], resourceVersion: '5' });
    events.next({ type: 'MODIFIED', object: obj('a', 'a', '6') });
    expect(one.seen[0]).toBe(other.seen[0]);
    expect(one.seen[1]).toBe(other.seen[1]);
    expect(one.seen[1]).not.toBe(one.seen[0]);
    expect(one.seen[1]).toEqual([obj('a', 'a', '6')]);
  });

  it('answers what it caches under a key now, for a consumer that keeps none of it', () => {
    const { events, informer } = setup();
    const waiter = collect(informer, 'c1');
    events.next({ type: 'listed', items: [obj('p1', 'c1', '1'), obj('p2', 'c1', '1'), obj('x', 'c2', '1')], resourceVersion: '5' });
    events.next({ type: 'DELETED', object: obj('p2', 'c1', '6') });
    expect(informer.cached('c1')).toEqual([obj('p1', 'c1', '1')]);
    expect(informer.cached('c2')).toEqual([obj('x', 'c2', '1')]);
    expect(informer.cached('none')).toEqual([]);
    waiter.subscription.unsubscribe();
    expect(informer.cached('c1')).toEqual([]);
  });

  it('moves an object whose routing key changes, telling the waiters of both keys', () => {
    const { events, informer } = setup();
    const a = collect(informer, 'a');
    const b = collect(informer, 'b');
    events.next({ type: 'listed', items: [obj('x', 'a', '1')], resourceVersion: '5' });
    events.next({ type: 'MODIFIED', object: obj('x', 'b', '2') });
    events.next({ type: 'DELETED', object: obj('x', 'b', '3') });
    expect(a.names()).toEqual(['x', '']);
    expect(b.names()).toEqual(['', 'x', '']);
    // A late subscriber to either key finds nothing left behind.
    expect(collect(informer, 'a').names()).toEqual(['']);
    expect(collect(informer, 'x').names()).toEqual(['']);
  });
});

describe('SharedInformer.observeAll', () => {
  function all(informer: SharedInformer<Obj>) {
    const seen: string[] = [];
    const errors: unknown[] = [];
    const subscription = informer.observeAll().subscribe({
      next: (notice) =>
        seen.push(
          notice.type === 'changed'
            ? `${notice.key}:${notice.objects.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).join(',')}`
            : notice.type === 'disconnected'
              ? `disconnected:${String(notice.error)}:${notice.retryInMs}`
              : notice.type,
        ),
      error: (error) => errors.push(error),
    });
    return { seen, errors, subscription };
  }

  it('reports every key after the list, then each change under its key, and shares the source with keyed waiters', () => {
    const { events, informer, counts } = setup();
    const waiter = collect(informer, 'a');
    const everything = all(informer);
    expect(counts().starts).toBe(1);
    events.next({ type: 'ADDED', object: obj('a1', 'a') }); // before the list: not reported
    events.next({ type: 'listed', items: [obj('a1', 'a', '1'), obj('b1', 'b', '1')], resourceVersion: '5' });
    events.next({ type: 'MODIFIED', object: obj('b1', 'b', '2') });
    events.next({ type: 'ADDED', object: obj('b2', 'b', '3') });
    events.next({ type: 'DELETED', object: obj('a1', 'a', '4') });
    expect(everything.seen).toEqual(['a:a1@1', 'b:b1@1', 'synced', 'b:b1@2', 'b:b1@2,b2@3', 'a:']);
    expect(waiter.names()).toEqual(['a1', '']);
    expect(informer.consumers).toBe(2);
    everything.subscription.unsubscribe();
    waiter.subscription.unsubscribe();
    expect(counts()).toMatchObject({ stops: 1, idles: 1 });
  });

  it('a late consumer gets the cache at once: one change per key, then synced', () => {
    const { events, informer } = setup();
    const first = all(informer);
    events.next({ type: 'listed', items: [obj('a1', 'a', '1'), obj('b1', 'b', '1')], resourceVersion: '5' });
    const late = all(informer);
    expect(late.seen).toEqual(['a:a1@1', 'b:b1@1', 'synced']);
    first.subscription.unsubscribe();
    late.subscription.unsubscribe();
  });

  it('a relist reports keys whose objects went away while disconnected', () => {
    const { events, informer } = setup();
    const everything = all(informer);
    events.next({ type: 'listed', items: [obj('a1', 'a', '1'), obj('b1', 'b', '1')], resourceVersion: '5' });
    events.next({ type: 'listed', items: [obj('b1', 'b', '9')], resourceVersion: '90' });
    expect(everything.seen.slice(3)).toEqual(['a:', 'b:b1@9', 'synced']);
  });

  it('tells the connection state: disconnected on every retry, connected once when the source works again', () => {
    const { events, informer } = setup();
    const everything = all(informer);
    events.next({ type: 'listed', items: [], resourceVersion: '5' });
    informer.reportDisconnected('ECONNREFUSED', 500);
    informer.reportDisconnected('ECONNREFUSED', 1000);
    const late = all(informer);
    informer.reportConnected();
    informer.reportConnected();
    expect(everything.seen).toEqual(['synced', 'disconnected:ECONNREFUSED:500', 'disconnected:ECONNREFUSED:1000', 'connected']);
    expect(late.seen).toEqual(['synced', 'disconnected:ECONNREFUSED:1000', 'connected']);
    // Any event from the source also proves the connection.
    informer.reportDisconnected('reset', 500);
    events.next({ type: 'ADDED', object: obj('x1', 'x', '6') });
    expect(everything.seen.slice(-3)).toEqual(['disconnected:reset:500', 'connected', 'x:x1@6']);
  });

  it('fails consumers of every key on a fatal source error', () => {
    const { events, informer, counts } = setup();
    const everything = all(informer);
    const fatal = new Error('forbidden');
    events.error(fatal);
    expect(everything.errors).toEqual([fatal]);
    expect(informer.consumers).toBe(0);
    expect(counts().idles).toBe(1);
  });

  it('size and keys follow the cache: objects listed, added, moved and deleted, and a waiter without objects', () => {
    const { events, informer } = setup();
    const waiter = collect(informer, 'lonely');
    events.next({ type: 'listed', items: [obj('a1', 'a'), obj('a2', 'a'), obj('b1', 'b')], resourceVersion: '1' });
    // Keys a and b hold objects; `lonely` holds a waiter only.
    expect([informer.size, informer.keys]).toEqual([3, 3]);
    events.next({ type: 'ADDED', object: obj('c1', 'c', '2') });
    events.next({ type: 'MODIFIED', object: obj('b1', 'a', '3') });
    expect([informer.size, informer.keys]).toEqual([4, 3]);
    events.next({ type: 'DELETED', object: obj('c1', 'c', '4') });
    events.next({ type: 'DELETED', object: obj('a1', 'a', '5') });
    expect([informer.size, informer.keys]).toEqual([2, 2]);
    waiter.subscription.unsubscribe();
    // The last consumer left: the informer stops and holds nothing.
    expect([informer.size, informer.keys]).toEqual([0, 0]);
  });
});
