// The RBAC permissions each of the library's operations needs in the workload's namespace:
// ONE table, which check() reviews verb by verb (SelfSubjectAccessReview, as
// `kubectl auth can-i` does) and from which the docs and roleFor() render a Role.
import type { V1PolicyRule, V1Role } from '../kube/objects.js';

export interface Permission {
  readonly verb: string;
  /** API group: '' for the core group (pods), 'apps' for deployments. */
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
}

const deployments = (verb: string): Permission => ({ verb, group: 'apps', resource: 'deployments' });
const pods = (verb: string): Permission => ({ verb, group: '', resource: 'pods' });
const podSubresource = (verb: string, subresource: string): Permission => ({ verb, group: '', resource: 'pods', subresource });
const services = (verb: string): Permission => ({ verb, group: '', resource: 'services' });
const endpointSlices = (verb: string): Permission => ({ verb, group: 'discovery.k8s.io', resource: 'endpointslices' });
const claims = (verb: string): Permission => ({ verb, group: '', resource: 'persistentvolumeclaims' });
const events = (verb: string): Permission => ({ verb, group: '', resource: 'events' });

const CREATE: readonly Permission[] = [
  // create the Deployment; get it back when the name is taken (adopt or conflict)
  deployments('create'),
  deployments('get'),
  // the shared informers that await the rollout (a streaming list is a watch; list is the fallback)
  deployments('list'),
  deployments('watch'),
  pods('list'),
  pods('watch'),
  // a container with ports: its Service (created, or read back when the name is taken),
  // and the shared informers of Services and EndpointSlices that say when it routes
  services('create'),
  services('get'),
  services('list'),
  services('watch'),
  endpointSlices('list'),
  endpointSlices('watch'),
  // a container with storage: its claim (created, or read back when the name is taken),
  // the shared claim informer, and the storage controllers' Warning events on it
  claims('create'),
  claims('get'),
  claims('list'),
  claims('watch'),
  events('list'),
  events('watch'),
];

/**
 * Per operation, every permission it needs in the namespace. `create` is provisioning
 * alone (provision, provision$); `lifecycle` is the workload's whole life (status, start,
 * stop, restart, reconfigure, delete) and includes `create`. Keep this the only list:
 * an operation that starts using another verb or subresource (say `deployments/scale`
 * for start and stop) adds it here, and check() and the docs follow.
 */
export const OPERATION_PERMISSIONS = {
  create: CREATE,
  lifecycle: [
    ...CREATE,
    // scale, restart and reconfigure write the Deployment
    deployments('patch'),
    deployments('update'),
    deployments('delete'),
    // status reads the Pods of one workload directly
    pods('get'),
    // changing ports, a NodePort's node address, onDrift: reconfigure; delete
    services('patch'),
    services('delete'),
    // reconfigure's resize; delete (unless the data is kept)
    claims('patch'),
    claims('delete'),
    // a terminal or a command in the container: the upgrade is a GET, and newer API
    // servers also check create (KEP-4006); its log, followed
    podSubresource('get', 'exec'),
    podSubresource('create', 'exec'),
    podSubresource('get', 'log'),
  ],
} as const satisfies Readonly<Record<string, readonly Permission[]>>;

export type OperationName = keyof typeof OPERATION_PERMISSIONS;

const storageClasses = (verb: string): Permission => ({ verb, group: 'storage.k8s.io', resource: 'storageclasses' });

/**
 * Cluster-wide: a container with storage reads StorageClasses (get the one its spec names,
 * list them to find the default). A Role cannot grant these; a ClusterRole can. check()
 * reviews them without a namespace.
 */
export const CLUSTER_PERMISSIONS: readonly Permission[] = [storageClasses('get'), storageClasses('list')];

export const OPERATION_NAMES = Object.keys(OPERATION_PERMISSIONS) as readonly OperationName[];

/** kubectl's spelling: `create deployments.apps`, `list pods`, `patch deployments.apps/scale`. */
export function permissionLabel(permission: Permission): string {
  const resource = permission.group ? `${permission.resource}.${permission.group}` : permission.resource;
  return `${permission.verb} ${resource}${permission.subresource ? `/${permission.subresource}` : ''}`;
}

/** The table's rules for one operation, one rule per group and resource, verbs in table order. */
export function policyRules(operation: OperationName): V1PolicyRule[] {
  const rules = new Map<string, { group: string; resource: string; verbs: string[] }>();
  for (const permission of OPERATION_PERMISSIONS[operation]) {
    const resource = permission.subresource ? `${permission.resource}/${permission.subresource}` : permission.resource;
    const id = `${permission.group}/${resource}`;
    const rule = rules.get(id) ?? { group: permission.group, resource, verbs: [] };
    if (!rule.verbs.includes(permission.verb)) rule.verbs.push(permission.verb);
    rules.set(id, rule);
  }
  return [...rules.values()].map(({ group, resource, verbs }) => ({ apiGroups: [group], resources: [resource], verbs }));
}

/** A namespaced Role granting exactly what `operation` needs (bind it with a RoleBinding). */
export function roleFor(operation: OperationName, where: { readonly name: string; readonly namespace: string }): V1Role {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: where.name, namespace: where.namespace },
    rules: policyRules(operation),
  };
}
