// Adapts a KubernetesClient to the two cold Observables a reflector needs. Unsubscribing
// aborts the request or watch, so nothing outlives the subscription.
import { Observable } from 'rxjs';
import type { KindMap, KubernetesClient, ObjectList, WatchedKind, WatchEventType } from '../kube/client.js';
import { fromAbortable } from '../rx/from-abortable.js';

export interface WatchEvent<T> {
  readonly type: Exclude<WatchEventType, 'ERROR'>;
  readonly object: T;
}

export interface WatchRequest {
  readonly resourceVersion: string;
  readonly timeoutSeconds?: number;
  readonly allowWatchBookmarks?: boolean;
  readonly sendInitialEvents?: boolean;
}

export interface ListWatchSource<T> {
  /** What it lists and watches, for messages. */
  readonly resource: string;
  readonly namespace: string;
  list$(): Observable<ObjectList<T>>;
  /**
   * Completes when the server ends the watch cleanly; errors with a project error otherwise.
   * `onOpen` runs when the server accepts the watch, before its first event.
   */
  watch$(request: WatchRequest, onOpen?: () => void): Observable<WatchEvent<T>>;
}

export function listWatchSource<K extends WatchedKind>(
  client: KubernetesClient,
  kind: K,
  namespace: string,
  labelSelector: string | undefined,
  fieldSelector?: string,
): ListWatchSource<KindMap[K]> {
  return {
    resource: kind,
    namespace,
    list$: () =>
      fromAbortable((signal) => client.list(kind, namespace, labelSelector, { signal, ...(fieldSelector ? { fieldSelector } : {}) })),
    watch$: (request, onOpen) =>
      new Observable<WatchEvent<KindMap[K]>>((subscriber) => {
        const handle = client.watch(
          kind,
          namespace,
          { ...request, ...(labelSelector !== undefined ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}) },
          {
            onEvent: (type, object) => {
              if (type !== 'ERROR') subscriber.next({ type, object });
            },
            onClose: (error) => (error ? subscriber.error(error) : subscriber.complete()),
            ...(onOpen ? { onOpen } : {}),
          },
        );
        return () => handle.abort();
      }),
  };
}
