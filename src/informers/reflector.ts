// reflect(): the source half of an informer (client-go's Reflector). Gets the current
// objects, then watches from their resourceVersion, forever:
//   - the current objects come from a streaming list (one watch request with
//     sendInitialEvents, KEP-3157: a consistent read, then changes on the same
//     connection); a server that rejects it gets a paginated list and a separate watch;
//   - a clean server close re-watches from the last resourceVersion seen;
//   - 410 Gone starts over with fresh objects at once;
//   - other transient failures retry with jittered exponential backoff, reset by progress
//     (a successful list or any watch event, bookmarks included);
//   - a silent watch is cut by the watchdog and retried like a network failure;
//   - fatal failures (401, 403, 400, TLS) end the stream with the error;
//   - losing and regaining the connection is told to onDisconnected / onConnected, so a
//     consumer can say when what it shows may be stale.
// The server is asked to end each watch after 5-10 minutes and to send bookmarks, so
// reconnects resume from a fresh resourceVersion instead of relisting.
import { asyncScheduler, concat, defer, filter, map, of, repeat, retry, throwError, type Observable, type SchedulerLike } from 'rxjs';
import { ApiError, InvalidObjectError, MalformedObjectError, WatchInactiveError } from '../errors/api.js';
import { DEFAULT_BACKOFF, backoffDelay, type BackoffPolicy } from '../rx/backoff.js';
import { classifyInformerError } from './classify-error.js';
import type { ListWatchSource, WatchEvent } from './list-watch-source.js';
import { watchdog } from '../rx/watchdog.js';
import { longTimer } from '../rx/long-timer.js';

export interface KubeObject {
  readonly metadata?: {
    readonly name?: string;
    readonly resourceVersion?: string;
    readonly uid?: string;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}

/**
 * How the reflector gets the current objects: `watch-list` streams them on the watch
 * itself (one request; servers from Kubernetes 1.32 on, where the WatchList feature is
 * beta and on), `list` makes a paginated list and then a watch (two requests).
 */
export type InitialState = 'watch-list' | 'list';

/** The annotation of the BOOKMARK that ends a streaming list's initial objects. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

export type ReflectorEvent<T> =
  | { readonly type: 'listed'; readonly items: readonly T[]; readonly resourceVersion: string }
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T };

export interface ReflectorOptions {
  /** Default `watch-list`, falling back to `list` for good when the server rejects it. */
  readonly initialState?: InitialState;
  readonly backoff?: BackoffPolicy;
  /**
   * A watch silent this long is considered dead. Default 150 s: longer than the API
   * server's wait before the first bookmark on an idle watch, so a healthy quiet watch is
   * never cut.
   */
  readonly inactivityMs?: number;
  /** Server-side watch timeout per connection; default 300-600 s, randomised. */
  readonly watchTimeoutSeconds?: () => number;
  readonly allowWatchBookmarks?: boolean;
  readonly scheduler?: SchedulerLike;
  readonly random?: () => number;
  /**
   * Told about every failure that will be retried, with the delay chosen, and (with delay 0)
   * about every object skipped because it does not fit the fields read (MalformedObjectError).
   */
  readonly onRetry?: (error: unknown, delayMs: number) => void;
  /**
   * Told when the connection is lost: a failure retried after a backoff (not a relist after
   * 410 Gone, not the switch from streaming lists to list and watch).
   */
  readonly onDisconnected?: (error: unknown, retryInMs: number) => void;
  /** Told when the server accepts a watch or answers a list: the connection works. */
  readonly onConnected?: () => void;
}

