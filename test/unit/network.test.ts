// A container's Service through provision$, setPorts, reconfigure and remove against
// FakeKubernetes (an in-memory stand-in for the API server; the EndpointSlice controller's
// part is played by publishEndpoints). The real control plane plays it in the integration suite.
import { lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { ConflictError } from '../../src/errors/api.js';
import { RolloutFailedError } from '../../src/errors/rollout.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import type { V1Pod } from '../../src/kube/objects.js';
import type { ProvisionEvent, ReadyEvent } from '../../src/rollout/events.js';
import { provision$ } from '../../src/workload/operations/provision.js';
import { reconfigure } from '../../src/workload/operations/reconfigure.js';
import { remove } from '../../src/workload/operations/remove.js';
import { ServiceRejectedError } from '../../src/workload/operations/service-refusal.js';
import { SERVICE_ADDRESS_ANNOTATION, setPorts } from '../../src/workload/operations/set-ports.js';
import type { StatusEvent } from '../../src/workload/reads/status-board.js';
import { statuses$ } from '../../src/workload/reads/statuses.js';
import { WorkloadOwnershipError } from '../../src/workload/toolkit/ownership.js';
import { WorkloadDriftError } from '../../src/members/drift.js';
import { InvalidObjectError } from '../../src/errors/api.js';
import { FakeKubernetes, completeRollout, podOf, publishEndpoints } from '../support/fake-kube.js';

const input = {
  containerId: 42,
  nodeId: 7,
  hostname: 'web',
  image: 'nginx:1.27',
  cpus: 1,
  memoryMb: 256,
  ports: [{ port: 22 }, { port: 53, protocol: 'udp' }],
};
const fastInformers = () => new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });

function record(fake: FakeKubernetes, spec: object = input, options: Parameters<typeof provision$>[2] = {}) {
  const events: ProvisionEvent[] = [];
  let error: unknown;
  let done = false;
  provision$(fake, spec, { informers: fastInformers(), ...options }).subscribe({
    next: (event) => events.push(event),
    error: (caught: unknown) => {
      error = caught;
      done = true;
    },
    complete: () => (done = true),
  });
  return { events, error: () => error, done: () => done, types: () => events.map((event) => event.type) };
}

/** The rollout's Pod, Ready, as the ReplicaSet controller and the kubelet would leave it. */
function readyPodOf(fake: FakeKubernetes, name = 'web', suffix = 'x1'): V1Pod {
  const deployment = fake.get('deployments', name);
  if (!deployment) throw new Error('no Deployment');
  return fake.addPod(
    podOf(
      deployment,
      { phase: 'Running', podIP: '10.244.0.7', hostIP: '172.30.0.10', conditions: [{ type: 'Ready', status: 'True' }] },
      suffix,
    ),
  );
}

async function running(fake: FakeKubernetes, spec: object = input) {
  const run = record(fake, spec);
  await vi.waitFor(() => expect(run.types()).toContain('created'));
  completeRollout(fake, 'web');
  const pod = readyPodOf(fake);
  if (fake.get('services', 'web')) publishEndpoints(fake, 'web', [{ pod, ready: true }]);
  await vi.waitFor(() => expect(run.done()).toBe(true));
  expect(run.error()).toBeUndefined();
  return { run, pod, ready: run.events.at(-1) as ReadyEvent };
}

