// What nodes() reports of a node, and how much of it Pods already request: pure
// functions of the Node and of the Pods bound to it, plus the projections the node and
// pod informers cache (only the fields read here).
import type { V1Container, V1Node, V1Pod, V1Taint } from '../kube/objects.js';
import { isGpuResource } from '../input/gpus.js';
import { cpuMillicores, quantityUnits } from '../input/parse-quantity.js';

export interface NodeResources {
  readonly cpuMillicores: number;
  readonly memoryBytes: number;
  readonly pods: number;
  /** GPU resources (isGpuResource) by name; absent or empty: none. */
  readonly gpus?: Readonly<Record<string, number>>;
}

export interface NodeTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

export interface NodeInfo {
  readonly name: string;
  /** The Ready condition is True. */
  readonly ready: boolean;
  /** When the Ready condition last changed (ISO time): Ready, or not, since then. Null if unreported. */
  readonly readySince: string | null;
  /** The Ready condition's reason and message when not Ready (e.g. NodeStatusUnknown). */
  readonly notReadyReason: string | null;
  /** False when cordoned (`kubectl cordon`: spec.unschedulable). */
  readonly schedulable: boolean;
  /** Taints that keep new Pods off the node (NoSchedule, NoExecute); ours tolerate none. */
  readonly taints: readonly NodeTaint[];
  readonly internalIP: string | null;
  readonly externalIP: string | null;
  readonly kubeletVersion: string | null;
  readonly allocatable: NodeResources;
  /** What the non-terminated Pods bound to the node request, and how many there are. */
  readonly requested: NodeResources;
  /** The GPU resources the node offers (`nvidia.com/gpu`, ...), each allocatable and requested; empty: none. */
  readonly gpus: Readonly<Record<string, GpuCapacity>>;
}

export interface GpuCapacity {
  readonly allocatable: number;
  readonly requested: number;
}

const BLOCKING_EFFECTS = new Set(['NoSchedule', 'NoExecute']);

/** The node as nodes() reports it; `requested` is requestedBy() of the Pods bound to it. */
export function nodeInfo(node: V1Node, requested: NodeResources): NodeInfo {
  const ready = node.status?.conditions?.find((condition) => condition.type === 'Ready');
  const addresses = node.status?.addresses ?? [];
  const allocatable = node.status?.allocatable ?? {};
  const isReady = ready?.status === 'True';
  return {
    name: node.metadata?.name ?? '',
    ready: isReady,
    readySince: ready?.lastTransitionTime ? new Date(ready.lastTransitionTime).toISOString() : null,
    notReadyReason: isReady
      ? null
      : ready
        ? [ready.reason, ready.message].filter(Boolean).join(': ') || ready.status
        : 'no Ready condition',
    schedulable: node.spec?.unschedulable !== true,
    taints: (node.spec?.taints ?? []).filter((taint) => BLOCKING_EFFECTS.has(taint.effect)).map(taintOf),
    internalIP: addresses.find((address) => address.type === 'InternalIP')?.address ?? null,
    externalIP: addresses.find((address) => address.type === 'ExternalIP')?.address ?? null,
    kubeletVersion: node.status?.nodeInfo?.kubeletVersion ?? null,
    allocatable: {
      cpuMillicores: cpuMillicores(allocatable.cpu ?? '0') ?? 0,
      memoryBytes: quantityUnits(allocatable.memory ?? '0') ?? 0,
      pods: quantityUnits(allocatable.pods ?? '0') ?? 0,
    },
    requested,
    gpus: Object.fromEntries(
      Object.keys(allocatable)
        .filter(isGpuResource)
        .sort()
        .map((resource) => [
          resource,
          { allocatable: quantityUnits(allocatable[resource] ?? '0') ?? 0, requested: requested.gpus?.[resource] ?? 0 },
        ]),
    ),
  };
}

/** The GPUs a Pod's containers request, added into `into` by resource. */
function addGpuRequests(pod: V1Pod, into: Record<string, number>): void {
  for (const container of pod.spec?.containers ?? []) {
    for (const [resource, quantity] of Object.entries(container.resources?.requests ?? {})) {
      if (isGpuResource(resource)) into[resource] = (into[resource] ?? 0) + (quantityUnits(quantity) ?? 0);
    }
  }
}

