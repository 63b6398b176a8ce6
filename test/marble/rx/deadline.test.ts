// Marble tests (TestScheduler, virtual time) for deadline (src/rx/deadline.ts). Sources are
// marbles; no cluster is involved.
import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { deadline } from '../../../src/rx/deadline.js';

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
