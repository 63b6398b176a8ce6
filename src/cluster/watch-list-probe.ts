// Does the API server serve streaming lists (KEP-3157: a watch with sendInitialEvents that
// first replays the current objects, then marks their end with a bookmark)? Asked the way
// the informers use it, on Deployments in the namespace, with a selector that matches none
// of our objects, so the answer is one bookmark.
import { INITIAL_EVENTS_END_ANNOTATION, rejectsStreamingList, type KubeObject } from '../informers/reflector.js';
import type { KubernetesClient, WatchHandle } from '../kube/client.js';
import { MANAGED_LABEL } from '../input/labels.js';

/** Our objects carry managed=true; this value selects none of them. */
const PROBE_SELECTOR = `${MANAGED_LABEL}=watch-list-probe`;
/** A server that ignores sendInitialEvents sends no bookmark: it ends the watch after this long. */
const PROBE_WATCH_SECONDS = 2;

export type StreamingListSupport = 'served' | 'not-served';

export function probeStreamingLists(api: KubernetesClient, namespace: string, signal: AbortSignal): Promise<StreamingListSupport> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    // Filled in once watch() returns; a fake client may answer before that.
    const opened: { handle?: WatchHandle } = {};
    let settled = false;
    const settle = (finish: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      opened.handle?.abort();
      finish();
    };
    const onAbort = (): void => settle(() => reject(signal.reason as Error));
    signal.addEventListener('abort', onAbort, { once: true });
    opened.handle = api.watch(
      'deployments',
      namespace,
      {
        resourceVersion: '',
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        labelSelector: PROBE_SELECTOR,
        timeoutSeconds: PROBE_WATCH_SECONDS,
      },
      {
        onEvent: (type, object) => {
          const annotations = (object as KubeObject).metadata?.annotations;
          if (type === 'BOOKMARK' && annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') settle(() => resolve('served'));
        },
        onClose: (error) => {
          if (!error) settle(() => resolve('not-served'));
          else if (rejectsStreamingList(error)) settle(() => resolve('not-served'));
          else settle(() => reject(error));
        },
      },
    );
    if (settled) opened.handle.abort();
  });
}
