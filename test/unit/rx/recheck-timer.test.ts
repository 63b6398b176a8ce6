// The one pending recheck of a waiter (src/rx/recheck-timer.ts), on virtual time (a fake
// clock, no real timers).
import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { RecheckTimer } from '../../../src/rx/recheck-timer.js';

function timer(): { clock: VirtualTimeScheduler; fired: number[]; recheck: RecheckTimer } {
  const clock = new VirtualTimeScheduler();
  const fired: number[] = [];
  return { clock, fired, recheck: new RecheckTimer(clock, () => fired.push(clock.now())) };
}

describe('RecheckTimer', () => {
  it('fires once at the time set; the same time set again keeps the one timer', () => {
    const { clock, fired, recheck } = timer();
    recheck.set(50);
    recheck.set(50);
    clock.flush();
    expect(fired).toEqual([50]);
  });

  it('another time replaces the pending one; undefined and stop() cancel it', () => {
    const { clock, fired, recheck } = timer();
    recheck.set(50);
    recheck.set(20);
    clock.flush();
    expect(fired).toEqual([20]);
    recheck.set(80);
    recheck.set(undefined);
    recheck.set(90);
    recheck.stop();
    clock.flush();
    expect(fired).toEqual([20]);
  });

  it('a time already past fires at once; after firing, the same time may be set again', () => {
    const { clock, fired, recheck } = timer();
    recheck.set(10);
    clock.flush();
    recheck.set(10);
    clock.flush();
    expect(fired).toEqual([10, 10]);
  });

  it('Infinity arms nothing', () => {
    const { clock, fired, recheck } = timer();
    recheck.set(Infinity);
    clock.flush();
    expect(fired).toEqual([]);
  });
});
