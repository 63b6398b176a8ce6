// Marble tests (TestScheduler, virtual time) for the informer source: list+watch and
// streaming lists, resume, relist on 410, backoff, watchdog and fatal errors. The ListWatchSource is a scripted fake
// whose list$ and watch$ answers are cold marbles; no API server is involved.
import { defer, map, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import {
  ApiUnreachableError,
  ForbiddenError,
  InvalidObjectError,
  ResourceExpiredError,
  TooManyRequestsError,
  WatchInactiveError,
} from '../../../src/errors/api.js';
import type { ObjectList } from '../../../src/kube/client.js';
import type { ListWatchSource, WatchEvent, WatchRequest } from '../../../src/informers/list-watch-source.js';
import { INITIAL_EVENTS_END_ANNOTATION, reflect, type KubeObject, type ReflectorEvent } from '../../../src/informers/reflector.js';

type Obj = KubeObject;
const obj = (name: string, rv: string): Obj => ({ metadata: { name, resourceVersion: rv } });

function scriptedSource(lists: Observable<ObjectList<Obj>>[], watches: Observable<WatchEvent<Obj>>[]) {
  const watchRequests: WatchRequest[] = [];
  let listCalls = 0;
  const source: ListWatchSource<Obj> = {
    resource: 'deployments',
    namespace: 'default',
    list$: () => {
      const next = lists[listCalls++];
      if (!next) throw new Error('unexpected list');
      return next;
    },
    watch$: (request) => {
      watchRequests.push(request);
      const next = watches[watchRequests.length - 1];
      if (!next) throw new Error('unexpected watch');
      return next;
    },
  };
  return { source, watchRequests, listCalls: () => listCalls };
}

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const summarize = (event: ReflectorEvent<Obj>): string =>
  event.type === 'listed' ? `listed@${event.resourceVersion}:${event.items.length}` : `${event.type}:${event.object.metadata?.name}`;
const mapSummary = map(summarize);
const noJitter = { random: () => 0, watchTimeoutSeconds: () => 300 };
/** The classic start: a paginated list, then a watch from its resourceVersion. */
const listThenWatch = { ...noJitter, initialState: 'list' as const };
const endOfInitialEvents = (rv: string): Obj => ({
  metadata: { resourceVersion: rv, annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } },
});
const forbidden = new ForbiddenError({ verb: 'watch', resource: 'deployments', namespace: 'default' });
const networkDown = () => new ApiUnreachableError('https://x', 'ECONNRESET');

