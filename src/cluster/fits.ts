// fits(): is there a node where the workload's Pod could go now? A hint before creating
// it, so a caller can warn instead of waiting for the Unschedulable grace period. It is
// NOT the scheduler: it knows our Pod's CPU, memory and Pod count, and the nodes' Ready
// state, cordons and NoSchedule/NoExecute taints; not affinity, topology spread, volumes,
// ports, extended resources other than the GPUs it asks, or Pods bound between this answer and the creation.
import type { KubernetesClient } from '../kube/client.js';
import { formatBytes, formatMillicores } from '../input/parse-quantity.js';
import type { PodRequest } from './namespace-limits.js';
import type { NodeInfo } from './node-info.js';
import { nodes, type NodesOptions } from './nodes.js';
import { parseResourceRequest } from './resource-request.js';

export interface NodeFit {
  readonly name: string;
  readonly fits: boolean;
  /** Why the Pod cannot go there now (empty when it fits). */
  readonly reasons: readonly string[];
}

export interface FitsResult {
  /** At least one Ready, schedulable node has room for the Pod's requests. */
  readonly fits: boolean;
  readonly request: PodRequest;
  readonly nodes: readonly NodeFit[];
  /** One line for a person: where it fits, or why it fits nowhere. */
  readonly message: string;
}

/** Pure: the verdict for a Pod requesting `request` on these nodes. */
export function fitsOnNodes(nodeInfos: readonly NodeInfo[], request: PodRequest): FitsResult {
  const fitsPerNode = nodeInfos.map((node): NodeFit => {
    const reasons = whyNot(node, request);
    return { name: node.name, fits: reasons.length === 0, reasons };
  });
  const fitting = fitsPerNode.filter((node) => node.fits).map((node) => node.name);
  const asked =
    `${formatMillicores(request.cpuMillicores)} CPU${request.gpus ? ', ' : ' and '}${formatBytes(request.memoryBytes)} memory` +
    (request.gpus ? ` and ${request.gpus.count} ${request.gpus.resource}` : '');
  const message =
    fitting.length > 0
      ? `${asked} fits on ${fitting.length} of ${fitsPerNode.length} node(s): ${fitting.join(', ')}`
      : fitsPerNode.length === 0
        ? `no node to run ${asked}: the cluster has no nodes`
        : `no Ready, schedulable node has room for ${asked}: ` +
          fitsPerNode.map((node) => `${node.name}: ${node.reasons.join(', ')}`).join('; ');
  return { fits: fitting.length > 0, request, nodes: fitsPerNode, message };
}

const CORDON_TAINT = 'node.kubernetes.io/unschedulable';
const NOT_READY_TAINTS = new Set(['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']);

function whyNot(node: NodeInfo, request: PodRequest): string[] {
  const reasons: string[] = [];
  if (!node.ready) reasons.push(`not Ready (${node.notReadyReason ?? 'unknown'})`);
  if (!node.schedulable) reasons.push('cordoned (unschedulable)');
  for (const taint of node.taints) {
    // The node controller's own taints for a cordoned or not-Ready node repeat the reasons above.
    if (taint.key === CORDON_TAINT ? !node.schedulable : NOT_READY_TAINTS.has(taint.key) && !node.ready) continue;
    reasons.push(`tainted ${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`);
  }
  const freeCpu = node.allocatable.cpuMillicores - node.requested.cpuMillicores;
  if (request.cpuMillicores > freeCpu) {
    reasons.push(
      `${formatMillicores(Math.max(0, freeCpu))} of ${formatMillicores(node.allocatable.cpuMillicores)} CPU free (needs ${formatMillicores(request.cpuMillicores)})`,
    );
  }
  const freeMemory = node.allocatable.memoryBytes - node.requested.memoryBytes;
  if (request.memoryBytes > freeMemory) {
    reasons.push(
      `${formatBytes(Math.max(0, freeMemory))} of ${formatBytes(node.allocatable.memoryBytes)} memory free (needs ${formatBytes(request.memoryBytes)})`,
    );
  }
  if (request.gpus) {
    const { resource, count } = request.gpus;
    const offered = node.gpus[resource];
    if (!offered || offered.allocatable === 0) reasons.push(`offers no ${resource}`);
    else if (offered.allocatable - offered.requested < count) {
      reasons.push(`${Math.max(0, offered.allocatable - offered.requested)} of ${offered.allocatable} ${resource} free (needs ${count})`);
    }
  }
  if (node.requested.pods + 1 > node.allocatable.pods) reasons.push(`already runs ${node.requested.pods} Pods, its maximum`);
  return reasons;
}

/**
 * Whether at least one Ready, schedulable node has room for the spec's requests now
 * (`{ cpus, memoryMb }` or a whole workload spec). A hint, never a promise: see above.
 * Throws InvalidSpecError for bad input (before any request), and the API's errors.
 */
export async function fits(api: KubernetesClient, spec: unknown, options: NodesOptions = {}): Promise<FitsResult> {
  const request = parseResourceRequest(spec);
  return fitsOnNodes(await nodes(api, options), request);
}
