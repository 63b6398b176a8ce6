// The workload as a set of objects over the kind table: what buildWorkload() makes, that
// every member kind has its rules and its entry in the table, and that the test fake
// serves every kind of the table by the same generic requests. Pure functions and
// FakeKubernetes (unit test).
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/errors/api.js';
import { CONTAINER_ID_LABEL, INSTANCE_LABEL, MANAGED_LABEL } from '../../../src/input/labels.js';
import { parseWorkloadSpec } from '../../../src/input/workload-spec.js';
import { ALL_NAMESPACES } from '../../../src/kube/client.js';
import { KINDS, apiVersionOf, collectionPath, objectPath, type WatchedKind } from '../../../src/kube/kinds.js';
import { STATUS_OF_KIND, objectStatus } from '../../../src/rollout/object-status.js';
import { rolloutStatus } from '../../../src/rollout/rollout-status.js';
import { buildDeployment } from '../../../src/members/deployment/manifest.js';
import { MEMBERS, MemberTable, buildWorkload, deploymentOf, ownedBy } from '../../../src/members/set.js';
import { FakeKubernetes } from '../../support/fake-kube.js';

const spec = parseWorkloadSpec({
  containerId: 42,
  nodeId: 7,
  hostname: 'web',
  image: 'nginx:1.27',
  cpus: 0.5,
  memoryMb: 256,
  instance: 'm1',
});

describe('buildWorkload', () => {
  it('is the Deployment buildDeployment makes, with the labels and owner every member shares', () => {
    const set = buildWorkload(spec, { namespace: 'team-a' });
    expect(set).toMatchObject({ namespace: 'team-a', name: 'web', providerId: 'team-a/web', owner: { containerId: '42', instance: 'm1' } });
    expect(set.members.map((member) => member.kind)).toEqual(['deployments']);
    expect(deploymentOf(set)).toEqual(buildDeployment(spec, { namespace: 'team-a' }));
    for (const member of set.members) {
      expect(member.object.metadata?.labels).toEqual(set.labels);
      expect(member.object.metadata?.namespace).toBe('team-a');
      expect(member.object.metadata?.name).toBe(MEMBERS.rulesOf(member.kind).nameIn(set.name));
      expect(ownedBy(member.object, set.owner)).toBe(true);
    }
    expect(set.labels).toMatchObject({ [MANAGED_LABEL]: 'true', [CONTAINER_ID_LABEL]: '42', [INSTANCE_LABEL]: 'm1' });
  });

  it('is pure: the same spec gives deep-equal sets', () => {
    expect(buildWorkload(spec)).toEqual(buildWorkload(spec));
  });

  it('another container or installation does not own the members', () => {
    const { members, owner } = buildWorkload(spec);
    expect(ownedBy(members[0]!.object, { ...owner, containerId: '43' })).toBe(false);
    expect(ownedBy(members[0]!.object, { ...owner, instance: undefined })).toBe(false);
  });
});

describe('the kind table', () => {
  it('every member kind is in the table, has its rules, and is created in a known order', () => {
    expect(MEMBERS.kinds).toEqual(['persistentvolumeclaims', 'deployments', 'services']);
    for (const kind of MEMBERS.kinds) {
      expect(KINDS[kind]).toBeDefined();
      expect(MEMBERS.rulesOf(kind).kind).toBe(kind);
    }
  });

  it('a member table refuses a kind twice, no Deployment, or an owner that comes later, by name', () => {
    const [claim, deployment, service] = MEMBERS.rows;
    expect(() => new MemberTable([deployment!, deployment!])).toThrow('a member table lists a kind twice: deployments, deployments');
    expect(() => new MemberTable([claim!])).toThrow('a member table without the Deployment');
    expect(() => new MemberTable([service!, deployment!])).toThrow('the member services is owned by deployments, which must come earlier');
    expect(() => MEMBERS.rulesOf('configmaps')).toThrow(
      'no member kind configmaps in the table (persistentvolumeclaims, deployments, services)',
    );
  });

  it('paths follow the group, version and scope of each kind', () => {
    expect(collectionPath('deployments', 'team-a')).toBe('/apis/apps/v1/namespaces/team-a/deployments');
    expect(collectionPath('deployments', ALL_NAMESPACES)).toBe('/apis/apps/v1/deployments');
    expect(objectPath('pods', 'team-a', 'web-1')).toBe('/api/v1/namespaces/team-a/pods/web-1');
    expect(collectionPath('nodes', 'team-a')).toBe('/api/v1/nodes');
    expect(apiVersionOf('deployments')).toBe('apps/v1');
    expect(apiVersionOf('nodes')).toBe('v1');
  });

  it('the status table gives each kind its pure status function', () => {
    expect(STATUS_OF_KIND.deployments).toBe(rolloutStatus);
    const deployment = buildDeployment(spec);
    expect(objectStatus('deployments', deployment)).toEqual(rolloutStatus(deployment));
  });

  it('the fake serves every kind of the table by the generic requests, namespaced or not', async () => {
    const fake = new FakeKubernetes('team-a');
    for (const kind of Object.keys(KINDS) as WatchedKind[]) {
      const namespace = KINDS[kind].namespaced ? 'team-a' : ALL_NAMESPACES;
      const body = { metadata: { name: 'x', labels: { a: '1' } }, spec: {} } as never;
      const created = await fake.create(kind, namespace, body);
      expect(created.metadata?.uid, kind).toBeTruthy();
      expect((await fake.read(kind, namespace, 'x')).metadata?.uid, kind).toBe(created.metadata?.uid);
      expect(
        (await fake.list(kind, namespace, 'a=1')).items.map((item) => item.metadata?.name),
        kind,
      ).toEqual(['x']);
      const patched = await fake.patch(kind, namespace, 'x', { metadata: { labels: { b: '2' } } });
      expect(patched.metadata?.labels, kind).toEqual({ a: '1', b: '2' });
      await fake.delete(kind, namespace, 'x', { preconditions: { uid: created.metadata?.uid ?? '' } });
      await expect(fake.read(kind, namespace, 'x'), kind).rejects.toBeInstanceOf(NotFoundError);
    }
  });
});
