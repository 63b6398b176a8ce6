// The informers of a namespace themselves, for consumers of every workload in it
// (statuses$): the same registry entries the waits of each workload read, so they share
// the watches. The Deployments and their Pods, and each member's watches.
import type { SharedInformer } from '../informers/shared-informer.js';
import type { KubeObject } from '../informers/reflector.js';
import type { V1Deployment, V1Pod } from '../kube/objects.js';
import { DEPLOYMENTS_BY_NAME, PODS_BY_CONTAINER_ID } from './deployment/member.js';
import type { AnyMemberWatch } from './member.js';
import { informerOf, type WatchScope } from './snapshots.js';

export interface NamespaceInformers {
  readonly deployments: SharedInformer<V1Deployment>;
  readonly pods: SharedInformer<V1Pod>;
  /** Per member asked for, the informer of each of its watches, in their order. */
  readonly members: readonly (readonly SharedInformer<KubeObject>[])[];
}

export function namespaceInformers(
  scope: WatchScope,
  members: readonly { readonly watches: readonly AnyMemberWatch[] }[] = [],
): NamespaceInformers {
  return {
    deployments: informerOf(scope, 'deployments', DEPLOYMENTS_BY_NAME),
    pods: informerOf(scope, 'pods', PODS_BY_CONTAINER_ID),
    members: members.map((member) => member.watches.map((watch) => watchInformer(scope, watch))),
  };
}

function watchInformer(scope: WatchScope, watch: AnyMemberWatch): SharedInformer<KubeObject> {
  return informerOf(scope, watch.kind, watch.cache as never);
}
