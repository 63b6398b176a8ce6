// abortOn(): ends the source with an error when the AbortSignal fires, the p-timeout way:
// an already-aborted signal errors at once without subscribing to the source, and the
// listener is removed when the subscription ends for any reason.
import { Observable, type MonoTypeOperatorFunction } from 'rxjs';

export function abortOn<T>(signal: AbortSignal | undefined, onAbort: (reason: unknown) => Error): MonoTypeOperatorFunction<T> {
  return (source) =>
    signal === undefined
      ? source
      : new Observable<T>((subscriber) => {
          if (signal.aborted) {
            subscriber.error(onAbort(signal.reason));
            return;
          }
          const listener = (): void => subscriber.error(onAbort(signal.reason));
          signal.addEventListener('abort', listener, { once: true });
          const inner = source.subscribe(subscriber);
          return () => {
            signal.removeEventListener('abort', listener);
            inner.unsubscribe();
          };
        });
}
