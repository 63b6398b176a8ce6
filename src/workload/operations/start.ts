// start$() / start(): scale a stopped workload to 1 and wait until its rollout is complete
// and available, failing fast with the kubelet's words (the failure policy of creation).
//
//   read (ours?) -> running and rolled out: `started` at once, no write, no watch
//                -> running, rollout under way: wait for it (no write)
//                -> stopped: write replicas 1 and a restartedAt stamp -> `scaled` -> wait
//
// The stamp (the pod-template annotation `kubectl rollout restart` sets) makes the start
// roll out a new ReplicaSet: a stop immediately followed by a start could otherwise be
// folded by the deployment controller into "nothing changed", leaving the old Pod in place.
import { concat, defer, map, of, switchMap, type Observable } from 'rxjs';
import type { KubernetesClient } from '../../kube/client.js';
import { rolloutStatus } from '../../rollout/rollout-status.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import type { LifecycleEvent, StartedEvent } from '../toolkit/lifecycle-events.js';
import { RESTARTED_AT_ANNOTATION } from './restart.js';
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
import { readOwned, type OwnedWorkload } from '../toolkit/ownership.js';

export type StartOptions = WorkloadOperationOptions;
export type StartResult = OperationResult;

/** Cold: nothing happens until subscribed; each subscription starts once. */
export function start$(client: KubernetesClient, providerId: string, options: StartOptions = {}): Observable<LifecycleEvent> {
  return runOperation('start', client, providerId, options, (context) =>
    fromAbortable((signal) => readOwned(context, signal)).pipe(
      switchMap((owned) => {
        if (owned.replicas > 0 && rolloutStatus(owned.deployment).state === 'Complete') return of(started(context, false));
        return withWorkloadStreams(
          context,
          owned.containerId,
          (streams) => {
            if (owned.replicas > 0) {
              // Running already, its rollout under way: nothing to write, wait for it.
              const target = { generation: owned.generation, replicas: owned.replicas };
              return concat(
                awaitGenerationRollout(context, owned, target, streams),
                defer(() => of(started(context, false))),
              );
            }
            return podsBefore(streams).pipe(
              switchMap((olderPods) =>
                fromAbortable((signal) => patchLive(context, owned, (live) => scaleUpPatch(context, live), signal, { exact: false })).pipe(
                  map((outcome) => ({ ...outcome, olderPods })),
                ),
              ),
              switchMap(({ written, live, olderPods }) => {
                const target = {
                  generation: written?.metadata?.generation ?? live.generation,
                  replicas: written?.spec?.replicas ?? live.replicas,
                };
                return concat(
                  written
                    ? of<LifecycleEvent>({
                        type: 'scaled',
                        ...context.base(),
                        replicas: target.replicas,
                        previousReplicas: live.replicas,
                        generation: target.generation,
                      })
                    : of<LifecycleEvent>(),
                  awaitGenerationRollout(context, live, target, streams, written ? olderPods : undefined),
                  defer(() => of(started(context, written !== undefined))),
                );
              }),
            );
          },
          GATE_WATCHES,
        );
      }),
    ),
  );
}

/** Resolves once the workload runs: its rollout is complete and available. */
export function start(client: KubernetesClient, providerId: string, options: StartOptions = {}): Promise<StartResult> {
  return outcomeOf(start$(client, providerId, options), 'started', (event: StartedEvent) => resultBase(event));
}

/** replicas 1 and a fresh restartedAt stamp; none when another writer scaled it up meanwhile. */
function scaleUpPatch(context: OperationContext, live: OwnedWorkload): Record<string, unknown> | undefined {
  if (live.replicas > 0) return undefined;
  return { spec: { replicas: 1, template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: context.base().at } } } } };
}

function started(context: OperationContext, changed: boolean): StartedEvent {
  return { type: 'started', ...context.base(), changed, durationMs: context.elapsed() };
}
