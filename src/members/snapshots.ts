// The shared informers every member's waits read, looked up by kind, cache request and
// where they watch: every informer selects the installation's workloads (managedSelector:
// managed=true and the instance label, or no instance label), so one watch per kind,
// namespace and installation serves every workload in it, and another installation's
// objects with the same container-id never reach it.
import { defer, type Observable } from 'rxjs';
import type { SharedInformer } from '../informers/shared-informer.js';
import { managedSelector } from '../input/labels.js';
import type { KindMap, WatchedKind } from '../kube/kinds.js';
import type { CacheRequest, WatchScope } from './member.js';

export type { WatchScope } from './member.js';

/** The namespace's shared informer of `kind` for the installation. */
export function informerOf<K extends WatchedKind>(scope: WatchScope, kind: K, cache: CacheRequest<K>): SharedInformer<KindMap[K]> {
  return scope.registry.informer(scope.client, {
    kind,
    namespace: scope.namespace,
    labelSelector: managedSelector(scope.instance),
    ...cache,
  });
}

/** The informer's snapshots under `key`; the informer is looked up at subscription time, so an idle one is never kept around. */
export function snapshotsOf<K extends WatchedKind>(
  scope: WatchScope,
  kind: K,
  cache: CacheRequest<K>,
  key: string,
): Observable<readonly KindMap[K][]> {
  return defer(() => informerOf(scope, kind, cache).observe(key));
}
