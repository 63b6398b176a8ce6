// The RBAC permissions each of the library's operations needs in the workload's namespace:
// one table, gathered from the member kinds, which check() reviews verb by verb (SelfSubjectAccessReview, as
// `kubectl auth can-i` does) and from which the docs and roleFor() render a Role.
import type { V1PolicyRule, V1Role } from '../kube/objects.js';
import { allow, type Permission } from '../kube/permission.js';
import { MEMBERS } from '../members/set.js';

export type { Permission } from '../kube/permission.js';

/**
 * Per operation, every permission it needs in the namespace, gathered from the member
 * kinds' own (each kind's member.ts in src/members/), in the table's order. `create` is provisioning
 * alone (provision, provision$); `lifecycle` is the workload's whole life (status, start,
 * stop, restart, reconfigure, delete, terminal, logs) and includes `create`. An operation
 * that starts using another verb or subresource adds it to its kind's list, and check()
 * and the docs follow.
 */
const CREATE = MEMBERS.rows.flatMap((member) => member.permissions.create);

export const OPERATION_PERMISSIONS = {
  create: CREATE,
  lifecycle: [...CREATE, ...MEMBERS.rows.flatMap((member) => member.permissions.lifecycle)],
} as const satisfies Readonly<Record<string, readonly Permission[]>>;

export type OperationName = keyof typeof OPERATION_PERMISSIONS;

/**
 * Cluster-wide: a container with storage reads StorageClasses (get the one its spec names,
 * list them to find the default). A Role cannot grant these; a ClusterRole can. check()
 * reviews them without a namespace.
 */
export const CLUSTER_PERMISSIONS: readonly Permission[] = allow('storageclasses', ['get', 'list']);

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