/** What these Pods (the non-terminated ones bound to one node) request together. */
export function requestedBy(pods: readonly V1Pod[]): NodeResources {
  let cpu = 0;
  let memory = 0;
  let count = 0;
  const gpus: Record<string, number> = {};
  for (const pod of pods) {
    // A finished Pod no longer holds its requests (the field selector usually drops them already).
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
    const requests = podRequests(pod);
    cpu += requests.cpuMillicores;
    memory += requests.memoryBytes;
    count += 1;
    addGpuRequests(pod, gpus);
  }
  return { cpuMillicores: cpu, memoryBytes: memory, pods: count, ...(Object.keys(gpus).length > 0 ? { gpus } : {}) };
}

function taintOf(taint: V1Taint): NodeTaint {
  return { key: taint.key, ...(taint.value ? { value: taint.value } : {}), effect: taint.effect };
}

/**
 * What a Pod reserves on its node, as the scheduler counts it: its containers and sidecars
 * (restartable init containers) run together; each plain init container runs alone with
 * the sidecars started before it; the larger of the two, plus the runtime's overhead. A
 * pod-level request, where set, replaces the containers' sum.
 */
export function podRequests(pod: V1Pod): { readonly cpuMillicores: number; readonly memoryBytes: number } {
  return {
    cpuMillicores: podRequest(pod, 'cpu', (text) => cpuMillicores(text)),
    memoryBytes: podRequest(pod, 'memory', (text) => quantityUnits(text)),
  };
}

function podRequest(pod: V1Pod, resource: 'cpu' | 'memory', parse: (text: string) => number | undefined): number {
  const request = (container: { resources?: V1Container['resources'] }): number => {
    const text = container.resources?.requests?.[resource];
    return text === undefined ? 0 : (parse(text) ?? 0);
  };
  const spec = pod.spec;
  if (!spec) return 0;
  const overhead = spec.overhead?.[resource] === undefined ? 0 : (parse(spec.overhead[resource]) ?? 0);
  const podLevel = spec.resources?.requests?.[resource];
  if (podLevel !== undefined) return (parse(podLevel) ?? 0) + overhead;

  let sidecars = 0;
  let initPeak = 0;
  for (const init of spec.initContainers ?? []) {
    if (init.restartPolicy === 'Always') sidecars += request(init);
    else initPeak = Math.max(initPeak, sidecars + request(init));
  }
  const running = spec.containers.reduce((sum, container) => sum + request(container), 0) + sidecars;
  return Math.max(running, initPeak) + overhead;
}

// ---- what the informers cache --------------------------------------------------------

/** The fields of a Node that nodeInfo() reads (heartbeat times left out: they change every few seconds). */
export function cachedNodeFields(node: V1Node): V1Node {
  const status = node.status;
  return {
    metadata: { name: node.metadata?.name, resourceVersion: node.metadata?.resourceVersion },
    spec: { unschedulable: node.spec?.unschedulable, taints: node.spec?.taints },
    status: status && {
      conditions: status.conditions
        ?.filter((condition) => condition.type === 'Ready')
        .map(({ type, status: value, reason, message, lastTransitionTime }) => ({
          type,
          status: value,
          reason,
          message,
          lastTransitionTime,
        })),
      addresses: status.addresses,
      allocatable: status.allocatable,
      nodeInfo: status.nodeInfo && ({ kubeletVersion: status.nodeInfo.kubeletVersion } as NonNullable<V1Node['status']>['nodeInfo']),
    },
  };
}

/** The fields of a Pod that requestedBy() reads, and the node it is bound to. */
export function cachedPodRequestFields(pod: V1Pod): V1Pod {
  const spec = pod.spec;
  const resources = (container: V1Container): V1Container => ({ name: container.name, resources: container.resources });
  return {
    metadata: { name: pod.metadata?.name, namespace: pod.metadata?.namespace, resourceVersion: pod.metadata?.resourceVersion },
    spec: spec && {
      nodeName: spec.nodeName,
      overhead: spec.overhead,
      resources: spec.resources,
      initContainers: spec.initContainers?.map((container) => ({ ...resources(container), restartPolicy: container.restartPolicy })),
      containers: spec.containers.map(resources),
    },
    status: { phase: pod.status?.phase },
  };
}
