// nodes() and nodes$(): the cluster's nodes, whether a new Pod can go there, and how much
// of each node Pods already request.
//
// Where the requests come from: the Pods bound to a node and not finished, selected on
// the server (field selector `spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed`,
// as the scheduler counts them) across every namespace.
//   - nodes$() keeps one shared Pod informer with that selector (one watch for the whole
//     cluster, Pods cached with their requests only), because a live view must follow
//     every Pod that starts or ends; each node's sum is recomputed from its own Pods only.
//   - nodes() makes the same selected list once, beside one list of nodes: two requests,
//     and an unreachable API, a 401 or a 403 is an error at once (an informer would retry).
import { type V1Node, type V1Pod } from '../kube/objects.js';
import {
  asyncScheduler,
  combineLatest,
  defer,
  distinctUntilChanged,
  filter,
  ignoreElements,
  lastValueFrom,
  map,
  merge,
  of,
  switchMap,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { DiscoveryTimeoutError, OperationAbortedError } from '../errors/operation.js';
import { DURATION_RULES, requireDuration } from '../input/duration.js';
import { defaultInformerRegistry, type InformerRegistry, type InformerRequest } from '../informers/registry.js';
import { ALL_NAMESPACES, type KubernetesClient } from '../kube/client.js';
import { abortOn } from '../rx/abort-on.js';
import { maskOutput } from '../rx/mask-output.js';
import { maskOf } from '../mask.js';
import { deadline } from '../rx/deadline.js';
import { fromAbortable } from '../rx/from-abortable.js';
import { cachedNodeFields, cachedPodRequestFields, nodeInfo, requestedBy, type NodeInfo, type NodeResources } from './node-info.js';

/** Pods that hold resources on a node: bound to one, not finished. */
export const BOUND_POD_FIELD_SELECTOR = 'spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed';

const ALL_NODES_KEY = 'all';
/** No node has an empty name: observing it holds the Pod informer open and receives nothing. */
const NO_NODE_KEY = '';

/** Every node under one key: consumers want the whole list. */
export const NODES_TOGETHER = {
  routingKeyName: 'all',
  routingKey: () => ALL_NODES_KEY,
  transformName: 'node-info',
  transform: cachedNodeFields,
} as const satisfies Omit<InformerRequest<'nodes'>, 'kind' | 'namespace' | 'labelSelector'>;

/** Pods by the node they are bound to, keeping only their requests. */
export const PODS_BY_NODE = {
  routingKeyName: 'node-name',
  routingKey: (pod: V1Pod) => pod.spec?.nodeName || undefined,
  transformName: 'node-requests',
  transform: cachedPodRequestFields,
  fieldSelector: BOUND_POD_FIELD_SELECTOR,
} as const satisfies Omit<InformerRequest<'pods'>, 'kind' | 'namespace' | 'labelSelector'>;

export interface NodesLiveOptions {
  /** Shared informers; default: one registry for the process. */
  readonly informers?: InformerRegistry;
}

export interface NodesOptions {
  /** Bound on the two lists; default 30000. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Clock for the time bound (tests). */
  readonly scheduler?: SchedulerLike;
}

export const DEFAULT_NODES_TIMEOUT_MS = 30_000;

/**
 * The nodes, sorted by name, now and after every change that alters what is reported
 * (heartbeats alone do not). Needs list and watch on nodes and on pods in all namespaces.
 * Transient failures are retried by the informers; 401, 403 and TLS failures end it.
 */
export function nodes$(api: KubernetesClient, options: NodesLiveOptions = {}): Observable<readonly NodeInfo[]> {
  return defer(() => {
    const registry = options.informers ?? defaultInformerRegistry;
    const nodeInformer = registry.informer(api, { kind: 'nodes', namespace: ALL_NAMESPACES, labelSelector: '', ...NODES_TOGETHER });
    const podInformer = registry.informer(api, { kind: 'pods', namespace: ALL_NAMESPACES, labelSelector: '', ...PODS_BY_NODE });
    const nodes$ = nodeInformer.observe(ALL_NODES_KEY);

    // One subscription per node, renewed only when the set of node names changes.
    const requested$ = nodes$.pipe(
      map((nodes) => nodes.map((node) => node.metadata?.name ?? '').sort()),
      distinctUntilChanged(sameStrings),
      switchMap((names) =>
        names.length === 0
          ? of(new Map<string, NodeResources>())
          : combineLatest(
              names.map((name) =>
                podInformer.observe(name).pipe(
                  map((pods) => requestedBy(pods)),
                  distinctUntilChanged(sameResources),
                  map((requested) => [name, requested] as const),
                ),
              ),
            ).pipe(map((entries) => new Map(entries))),
      ),
    );

    const infos$ = combineLatest([nodes$, requested$]).pipe(
      // A node just added waits for its Pods' sum instead of showing nothing requested.
      filter(([nodes, requested]) => nodes.every((node) => requested.has(node.metadata?.name ?? ''))),
      map(([nodes, requested]) => sortedInfos(nodes, (name) => requested.get(name))),
      // Node status updates that change nothing reported are dropped (compared as JSON: small, plain values).
      map((infos) => ({ infos, text: JSON.stringify(infos) })),
      distinctUntilChanged((a, b) => a.text === b.text),
      map(({ infos }) => infos),
    );
    // While switchMap renews the per-node subscriptions, this one keeps the Pod informer (and its watch) open.
    const holdPods$ = podInformer.observe(NO_NODE_KEY).pipe(ignoreElements());
    return merge(holdPods$, infos$);
  }).pipe(maskOutput(maskOf(api)));
}

/** The nodes now, from one list of nodes and one field-selected list of Pods. */
export function nodes(api: KubernetesClient, options: NodesOptions = {}): Promise<readonly NodeInfo[]> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_NODES_TIMEOUT_MS;
  try {
    requireDuration('timeoutMs', timeoutMs, DURATION_RULES.readTimeoutMs);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  return lastValueFrom(
    fromAbortable(async (signal) => {
      const [nodeList, podList] = await Promise.all([
        api.list('nodes', ALL_NAMESPACES, undefined, { signal }),
        api.list('pods', ALL_NAMESPACES, undefined, { signal, fieldSelector: BOUND_POD_FIELD_SELECTOR }),
      ]);
      const podsByNode = new Map<string, V1Pod[]>();
      for (const pod of podList.items) {
        const name = pod.spec?.nodeName;
        if (!name) continue;
        const bound = podsByNode.get(name);
        if (bound) bound.push(pod);
        else podsByNode.set(name, [pod]);
      }
      return sortedInfos(nodeList.items, (name) => requestedBy(podsByNode.get(name) ?? []));
    }).pipe(
      deadline(timeoutMs, () => new DiscoveryTimeoutError('nodes', timeoutMs), options.scheduler ?? asyncScheduler),
      abortOn(options.signal, (reason) => new OperationAbortedError('nodes', undefined, reason)),
      maskOutput(maskOf(api)),
    ),
  );
}

const NOTHING: NodeResources = { cpuMillicores: 0, memoryBytes: 0, pods: 0 };

function sortedInfos(nodes: readonly V1Node[], requested: (name: string) => NodeResources | undefined): NodeInfo[] {
  return nodes
    .map((node) => nodeInfo(node, requested(node.metadata?.name ?? '') ?? NOTHING))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

function sameResources(a: NodeResources, b: NodeResources): boolean {
  return (
    a.cpuMillicores === b.cpuMillicores &&
    a.memoryBytes === b.memoryBytes &&
    a.pods === b.pods &&
    JSON.stringify(a.gpus ?? {}) === JSON.stringify(b.gpus ?? {})
  );
}
