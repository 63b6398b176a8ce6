// remove$() / remove(): delete a workload's Deployment and wait until it and its Pods
// are gone. (`delete` is a JavaScript keyword.)
//
//   read -> missing: `removed` (changed: false) at once
//        -> not the expected container's (container-id label, managed=true):
//           WorkloadOwnershipError, nothing deleted
//   -> hold the informers -> `diagnosed` for every Pod with something to say, before they go
//   -> DELETE with the UID read as a precondition (the object checked is the one deleted)
//      and foreground propagation (its ReplicaSets and Pods go first) -> `deleted`
//   -> wait until the Deployment and every Pod of the workload are gone -> `removed`
//
// Nothing waits for a Pod to become ready or to start: a Pending Pod is deleted like any
// other, and the wait ends as soon as it is gone.
import { concat, defer, of, switchMap, type Observable } from 'rxjs';
import { ConflictError, NotFoundError } from '../errors/api.js';
import { WorkloadNotFoundError } from './ownership.js';
import type { KubernetesClient } from '../kube/client.js';
import { fromAbortable } from '../rx/from-abortable.js';
import { awaitRemoved } from './await-workload.js';
import type { LifecycleEvent, RemovedEvent } from './lifecycle-events.js';
import {
  outcomeOf,
  resultBase,
  runOperation,
  type OperationContext,
  type OperationResult,
  type WorkloadOperationOptions,
} from './operation.js';
import { readOwned, type OwnedWorkload } from './ownership.js';
import { withWorkloadStreams } from './workload-streams.js';
import { diagnoseBeforeTheyGo } from './stop.js';

export interface RemoveOptions extends WorkloadOperationOptions {
  /** Required: the container-id label the Deployment must carry to be deleted. */
  readonly containerId: string | number;
}

export type RemoveResult = OperationResult;

/** A delete refused because another object took the name is checked again this often. */
const MAX_DELETE_ATTEMPTS = 3;

/** Cold: nothing happens until subscribed; each subscription removes once. */
export function remove$(client: KubernetesClient, providerId: string, options: RemoveOptions): Observable<LifecycleEvent> {
  return runOperation('remove', client, providerId, options, (context) =>
    fromAbortable((signal) => readIfThere(context, signal)).pipe(
      switchMap((owned) => {
        if (!owned) return of(removed(context, false));
        return withWorkloadStreams(context, owned.containerId, (streams) =>
          concat(
            diagnoseBeforeTheyGo(context, streams),
            fromAbortable((signal) => deleteChecked(context, owned, signal)).pipe(
              switchMap((deleted) => {
                if (!deleted) return of(removed(context, false));
                return concat(
                  of<LifecycleEvent>({ type: 'deleted', ...context.base(), uid: deleted.uid }),
                  awaitRemoved(context, deleted.uid, streams.deployments$, streams.pods$, context),
                  defer(() => of(removed(context, true))),
                );
              }),
            ),
          ),
        );
      }),
    ),
  );
}

/** Resolves once the Deployment and its Pods are gone (at once when it was already). */
export function remove(client: KubernetesClient, providerId: string, options: RemoveOptions): Promise<RemoveResult> {
  return outcomeOf(remove$(client, providerId, options), 'removed', (event: RemovedEvent) => resultBase(event));
}

async function readIfThere(context: OperationContext, signal: AbortSignal): Promise<OwnedWorkload | undefined> {
  try {
    return await readOwned(context, signal);
  } catch (error) {
    if (error instanceof WorkloadNotFoundError) return undefined;
    throw error;
  }
}

/**
 * Deletes the object that was checked (UID precondition). When the name now holds another
 * object, that one is checked in turn; undefined when there is nothing left to delete.
 */
async function deleteChecked(context: OperationContext, first: OwnedWorkload, signal: AbortSignal): Promise<OwnedWorkload | undefined> {
  let owned: OwnedWorkload | undefined = first;
  for (let attempt = 1; owned; attempt += 1) {
    try {
      await context.client.delete('deployments', context.namespace, context.name, {
        preconditions: { uid: owned.uid },
        propagationPolicy: 'Foreground',
        signal,
      });
      return owned;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      if (!(error instanceof ConflictError) || attempt >= MAX_DELETE_ATTEMPTS) throw error;
      owned = await readIfThere(context, signal);
    }
  }
  return undefined;
}

function removed(context: OperationContext, changed: boolean): RemovedEvent {
  return { type: 'removed', ...context.base(), changed, durationMs: context.elapsed() };
}
