// Marble tests (TestScheduler, virtual time) for the small timing operators: deadline,
// abortOn and the watch watchdog. Sources are marbles; no cluster is involved.
import { NEVER, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { watchdog } from '../../src/rx/watchdog.js';
import { abortOn } from '../../src/rx/abort-on.js';
import { deadline } from '../../src/rx/deadline.js';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('deadline (marble)', () => {
  it('errors at the deadline with an error built then (carrying the last value), and unsubscribes the source', () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-b-----');
      let last = '';
      const result = source.pipe(
        map((value) => (last = value)),
        deadline(5, () => new Error(`timed out after ${last}`)),
      );
      expectObservable(result).toBe('a-b--#', undefined, new Error('timed out after b'));
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('lets a source that completes in time through and clears its timer', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b|').pipe(deadline(5, () => new Error('late')))).toBe('a-b|');
    });
  });
});

describe('abortOn', () => {
  it('errors at once, without subscribing to the source, when the signal is already aborted', () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a|');
      const controller = new AbortController();
      controller.abort(new Error('stop'));
      expectObservable(source.pipe(abortOn(controller.signal, (reason) => new Error(`aborted: ${(reason as Error).message}`)))).toBe(
        '#',
        undefined,
        new Error('aborted: stop'),
      );
      expectSubscriptions(source.subscriptions).toBe([]);
    });
  });

  it('errors when the signal fires mid-way and removes its listener on every exit', () => {
    const tracked = (controller: AbortController) => {
      const signal = controller.signal;
      const live = new Set<unknown>();
      const add = signal.addEventListener.bind(signal);
      const remove = signal.removeEventListener.bind(signal);
      signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
        live.add(args[1]);
        add(...args);
      };
      signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => {
        live.delete(args[1]);
        remove(...args);
      };
      return live;
    };

    const controller = new AbortController();
    const live = tracked(controller);
    const errors: unknown[] = [];
    const subscription = NEVER.pipe(abortOn(controller.signal, () => new Error('aborted'))).subscribe({
      error: (error) => errors.push(error),
    });
    expect(live.size).toBe(1);
    controller.abort();
    expect(errors).toEqual([new Error('aborted')]);
    expect(subscription.closed).toBe(true);
    expect(live.size).toBe(0);

    // A subscription that ends without an abort removes its listener too.
    const other = new AbortController();
    const otherLive = tracked(other);
    NEVER.pipe(abortOn(other.signal, () => new Error('x')))
      .subscribe()
      .unsubscribe();
    expect(otherLive.size).toBe(0);
  });
});

describe('watchdog (marble)', () => {
  it('errors after the inactivity limit of silence, checking periodically (not per event)', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      // limit 8: checks every 2; last value at 3 -> silent from 3, dead once now-3 >= 8, at the check of 12
      expectObservable(cold('a--b--------').pipe(watchdog(8, () => new Error('silent')))).toBe(
        'a--b--------#',
        undefined,
        new Error('silent'),
      );
    });
  });

  it('never fires while values keep arriving within the limit', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-a-a-a-a-a-a-a|').pipe(watchdog(4, () => new Error('silent')))).toBe('a-a-a-a-a-a-a-a|');
    });
  });
});
