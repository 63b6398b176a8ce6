// watchdog(): errors when the source stays silent for `inactivityMs`. A half-open TCP
// connection can keep a watch silent forever; this turns that silence into an error the
// reflector retries. One periodic check per subscription, not a timer per event: each
// value only records the time it arrived.
import { Observable, asyncScheduler, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';
import { scheduleEvery } from './long-timer.js';

export function watchdog<T>(
  inactivityMs: number,
  silenceError: () => Error,
  scheduler: SchedulerLike = asyncScheduler,
): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      let lastActivity = scheduler.now();
      // A quarter of the limit: a check that comes early only finds the watch not silent
      // long enough yet, and one that comes late lets silence last a quarter longer.
      const checkEveryMs = Math.max(1, Math.floor(inactivityMs / 4));
      const check = scheduleEvery(scheduler, checkEveryMs, () => {
        if (scheduler.now() - lastActivity >= inactivityMs) subscriber.error(silenceError());
      });
      const inner = source.subscribe({
        next: (value) => {
          lastActivity = scheduler.now();
          subscriber.next(value);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      return () => {
        check.unsubscribe();
        inner.unsubscribe();
      };
    });
}