describe('provision with ports', () => {
  it("one watch per kind for the whole provisioning: the route's wait finds the rollout's informers running", async () => {
    const fake = new FakeKubernetes();
    await running(fake);
    const watches = fake.calls.filter((call) => call.method === 'watch').map((call) => call.kind);
    // A second Deployment or Pod watch would be a cold informer: a new list before the route's wait could answer.
    expect(watches.length, watches.join(', ')).toBe(new Set(watches).size);
    expect(watches.filter((kind) => kind === 'deployments')).toHaveLength(1);
    expect(watches.filter((kind) => kind === 'pods')).toHaveLength(1);
  });

  it('a provisioning whose Service create is slow holds the Deployment and Pod informers from its Deployment on: the one before it finishing does not make them list again', async () => {
    const fake = new FakeKubernetes();
    const informers = fastInformers();
    let releaseService = (): void => undefined;
    const serviceHeld = new Promise<void>((resolve) => (releaseService = resolve));
    const create = fake.create.bind(fake) as (...args: unknown[]) => Promise<unknown>;
    vi.spyOn(fake, 'create').mockImplementation((async (...args: unknown[]) => {
      const [kind, , body] = args as [string, string, { metadata?: { name?: string } }];
      if (kind === 'services' && body.metadata?.name === 'web2') await serviceHeld;
      return create(...args);
    }) as typeof fake.create);
    const first = record(fake, input, { informers });
    await vi.waitFor(() => expect(first.types()).toContain('created'));
    const second = record(fake, { ...input, containerId: 43, hostname: 'web2' }, { informers });
    // The second is between its Deployment and its Service: both are consumers of the Deployment informer.
    const deploymentConsumers = () => informers.describe(fake).find((informer) => informer.kind === 'deployments')?.consumers;
    await vi.waitFor(() => expect(deploymentConsumers()).toBe(2));
    expect(fake.get('services', 'web2')).toBeUndefined();
    completeRollout(fake, 'web');
    publishEndpoints(fake, 'web', [{ pod: readyPodOf(fake), ready: true }]);
    await vi.waitFor(() => expect(first.done()).toBe(true));
    expect(first.error()).toBeUndefined();

    releaseService();
    await vi.waitFor(() => expect(second.types()).toContain('created'));
    completeRollout(fake, 'web2');
    publishEndpoints(fake, 'web2', [{ pod: readyPodOf(fake, 'web2', 'y1'), ready: true }]);
    await vi.waitFor(() => expect(second.done()).toBe(true));
    expect(second.error()).toBeUndefined();
    const watches = fake.calls.filter((call) => call.method === 'watch').map((call) => call.kind);
    expect(
      watches.filter((kind) => kind === 'deployments'),
      watches.join(', '),
    ).toHaveLength(1);
    expect(
      watches.filter((kind) => kind === 'pods'),
      watches.join(', '),
    ).toHaveLength(1);
    expect(fake.activeWatches).toBe(0);
  });

  it('creates the Service beside the Deployment, owned by it, and is ready only once the slice routes to the new Pod', async () => {
    const fake = new FakeKubernetes();
    const run = record(fake);
    await vi.waitFor(() => expect(run.types()).toContain('created'));
    const deployment = fake.get('deployments', 'web');
    const service = fake.get('services', 'web');
    expect(service?.metadata?.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: deployment?.metadata?.uid },
    ]);
    expect(service?.spec?.selector).toEqual(deployment?.spec?.selector.matchLabels);
    expect(service?.metadata?.labels).toEqual(deployment?.metadata?.labels);
    expect(service?.spec?.ports?.map((port) => `${port.name} ${port.port}/${port.protocol}`)).toEqual(['tcp-22 22/TCP', 'udp-53 53/UDP']);

    completeRollout(fake, 'web');
    const pod = readyPodOf(fake);
    publishEndpoints(fake, 'web', [{ pod, ready: false }]);
    await vi.waitFor(() => expect(run.events.some((event) => event.type === 'progress' && event.service)).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(run.done()).toBe(false);
    const waiting = run.events.filter((event) => event.type === 'progress' && event.service).at(-1);
    expect(waiting).toMatchObject({
      message: 'waiting for the Service web: waiting for the Service to route to the Pod (its endpoint is not ready yet)',
    });

    publishEndpoints(fake, 'web', [{ pod, ready: true }]);
    await vi.waitFor(() => expect(run.done()).toBe(true));
    expect(run.error()).toBeUndefined();
    const ready = run.events.at(-1) as ReadyEvent;
    expect(ready).toMatchObject({ type: 'ready', address: service?.spec?.clusterIP, service: { type: 'ClusterIP', routed: true } });
    expect(ready.service?.ports).toEqual([
      { port: 22, protocol: 'tcp', name: 'tcp-22' },
      { port: 53, protocol: 'udp', name: 'udp-53' },
    ]);
  });

  it('a slice listing an older Pod at the same IP never makes the new one reachable', async () => {
    const fake = new FakeKubernetes();
    const run = record(fake);
    await vi.waitFor(() => expect(run.types()).toContain('created'));
    completeRollout(fake, 'web');
    readyPodOf(fake);
    const stale = { metadata: { name: 'web-old', uid: 'old-uid' }, status: { podIP: '10.244.0.7' } } as V1Pod;
    publishEndpoints(fake, 'web', [{ pod: stale, ready: true }]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(run.done()).toBe(false);
  });

  it('a LoadBalancer with no controller fails fast with LoadBalancerPending, and the Service goes with the Deployment', async () => {
    const fake = new FakeKubernetes();
    const run = record(fake, { ...input, serviceType: 'LoadBalancer' }, { failurePolicy: { loadBalancer: { graceMs: 40 } } });
    await vi.waitFor(() => expect(run.types()).toContain('created'));
    // The grace is the Service's, counted from when the wait first sees it pending: the
    // failure comes whether or not the rollout has completed meanwhile.
    await vi.waitFor(() => expect(run.done()).toBe(true), { timeout: 3000 });
    expect(run.error()).toBeInstanceOf(RolloutFailedError);
    expect(run.error()).toMatchObject({ reason: 'LoadBalancerPending' });
    expect((run.error() as Error).message).toContain('the cluster may have no load-balancer controller');
    expect((run.error() as Error).message).toContain('(and its Service) this run created was deleted');
    expect(fake.get('services', 'web')).toBeUndefined();
  });

  it('a LoadBalancer that gets its address is ready at it', async () => {
    const fake = new FakeKubernetes();
    const run = record(fake, { ...input, serviceType: 'LoadBalancer' });
    await vi.waitFor(() => expect(run.types()).toContain('created'));
    completeRollout(fake, 'web');
    const pod = readyPodOf(fake);
    publishEndpoints(fake, 'web', [{ pod, ready: true }]);
    fake.update('services', 'web', (service) => (service.status = { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } }));
    await vi.waitFor(() => expect(run.done()).toBe(true));
    expect(run.events.at(-1)).toMatchObject({ type: 'ready', address: '203.0.113.7' });
  });

  it('NodePort: the node the first routed Pod runs on is chosen once and recorded on the Service', async () => {
    const fake = new FakeKubernetes();
    const { ready } = await running(fake, { ...input, serviceType: 'NodePort' });
    expect(ready.address).toBe('172.30.0.10');
    expect(ready.service?.ports.every((port) => typeof port.nodePort === 'number')).toBe(true);
    expect(fake.get('services', 'web')?.metadata?.annotations).toEqual({ 'org.mieweb.opensource-server.node-address': '172.30.0.10' });
  });

  it('a refused Service names the field and keeps the API server’s words; the Deployment it created is deleted', async () => {
    const fake = new FakeKubernetes();
    fake.failCreateOf(
      'services',
      new InvalidObjectError('invalid', [
        {
          field: 'spec.ports[0].nodePort',
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 30080: provided port is already allocated',
        },
      ]),
    );
    const run = record(fake, { ...input, serviceType: 'NodePort', ports: [{ port: 22, nodePort: 30080 }] });
    await vi.waitFor(() => expect(run.done()).toBe(true));
    expect(run.error()).toBeInstanceOf(ServiceRejectedError);
    expect(run.error()).toMatchObject({ refusal: 'NodePortAllocated', field: 'ports.0.nodePort (22/tcp)' });
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeUndefined());
  });

  it('a foreign Service of the name is a conflict and left untouched; the Deployment this run created goes', async () => {
    const fake = new FakeKubernetes();
    await fake.create('services', 'default', { metadata: { name: 'web', labels: { app: 'other' } }, spec: { ports: [{ port: 80 }] } });
    const before = structuredClone(fake.get('services', 'web'));
    const run = record(fake);
    await vi.waitFor(() => expect(run.done()).toBe(true));
    expect(run.error()).toBeInstanceOf(ConflictError);
    expect((run.error() as Error).message).toContain('Service default/web already exists and belongs to something other than Manager');
    expect(fake.get('services', 'web')).toEqual(before);
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeUndefined());
  });

  it('adopting a Service of ours with other ports is drift; onDrift: reconfigure patches it', async () => {
    const fake = new FakeKubernetes();
    const { pod } = await running(fake);
    const drifted = record(fake, { ...input, ports: [{ port: 22 }, { port: 8080 }] });
    await vi.waitFor(() => expect(drifted.done()).toBe(true));
    expect(drifted.error()).toBeInstanceOf(WorkloadDriftError);
    expect((drifted.error() as WorkloadDriftError).fields).toEqual([
      { field: 'ports', live: '22/tcp tcp-22, 53/udp udp-53', desired: '22/tcp tcp-22, 8080/tcp tcp-8080' },
    ]);
    // Only the Service differs: the error names it, not the Deployment.
    expect((drifted.error() as WorkloadDriftError).kind).toBe('Service');
    expect((drifted.error() as Error).message).toMatch(/^Service default\/web exists for this container but differs/);
    const fixed = record(fake, { ...input, ports: [{ port: 22 }, { port: 8080 }] }, { onDrift: 'reconfigure' });
    await vi.waitFor(() => expect(fake.get('services', 'web')?.spec?.ports?.map((port) => port.port)).toEqual([22, 8080]));
    publishEndpoints(fake, 'web', [{ pod, ready: true }]);
    await vi.waitFor(() => expect(fixed.done()).toBe(true));
    expect(fixed.error()).toBeUndefined();
    expect(fixed.events[0]).toMatchObject({ type: 'adopted', reconfigured: ['ports'] });
  });
});

