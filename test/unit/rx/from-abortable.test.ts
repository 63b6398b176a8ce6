// fromAbortable(): an async job as a cold Observable, aborted on unsubscribe only while it runs.
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { fromAbortable } from '../../../src/rx/from-abortable.js';

describe('fromAbortable', () => {
  it('is cold: each subscription runs the job once, emitting along the way and then its result', async () => {
    let runs = 0;
    const job$ = fromAbortable<string>(async (_signal, subscriber) => {
      runs += 1;
      subscriber.next('step');
      return 'done';
    });
    expect(runs).toBe(0);
    await expect(lastValueFrom(job$.pipe(toArray()))).resolves.toEqual(['step', 'done']);
    await expect(lastValueFrom(job$.pipe(toArray()))).resolves.toEqual(['step', 'done']);
    expect(runs).toBe(2);
  });

  it('errors with what the job threw', async () => {
    const failure = new Error('boom');
    await expect(firstValueFrom(fromAbortable(() => Promise.reject(failure)))).rejects.toBe(failure);
  });

  it('aborts the signal when unsubscribed while the job runs', () => {
    let seen: AbortSignal | undefined;
    const subscription = fromAbortable((signal) => {
      seen = signal;
      return new Promise<never>(() => {});
    }).subscribe();
    expect(seen?.aborted).toBe(false);
    subscription.unsubscribe();
    expect(seen?.aborted).toBe(true);
  });

  it('leaves the signal alone once the job has settled', async () => {
    let seen: AbortSignal | undefined;
    await firstValueFrom(
      fromAbortable(async (signal) => {
        seen = signal;
        return 1;
      }),
    );
    expect(seen?.aborted).toBe(false);
  });
});
