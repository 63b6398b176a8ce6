// deadline(): the source, raced against one timer for the whole subscription. When the
// timer wins, the source is unsubscribed and the error from `onTimeout` is emitted; it is
// built at that moment, so it can carry the last status seen.
import { Observable, asyncScheduler, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';

export function deadline<T>(
  timeoutMs: number,
  onTimeout: () => Error,
  scheduler: SchedulerLike = asyncScheduler,
): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      const timer = scheduler.schedule(() => subscriber.error(onTimeout()), timeoutMs);
      const inner = source.subscribe(subscriber);
      return () => {
        timer.unsubscribe();
        inner.unsubscribe();
      };
    });
}
