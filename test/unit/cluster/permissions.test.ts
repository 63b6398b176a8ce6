// The one per-operation permission table and what is rendered from it (pure, no cluster;
// the integration suite binds roleFor() to a user and provisions with it).
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES, OPERATION_PERMISSIONS, permissionLabel, policyRules, roleFor } from '../../../src/cluster/permissions.js';

const labels = (operation: keyof typeof OPERATION_PERMISSIONS) => OPERATION_PERMISSIONS[operation].map(permissionLabel);

describe('OPERATION_PERMISSIONS', () => {
  it('create needs create/get on deployments, services and claims, and list/watch on deployments, pods, services, endpointslices, claims and events, nothing else', () => {
    expect(labels('create').sort()).toEqual(
      [
        'create deployments.apps',
        'get deployments.apps',
        'list deployments.apps',
        'watch deployments.apps',
        'list pods',
        'watch pods',
        'create services',
        'get services',
        'list services',
        'watch services',
        'list endpointslices.discovery.k8s.io',
        'watch endpointslices.discovery.k8s.io',
        'create persistentvolumeclaims',
        'get persistentvolumeclaims',
        'list persistentvolumeclaims',
        'watch persistentvolumeclaims',
        'list events',
        'watch events',
      ].sort(),
    );
  });

  it('the lifecycle includes everything create needs, plus patch/update/delete deployments, get pods and patch/delete services and claims, exec and log on pods', () => {
    const lifecycle = labels('lifecycle');
    expect(lifecycle).toEqual(expect.arrayContaining(labels('create')));
    expect(lifecycle.filter((label) => !labels('create').includes(label)).sort()).toEqual(
      [
        'delete deployments.apps',
        'get pods',
        'patch deployments.apps',
        'update deployments.apps',
        'patch services',
        'delete services',
        'patch persistentvolumeclaims',
        'delete persistentvolumeclaims',
        'get pods/exec',
        'create pods/exec',
        'get pods/log',
      ].sort(),
    );
    expect(new Set(lifecycle).size).toBe(lifecycle.length);
    expect(OPERATION_NAMES).toEqual(['create', 'lifecycle']);
  });

  it('labels permissions the way kubectl names resources', () => {
    expect(permissionLabel({ verb: 'patch', group: 'apps', resource: 'deployments', subresource: 'scale' })).toBe(
      'patch deployments.apps/scale',
    );
    expect(permissionLabel({ verb: 'list', group: '', resource: 'pods' })).toBe('list pods');
  });

  it('renders one Role rule per group and resource, with exactly the verbs of the table', () => {
    expect(policyRules('create')).toEqual([
      { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['create', 'get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['list', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['services'], verbs: ['create', 'get', 'list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
    ]);
    const role = roleFor('lifecycle', { name: 'manager', namespace: 'team-a' });
    expect(role).toMatchObject({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'manager', namespace: 'team-a' },
    });
    const granted = (role.rules ?? []).flatMap((rule) =>
      rule.verbs.flatMap((verb) =>
        (rule.resources ?? []).map((resource) => permissionLabel({ verb, group: rule.apiGroups?.[0] ?? '', resource })),
      ),
    );
    expect(granted.sort()).toEqual([...labels('lifecycle')].sort());
  });
});