/** A server may ask to wait (429 Retry-After); never longer than this. */
const MAX_SERVER_DELAY_MS = 600_000;

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
    let streamLists = (options.initialState ?? 'watch-list') === 'watch-list';
    let failures = 0;
    let watchStartedAt = 0;
    let watchDelivered = false;

    const list$ = defer(() => source.list$()).pipe(
      map((list): ReflectorEvent<T> => {
        resourceVersion = list.resourceVersion;
        failures = 0;
        options.onConnected?.();
        return { type: 'listed', items: list.items, resourceVersion: list.resourceVersion };
      }),
    );

    /** With `streaming`, a streaming list: its initial objects come out as one `listed`. */
    const watch$ = (streaming: boolean) =>
      defer(() => {
        watchStartedAt = scheduler.now();
        watchDelivered = false;
        // Until the end bookmark, the objects so far; a stream cut before it starts over,
        // since resourceVersion is only taken from the end bookmark.
        let initial: Map<string, T> | undefined = streaming ? new Map() : undefined;
        return source
          .watch$(
            {
              resourceVersion: streaming ? '' : resourceVersion,
              timeoutSeconds: watchTimeoutSeconds(),
              // A streaming list marks its end with a bookmark, so it always asks for them.
              allowWatchBookmarks: streaming || (options.allowWatchBookmarks ?? true),
              ...(streaming ? { sendInitialEvents: true } : {}),
            },
            options.onConnected,
          )
          .pipe(
            watchdog(inactivityMs, () => new WatchInactiveError(source.resource, source.namespace, inactivityMs), scheduler),
            map((event): ReflectorEvent<T> | undefined => {
              failures = 0;
              watchDelivered = true;
              // The metadata read below must fit; otherwise the watch is at fault and restarts.
              checkMetadata(source.resource, event.object);
              const version = event.object.metadata?.resourceVersion;
              if (initial) {
                if (event.type === 'BOOKMARK') {
                  if (!version || event.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] !== 'true') return undefined;
                  const items = [...initial.values()];
                  initial = undefined;
                  resourceVersion = version;
                  return { type: 'listed', items, resourceVersion: version };
                }
                const name = event.object.metadata?.name;
                if (name !== undefined) {
                  if (event.type === 'DELETED') initial.delete(name);
                  else initial.set(name, event.object);
                }
                return undefined;
              }
              if (version) resourceVersion = version;
              return isChange(event) ? event : undefined;
            }),
            filter((event): event is ReflectorEvent<T> => event !== undefined),
          );
      });

    const cycle$ = defer(() => {
      if (resourceVersion) return watch$(false);
      return streamLists ? watch$(true) : concat(list$, watch$(false));
    });

    return cycle$.pipe(
      repeat({
        // The server ended the watch cleanly: resume at once, unless it keeps ending
        // watches immediately, which is a failure in disguise.
        delay: () => {
          if (watchDelivered || scheduler.now() - watchStartedAt >= MIN_HEALTHY_WATCH_MS) return of(0);
          failures += 1;
          return longTimer(backoffDelay(failures, policy, random), scheduler);
        },
      }),
      retry({
        delay: (error: unknown) => {
          if (streamLists && !resourceVersion && rejectsStreamingList(error)) {
            // An older server, or the WatchList feature turned off: list, then watch.
            streamLists = false;
            options.onRetry?.(error, 0);
            return of(0);
          }
          const decision = classifyInformerError(error);
          if (decision.action === 'fail') return throwError(() => error);
          if (decision.action === 'relist') {
            resourceVersion = '';
            options.onRetry?.(error, 0);
            return of(0);
          }
          failures += 1;
          const delayMs = Math.max(backoffDelay(failures, policy, random), Math.min(decision.notBeforeMs ?? 0, MAX_SERVER_DELAY_MS));
          options.onRetry?.(error, delayMs);
          options.onDisconnected?.(error, delayMs);
          return longTimer(delayMs, scheduler);
        },
      }),
    );
  });
}

/** Throws MalformedObjectError unless the metadata fields the reflector reads have their types. */
function checkMetadata(resource: string, object: unknown): void {
  const metadata: unknown = (object as { metadata?: unknown } | null)?.metadata;
  if (metadata == null) return;
  const fail = (field: string, problem: string): never => {
    throw new MalformedObjectError(resource, undefined, `metadata${field}`, problem);
  };
  if (typeof metadata !== 'object' || Array.isArray(metadata)) fail('', 'must be an object');
  const { name, resourceVersion, annotations } = metadata as Record<string, unknown>;
  if (name != null && typeof name !== 'string') fail('.name', 'must be a string');
  if (resourceVersion != null && typeof resourceVersion !== 'string') fail('.resourceVersion', 'must be a string');
  if (annotations != null && (typeof annotations !== 'object' || Array.isArray(annotations))) fail('.annotations', 'must be an object');
}

/** Not a bookmark: the event itself goes on, no copy per event. */
function isChange<T>(event: WatchEvent<T>): event is WatchEvent<T> & { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' } {
  return event.type !== 'BOOKMARK';
}

/**
 * Servers without streaming lists refuse `sendInitialEvents` or `resourceVersionMatch` on
 * a watch as invalid (422, or 400 from some proxies). Any other cause of a 400 or 422
 * fails the list that follows as well, so it still surfaces.
 */
export function rejectsStreamingList(error: unknown): boolean {
  return error instanceof InvalidObjectError || (error instanceof ApiError && error.statusCode === 400);
}
