// An RBAC permission as the library states what it needs: a verb on a kind of the kind
// table (or one of its subresources). check() reviews them one by one; roleFor() renders
// them as a Role.
import { KINDS, type WatchedKind } from './kinds.js';

export interface Permission {
  readonly verb: string;
  /** API group: '' for the core group (pods), 'apps' for deployments. */
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
}

/** `verbs` on `resource` (or its `subresource`), in that order. */
export function allow(resource: WatchedKind, verbs: readonly string[], subresource?: string): Permission[] {
  const { group } = KINDS[resource];
  return verbs.map((verb) => ({ verb, group, resource, ...(subresource !== undefined ? { subresource } : {}) }));
}
