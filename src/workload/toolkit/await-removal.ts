// awaitRemoval(): remove's wait until every deleted object and the workload's Pods are gone,
// watched like a stop's: a system container's Pod still running some seconds after its
// delete is named once (SlowHalt, halt-warnings.ts). Whether it is a system container comes
// from the Deployment remove read before deleting it, so the watch costs no request.
import type { Observable, SchedulerLike } from 'rxjs';
import type { V1Deployment, V1Pod } from '../../kube/objects.js';
import { awaitRemoved, type DeletedObject, type WaitTarget } from './await-workload.js';
import { haltWatchOf, withHaltWarnings } from './halt-warnings.js';
import type { WaitingEvent, WarnedEvent } from './lifecycle-events.js';

/** @param deployment the Deployment as read before its delete; undefined: none was deleted */
export function awaitRemoval(
  target: WaitTarget & { readonly scheduler?: SchedulerLike | undefined },
  deleted: readonly DeletedObject[],
  pods$: Observable<readonly V1Pod[]>,
  deployment: V1Deployment | undefined,
): Observable<WaitingEvent | WarnedEvent> {
  const options = target.scheduler ? { scheduler: target.scheduler } : {};
  return awaitRemoved(target, deleted, pods$, options).pipe(withHaltWarnings(deployment && haltWatchOf({ deployment }, target, pods$)));
}