describe('statuses$ with ports', () => {
  it("shows the Service from the namespace's Service and EndpointSlice informers, and each change of its route", async () => {
    const fake = new FakeKubernetes();
    const { pod } = await running(fake);
    const events: StatusEvent[] = [];
    const subscription = statuses$(fake, { informers: fastInformers() }).subscribe((event) => events.push(event));
    const service = () => events.at(-1)?.status.service;
    await vi.waitFor(() => expect(service()).toMatchObject({ routed: true, reason: 'Routed' }));
    publishEndpoints(fake, 'web', [{ pod, ready: false }]);
    await vi.waitFor(() => expect(service()).toMatchObject({ routed: false, reason: 'EndpointNotReady' }));
    publishEndpoints(fake, 'web', [{ pod, ready: true }]);
    await vi.waitFor(() => expect(service()).toMatchObject({ routed: true }));
    fake.removeObject('services', 'web');
    await vi.waitFor(() => expect(service()).toBeNull());
    expect(events.map((event) => event.status.service?.reason ?? 'none')).toEqual(['Routed', 'EndpointNotReady', 'Routed', 'none']);
    subscription.unsubscribe();
  });
});

describe('setPorts and reconfigure with ports', () => {
  it('patch the Service only: the Deployment keeps its generation; the same ports again write nothing', async () => {
    const fake = new FakeKubernetes();
    const { pod } = await running(fake);
    const generation = fake.get('deployments', 'web')?.metadata?.generation;
    const done = setPorts(fake, 'default/web', [{ port: 22 }, { port: 8080 }], { informers: fastInformers(), containerId: 42 });
    await vi.waitFor(() => expect(fake.get('services', 'web')?.spec?.ports?.map((port) => port.port)).toEqual([22, 8080]));
    publishEndpoints(fake, 'web', [{ pod, ready: true }]);
    const result = await done;
    expect(result).toMatchObject({ changed: true, address: fake.get('services', 'web')?.spec?.clusterIP });
    expect(fake.get('deployments', 'web')?.metadata?.generation).toBe(generation);
    const again = await setPorts(fake, 'default/web', [{ port: 8080 }, { port: 22 }], { informers: fastInformers(), containerId: 42 });
    expect(again.changed).toBe(false);

    const viaReconfigure = await reconfigure(
      fake,
      'default/web',
      { ports: [{ port: 22 }, { port: 8080 }] },
      { informers: fastInformers() },
    );
    expect(viaReconfigure).toMatchObject({ changed: false, fields: [] });
  });

  it('an empty list deletes the Service; new ports create it again, owned by the Deployment, at the address it had', async () => {
    const fake = new FakeKubernetes();
    const { pod } = await running(fake);
    const address = fake.get('services', 'web')?.spec?.clusterIP;
    expect(address).toMatch(/^10\.0\./);
    const none = await setPorts(fake, 'default/web', [], { informers: fastInformers() });
    expect(none).toMatchObject({ changed: true, address: null, service: null });
    expect(fake.get('services', 'web')).toBeUndefined();
    // The address is kept on the Deployment (an annotation: a new generation, the same Pod template).
    expect(fake.get('deployments', 'web')?.metadata?.annotations?.[SERVICE_ADDRESS_ANNOTATION]).toBe(address);
    completeRollout(fake, 'web');
    const back = setPorts(fake, 'default/web', [{ port: 22 }], { informers: fastInformers() });
    await vi.waitFor(() => expect(fake.get('services', 'web')).toBeDefined());
    publishEndpoints(fake, 'web', [{ pod, ready: true }]);
    await expect(back).resolves.toMatchObject({ changed: true, address });
    expect(fake.get('services', 'web')?.metadata?.ownerReferences?.[0]?.kind).toBe('Deployment');
  });

  it('an address taken meanwhile gives way to a new one: the Service is created without it', async () => {
    const fake = new FakeKubernetes();
    const { pod } = await running(fake);
    const address = fake.get('services', 'web')?.spec?.clusterIP;
    await setPorts(fake, 'default/web', [], { informers: fastInformers() });
    completeRollout(fake, 'web');
    fake.failNext(
      'create',
      new InvalidObjectError('Service "web" is invalid', [
        { field: 'spec.clusterIPs', reason: 'FieldValueInvalid', message: `${address}: provided IP is already allocated` },
      ]),
    );
    const asked: (string | undefined)[] = [];
    const create = fake.create.bind(fake);
    vi.spyOn(fake, 'create').mockImplementation((kind, namespace, body, options) => {
      if (kind === 'services') asked.push((body as { spec?: { clusterIP?: string } }).spec?.clusterIP);
      return create(kind, namespace, body, options);
    });
    const back = setPorts(fake, 'default/web', [{ port: 22 }], { informers: fastInformers() });
    await vi.waitFor(() => expect(fake.get('services', 'web')).toBeDefined());
    publishEndpoints(fake, 'web', [{ pod, ready: true }]);
    const done = await back;
    expect(asked).toEqual([address, undefined]);
    expect(done.address).not.toBe(address);
    expect(done.address).toBe(fake.get('services', 'web')?.spec?.clusterIP);
  });

  it('refuses a foreign Service and invalid ports before writing', async () => {
    const fake = new FakeKubernetes();
    await running(fake, { ...input, ports: undefined });
    await fake.create('services', 'default', { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } });
    await expect(setPorts(fake, 'default/web', [{ port: 22 }], { informers: fastInformers() })).rejects.toBeInstanceOf(
      WorkloadOwnershipError,
    );
    await expect(setPorts(fake, 'default/web', [{ port: 0 }], { informers: fastInformers() })).rejects.toThrow(
      'ports.0.port: must be from 1 to 65535 (got 0)',
    );
  });

  it("without containerId, another container's managed Service of the name is neither deleted nor patched: the Deployment's container-id decides", async () => {
    const fake = new FakeKubernetes();
    await running(fake, { ...input, ports: undefined });
    const otherLabels = {
      'org.mieweb.opensource-server.managed': 'true',
      'org.mieweb.opensource-server.container-id': '99',
      'org.mieweb.opensource-server.node-id': '7',
    };
    const theirs = await fake.create('services', 'default', {
      metadata: { name: 'web', labels: otherLabels },
      spec: { ports: [{ port: 80 }] },
    });
    fake.calls.length = 0;
    const refusals = [
      await setPorts(fake, 'default/web', [], { informers: fastInformers() }).catch((e: unknown) => e),
      await reconfigure(fake, 'default/web', { ports: [] }, { informers: fastInformers() }).catch((e: unknown) => e),
      await setPorts(fake, 'default/web', [], { informers: fastInformers(), containerId: 42 }).catch((e: unknown) => e),
    ];
    for (const error of refusals) {
      expect(error).toBeInstanceOf(WorkloadOwnershipError);
      expect(error).toMatchObject({ kind: 'Service', expectedContainerId: '42', actualContainerId: '99' });
    }
    expect(fake.calls.filter((call) => call.kind === 'services' && call.method !== 'read')).toEqual([]);
    expect(fake.get('services', 'web')?.metadata?.uid).toBe(theirs.metadata?.uid);
  });

  it('remove deletes the Service and the Deployment and waits for both', async () => {
    const fake = new FakeKubernetes();
    await running(fake);
    const events = await lastValueFrom(
      (await import('../../src/workload/operations/remove.js'))
        .remove$(fake, 'default/web', { containerId: 42, informers: fastInformers() })
        .pipe(toArray()),
    );
    expect(events.filter((event) => event.type === 'deleted').map((event) => event.type === 'deleted' && event.kind)).toEqual([
      'Service',
      'Deployment',
    ]);
    expect(fake.get('services', 'web')).toBeUndefined();
    expect(fake.get('deployments', 'web')).toBeUndefined();
    await expect(remove(fake, 'default/web', { containerId: 42, informers: fastInformers() })).resolves.toMatchObject({ changed: false });
  });
});

