// The two informer streams one provisioning waits on, from the shared informers of its
// namespace: the Deployment by name, and its Pods by container-id label. Both informers
// select the installation's workloads (managedSelector: managed=true and the instance
// label, or no instance label), so one Deployment watch and one Pod watch per namespace and
// installation serve every provisioning in it, and another installation's Pods with the
// same container-id never reach it. They cache only the fields the rollout code reads
// (rollout/cached-fields.ts).
import type { V1Deployment, V1Pod } from '../kube/objects.js';
import { defer, type Observable } from 'rxjs';
import type { InformerRegistry, InformerRequest } from '../informers/registry.js';
import type { SharedInformer } from '../informers/shared-informer.js';
import type { KindMap, KubernetesClient, WatchedKind } from '../kube/client.js';
import { cachedDeploymentFields, cachedPodFields } from '../rollout/cached-fields.js';
import { containerIdOf, managedSelector } from '../input/labels.js';

/** How the Deployment informer keys and caches objects (also used by bench/micro.ts). */
export const DEPLOYMENTS_BY_NAME = {
  routingKeyName: 'name',
  routingKey: (deployment: V1Deployment) => deployment.metadata?.name,
  transformName: 'rollout-fields',
  transform: cachedDeploymentFields,
} as const satisfies Omit<InformerRequest<'deployments'>, 'kind' | 'namespace' | 'labelSelector'>;

/** How the Pod informer keys and caches objects. */
export const PODS_BY_CONTAINER_ID = {
  routingKeyName: 'container-id',
  routingKey: containerIdOf,
  transformName: 'rollout-fields',
  transform: cachedPodFields,
} as const satisfies Omit<InformerRequest<'pods'>, 'kind' | 'namespace' | 'labelSelector'>;

export function deploymentSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  name: string,
  instance?: string,
): Observable<readonly V1Deployment[]> {
  const labelSelector = managedSelector(instance);
  return snapshots(registry, client, { kind: 'deployments', namespace, labelSelector, ...DEPLOYMENTS_BY_NAME }, name);
}

export function podSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  containerId: string,
  instance?: string,
): Observable<readonly V1Pod[]> {
  const labelSelector = managedSelector(instance);
  return snapshots(registry, client, { kind: 'pods', namespace, labelSelector, ...PODS_BY_CONTAINER_ID }, containerId);
}

/**
 * The two informers of a namespace themselves, for consumers of every workload in it
 * (statuses$): the same registry entries provision$ waits on, so they share the watches.
 */
export function namespaceInformers(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  instance?: string,
): { readonly deployments: SharedInformer<V1Deployment>; readonly pods: SharedInformer<V1Pod> } {
  const labelSelector = managedSelector(instance);
  return {
    deployments: registry.informer(client, { kind: 'deployments', namespace, labelSelector, ...DEPLOYMENTS_BY_NAME }),
    pods: registry.informer(client, { kind: 'pods', namespace, labelSelector, ...PODS_BY_CONTAINER_ID }),
  };
}

/** The informer is looked up at subscription time, so an idle one is never kept around. */
function snapshots<K extends WatchedKind>(
  registry: InformerRegistry,
  client: KubernetesClient,
  request: InformerRequest<K>,
  key: string,
): Observable<readonly KindMap[K][]> {
  return defer(() => registry.informer(client, request).observe(key));
}
