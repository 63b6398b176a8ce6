// deadline(): the source, raced against one timer for the whole subscription. When the
// timer wins, the source is unsubscribed and the error from `onTimeout` is emitted; it is
// built at that moment, so it can carry the last status seen. Any length works (long
// delays are chained below Node's timer limit); `Infinity` means no deadline at all.
import { Observable, asyncScheduler, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';
import { scheduleAfter } from './long-timer.js';

export function deadline<T>(
  timeoutMs: number,
  onTimeout: () => Error,
  scheduler: SchedulerLike = asyncScheduler,
): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      const timer = scheduleAfter(scheduler, timeoutMs, () => subscriber.error(onTimeout()));
      const inner = source.subscribe(subscriber);
      return () => {
        timer.unsubscribe();
        inner.unsubscribe();
      };
    });
}
