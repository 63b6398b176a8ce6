// Timers for any duration, the one way the library arms a timer. Node holds a timer's delay
// in a signed 32-bit integer, and a longer delay fires at once instead (with a warning on
// stderr), so a long timeout would end a provisioning at once and a long grace window would
// spin. These helpers wait in steps of at most MAX_TIMER_DELAY_MS, counting down what is
// left, so they fire when asked however long that is; `Infinity` arms nothing.
import { Observable, Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

/** The longest delay one Node timer can hold. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** Runs `work` once after `delayMs` on `scheduler`; unsubscribe to cancel. */
export function scheduleAfter(scheduler: SchedulerLike, delayMs: number, work: () => void): Subscription {
  if (delayMs === Infinity) return new Subscription();
  let remaining = Math.max(0, delayMs);
  const step = Math.min(remaining, MAX_TIMER_DELAY_MS);
  remaining -= step;
  return scheduler.schedule(function (this: SchedulerAction<undefined>) {
    if (remaining > 0) {
      const next = Math.min(remaining, MAX_TIMER_DELAY_MS);
      remaining -= next;
      this.schedule(undefined, next);
      return;
    }
    work();
  }, step);
}

/**
 * Runs `work` every `periodMs` on `scheduler` until unsubscribed (work may unsubscribe it
 * itself); a period of any length, Infinity never.
 */
export function scheduleEvery(scheduler: SchedulerLike, periodMs: number, work: () => void): Subscription {
  const every = new Subscription();
  let next: Subscription | undefined;
  const arm = (): void => {
    next = scheduleAfter(scheduler, periodMs, () => {
      work();
      if (!every.closed) arm();
    });
  };
  every.add(() => next?.unsubscribe());
  arm();
  return every;
}

/** Like rxjs `timer(delayMs, scheduler)`: emits 0 and completes after `delayMs`, any length. */
export function longTimer(delayMs: number, scheduler: SchedulerLike): Observable<0> {
  return new Observable<0>((subscriber) =>
    scheduleAfter(scheduler, delayMs, () => {
      subscriber.next(0);
      subscriber.complete();
    }),
  );
}

export interface LongTimeout {
  clear(): void;
}

/** setTimeout for any delay: `callback` runs once after `delayMs`; clear() cancels. */
export function setLongTimeout(callback: () => void, delayMs: number): LongTimeout {
  let handle: NodeJS.Timeout | undefined;
  let remaining = Math.max(0, delayMs);
  const wait = (): void => {
    if (remaining === Infinity) return;
    const step = Math.min(remaining, MAX_TIMER_DELAY_MS);
    remaining -= step;
    handle = setTimeout(() => (remaining > 0 ? wait() : callback()), step);
  };
  wait();
  return { clear: () => clearTimeout(handle) };
}
