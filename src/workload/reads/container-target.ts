// The container a terminal or a log reaches: the workload's Deployment, read by the
// provider ID and proved the expected Manager container's (ownership.ts), and a Pod of its
// current rollout found by the workload's labels and its ReplicaSet (rollout-pods.ts),
// never by a name the caller gives. A terminal needs the container running; a log needs it
// started (running or ended); `previous` needs a run before the current one.
import { ApiError, NotFoundError } from '../../errors/api.js';
import { ExecFailedError, KubeletUnreachableError, NoRunningContainerError } from '../../errors/exec.js';
import { CONTAINER_ID_LABEL, managedSelector } from '../../input/labels.js';
import { parseProviderId } from '../../input/provider-id.js';
import type { KubernetesClient } from '../../kube/client.js';
import type { V1ContainerStatus, V1Deployment, V1Pod } from '../../kube/objects.js';
import { currentRolloutPods } from '../../rollout/rollout-pods.js';
import { oneLine } from '../../text.js';
import { WorkloadNotFoundError, ownedWorkload } from '../toolkit/ownership.js';
import { workloadContainer } from '../../members/deployment/container.js';

/** What the caller wants of the container: a command in it, its log, or its previous run's log. */
export type ContainerPurpose = 'exec' | 'logs' | 'previous';

export interface ContainerTargetOptions {
  /** Manager's container id: a Deployment carrying another one is refused (WorkloadOwnershipError). */
  readonly containerId?: string | undefined;
  /** The Manager installation the workload must belong to (instance label). */
  readonly instance?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface ContainerTarget {
  readonly namespace: string;
  /** The workload (Deployment) name. */
  readonly workload: string;
  readonly pod: string;
  readonly container: string;
  /** The node the Pod runs on ('' before scheduling). */
  readonly node: string;
  /** The runtime's id of the container run reached ('' when unknown); a new run has a new one. */
  readonly containerId: string;
  /** The Pod's uid: a replaced Pod has another. */
  readonly podUid: string;
  /** The workload's label selector (managed, container-id, instance). */
  readonly selector: string;
  /** Whether the container has a tty (its output is a console's). */
  readonly tty: boolean;
}

/** The workload and the Pod of its current rollout whose container fits `purpose`. */
export async function findContainer(
  client: KubernetesClient,
  providerId: string,
  purpose: ContainerPurpose,
  options: ContainerTargetOptions = {},
): Promise<ContainerTarget> {
  const { namespace, name } = parseProviderId(providerId);
  const operation = purpose === 'exec' ? 'exec' : 'logs';
  let deployment: V1Deployment;
  try {
    deployment = await client.read('deployments', namespace, name, { signal: options.signal });
  } catch (error) {
    if (error instanceof NotFoundError) throw new WorkloadNotFoundError({ namespace, name }, { cause: error });
    throw error;
  }
  const owned = ownedWorkload(
    { operation, namespace, name, expectedContainerId: options.containerId, instance: options.instance },
    deployment,
  );
  const container = workloadContainer(deployment)?.name;
  if (container === undefined) throw new NoRunningContainerError(namespace, name, 'its pod template has no container named like it');
  const selector = `${managedSelector(options.instance)},${CONTAINER_ID_LABEL}=${owned.containerId}`;
  const pods = (await client.list('pods', namespace, selector, { signal: options.signal })).items;
  const current = currentRolloutPods(deployment, pods);
  const pod = pickPod(current.length > 0 ? current : pods, container, purpose);
  if (pod === undefined) throw new NoRunningContainerError(namespace, name, whyNone(pods, container, purpose, owned.replicas));
  return targetOf(namespace, name, pod, container, selector, purpose);
}

/** The target for a Pod found otherwise (a follow's next Pod). */
export function targetOf(
  namespace: string,
  workload: string,
  pod: V1Pod,
  container: string,
  selector: string,
  purpose: ContainerPurpose = 'logs',
): ContainerTarget {
  const status = containerStatus(pod, container);
  const previousId = status?.lastState?.terminated?.containerID;
  return {
    namespace,
    workload,
    pod: pod.metadata?.name ?? '',
    container,
    node: pod.spec?.nodeName ?? '',
    containerId: (purpose === 'previous' ? previousId : status?.containerID) ?? '',
    podUid: pod.metadata?.uid ?? '',
    selector,
    tty: pod.spec?.containers.find((spec) => spec.name === container)?.tty === true,
  };
}

export function containerStatus(pod: V1Pod, container: string): V1ContainerStatus | undefined {
  return pod.status?.containerStatuses?.find((status) => status.name === container);
}

/** Whether the Pod's container fits: running (exec), started (logs), or with an ended run before (previous). */
export function fits(pod: V1Pod, container: string, purpose: ContainerPurpose): boolean {
  if (pod.metadata?.deletionTimestamp && purpose === 'exec') return false;
  const status = containerStatus(pod, container);
  if (purpose === 'previous') return status?.lastState?.terminated !== undefined;
  if (purpose === 'exec') return status?.state?.running !== undefined;
  return status?.state?.running !== undefined || status?.state?.terminated !== undefined;
}

/** The newest fitting Pod: a Pod not being deleted first, then the latest created. */
function pickPod(pods: readonly V1Pod[], container: string, purpose: ContainerPurpose): V1Pod | undefined {
  const fitting = pods.filter((pod) => fits(pod, container, purpose));
  return fitting.sort((a, b) => rank(b) - rank(a))[0];
}

function rank(pod: V1Pod): number {
  const created = Date.parse(String(pod.metadata?.creationTimestamp ?? '')) || 0;
  return (pod.metadata?.deletionTimestamp ? 0 : 1e15) + created;
}

/** Why no Pod fits, in words: what the workload's Pods are doing instead. */
function whyNone(pods: readonly V1Pod[], container: string, purpose: ContainerPurpose, replicas: number): string {
  if (pods.length === 0) return replicas === 0 ? 'it is stopped (0 replicas)' : 'it has no pod yet';
  const states = pods.map((pod) => {
    const status = containerStatus(pod, container);
    const waiting = status?.state?.waiting;
    const what = waiting
      ? `waiting (${oneLine(waiting.reason) || 'no reason'})`
      : status?.state?.running
        ? 'running'
        : (pod.status?.phase ?? 'unknown');
    return `pod ${pod.metadata?.name ?? ''} is ${pod.metadata?.deletionTimestamp ? 'being deleted' : what}`;
  });
  const need = purpose === 'exec' ? 'a running container' : purpose === 'previous' ? 'a container that ran before' : 'a started container';
  return `it needs ${need}; ${states.join('; ')}`;
}

// The API server's words when it cannot reach the kubelet that serves exec and logs.
const KUBELET_DIAL =
  /error dialing backend|error sending request|dial tcp|no such host|connection refused|no route to host|i\/o timeout|:10250/i;

/**
 * An error from pods/exec or pods/log, as KubeletUnreachableError when the API server could
 * not reach the Pod's kubelet: its answer to the request, or (exec) the status it sent once
 * the upgrade was accepted.
 */
export function kubeletError(error: unknown, target: ContainerTarget): unknown {
  const where = { namespace: target.namespace, pod: target.pod, node: target.node };
  if (error instanceof ApiError && (error.statusCode ?? 0) >= 500 && KUBELET_DIAL.test(error.message)) {
    return new KubeletUnreachableError(where, error.message, { cause: error });
  }
  if (error instanceof ExecFailedError && !error.notFound && KUBELET_DIAL.test(error.detail)) {
    return new KubeletUnreachableError(where, error.detail, { cause: error });
  }
  return error;
}