describe('reflect (marble)', () => {
  it('lists, then watches from the list resourceVersion, asking for bookmarks and a server timeout', () => {
    const scheduler = newScheduler();
    let script!: ReturnType<typeof scriptedSource>;
    scheduler.run(({ cold, expectObservable }) => {
      script = scriptedSource(
        [cold('-(l|)', { l: { items: [obj('a', '5')], resourceVersion: '10' } })],
        [cold('--m-', { m: { type: 'MODIFIED', object: obj('a', '11') } })],
      );
      const events = reflect(script.source, { ...listThenWatch, scheduler, inactivityMs: 60_000 });
      expectObservable(events.pipe(mapSummary), '^------!').toBe('-l-m', { l: 'listed@10:1', m: 'MODIFIED:a' });
    });
    expect(script.watchRequests).toEqual([{ resourceVersion: '10', timeoutSeconds: 300, allowWatchBookmarks: true }]);
  });

  it('resumes from the last resourceVersion (bookmarks included) after a clean close, without relisting', () => {
    const scheduler = newScheduler();
    let script!: ReturnType<typeof scriptedSource>;
    scheduler.run(({ cold, expectObservable }) => {
      script = scriptedSource(
        [cold('(l|)', { l: { items: [], resourceVersion: '10' } })],
        [
          cold('-a-b 2s |', { a: { type: 'ADDED', object: obj('a', '11') }, b: { type: 'BOOKMARK', object: obj('', '15') } }),
          cold('-m', { m: { type: 'MODIFIED', object: obj('a', '16') } }),
        ],
      );
      const events = reflect(script.source, { ...listThenWatch, scheduler, inactivityMs: 60_000 });
      expectObservable(events.pipe(mapSummary), '^ 3s !').toBe('la 2003ms m', { l: 'listed@10:0', a: 'ADDED:a', m: 'MODIFIED:a' });
    });
    expect(script.listCalls()).toBe(1);
    expect(script.watchRequests.map((request) => request.resourceVersion)).toEqual(['10', '15']);
  });

  it('relists at once on 410 Gone and watches from the new list', () => {
    const scheduler = newScheduler();
    let script!: ReturnType<typeof scriptedSource>;
    scheduler.run(({ cold, expectObservable }) => {
      script = scriptedSource(
        [
          cold('(l|)', { l: { items: [obj('a', '5')], resourceVersion: '10' } }),
          cold('-(l|)', { l: { items: [], resourceVersion: '90' } }),
        ],
        [cold('--#', undefined, new ResourceExpiredError()), cold('-')],
      );
      expectObservable(reflect(script.source, { ...listThenWatch, scheduler }).pipe(mapSummary), '^----!').toBe('l--r', {
        l: 'listed@10:1',
        r: 'listed@90:0',
      });
    });
    expect(script.watchRequests.map((request) => request.resourceVersion)).toEqual(['10', '90']);
  });

  it('retries transient failures with exponential backoff, reset after progress', () => {
    const scheduler = newScheduler();
    let script!: ReturnType<typeof scriptedSource>;
    scheduler.run(({ cold, expectObservable }) => {
      script = scriptedSource(
        [cold('(l|)', { l: { items: [], resourceVersion: '10' } })],
        [
          cold('#', undefined, networkDown()), // fails at 0 -> retry after 500 ms
          cold('#', undefined, networkDown()), // fails at 500 -> retry after 1000 ms
          cold('-a#', { a: { type: 'ADDED', object: obj('a', '11') } }, networkDown()), // progress, then fails: back to 500 ms
          cold('-'),
        ],
      );
      expectObservable(reflect(script.source, { ...listThenWatch, scheduler }).pipe(mapSummary), '^ 3s !').toBe('l 1500ms a', {
        l: 'listed@10:0',
        a: 'ADDED:a',
      });
    });
    expect(script.watchRequests.map((request) => request.resourceVersion)).toEqual(['10', '10', '10', '11']);
  });

  it('waits at least Retry-After on 429', () => {
    const scheduler = newScheduler();
    let script!: ReturnType<typeof scriptedSource>;
    let retries: number[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      script = scriptedSource(
        [cold('(l|)', { l: { items: [], resourceVersion: '10' } })],
        [cold('#', undefined, new TooManyRequestsError(7000)), cold('-a', { a: { type: 'ADDED', object: obj('a', '11') } })],
      );
      retries = [];
      const events = reflect(script.source, { ...listThenWatch, scheduler, onRetry: (_error, delay) => retries.push(delay) });
      expectObservable(events.pipe(mapSummary), '^ 8s !').toBe('l 7000ms a', { l: 'listed@10:0', a: 'ADDED:a' });
    });
    expect(retries).toEqual([7000]);
  });

  it('cuts a silent watch with the watchdog and reconnects', () => {
    const scheduler = newScheduler();
    let script!: ReturnType<typeof scriptedSource>;
    const errors: unknown[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      script = scriptedSource(
        [cold('(l|)', { l: { items: [], resourceVersion: '10' } })],
        [cold('-'), cold('-a', { a: { type: 'ADDED', object: obj('a', '11') } })],
      );
      const events = reflect(script.source, { ...listThenWatch, scheduler, inactivityMs: 4000, onRetry: (error) => errors.push(error) });
      // silent from 0; checks every 1000 ms; declared dead at 4000; retry after 500; event 1 ms later
      expectObservable(events.pipe(mapSummary), '^ 5s !').toBe('l 4500ms a', { l: 'listed@10:0', a: 'ADDED:a' });
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(WatchInactiveError);
  });

  it('ends with the error on a fatal failure (403 on watch), without retrying', () => {
    const scheduler = newScheduler();
    let script!: ReturnType<typeof scriptedSource>;
    scheduler.run(({ cold, expectObservable }) => {
      script = scriptedSource([cold('(l|)', { l: { items: [], resourceVersion: '10' } })], [cold('--#', undefined, forbidden)]);
      expectObservable(reflect(script.source, { ...listThenWatch, scheduler }).pipe(mapSummary)).toBe(
        'l-#',
        { l: 'listed@10:0' },
        forbidden,
      );
    });
    expect(script.watchRequests).toHaveLength(1);
  });

  it('treats a watch that closes at once with nothing delivered as a failure (no hot loop)', () => {
    const scheduler = newScheduler();
    let script!: ReturnType<typeof scriptedSource>;
    scheduler.run(({ cold, expectObservable }) => {
      script = scriptedSource(
        [cold('(l|)', { l: { items: [], resourceVersion: '10' } })],
        [cold('|'), cold('|'), cold('-a', { a: { type: 'ADDED', object: obj('a', '11') } })],
      );
      expectObservable(reflect(script.source, { ...listThenWatch, scheduler }).pipe(mapSummary), '^ 2s !').toBe('l 1500ms a', {
        l: 'listed@10:0',
        a: 'ADDED:a',
      });
    });
    expect(script.watchRequests).toHaveLength(3);
  });

  describe('streaming lists (the default)', () => {
    const added = (name: string, rv: string) => ({ type: 'ADDED' as const, object: obj(name, rv) });

    it('gets the current objects on the watch itself and emits them as one listing at the end bookmark', () => {
      const scheduler = newScheduler();
      let script!: ReturnType<typeof scriptedSource>;
      scheduler.run(({ cold, expectObservable }) => {
        script = scriptedSource(
          [],
          [
            cold('-ab-c-e-m', {
              a: added('a', '5'),
              b: added('b', '7'),
              // An ordinary bookmark during the initial events neither ends them nor moves the version.
              c: { type: 'BOOKMARK', object: obj('', '8') },
              e: { type: 'BOOKMARK', object: endOfInitialEvents('12') },
              m: { type: 'MODIFIED', object: obj('a', '13') },
            }),
          ],
        );
        const events = reflect(script.source, { ...noJitter, scheduler, inactivityMs: 60_000 });
        expectObservable(events.pipe(mapSummary), '^--------!').toBe('------l-m', { l: 'listed@12:2', m: 'MODIFIED:a' });
      });
      expect(script.listCalls()).toBe(0);
      expect(script.watchRequests).toEqual([
        { resourceVersion: '', timeoutSeconds: 300, allowWatchBookmarks: true, sendInitialEvents: true },
      ]);
    });

    it('starts over when cut before the end bookmark, and resumes with a plain watch after it', () => {
      const scheduler = newScheduler();
      let script!: ReturnType<typeof scriptedSource>;
      scheduler.run(({ cold, expectObservable }) => {
        script = scriptedSource(
          [],
          [
            cold('-a#', { a: added('a', '5') }, networkDown()), // cut mid-stream: nothing half-listed
            cold('-ae 2s |', { a: added('a', '5'), e: { type: 'BOOKMARK', object: endOfInitialEvents('9') } }),
            cold('-m', { m: { type: 'MODIFIED', object: obj('a', '10') } }),
          ],
        );
        const events = reflect(script.source, { ...noJitter, scheduler, inactivityMs: 60_000 });
        // cut at 2 ms, retried after 500 ms; end bookmark 2 ms later; clean close at 2505; MODIFIED 1 ms after
        expectObservable(events.pipe(mapSummary), '^ 3s !').toBe('504ms l 2001ms m', { l: 'listed@9:1', m: 'MODIFIED:a' });
      });
      expect(script.watchRequests.map((request) => [request.resourceVersion, request.sendInitialEvents ?? false])).toEqual([
        ['', true],
        ['', true],
        ['9', false],
      ]);
    });

    it('falls back to list and watch for good when the server refuses streaming lists (422)', () => {
      const scheduler = newScheduler();
      let script!: ReturnType<typeof scriptedSource>;
      const refused = new InvalidObjectError('sendInitialEvents is forbidden', [
        { field: 'sendInitialEvents', reason: 'FieldValueForbidden', message: 'Forbidden' },
      ]);
      scheduler.run(({ cold, expectObservable }) => {
        script = scriptedSource(
          [
            cold('(l|)', { l: { items: [obj('a', '5')], resourceVersion: '10' } }),
            cold('(l|)', { l: { items: [], resourceVersion: '20' } }),
          ],
          [cold('#', undefined, refused), cold('-#', undefined, new ResourceExpiredError()), cold('-')],
        );
        const events = reflect(script.source, { ...noJitter, scheduler });
        expectObservable(events.pipe(mapSummary), '^---!').toBe('lr', { l: 'listed@10:1', r: 'listed@20:0' });
      });
      // After 410 it lists again rather than retrying the refused streaming list.
      expect(script.listCalls()).toBe(2);
      expect(script.watchRequests.map((request) => [request.resourceVersion, request.sendInitialEvents ?? false])).toEqual([
        ['', true],
        ['10', false],
        ['20', false],
      ]);
    });

    it('ends with the error when a fatal failure (403) refuses the streaming list', () => {
      const scheduler = newScheduler();
      let script!: ReturnType<typeof scriptedSource>;
      scheduler.run(({ cold, expectObservable }) => {
        script = scriptedSource([], [cold('-#', undefined, forbidden)]);
        expectObservable(reflect(script.source, { ...noJitter, scheduler }).pipe(mapSummary)).toBe('-#', undefined, forbidden);
      });
      expect(script.listCalls()).toBe(0);
    });
  });
});

