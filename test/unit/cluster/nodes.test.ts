// nodes$(), nodes() and fits() against the fake client: the shared node and Pod informers
// (real reflector and SharedInformer over the fake's watches), live updates, and the
// one-shot lists with their time bound on a virtual clock. The integration suite does the
// same on the real control plane with a KWOK node and kubectl cordon.
import { VirtualAction, VirtualTimeScheduler, type Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { fits } from '../../../src/cluster/fits.js';
import type { NodeInfo } from '../../../src/cluster/node-info.js';
import { BOUND_POD_FIELD_SELECTOR, nodes, nodes$ } from '../../../src/cluster/nodes.js';
import { DiscoveryTimeoutError, OperationAbortedError } from '../../../src/errors/operation.js';
import { ForbiddenError } from '../../../src/errors/api.js';
import { InvalidSpecError } from '../../../src/errors/input.js';
import { InformerRegistry } from '../../../src/informers/registry.js';
import { FakeKubernetes } from '../../support/fake-kube.js';
import { node, pod } from './fixtures.js';

const GiB = 1024 ** 3;
const subscriptions: Subscription[] = [];
afterEach(() => {
  for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
});

function watchNodes(fake: FakeKubernetes, registry = new InformerRegistry()): { seen: (readonly NodeInfo[])[]; errors: unknown[] } {
  const seen: (readonly NodeInfo[])[] = [];
  const errors: unknown[] = [];
  subscriptions.push(
    nodes$(fake, { informers: registry }).subscribe({ next: (infos) => seen.push(infos), error: (error) => errors.push(error) }),
  );
  return { seen, errors };
}

const summary = (infos: readonly NodeInfo[] | undefined) =>
  infos?.map(
    (info) =>
      `${info.name} ${info.schedulable ? 'schedulable' : 'cordoned'} cpu=${info.requested.cpuMillicores} pods=${info.requested.pods}`,
  );

describe('nodes$', () => {
  it('emits the nodes with what their Pods request, then each change that alters the report', () => {
    const fake = new FakeKubernetes();
    fake.addNode(node('n1'));
    fake.addPod(pod('web', 'n1', '500m', '1Gi'), 'team-a');
    const { seen } = watchNodes(fake);
    expect(summary(seen.at(-1))).toEqual(['n1 schedulable cpu=500 pods=1']);

    // The same Pod name in another namespace is another Pod.
    fake.addPod(pod('web', 'n1', '250m', '1Gi'), 'team-b');
    expect(summary(seen.at(-1))).toEqual(['n1 schedulable cpu=750 pods=2']);
    expect(seen.at(-1)?.[0]?.requested.memoryBytes).toBe(2 * GiB);

    // Cordoned, then a Pod finishes (it leaves the field-selected watch).
    fake.update('nodes', 'n1', (n) => (n.spec = { ...n.spec, unschedulable: true }), '');
    expect(summary(seen.at(-1))).toEqual(['n1 cordoned cpu=750 pods=2']);
    fake.update('pods', 'web', (p) => (p.status = { phase: 'Succeeded' }), 'team-a');
    expect(summary(seen.at(-1))).toEqual(['n1 cordoned cpu=250 pods=1']);

    // A second node joins, sorted by name; the first one goes.
    fake.addNode(node('a0'));
    expect(summary(seen.at(-1))).toEqual(['a0 schedulable cpu=0 pods=0', 'n1 cordoned cpu=250 pods=1']);
    fake.removeObject('nodes', 'n1', '');
    expect(summary(seen.at(-1))).toEqual(['a0 schedulable cpu=0 pods=0']);
  });

  it('a heartbeat or a Pod status change that alters nothing reported emits nothing', () => {
    const fake = new FakeKubernetes();
    fake.addNode(node('n1'));
    fake.addPod(pod('web', 'n1', '100m', '64Mi'));
    const { seen } = watchNodes(fake);
    const before = seen.length;
    fake.update('nodes', 'n1', (n) => n.status!.conditions!.forEach((c) => (c.lastHeartbeatTime = new Date('2026-02-02T00:00:00Z'))), '');
    fake.update('pods', 'web', (p) => (p.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }));
    expect(seen.length).toBe(before);
  });

  it('shares one node watch and one Pod watch (all namespaces, bound and unfinished Pods) and closes both at the end', () => {
    const fake = new FakeKubernetes();
    fake.addNode(node('n1'));
    const registry = new InformerRegistry();
    watchNodes(fake, registry);
    watchNodes(fake, registry);
    const watches = fake.calls
      .filter((call) => call.method === 'watch')
      .map((call) => `${call.kind} in '${call.namespace}' ${call.fieldSelector ?? ''}`);
    expect(watches.sort()).toEqual(["nodes in '' ", `pods in '' ${BOUND_POD_FIELD_SELECTOR}`]);
    expect(fake.activeWatches).toBe(2);
    for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
    expect(fake.activeWatches).toBe(0);
    expect(registry.count(fake)).toBe(0);
  });

  it('adding and removing nodes keeps the Pod watch open (no relist)', () => {
    const fake = new FakeKubernetes();
    fake.addNode(node('n1'));
    watchNodes(fake);
    fake.addNode(node('n2'));
    fake.removeObject('nodes', 'n1', '');
    fake.addNode(node('n3'));
    expect(fake.calls.filter((call) => call.method === 'watch' && call.kind === 'pods')).toHaveLength(1);
  });

  it('no nodes: an empty list, not silence', () => {
    const { seen } = watchNodes(new FakeKubernetes());
    expect(seen).toEqual([[]]);
  });

  it('a 403 on the cluster-wide Pod watch ends the stream with the ForbiddenError, before any report', async () => {
    const fake = new FakeKubernetes();
    fake.addNode(node('n1'));
    fake.failNext('watch', new ForbiddenError({ verb: 'watch', resource: 'pods' }));
    const { seen, errors } = watchNodes(fake);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ForbiddenError);
    expect(fake.activeWatches).toBe(0);
  });
});

