// fromWrittenVersion(): a wait judges only the object version it wrote, or a newer one. A
// shared informer that was running before our write still holds the version before it for
// a moment (the watch event is on its way), and a cached Service with the old ports or type
// must not answer "routed" for the new ones. Snapshots are passed on from the first that
// holds the written object (same UID) at the written resourceVersion or a later one; every
// snapshot after it is later still, as a watch delivers changes in order.
//
// Resource versions of one kind are decimal integers that the API server hands out in
// increasing order, and the API guarantees they compare so (Comparable Resource Version):
// by length, then digit by digit. A version that is not such a number compares only as equal.
import { skipWhile, type MonoTypeOperatorFunction } from 'rxjs';

/** The object a write returned: its UID and the resourceVersion the write made. */
export interface WrittenVersion {
  readonly uid: string;
  readonly resourceVersion: string;
}

interface Versioned {
  readonly metadata?: { readonly uid?: string | undefined; readonly resourceVersion?: string | undefined } | undefined;
}

/** The UID and version of an object as a write returned it; undefined when it carries none. */
export function writtenVersionOf(object: Versioned | undefined): WrittenVersion | undefined {
  const uid = object?.metadata?.uid;
  const resourceVersion = object?.metadata?.resourceVersion;
  return uid && resourceVersion ? { uid, resourceVersion } : undefined;
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** -1, 0 or 1 as `a` is older than, the same as or newer than `b`; undefined when they cannot be compared. */
export function compareResourceVersions(a: string, b: string): -1 | 0 | 1 | undefined {
  if (a === b) return 0;
  if (!DECIMAL.test(a) || !DECIMAL.test(b)) return undefined;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : 1;
}

/** Whether `object` is the written one, at the written version or a newer one. */
export function isWrittenOrNewer(object: Versioned, written: WrittenVersion): boolean {
  if (object.metadata?.uid !== written.uid) return false;
  const order = compareResourceVersions(object.metadata.resourceVersion ?? '', written.resourceVersion);
  return order === 0 || order === 1;
}

/** Snapshots from the first that holds `written` at its version or newer; undefined: all of them. */
export function fromWrittenVersion<T extends Versioned>(written: WrittenVersion | undefined): MonoTypeOperatorFunction<readonly T[]> {
  return (snapshots$) =>
    written === undefined
      ? snapshots$
      : snapshots$.pipe(skipWhile((objects) => !objects.some((object) => isWrittenOrNewer(object, written))));
}
