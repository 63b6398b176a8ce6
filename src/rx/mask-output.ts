// maskOutput(): every value and error of the source, masked on its way out (src/mask.ts):
// the operations' events and errors leave the process (a job log, a page), the objects
// they were computed from do not, and are never masked. Errors that are not the project's
// are left as they are: the client masked its own, and the rest are the caller's (an
// abort reason).
import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { maskErrorWith, maskValueWith, type MaskText } from '../mask.js';

export function maskOutput<T>(mask: MaskText): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) =>
      source.subscribe({
        next: (value) => subscriber.next(maskValueWith(value, mask)),
        error: (error: unknown) => subscriber.error(maskErrorWith(error, mask, { foreign: 'keep' })),
        complete: () => subscriber.complete(),
      }),
    );
}
