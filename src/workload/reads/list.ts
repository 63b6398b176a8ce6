// list(): every Deployment of a namespace that carries our ownership labels, with its
// status, in the shape of Manager's node snapshots (its clusterResources entries:
// `vmid`, `name`, `type`, `status`), the provider ID standing where Manager matches
// `Container.containerId`. The requests at once: the managed Deployments and Pods, and
// every watch of each member with a part in the status (member-status.ts: Services,
// EndpointSlices, claims; a workload whose Pods mount a claim shows it as `storage`, and a
// caller that may not list claims gets the list without it). Point-in-time, judged like
// status(); for a live list use statuses$.
//
// A namespace that cannot be listed has no workloads to call `unknown`: list() rejects
// with the typed error (ApiUnreachableError, ApiTimeoutError past `timeoutMs`, ...).
import type { V1Pod } from '../../kube/objects.js';
import { OperationAbortedError } from '../../errors/operation.js';
import { ApiTimeoutError } from '../../errors/api.js';
import { MEMBERS, type MemberTable } from '../../members/set.js';
import { judgeMembers, listMembers, listedMemberViews, statusMembers } from './member-status.js';
import type { KubernetesClient } from '../../kube/client.js';
import { resolveFailurePolicy, type FailurePolicyOverrides } from '../../rollout/failure-policy.js';
import { workloadStatus, type WorkloadState, type WorkloadStatusValue } from '../../rollout/workload-status.js';
import { abortOn } from '../../rx/abort-on.js';
import { maskOutput } from '../../rx/mask-output.js';
import { maskOf } from '../../mask.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import { NODE_ID_LABEL, containerIdOf, managedSelector } from '../../input/labels.js';
import { asyncScheduler, lastValueFrom, map, type SchedulerLike } from 'rxjs';
import { deadline } from '../../rx/deadline.js';
import { checkReadOptions, namespaceOption, timeoutOption } from '../toolkit/read-options.js';

export interface ListOptions {
  /** Default: the client's namespace. */
  readonly namespace?: string;
  /** Bound on the whole list; default 30000. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly failurePolicy?: FailurePolicyOverrides;
  /** Clock and timers (tests). */
  readonly scheduler?: SchedulerLike;
  /** The Manager installation (instance label) to list; default: workloads without an instance label. */
  readonly instance?: string;
  /** The member kinds of a workload; default MEMBERS (claim, Deployment, Service). */
  readonly members?: MemberTable;
}

/** One workload, shaped like an entry of Manager's node snapshot. */
export interface WorkloadSnapshot {
  /** The provider ID `namespace/name`, under the key Manager's snapshot lookup reads. */
  readonly vmid: string;
  /** The Deployment name (= Manager's hostname). */
  readonly name: string;
  readonly type: 'deployment';
  /** Manager's status word. */
  readonly status: WorkloadState;
  readonly providerId: string;
  readonly namespace: string;
  /** The container-id label (Manager's Container.id). */
  readonly containerId: string;
  /** The node-id label (Manager's Node.id). */
  readonly nodeId: string;
  /** Everything behind the word: reason, message, Pod IP, node, restarts, image, resources, ... */
  readonly detail: WorkloadStatusValue;
}

/** Sorted by name. */
export async function list(client: KubernetesClient, options: ListOptions = {}): Promise<WorkloadSnapshot[]> {
  checkReadOptions('list', options);
  const namespace = namespaceOption(options.namespace, client);
  const timeoutMs = timeoutOption(options.timeoutMs);
  const policy = resolveFailurePolicy(options.failurePolicy);
  const members = statusMembers(options.members ?? MEMBERS);
  const scope = { client, namespace, instance: options.instance };
  const read$ = fromAbortable((signal) =>
    Promise.all([
      client.list('deployments', namespace, managedSelector(options.instance), { signal }),
      client.list('pods', namespace, managedSelector(options.instance), { signal }),
      listMembers(scope, members, signal),
    ]),
  );
  return lastValueFrom(
    read$.pipe(
      map(([deployments, pods, listed]) => {
        const podsByContainerId = new Map<string, V1Pod[]>();
        for (const pod of pods.items) {
          const containerId = containerIdOf(pod);
          if (containerId === undefined) continue;
          const group = podsByContainerId.get(containerId);
          if (group) group.push(pod);
          else podsByContainerId.set(containerId, [pod]);
        }
        const snapshots: WorkloadSnapshot[] = [];
        for (const deployment of deployments.items) {
          const name = deployment.metadata?.name;
          const containerId = containerIdOf(deployment);
          if (!name || containerId === undefined) continue;
          const workloadPods = podsByContainerId.get(containerId) ?? [];
          const views = listedMemberViews(members, listed, name, deployment);
          const detail = workloadStatus(deployment, workloadPods, {
            failurePolicy: policy,
            members: judgeMembers(views, deployment, workloadPods, policy),
          });
          if (detail.state === 'missing') continue; // not ours after all
          const providerId = `${namespace}/${name}`;
          snapshots.push({
            vmid: providerId,
            name,
            type: 'deployment',
            status: detail.state,
            providerId,
            namespace,
            containerId,
            nodeId: deployment.metadata?.labels?.[NODE_ID_LABEL] ?? '',
            detail,
          });
        }
        return snapshots.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      }),
      deadline(
        timeoutMs,
        () => new ApiTimeoutError(client.server, timeoutMs, { target: { verb: 'list', resource: 'deployments', namespace } }),
        options.scheduler ?? asyncScheduler,
      ),
      abortOn(options.signal, (reason) => new OperationAbortedError('list', `namespace ${namespace}`, reason)),
      maskOutput(maskOf(client)),
    ),
  );
}
