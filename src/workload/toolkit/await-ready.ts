// awaitReady(): the one wait for a workload to be ready, which provision$ and every
// operation that rolls out (start, restart, reconfigure, setPorts' rollouts) take: the
// rollout of its Deployment with the claim as a readiness gate (a volume that will not
// bind or attach is named, never waited out), then, with a Service, until the Service
// routes to the new Pod (ready means reachable), recording a NodePort's node address.
import { concat, defer, type Observable, type SchedulerLike } from 'rxjs';
import type { InformerRegistry } from '../../informers/registry.js';
import type { KubernetesClient } from '../../kube/client.js';
import type { V1Deployment, V1PersistentVolumeClaim, V1Pod } from '../../kube/objects.js';
import { claimGates } from '../../members/claim/member.js';
import { awaitRollout, type RolloutTarget } from '../../rollout/await-rollout.js';
import { awaitRouted, type RoutedProgressEvent, type RoutedSources } from '../../rollout/await-routed.js';
import type { ProgressEvent } from '../../rollout/events.js';
import { loadBalancerGraceEndsBy, type FailurePolicy, type WaitDeadline } from '../../rollout/failure-policy.js';
import { crashLogOption } from './crash-logs.js';
import { recordNodeAddress } from './node-address.js';

export interface ReadyWait {
  readonly client: KubernetesClient;
  readonly informers: InformerRegistry;
  readonly instance: string | undefined;
  readonly scheduler: SchedulerLike;
  readonly failurePolicy: FailurePolicy;
  readonly target: RolloutTarget;
  /** The operation's deadline: a pending load balancer fails by name before it. */
  readonly deadline: WaitDeadline | undefined;
  readonly deployments$: Observable<readonly V1Deployment[]>;
  readonly pods$: Observable<readonly V1Pod[]>;
  /** The Service's and its slices' streams, held by the operation from its start. */
  readonly routed: Omit<RoutedSources, 'deployments$' | 'pods$'>;
  /** The claim the Pods mount: the one of its UID when this run created or adopted it, else the one of its name. */
  readonly claim: V1PersistentVolumeClaim | undefined;
  /**
   * Which Service must route: the one of this UID (`uid`), whichever the informer holds
   * (`{}`: none there means nothing to route), or none (`undefined`: no wait at all).
   */
  readonly service: { readonly uid?: string } | undefined;
  /** The Deployment as this run wrote it, whose crash logs are read. */
  readonly written?: V1Deployment;
}

export function awaitReady(wait: ReadyWait): Observable<ProgressEvent | RoutedProgressEvent> {
  const { client, informers, instance, scheduler, failurePolicy, target, deployments$, pods$, claim, service } = wait;
  const rollout$ = awaitRollout(target, deployments$, pods$, {
    scheduler,
    failurePolicy,
    ...crashLogOption(client, target.namespace, scheduler, wait.written),
    // Never waiting for the claim to bind before the Pod: the claim is a readiness gate.
    ...(claim ? { gates$: claimGates(informers, client, target.namespace, claim, instance, pods$) } : {}),
  });
  if (service === undefined) return rollout$;
  return concat(
    rollout$,
    defer(() =>
      awaitRouted(
        target,
        { deployments$, pods$, ...wait.routed },
        {
          scheduler,
          failurePolicy,
          ...(service.uid !== undefined ? { serviceUid: service.uid } : {}),
          loadBalancerEndsBy: loadBalancerGraceEndsBy(wait.deadline),
        },
      ).pipe(recordNodeAddress(client, target.namespace, target.name)),
    ),
  );
}
