// A stand-in for the informers' caches a StatusBoard reads (StatusBoardOptions.cached), for
// tests that feed the board informer notices by hand: each key holds what the last notice
// of it said, as an informer's cache does when it notifies.
import type { InformerNotice } from '../../src/informers/shared-informer.js';
import type { V1EndpointSlice, V1PersistentVolumeClaim, V1Pod, V1Service } from '../../src/kube/objects.js';
import type { CachedObjects } from '../../src/workload/reads/status-board.js';

type Noter<T> = (notice: InformerNotice<T>) => InformerNotice<T>;

export interface NoticedCaches {
  readonly cached: CachedObjects;
  /** Each notes a notice in its cache and hands it on, for the board to hear of next. */
  readonly note: {
    readonly pods: Noter<V1Pod>;
    readonly services: Noter<V1Service>;
    readonly slices: Noter<V1EndpointSlice>;
    readonly claims: Noter<V1PersistentVolumeClaim>;
  };
}

function cache<T>(): { readonly read: (key: string) => readonly T[]; readonly note: Noter<T> } {
  const byKey = new Map<string, readonly T[]>();
  return {
    read: (key) => byKey.get(key) ?? [],
    note: (notice) => {
      if (notice.type === 'changed') byKey.set(notice.key, notice.objects);
      return notice;
    },
  };
}

export function noticedCaches(): NoticedCaches {
  const [pods, services, slices, claims] = [cache<V1Pod>(), cache<V1Service>(), cache<V1EndpointSlice>(), cache<V1PersistentVolumeClaim>()];
  return {
    cached: { pods: pods.read, services: services.read, slices: slices.read, claims: claims.read },
    note: { pods: pods.note, services: services.note, slices: slices.note, claims: claims.note },
  };
}
