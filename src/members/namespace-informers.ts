// The informers of a namespace themselves, for consumers of every workload in it
// (statuses$): the same registry entries the waits of each workload read, so they share
// the watches.
import type { SharedInformer } from '../informers/shared-informer.js';
import type { V1Deployment, V1EndpointSlice, V1PersistentVolumeClaim, V1Pod, V1Service } from '../kube/objects.js';
import { CLAIMS_BY_NAME } from './claim/member.js';
import { DEPLOYMENTS_BY_NAME, PODS_BY_CONTAINER_ID } from './deployment/member.js';
import { ENDPOINTSLICES_BY_SERVICE, SERVICES_BY_NAME } from './service/member.js';
import { informerOf, type WatchScope } from './snapshots.js';

export interface NamespaceInformers {
  readonly deployments: SharedInformer<V1Deployment>;
  readonly pods: SharedInformer<V1Pod>;
  readonly services: SharedInformer<V1Service>;
  readonly endpointSlices: SharedInformer<V1EndpointSlice>;
  readonly claims: SharedInformer<V1PersistentVolumeClaim>;
}

export function namespaceInformers(scope: WatchScope): NamespaceInformers {
  return {
    deployments: informerOf(scope, 'deployments', DEPLOYMENTS_BY_NAME),
    pods: informerOf(scope, 'pods', PODS_BY_CONTAINER_ID),
    services: informerOf(scope, 'services', SERVICES_BY_NAME),
    endpointSlices: informerOf(scope, 'endpointslices', ENDPOINTSLICES_BY_SERVICE),
    claims: informerOf(scope, 'persistentvolumeclaims', CLAIMS_BY_NAME),
  };
}