describe('reflect: connection reports (marble)', () => {
  it('reports a lost connection on each backoff retry, a regained one when a watch is accepted; a 410 relist is neither', () => {
    const scheduler = newScheduler();
    const reports: string[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const lists = [cold<ObjectList<Obj>>('(l|)', { l: { items: [], resourceVersion: '10' } })];
      const watches = [
        cold<WatchEvent<Obj>>('#', undefined, networkDown()), // 0: refused -> retry in 500
        cold<WatchEvent<Obj>>('#', undefined, networkDown()), // 500: refused -> retry in 1000
        cold<WatchEvent<Obj>>('-'), // 1500: accepted (opened), quiet
      ];
      let listCalls = 0;
      let watchCalls = 0;
      const source: ListWatchSource<Obj> = {
        resource: 'deployments',
        namespace: 'default',
        list$: () => lists[listCalls++]!,
        watch$: (_request, onOpen) => {
          const index = watchCalls++;
          // The server answers the third watch: it opens before its (absent) events.
          return index === 2 ? defer(() => (onOpen?.(), watches[index]!)) : watches[index]!;
        },
      };
      const events = reflect(source, {
        ...listThenWatch,
        scheduler,
        onDisconnected: (error, retryInMs) => reports.push(`disconnected@${scheduler.now()}:${(error as Error).name}:${retryInMs}`),
        onConnected: () => reports.push(`connected@${scheduler.now()}`),
      });
      expectObservable(events.pipe(mapSummary), '^ 2s !').toBe('l', { l: 'listed@10:0' });
    });
    expect(reports).toEqual([
      'connected@0', // the list answered
      'disconnected@0:ApiUnreachableError:500',
      'disconnected@500:ApiUnreachableError:1000',
      'connected@1500',
    ]);
  });

  it('a relist after 410 Gone is not a lost connection', () => {
    const scheduler = newScheduler();
    const reports: string[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const script = scriptedSource(
        [cold('(l|)', { l: { items: [], resourceVersion: '10' } }), cold('(l|)', { l: { items: [], resourceVersion: '90' } })],
        [cold('--#', undefined, new ResourceExpiredError()), cold('-')],
      );
      const events = reflect(script.source, {
        ...listThenWatch,
        scheduler,
        onDisconnected: () => reports.push('disconnected'),
        onConnected: () => reports.push('connected'),
      });
      expectObservable(events.pipe(mapSummary), '^----!').toBe('l-r', { l: 'listed@10:0', r: 'listed@90:0' });
    });
    expect(reports).toEqual(['connected', 'connected']);
  });
});
