// stop$() / stop(): scale a workload to 0 and wait until no Pod of it is left.
//
//   read (ours?) -> hold the informers -> `diagnosed` for every Pod with something to say
//   (taken BEFORE the scale-down takes the Pods away: a crash loop's reason and last exit
//   stay in the log) -> replicas 0 unless already (no write then) -> `scaled`
//   -> wait: the controller saw it, counts 0 replicas (missing counts are 0), no Pod left
//   -> `stopped`
import { concat, defer, from, map, of, switchMap, take, type Observable } from 'rxjs';
import type { KubernetesClient } from '../../kube/client.js';
import { diagnosePod } from '../../rollout/pod-diagnosis.js';
import type { PodDiagnosis } from '../../rollout/events.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import { awaitStopped } from '../toolkit/await-workload.js';
import { guardGeneration } from '../toolkit/guard-generation.js';
import { haltWatchOf, withHaltWarnings } from '../toolkit/halt-warnings.js';
import type { DiagnosedEvent, LifecycleEvent, StoppedEvent } from '../toolkit/lifecycle-events.js';
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
import { withWorkloadStreams, type WorkloadStreams } from '../toolkit/workload-streams.js';

export type StopOptions = WorkloadOperationOptions;
export type StopResult = OperationResult;

/** Cold: nothing happens until subscribed; each subscription stops once. */
export function stop$(client: KubernetesClient, providerId: string, options: StopOptions = {}): Observable<LifecycleEvent> {
  return runOperation('stop', client, providerId, options, (context) =>
    fromAbortable((signal) => readOwned(context, signal)).pipe(
      switchMap((owned) =>
        withWorkloadStreams(context, owned.containerId, (streams) =>
          concat(
            diagnoseBeforeTheyGo(context, streams),
            fromAbortable((signal) =>
              patchLive(context, owned, (live) => (live.replicas === 0 ? undefined : { spec: { replicas: 0 } }), signal, { exact: false }),
            ).pipe(
              switchMap(({ written, live }) => {
                const generation = written?.metadata?.generation ?? live.generation;
                const target = { ...context, uid: live.uid, generation, replicas: 0 };
                return concat(
                  written
                    ? of<LifecycleEvent>({ type: 'scaled', ...context.base(), replicas: 0, previousReplicas: live.replicas, generation })
                    : of<LifecycleEvent>(),
                  awaitStopped(context, streams.deployments$.pipe(guardGeneration('stop', target)), streams.pods$, context).pipe(
                    withHaltWarnings(haltWatchOf(owned, context, streams.pods$)),
                  ),
                  defer(() => of(stopped(context, written !== undefined))),
                );
              }),
            ),
          ),
        ),
      ),
    ),
  );
}

/** Resolves once the workload is at 0 replicas and none of its Pods is left. */
export function stop(client: KubernetesClient, providerId: string, options: StopOptions = {}): Promise<StopResult> {
  return outcomeOf(stop$(client, providerId, options), 'stopped', (event: StoppedEvent) => resultBase(event));
}

/** One `diagnosed` event per Pod that has something to say, from the informer's current view. */
export function diagnoseBeforeTheyGo(context: OperationContext, streams: WorkloadStreams): Observable<DiagnosedEvent> {
  return streams.pods$.pipe(
    take(1),
    switchMap((pods) => from(pods.map(diagnosePod).filter((diagnosis): diagnosis is PodDiagnosis => diagnosis !== undefined))),
    map((pod): DiagnosedEvent => ({ type: 'diagnosed', ...context.base(), pod })),
  );
}

function stopped(context: OperationContext, changed: boolean): StoppedEvent {
  return { type: 'stopped', ...context.base(), changed, durationMs: context.elapsed() };
}
