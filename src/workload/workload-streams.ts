// The informer streams one operation holds: the workload's Deployment and Pod snapshots
// from the shared informers (one Deployment and one Pod watch per namespace, whatever the
// number of operations), subscribed once for the operation's whole length; and the wait
// for one generation's rollout over them.
import type { V1Deployment, V1Pod } from '../kube/objects.js';
import { ReplaySubject, connectable, defer, map, take, using, type Connectable, type Observable } from 'rxjs';
import { awaitRollout } from '../rollout/await-rollout.js';
import { crashLogOption } from './crash-logs.js';
import { guardGeneration } from './guard-generation.js';
import type { LifecycleEvent } from './lifecycle-events.js';
import type { OperationContext } from './operation.js';
import type { OwnedWorkload } from './ownership.js';
import { claimGates, deploymentSnapshots, podSnapshots } from './rollout-sources.js';
import { claimNameOf } from './storage-manifest.js';

export interface WorkloadStreams {
  /** The informer's snapshots of the Deployment (by name), the latest replayed. */
  readonly deployments$: Observable<readonly V1Deployment[]>;
  /** The informer's snapshots of the workload's Pods (by container-id), the latest replayed. */
  readonly pods$: Observable<readonly V1Pod[]>;
}

/**
 * Runs `body` with the workload's two informer streams subscribed for its whole length:
 * one subscription each, however many steps read them (a diagnosis, a write, a wait, a
 * rollback), and released when `body` ends.
 */
export function withWorkloadStreams<T>(
  context: OperationContext,
  containerId: string,
  body: (streams: WorkloadStreams) => Observable<T>,
): Observable<T> {
  return defer(() => {
    const deployments = held(deploymentSnapshots(context.informers, context.client, context.namespace, context.name, context.instance));
    const pods = held(podSnapshots(context.informers, context.client, context.namespace, containerId, context.instance));
    return using(
      () => {
        const deploymentsConnection = deployments.connect();
        const podsConnection = pods.connect();
        return { unsubscribe: () => (deploymentsConnection.unsubscribe(), podsConnection.unsubscribe()) };
      },
      () => body({ deployments$: deployments, pods$: pods }),
    );
  });
}

function held<T>(source: Observable<T>): Connectable<T> {
  return connectable(source, { connector: () => new ReplaySubject<T>(1), resetOnDisconnect: false });
}

/**
 * The UIDs of the workload's Pods now (once the informer has synced): taken right before a
 * write, they name Pods that cannot belong to the revision the write makes.
 */
export function podsBefore(streams: WorkloadStreams): Observable<ReadonlySet<string>> {
  return streams.pods$.pipe(
    take(1),
    map((pods) => new Set(pods.map((pod) => pod.metadata?.uid ?? ''))),
  );
}

/**
 * The rollout of `generation` (creation's awaitRollout: progress events, fail-fast Pod
 * diagnosis), ended at once with WorkloadSupersededError when a newer generation or a
 * deletion takes over. Pods that existed before the write (`olderPods`) are left out:
 * until the controller names the new ReplicaSet in its Progressing condition, the
 * condition still names the previous one, whose failing Pod (the crash loop a
 * reconfiguration is meant to fix) must not fail the new revision.
 */
export function awaitGenerationRollout(
  context: OperationContext,
  owned: OwnedWorkload,
  target: { readonly generation: number; readonly replicas: number },
  streams: WorkloadStreams,
  olderPods: ReadonlySet<string> = NO_PODS,
): Observable<LifecycleEvent> {
  const claim = claimNameOf(owned.deployment);
  const pods$ =
    olderPods.size === 0 ? streams.pods$ : streams.pods$.pipe(map((pods) => pods.filter((pod) => !olderPods.has(pod.metadata?.uid ?? ''))));
  return awaitRollout(
    { namespace: context.namespace, name: context.name, uid: owned.uid, providerId: context.providerId },
    streams.deployments$.pipe(guardGeneration(context.operation, { ...context, uid: owned.uid, ...target })),
    pods$,
    {
      scheduler: context.scheduler,
      failurePolicy: context.failurePolicy,
      // The container's claim stays a readiness gate of every new Pod (a volume still attached elsewhere, say).
      ...(claim
        ? {
            gates$: claimGates(
              context.informers,
              context.client,
              context.namespace,
              { metadata: { name: claim } },
              context.instance,
              pods$,
            ),
          }
        : {}),
      ...crashLogOption(context.client, context.namespace, context.scheduler),
    },
  );
}

const NO_PODS: ReadonlySet<string> = new Set();
