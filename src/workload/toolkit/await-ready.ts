// awaitReady(): the one wait for a workload to be ready, which provision$, every operation
// that rolls out (start, restart, reconfigure) and setPorts take: the tracker over the
// rollout of its Deployment, its Pods and every member's rollout gates (the claim's: a
// volume that will not bind or attach is named, never waited out; the Service's: it routes
// to the new Pod, ready means reachable), the rule the status board applies too. Once the
// Service routes, a NodePort's node address is recorded.
import { combineLatest, filter, map, type Observable, type SchedulerLike } from 'rxjs';
import type { InformerRegistry } from '../../informers/registry.js';
import type { KubernetesClient } from '../../kube/client.js';
import type { V1Deployment, V1Pod } from '../../kube/objects.js';
import type { MemberKind, MemberTable, WorkloadMember } from '../../members/set.js';
import { awaitRollout, type RolloutTarget } from '../../rollout/await-rollout.js';
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
  /** The operation's deadline: a gate's grace window (a pending load balancer) ends by name before it. */
  readonly deadline: WaitDeadline | undefined;
  readonly deployments$: Observable<readonly V1Deployment[]>;
  readonly pods$: Observable<readonly V1Pod[]>;
  /** The member kinds of the workload, whose rollout gates are judged. */
  readonly table: MemberTable;
  /**
   * Its members as the run found or made them (their UIDs and the versions written count),
   * or known by name alone (any of that name): those whose kind has rollout gates are gates.
   */
  readonly members: readonly WorkloadMember[];
  /** The Deployment as this run wrote it, whose crash logs are read. */
  readonly written?: V1Deployment;
}

export function awaitReady(wait: ReadyWait): Observable<ProgressEvent> {
  const { client, informers, instance, scheduler, failurePolicy, target, deployments$, pods$ } = wait;
  const sources = {
    scope: { registry: informers, client, namespace: target.namespace, instance },
    deployment$: deployments$.pipe(
      map((objects) => objects.find((object) => object.metadata?.uid === target.uid)),
      filter((object): object is V1Deployment => object !== undefined),
    ),
    pods$,
    failurePolicy,
    graceEndsBy: loadBalancerGraceEndsBy(wait.deadline),
  };
  const gates = wait.members.flatMap((member) => {
    const gatesOf = wait.table.rulesOf<MemberKind>(member.kind).rolloutGates;
    return gatesOf ? [gatesOf(member.object, sources)] : [];
  });
  const rollout$ = awaitRollout(target, deployments$, pods$, {
    scheduler,
    failurePolicy,
    ...crashLogOption(client, target.namespace, scheduler, wait.written),
    ...(gates.length > 0 ? { gates$: gates.length === 1 ? gates[0]! : combineLatest(gates).pipe(map((each) => each.flat())) } : {}),
  });
  // Only a gate's progress carries a route: without gates, no operator per event.
  return gates.length > 0 ? rollout$.pipe(recordNodeAddress(client, target.namespace, target.name)) : rollout$;
}
