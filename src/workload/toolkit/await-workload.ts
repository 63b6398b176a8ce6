// The waits of the lifecycle operations that are not a rollout, over the informers'
// snapshots (no polling, no timer of their own; the caller's deadline bounds them):
//   awaitStopped   stop: the controller saw replicas 0 and no Pod of the workload is left
//                  (the Pods are counted, not the Deployment's status: a 0-replica
//                  Deployment may carry no replica counts at all)
//   awaitObserved  reconfigure of a stopped workload: the controller saw the new generation
//   awaitRemoved   remove: every object deleted and every Pod of the workload are gone
// Each emits a `waiting` event when what it waits for changes, and completes when done.
import type { V1Deployment, V1Pod } from '../../kube/objects.js';
import { asyncScheduler, combineLatest, distinctUntilChanged, map, takeWhile, type Observable, type SchedulerLike } from 'rxjs';
import type { KubeObject } from '../../informers/reflector.js';
import { diagnosePod } from '../../rollout/pod-diagnosis.js';
import { isoTime } from '../../rx/clock-time.js';
import type { WaitingEvent } from './lifecycle-events.js';

export interface WaitTarget {
  readonly namespace: string;
  readonly name: string;
  readonly providerId: string;
}

export interface WaitOptions {
  readonly scheduler?: SchedulerLike;
}

interface WaitState {
  readonly done: boolean;
  readonly message: string;
  readonly pods: readonly string[];
}

/**
 * @param deployments$ snapshots already narrowed to the target generation (guardGeneration)
 * @param pods$ the Pods carrying the workload's container-id label
 */
export function awaitStopped(
  target: WaitTarget,
  deployments$: Observable<readonly V1Deployment[]>,
  pods$: Observable<readonly V1Pod[]>,
  options: WaitOptions = {},
): Observable<WaitingEvent> {
  return waitUntil(
    target,
    combineLatest([deployments$, pods$]).pipe(map(([deployments, pods]) => stoppedState(deployments[0], pods))),
    options,
  );
}

/** @param deployments$ snapshots already narrowed to the target generation (guardGeneration) */
export function awaitObserved(
  target: WaitTarget,
  deployments$: Observable<readonly V1Deployment[]>,
  options: WaitOptions = {},
): Observable<WaitingEvent> {
  return waitUntil(
    target,
    deployments$.pipe(
      map(([deployment]) => {
        const generation = deployment?.metadata?.generation ?? 0;
        const observed = (deployment?.status?.observedGeneration ?? 0) >= generation;
        return { done: observed, message: `waiting for the deployment controller to observe generation ${generation}`, pods: [] };
      }),
    ),
    options,
  );
}

/** An object deleted, and the informer's snapshots of its name. */
export interface DeletedObject {
  /** As the API names it: `Deployment`. */
  readonly kind: string;
  /** The object deleted (another object of the same name is not it). */
  readonly uid: string;
  readonly snapshots$: Observable<readonly KubeObject[]>;
  /** Which cached objects are still it (or what must go with it); absent: the one of its UID. */
  readonly left?: (object: KubeObject) => boolean;
}

/** @param pods$ the Pods carrying the workload's container-id label */
export function awaitRemoved(
  target: WaitTarget,
  deleted: readonly DeletedObject[],
  pods$: Observable<readonly V1Pod[]>,
  options: WaitOptions = {},
): Observable<WaitingEvent> {
  return waitUntil(
    target,
    combineLatest([pods$, ...deleted.map((object) => object.snapshots$)]).pipe(
      map(([pods, ...snapshots]): WaitState => {
        if (pods.length > 0) return podsLeft(pods);
        const left = deleted.find((object, index) =>
          snapshots[index]!.some((each) => (object.left ? object.left(each) : each.metadata?.uid === object.uid)),
        );
        if (left) return { done: false, message: `waiting for the ${left.kind} to be deleted`, pods: [] };
        return { done: true, message: 'gone', pods: [] };
      }),
    ),
    options,
  );
}

function stoppedState(deployment: V1Deployment | undefined, pods: readonly V1Pod[]): WaitState {
  const generation = deployment?.metadata?.generation ?? 0;
  if (!deployment || (deployment.status?.observedGeneration ?? 0) < generation) {
    return { done: false, message: `waiting for the deployment controller to observe generation ${generation}`, pods: podNames(pods) };
  }
  // The Pod informer is the authority on "no Pod left": the Deployment's replica count
  // reaches 0 only a controller round trip after the last Pod is gone (seconds under load).
  if (pods.length > 0) return podsLeft(pods);
  return { done: true, message: 'stopped', pods: [] };
}

function podsLeft(pods: readonly V1Pod[]): WaitState {
  const described = pods.map((pod) => `${pod.metadata?.name ?? '?'}: ${podPhase(pod)}`);
  return {
    done: false,
    message: `waiting for ${pods.length} pod${pods.length === 1 ? '' : 's'} to go (${described.join(', ')})`,
    pods: podNames(pods),
  };
}

function podPhase(pod: V1Pod): string {
  if (pod.metadata?.deletionTimestamp) return 'Terminating';
  return diagnosePod(pod)?.reason ?? pod.status?.phase ?? 'Pending';
}

function podNames(pods: readonly V1Pod[]): string[] {
  return pods.map((pod) => pod.metadata?.name ?? '?');
}

function waitUntil(target: WaitTarget, states$: Observable<WaitState>, options: WaitOptions): Observable<WaitingEvent> {
  const scheduler = options.scheduler ?? asyncScheduler;
  return states$.pipe(
    distinctUntilChanged((a, b) => a.done === b.done && a.message === b.message),
    takeWhile((state) => !state.done),
    map((state): WaitingEvent => ({
      type: 'waiting',
      at: isoTime(scheduler),
      namespace: target.namespace,
      name: target.name,
      providerId: target.providerId,
      message: state.message,
      pods: state.pods,
    })),
  );
}
