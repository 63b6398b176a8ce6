// reflect(): the source half of an informer (client-go's Reflector). Lists, then watches
// from the list's resourceVersion, forever:
//   - a clean server close re-watches from the last resourceVersion seen;
//   - 410 Gone relists at once;
//   - other transient failures retry with jittered exponential backoff, reset by progress
//     (a successful list or any watch event, bookmarks included);
//   - a silent watch is cut by the watchdog and retried like a network failure;
//   - fatal failures (401, 403, 400, TLS) end the stream with the error.
// The server is asked to end each watch after 5-10 minutes and to send bookmarks, so
// reconnects resume from a fresh resourceVersion instead of relisting.
import type {
  Observable} from 'rxjs';
import {
  EMPTY,
  asyncScheduler,
  concat,
  defer,
  filter,
  map,
  of,
  repeat,
  retry,
  tap,
  throwError,
  timer,
  type SchedulerLike,
} from 'rxjs';
import { WatchInactiveError } from '../errors.js';
import { DEFAULT_BACKOFF, backoffDelay, type BackoffPolicy } from './backoff.js';
import { classifyInformerError } from './classify-error.js';
import type { ListWatchSource } from './list-watch-source.js';
import { watchdog } from './watchdog.js';

export interface KubeObject {
  readonly metadata?: { readonly name?: string; readonly resourceVersion?: string; readonly uid?: string };
}

export type ReflectorEvent<T> =
  | { readonly type: 'listed'; readonly items: readonly T[]; readonly resourceVersion: string }
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T };

export interface ReflectorOptions {
  readonly backoff?: BackoffPolicy;
  /**
   * A watch silent this long is considered dead. Default 150 s: on an idle watch, kube-apiserver
   * v1.36 sends its first bookmark after about 120 s and then one a minute (measured here).
   */
  readonly inactivityMs?: number;
  /** Server-side watch timeout per connection; default 300-600 s, randomised. */
  readonly watchTimeoutSeconds?: () => number;
  readonly allowWatchBookmarks?: boolean;
  readonly scheduler?: SchedulerLike;
  readonly random?: () => number;
  /** Told about every failure that will be retried, with the delay chosen. */
  readonly onRetry?: (error: unknown, delayMs: number) => void;
}

export const DEFAULT_INACTIVITY_MS = 150_000;
/** A watch that ends this fast without delivering anything counts as a failure. */
const MIN_HEALTHY_WATCH_MS = 1_000;

export function reflect<T extends KubeObject>(source: ListWatchSource<T>, options: ReflectorOptions = {}): Observable<ReflectorEvent<T>> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const random = options.random ?? Math.random;
  const policy = options.backoff ?? DEFAULT_BACKOFF;
  const inactivityMs = options.inactivityMs ?? DEFAULT_INACTIVITY_MS;
  const watchTimeoutSeconds = options.watchTimeoutSeconds ?? (() => 300 + Math.floor(random() * 300));

  return defer(() => {
    let resourceVersion = '';
    let failures = 0;
    let watchStartedAt = 0;
    let watchDelivered = false;

    const list$ = defer(() =>
      resourceVersion
        ? EMPTY
        : source.list$().pipe(
            map((list): ReflectorEvent<T> => {
              resourceVersion = list.resourceVersion;
              failures = 0;
              return { type: 'listed', items: list.items, resourceVersion: list.resourceVersion };
            }),
          ),
    );

    const watch$ = defer(() => {
      watchStartedAt = scheduler.now();
      watchDelivered = false;
      return source
        .watch$({
          resourceVersion,
          timeoutSeconds: watchTimeoutSeconds(),
          allowWatchBookmarks: options.allowWatchBookmarks ?? true,
        })
        .pipe(
          watchdog(inactivityMs, () => new WatchInactiveError(source.resource, source.namespace, inactivityMs), scheduler),
          tap((event) => {
            const version = event.object.metadata?.resourceVersion;
            if (version) resourceVersion = version;
            failures = 0;
            watchDelivered = true;
          }),
          filter((event): event is { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T } => event.type !== 'BOOKMARK'),
        );
    });

    return concat(list$, watch$).pipe(
      repeat({
        // The server ended the watch cleanly: resume at once, unless it keeps ending
        // watches immediately, which is a failure in disguise.
        delay: () => {
          if (watchDelivered || scheduler.now() - watchStartedAt >= MIN_HEALTHY_WATCH_MS) return of(0);
          failures += 1;
          return timer(backoffDelay(failures, policy, random), scheduler);
        },
      }),
      retry({
        delay: (error: unknown) => {
          const decision = classifyInformerError(error);
          if (decision.action === 'fail') return throwError(() => error);
          if (decision.action === 'relist') {
            resourceVersion = '';
            options.onRetry?.(error, 0);
            return of(0);
          }
          failures += 1;
          const delayMs = Math.max(backoffDelay(failures, policy, random), decision.notBeforeMs ?? 0);
          options.onRetry?.(error, delayMs);
          return timer(delayMs, scheduler);
        },
      }),
    );
  });
}
