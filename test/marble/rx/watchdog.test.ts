// Marble tests (TestScheduler, virtual time) for the watch watchdog (src/rx/watchdog.ts). Sources are
// marbles; no cluster is involved.
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { watchdog } from '../../../src/rx/watchdog.js';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

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
