// list(): every Deployment of a namespace that carries our ownership labels, with its
// status, in the shape of Manager's node snapshots (its clusterResources entries:
// `vmid`, `name`, `type`, `status`), the provider ID standing where Manager matches
// `Container.containerId`. Five requests at once: the managed Deployments, Pods, Services,
// EndpointSlices and claims (a workload whose Pods mount a claim shows it as `storage`;
// a caller that may not list claims gets the list without it). Point-in-time, judged like
// status(); for a live list use statuses$.
//
// A namespace that cannot be listed has no workloads to call `unknown`: list() rejects
// with the typed error (ApiUnreachableError, ApiTimeoutError past `timeoutMs`, ...).
import type { V1EndpointSlice, V1PersistentVolumeClaim, V1Pod } from '../../kube/objects.js';
import { SERVICE_NAME_LABEL } from '../../kube/objects.js';
import { OperationAbortedError } from '../../errors/operation.js';
import { ApiTimeoutError, ForbiddenError } from '../../errors/api.js';
import { claimStatus } from '../../rollout/claim-status.js';
import { claimNameOf } from '../../members/claim/manifest.js';
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
  const read$ = fromAbortable((signal) =>
    Promise.all([
      client.list('deployments', namespace, managedSelector(options.instance), { signal }),
      client.list('pods', namespace, managedSelector(options.instance), { signal }),
      client.list('services', namespace, managedSelector(options.instance), { signal }),
      client.list('endpointslices', namespace, managedSelector(options.instance), { signal }),
      client.list('persistentvolumeclaims', namespace, managedSelector(options.instance), { signal }).catch((error: unknown) => {
        if (error instanceof ForbiddenError) return undefined;
        throw error;
      }),
    ]),
  );
  return lastValueFrom(
    read$.pipe(
      map(([deployments, pods, services, slices, claims]) => {
        const claimsByName =
          claims && new Map<string, V1PersistentVolumeClaim>(claims.items.map((claim) => [claim.metadata?.name ?? '', claim]));
        const servicesByName = new Map(services.items.map((service) => [service.metadata?.name ?? '', service]));
        const slicesByService = new Map<string, V1EndpointSlice[]>();
        for (const slice of slices.items) {
          const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
          if (service === undefined) continue;
          const group = slicesByService.get(service);
          if (group) group.push(slice);
          else slicesByService.set(service, [slice]);
        }
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
          const service = servicesByName.get(name);
          const status = workloadStatus(deployment, podsByContainerId.get(containerId) ?? [], {
            failurePolicy: policy,
            ...(service ? { service, slices: slicesByService.get(name) ?? [] } : {}),
          });
          if (status.state === 'missing') continue; // not ours after all
          const claimName = claimNameOf(deployment);
          const detail =
            claimName !== undefined && claimsByName ? { ...status, storage: claimStatus(claimsByName.get(claimName), claimName) } : status;
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