describe('remove beside a Service that is not ours', () => {
  it("a team's plain Service of the workload's name is left untouched and named; the Deployment is deleted", async () => {
    const fake = new FakeKubernetes();
    await running(fake, { ...input, ports: undefined });
    const theirs = await fake.create('services', 'default', { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } });
    const events = await lastValueFrom(
      (await import('../../src/workload/operations/remove.js'))
        .remove$(fake, 'default/web', { containerId: 42, informers: fastInformers() })
        .pipe(toArray()),
    );
    expect(events.filter((event) => event.type === 'deleted').map((event) => event.type === 'deleted' && event.kind)).toEqual([
      'Deployment',
    ]);
    expect(events.find((event) => event.type === 'left')).toMatchObject({
      kind: 'Service',
      object: 'web',
      uid: theirs.metadata?.uid,
      message: expect.stringMatching(/belongs to something other than Manager, not container-id 42: left untouched/),
    });
    expect(events.at(-1)).toMatchObject({ type: 'removed', changed: true, left: [{ kind: 'Service', object: 'web' }] });
    expect(fake.get('deployments', 'web')).toBeUndefined();
    expect(fake.get('services', 'web')?.metadata?.uid).toBe(theirs.metadata?.uid);
  });

  it("another container's Service of the name is left too, and a remove with nothing of ours says so (changed: false)", async () => {
    const fake = new FakeKubernetes();
    await fake.create('services', 'default', {
      metadata: {
        name: 'web',
        labels: { 'org.mieweb.opensource-server.managed': 'true', 'org.mieweb.opensource-server.container-id': '99' },
      },
      spec: { ports: [{ port: 80 }] },
    });
    const result = await remove(fake, 'default/web', { containerId: 42, informers: fastInformers() });
    expect(result).toMatchObject({
      changed: false,
      left: [{ kind: 'Service', object: 'web', message: expect.stringMatching(/container-id 99/) }],
    });
    expect(fake.get('services', 'web')).toBeDefined();
    expect(fake.calls.filter((call) => call.method === 'delete')).toEqual([]);
  });
});
