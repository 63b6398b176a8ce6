// Marble tests (TestScheduler, virtual time) for abortOn (src/rx/abort-on.ts). Sources are
// marbles; no cluster is involved.
import { NEVER } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { abortOn } from '../../../src/rx/abort-on.js';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

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
