// The two informer streams one provisioning waits on, from the shared informers of its
// namespace: the Deployment by name, and its Pods by container-id label. Both informers
// select managed=true, so one Deployment watch and one Pod watch per namespace serve every
// provisioning in it.
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { defer, map, type Observable } from 'rxjs';
import type { InformerRegistry } from '../informers/registry.js';
import type { KubernetesClient } from '../kube/client.js';
import { MANAGED_SELECTOR, containerIdOf } from './labels.js';

export function deploymentSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  name: string,
): Observable<readonly V1Deployment[]> {
  return defer(() =>
    registry
      .informer(client, {
        kind: 'deployments',
        namespace,
        labelSelector: MANAGED_SELECTOR,
        routingKeyName: 'name',
        routingKey: (deployment) => deployment.metadata?.name,
      })
      .observe(name),
  ).pipe(map((snapshot) => snapshot.objects));
}

export function podSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  containerId: string,
): Observable<readonly V1Pod[]> {
  return defer(() =>
    registry
      .informer(client, {
        kind: 'pods',
        namespace,
        labelSelector: MANAGED_SELECTOR,
        routingKeyName: 'container-id',
        routingKey: containerIdOf,
      })
      .observe(containerId),
  ).pipe(map((snapshot) => snapshot.objects));
}
