// The Deployment: the member whose rollout is the workload's, built from the whole spec,
// deleted in the foreground (its Pods first). Its informer keys it by name; its Pods'
// informer (the Deployment's read side) keys them by the container-id label.
import type { Observable } from 'rxjs';
import type { InformerRegistry } from '../../informers/registry.js';
import { cachedDeploymentFields } from '../../informers/transforms/deployment.js';
import { cachedPodFields } from '../../informers/transforms/pod.js';
import { containerIdOf } from '../../input/labels.js';
import type { KubernetesClient } from '../../kube/client.js';
import type { V1Deployment, V1Pod } from '../../kube/objects.js';
import { allow } from '../../kube/permission.js';
import { workloadDrift } from '../drift.js';
import type { CacheRequest, MemberRules } from '../member.js';
import { snapshotsOf } from '../snapshots.js';
import { buildDeployment } from './manifest.js';

/** How the Deployment informer keys and caches objects (also used by bench/micro.ts). */
export const DEPLOYMENTS_BY_NAME = {
  routingKeyName: 'name',
  routingKey: (deployment: V1Deployment) => deployment.metadata?.name,
  transformName: 'rollout-fields',
  transform: cachedDeploymentFields,
} as const satisfies CacheRequest<'deployments'>;

/** How the Pod informer keys and caches objects. */
export const PODS_BY_CONTAINER_ID = {
  routingKeyName: 'container-id',
  routingKey: containerIdOf,
  transformName: 'rollout-fields',
  transform: cachedPodFields,
} as const satisfies CacheRequest<'pods'>;

export function deploymentSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  name: string,
  instance?: string,
): Observable<readonly V1Deployment[]> {
  return snapshotsOf({ registry, client, namespace, instance }, 'deployments', DEPLOYMENTS_BY_NAME, name);
}

/** The Pods carrying the workload's container-id label. */
export function podSnapshots(
  registry: InformerRegistry,
  client: KubernetesClient,
  namespace: string,
  containerId: string,
  instance?: string,
): Observable<readonly V1Pod[]> {
  return snapshotsOf({ registry, client, namespace, instance }, 'pods', PODS_BY_CONTAINER_ID, containerId);
}

export const DEPLOYMENT_MEMBER: MemberRules<'deployments'> = {
  kind: 'deployments',
  build: (spec, { options }) => buildDeployment(spec, options),
  nameIn: (workload) => workload,
  drift: workloadDrift,
  propagationPolicy: 'Foreground',
  permissions: {
    create: [
      // create the Deployment; get it back when the name is taken (adopt or conflict); the
      // shared informers that await the rollout (a streaming list is a watch; list is the fallback)
      ...allow('deployments', ['create', 'get', 'list', 'watch']),
      ...allow('pods', ['list', 'watch']),
    ],
    lifecycle: [
      // scale, restart and reconfigure write the Deployment; delete
      ...allow('deployments', ['patch', 'update', 'delete']),
      // status reads the Pods of one workload directly
      ...allow('pods', ['get']),
      // a terminal or a command in the container: the upgrade is a GET, and newer API
      // servers also check create (KEP-4006); its log, followed
      ...allow('pods', ['get', 'create'], 'exec'),
      ...allow('pods', ['get'], 'log'),
    ],
  },
  cache: DEPLOYMENTS_BY_NAME,
  snapshots: deploymentSnapshots,
};
