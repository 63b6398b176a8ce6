// restart$() / restart(): a new Pod from the same template, as `kubectl rollout restart`
// makes one: a new restartedAt stamp on the pod template is a new revision, rolled out
// like any other (Recreate: the old Pod goes first). Waits for that generation's rollout
// with creation's fail-fast diagnosis.
//
// A stopped workload stays stopped: nothing is written, and the outcome says it was not
// running (`restarted` with running: false).
import { concat, defer, map, of, switchMap, type Observable } from 'rxjs';
import type { KubernetesClient } from '../../kube/client.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import type { LifecycleEvent, RestartedEvent } from '../toolkit/lifecycle-events.js';
import { GATE_WATCHES, awaitGenerationRollout, podsBefore, withWorkloadStreams } from '../toolkit/workload-streams.js';
import {
  outcomeOf,
  resultBase,
  runOperation,
  type OperationContext,
  type OperationResult,
  type WorkloadOperationOptions,
} from '../toolkit/operation.js';
import { patchLive } from '../toolkit/patch-live.js';
import { readOwned } from '../toolkit/ownership.js';

/**
 * The pod-template annotation `kubectl rollout restart` sets: a new value is a new pod
 * template, so the controller rolls out a new ReplicaSet (new Pods) from the same spec.
 */
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';

export type RestartOptions = WorkloadOperationOptions;

export interface RestartResult extends OperationResult {
  /** false: the workload was stopped and stays stopped (nothing was restarted). */
  readonly running: boolean;
}

/** Cold: nothing happens until subscribed; each subscription restarts once. */
export function restart$(client: KubernetesClient, providerId: string, options: RestartOptions = {}): Observable<LifecycleEvent> {
  return runOperation('restart', client, providerId, options, (context) =>
    fromAbortable((signal) => readOwned(context, signal)).pipe(
      switchMap((owned) => {
        if (owned.replicas === 0) return of(restarted(context, false, false));
        return withWorkloadStreams(
          context,
          owned.containerId,
          (streams) =>
            podsBefore(streams).pipe(
              switchMap((olderPods) =>
                fromAbortable((signal) =>
                  patchLive(
                    context,
                    owned,
                    // Stopped meanwhile (a concurrent stop): it stays stopped.
                    (live) =>
                      live.replicas === 0
                        ? undefined
                        : { spec: { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: context.base().at } } } } },
                    signal,
                    { exact: false },
                  ),
                ).pipe(map((outcome) => ({ ...outcome, olderPods }))),
              ),
              switchMap(({ written, live, olderPods }) => {
                if (!written) return of(restarted(context, false, false));
                const target = {
                  generation: written.metadata?.generation ?? live.generation,
                  replicas: written.spec?.replicas ?? live.replicas,
                };
                return concat(
                  of<LifecycleEvent>({ type: 'patched', ...context.base(), fields: ['restartedAt'], ...target }),
                  awaitGenerationRollout(context, live, target, streams, olderPods),
                  defer(() => of(restarted(context, true, true))),
                );
              }),
            ),
          GATE_WATCHES,
        );
      }),
    ),
  );
}

/** Resolves once the new Pod's rollout is complete (or at once, `running: false`, when stopped). */
export function restart(client: KubernetesClient, providerId: string, options: RestartOptions = {}): Promise<RestartResult> {
  return outcomeOf(restart$(client, providerId, options), 'restarted', (event: RestartedEvent) => ({
    ...resultBase(event),
    running: event.running,
  }));
}

function restarted(context: OperationContext, changed: boolean, running: boolean): RestartedEvent {
  return { type: 'restarted', ...context.base(), changed, running, durationMs: context.elapsed() };
}
