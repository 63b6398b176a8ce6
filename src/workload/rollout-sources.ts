// The two informer streams one provisioning waits on, from the shared informers of its
// namespace: the Deployment by name, and its Pods by container-id label. Both informers
// select managed=true, so one Deployment watch and one Pod watch per namespace serve every
// provisioning in it. They cache only the fields the rollout streams read (cached-fields.ts).
import type { V1Deployment, V1Pod } from '../kube/objects.js';
import { defer, type Observable } from 'rxjs';
import type { InformerRegistry, InformerRequest } from '../informers/registry.js';
import type { SharedInformer } from '../informers/shared-informer.js';
import type { KindMap, KubernetesClient, WatchedKind } from '../kube/client.js';
import { cachedDeploymentFields, cachedPodFields } from './cached-fields.js';
import { MANAGED_SELECTOR, containerIdOf } from '../spec/labels.js';

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
): Observable<readonly V1Deployment[]> {
  return snapshots(registry, client, { kind: 'deployments', namespace, labelSelector: MANAGED_SELECTOR, ...DEPLOYMENTS_BY_NAME }, name);
}

export function podSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  containerId: string,
): Observable<readonly V1Pod[]> {
  return snapshots(registry, client, { kind: 'pods', namespace, labelSelector: MANAGED_SELECTOR, ...PODS_BY_CONTAINER_ID }, containerId);
}

/**
 * The two informers of a namespace themselves, for consumers of every workload in it
 * (statuses$): the same registry entries provision$ waits on, so they share the watches.
 */
export function namespaceInformers(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
): { readonly deployments: SharedInformer<V1Deployment>; readonly pods: SharedInformer<V1Pod> } {
  return {
    deployments: registry.informer(client, { kind: 'deployments', namespace, labelSelector: MANAGED_SELECTOR, ...DEPLOYMENTS_BY_NAME }),
    pods: registry.informer(client, { kind: 'pods', namespace, labelSelector: MANAGED_SELECTOR, ...PODS_BY_CONTAINER_ID }),
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
