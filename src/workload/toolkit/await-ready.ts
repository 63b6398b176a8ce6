// awaitReady(): the one wait for a workload to be ready, which provision$ and every
// operation that rolls out (start, restart, reconfigure, setPorts' rollouts) take: the
// rollout of its Deployment with every member's rollout gates (the claim's: a volume that
// will not bind or attach is named, never waited out), then, with a Service, until the
// Service routes to the new Pod (ready means reachable), recording a NodePort's node address.
import { combineLatest, concat, defer, map, type Observable, type SchedulerLike } from 'rxjs';
import type { InformerRegistry } from '../../informers/registry.js';
import type { KubernetesClient } from '../../kube/client.js';
import type { V1Deployment, V1Pod } from '../../kube/objects.js';
import type { MemberKind, MemberTable, WorkloadMember } from '../../members/set.js';
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
  /** The member kinds of the workload, whose rollout gates are judged. */
  readonly table: MemberTable;
  /**
   * Its members as the run found or made them (only their UIDs count), or known by name
   * alone (any of that name): those whose kind has rollout gates are gates of the rollout.
   */
  readonly members: readonly WorkloadMember[];
  /**
   * Which Service must route: the one of this UID (`uid`), whichever the informer holds
   * (`{}`: none there means nothing to route), or none (`undefined`: no wait at all).
   */
  readonly service: { readonly uid?: string } | undefined;
  /** The Deployment as this run wrote it, whose crash logs are read. */
  readonly written?: V1Deployment;
}

export function awaitReady(wait: ReadyWait): Observable<ProgressEvent | RoutedProgressEvent> {
  const { client, informers, instance, scheduler, failurePolicy, target, deployments$, pods$, service } = wait;
  const scope = { registry: informers, client, namespace: target.namespace, instance };
  const gates = wait.members.flatMap((member) => {
    const gatesOf = wait.table.rulesOf<MemberKind>(member.kind).rolloutGates;
    return gatesOf ? [gatesOf(scope, member.object, pods$)] : [];
  });
  const rollout$ = awaitRollout(target, deployments$, pods$, {
    scheduler,
    failurePolicy,
    ...crashLogOption(client, target.namespace, scheduler, wait.written),
    ...(gates.length > 0 ? { gates$: gates.length === 1 ? gates[0]! : combineLatest(gates).pipe(map((each) => each.flat())) } : {}),
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