describe('nodes() and fits()', () => {
  it('lists nodes and field-selected Pods once, and sums each node', async () => {
    const fake = new FakeKubernetes();
    fake.addNode(node('n1'));
    fake.addNode(node('n2', { ready: false }));
    fake.addPod(pod('a', 'n1', '1', '1Gi'), 'x');
    fake.addPod(pod('a', 'n1', '1', '1Gi'), 'y');
    fake.addPod(pod('done', 'n1', '3', '1Gi', { phase: 'Failed' }), 'x');
    fake.addPod({ metadata: { name: 'pending' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '2' } } }] } }, 'x');
    const infos = await nodes(fake);
    expect(infos.map((info) => [info.name, info.ready, info.requested])).toEqual([
      ['n1', true, { cpuMillicores: 2000, memoryBytes: 2 * GiB, pods: 2 }],
      ['n2', false, { cpuMillicores: 0, memoryBytes: 0, pods: 0 }],
    ]);
    expect(fake.calls).toEqual([
      { method: 'list', kind: 'nodes', namespace: '' },
      { method: 'list', kind: 'pods', namespace: '', fieldSelector: BOUND_POD_FIELD_SELECTOR },
    ]);
  });

  it('fits() says yes while a Ready, schedulable node has room, and no with the reasons otherwise', async () => {
    const fake = new FakeKubernetes();
    fake.addNode(node('n1'));
    fake.addPod(pod('big', 'n1', '3', '6Gi'));
    expect(await fits(fake, { cpus: 1, memoryMb: 2048 })).toMatchObject({ fits: true, nodes: [{ name: 'n1', fits: true }] });
    const verdict = await fits(fake, { cpus: 1.5, memoryMb: 1024 });
    expect(verdict).toMatchObject({ fits: false, nodes: [{ name: 'n1', reasons: ['1 of 4 CPU free (needs 1500m)'] }] });
    fake.update('nodes', 'n1', (n) => (n.spec = { unschedulable: true }), '');
    expect((await fits(fake, { cpus: 0.1, memoryMb: 64 })).nodes[0]?.reasons).toEqual(['cordoned (unschedulable)']);
  });

  it('fits() checks its input before any request; a whole workload spec is accepted', async () => {
    const fake = new FakeKubernetes();
    await expect(fits(fake, { cpus: 'two', memoryMb: 64 })).rejects.toBeInstanceOf(InvalidSpecError);
    expect(fake.calls).toEqual([]);
    fake.addNode(node('n1'));
    const spec = { containerId: 1, nodeId: 2, hostname: 'web', image: 'nginx:1.27', cpus: 0.5, memoryMb: 512 };
    expect((await fits(fake, spec)).request).toEqual({ cpuMillicores: 500, memoryBytes: 512 * 1024 ** 2 });
  });

  it('a silent server: DiscoveryTimeoutError at timeoutMs on the virtual clock; an abort: OperationAbortedError', async () => {
    const fake = new FakeKubernetes();
    fake.hang('list');
    const scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
    const listing = nodes(fake, { timeoutMs: 5_000, scheduler });
    scheduler.flush();
    await expect(listing).rejects.toBeInstanceOf(DiscoveryTimeoutError);
    expect(scheduler.now()).toBe(5_000);

    const controller = new AbortController();
    const aborted = nodes(fake, { signal: controller.signal });
    controller.abort();
    await expect(aborted).rejects.toBeInstanceOf(OperationAbortedError);
  });
});
