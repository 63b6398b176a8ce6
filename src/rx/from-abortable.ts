// fromAbortable(): an async job as a cold Observable. Each subscription starts the job
// with a fresh AbortSignal; the job may emit along the way, and its result is the last
// value before completion. Unsubscribing aborts the job only while it still runs:
// abort() without a reason builds a DOMException, wasted on finished work.
import { Observable, type Subscriber } from 'rxjs';

export function fromAbortable<T>(job: (signal: AbortSignal, subscriber: Subscriber<T>) => Promise<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const controller = new AbortController();
    let settled = false;
    job(controller.signal, subscriber).then(
      (result) => {
        settled = true;
        subscriber.next(result);
        subscriber.complete();
      },
      (error: unknown) => {
        settled = true;
        subscriber.error(error);
      },
    );
    return () => {
      if (!settled) controller.abort();
    };
  });
}
