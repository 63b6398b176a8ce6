// A route wait judges only the Service version it wrote, or a newer one, against
// FakeKubernetes (an in-memory stand-in for the API server; the EndpointSlice controller's
// part is played by publishEndpoints). The informers run before the write, as a long-lived
// caller's do (Manager's shared client, statuses$, the live page), and the fake holds the
// Service's watch events back: the moment the cache still has the version before the write.
// Also: remove waits for the Service's EndpointSlices, as the garbage collector (played
// by the fake) deletes them, a finalizer holding one. The real control plane plays the
// same scenes in test/integration/service-waits.test.ts.
import { describe, expect, it, vi } from 'vitest';
import { InformerRegistry } from '../../src/informers/registry.js';
import type { V1Pod } from '../../src/kube/objects.js';
import type { ProvisionEvent, ReadyEvent } from '../../src/rollout/events.js';
import { compareResourceVersions, fromWrittenVersion } from '../../src/rollout/written-version.js';
import { provision$ } from '../../src/workload/operations/provision.js';
import { reconfigure } from '../../src/workload/operations/reconfigure.js';
import { endpointSliceSnapshots, serviceSnapshots } from '../../src/members/service/member.js';
import { setPorts } from '../../src/workload/operations/set-ports.js';
import { remove } from '../../src/workload/operations/remove.js';
import { FakeKubernetes, completeRollout, podOf, publishEndpoints } from '../support/fake-kube.js';
import { lastValueFrom, of, toArray } from 'rxjs';

const input = {
  containerId: 42,
  nodeId: 7,
  hostname: 'web',
  image: 'nginx:1.27',
  cpus: 1,
  memoryMb: 256,
  ports: [{ port: 22 }, { port: 53, protocol: 'udp' }],
};
const HOST_IP = '172.30.0.10';

/** A running workload with its Service routed, and informers that keep running (a long-lived caller's). */
async function warm() {
  const fake = new FakeKubernetes();
  const informers = new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });
  const held = [
    serviceSnapshots(informers, fake, 'default', 'web').subscribe(),
    endpointSliceSnapshots(informers, fake, 'default', 'web').subscribe(),
  ];
  const events: ProvisionEvent[] = [];
  const run = provision$(fake, input, { informers }).subscribe({ next: (event) => events.push(event) });
  await vi.waitFor(() => expect(events.map((event) => event.type)).toContain('created'));
  completeRollout(fake, 'web');
  const deployment = fake.get('deployments', 'web');
  if (!deployment) throw new Error('no Deployment');
  const pod: V1Pod = fake.addPod(
    podOf(deployment, { phase: 'Running', podIP: '10.244.0.7', hostIP: HOST_IP, conditions: [{ type: 'Ready', status: 'True' }] }),
  );
  publishEndpoints(fake, 'web', [{ pod, ready: true }]);
  await vi.waitFor(() => expect(events.at(-1)?.type).toBe('ready'));
  run.unsubscribe();
  return { fake, informers, pod, release: () => held.forEach((subscription) => subscription.unsubscribe()) };
}

/** Settles `promise` into a readable state without awaiting it. */
function watched<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the route wait judges the Service version written, not the one cached before it', () => {
  it('setPorts adding a port: not routed while the cache holds the old Service, nor until the slice carries the new port', async () => {
    const { fake, informers, pod, release } = await warm();
    fake.holdWatchEvents('services');
    const result = watched(setPorts(fake, 'default/web', [{ port: 22 }, { port: 8080 }], { informers, containerId: 42 }));
    await vi.waitFor(() => expect(fake.get('services', 'web')?.spec?.ports?.map((port) => port.port)).toEqual([22, 8080]));
    await pause(50);
    // The cached Service is the one before the write, and the slice routes it: not a route on 8080.
    expect(result.settled).toBe(false);
    fake.releaseWatchEvents();
    await pause(50);
    // The written Service now, but the slice still carries 22 and 53 only.
    expect(result.settled).toBe(false);
    publishEndpoints(fake, 'web', [{ pod, ready: true }]);
    await vi.waitFor(() => expect(result.settled).toBe(true));
    expect(result.error).toBeUndefined();
    expect(result.value?.service?.ports.map((port) => port.port)).toEqual([22, 8080]);
    release();
  });

  it('setPorts to LoadBalancer with no controller: LoadBalancerPending, never the ClusterIP of the Service before', async () => {
    const { fake, informers, release } = await warm();
    const clusterIp = fake.get('services', 'web')?.spec?.clusterIP;
    fake.holdWatchEvents('services');
    const result = watched(
      setPorts(fake, 'default/web', [{ port: 22 }], {
        informers,
        containerId: 42,
        serviceType: 'LoadBalancer',
        failurePolicy: { loadBalancer: { graceMs: 100 } },
      }),
    );
    await pause(50);
    expect(result.settled).toBe(false);
    fake.releaseWatchEvents();
    await vi.waitFor(() => expect(result.settled).toBe(true));
    expect(result.value?.address).not.toBe(clusterIp);
    expect(result.error).toMatchObject({ name: 'RolloutFailedError', reason: 'LoadBalancerPending', kind: 'Service' });
    release();
  });

  it("setPorts to NodePort: the address is the routed Pod's node, recorded on the Service, not the ClusterIP", async () => {
    const { fake, informers, release } = await warm();
    fake.holdWatchEvents('services');
    const result = watched(setPorts(fake, 'default/web', input.ports, { informers, containerId: 42, serviceType: 'NodePort' }));
    await pause(50);
    expect(result.settled).toBe(false);
    fake.releaseWatchEvents();
    await vi.waitFor(() => expect(result.settled).toBe(true));
    expect(result.error).toBeUndefined();
    expect(result.value?.service).toMatchObject({ type: 'NodePort', address: HOST_IP });
    expect(fake.get('services', 'web')?.metadata?.annotations?.['org.mieweb.opensource-server.node-address']).toBe(HOST_IP);
    release();
  });

  it("reconfigure's Service-only path waits for the written Service and the slice on its ports", async () => {
    const { fake, informers, pod, release } = await warm();
    fake.holdWatchEvents('services');
    const result = watched(reconfigure(fake, 'default/web', { ports: [{ port: 22 }, { port: 8080 }] }, { informers }));
    await pause(50);
    expect(result.settled).toBe(false);
    fake.releaseWatchEvents();
    await pause(50);
    expect(result.settled).toBe(false);
    publishEndpoints(fake, 'web', [{ pod, ready: true }]);
    await vi.waitFor(() => expect(result.settled).toBe(true));
    expect(result.error).toBeUndefined();
    expect(result.value).toMatchObject({ changed: true, fields: ['ports'] });
    release();
  });

  it('a provisioning that rewrites only the Service on drift is ready only on the written Service and its ports', async () => {
    const { fake, informers, pod, release } = await warm();
    fake.holdWatchEvents('services');
    const events: ProvisionEvent[] = [];
    let failure: unknown;
    const run = provision$(fake, { ...input, ports: [{ port: 22 }, { port: 8080 }] }, { informers, onDrift: 'reconfigure' }).subscribe({
      next: (event) => events.push(event),
      error: (error: unknown) => (failure = error),
    });
    await vi.waitFor(() => expect(fake.get('services', 'web')?.spec?.ports?.map((port) => port.port)).toEqual([22, 8080]));
    await pause(50);
    expect(events.map((event) => event.type)).not.toContain('ready');
    fake.releaseWatchEvents();
    await pause(50);
    expect(events.map((event) => event.type)).not.toContain('ready');
    publishEndpoints(fake, 'web', [{ pod, ready: true }]);
    await vi.waitFor(() => expect(events.at(-1)?.type).toBe('ready'));
    expect(failure).toBeUndefined();
    expect((events.at(-1) as ReadyEvent).service?.ports.map((port) => port.port)).toEqual([22, 8080]);
    run.unsubscribe();
    release();
  });
});

describe("remove waits for the Service's EndpointSlices", () => {
  it('does not return while a finalizer holds a slice after its Service is gone; returns once the slice is', async () => {
    const { fake, informers, release } = await warm();
    fake.update('endpointslices', 'web-slice', (slice) => (slice.metadata = { ...slice.metadata, finalizers: ['example.com/hold'] }));
    const result = watched(remove(fake, 'default/web', { containerId: 42, informers }));
    await vi.waitFor(() => expect(fake.get('services', 'web')).toBeUndefined());
    await vi.waitFor(() => expect(fake.get('endpointslices', 'web-slice')?.metadata?.deletionTimestamp).toBeDefined());
    await pause(100);
    expect(result.settled).toBe(false);
    // The finalizer removed: the garbage collector's delete goes through.
    fake.removeObject('endpointslices', 'web-slice');
    await vi.waitFor(() => expect(result.settled).toBe(true));
    expect(result.error).toBeUndefined();
    expect(result.value).toMatchObject({ changed: true });
    release();
  });

  it('bounded: a slice that stays fails the remove by its timeout, naming what it waited for', async () => {
    const { fake, informers, release } = await warm();
    fake.update('endpointslices', 'web-slice', (slice) => (slice.metadata = { ...slice.metadata, finalizers: ['example.com/hold'] }));
    const failure = await remove(fake, 'default/web', { containerId: 42, informers, timeoutMs: 300 }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'OperationTimeoutError' });
    expect((failure as Error).message).toContain("waiting for the Service's EndpointSlices to be deleted");
    release();
  });
});

describe('resource versions', () => {
  it('compare as the API server hands them out: by length, then digits; anything else only as equal', () => {
    expect(compareResourceVersions('99', '100')).toBe(-1);
    expect(compareResourceVersions('100', '99')).toBe(1);
    expect(compareResourceVersions('123', '124')).toBe(-1);
    expect(compareResourceVersions('124', '124')).toBe(0);
    expect(compareResourceVersions('abc', 'abc')).toBe(0);
    expect(compareResourceVersions('abc', '12')).toBeUndefined();
    expect(compareResourceVersions('012', '12')).toBeUndefined();
  });

  it('fromWrittenVersion passes snapshots from the first that holds the written object at its version or newer', async () => {
    const at = (uid: string, resourceVersion: string) => [{ metadata: { uid, resourceVersion } }];
    const snapshots = [[], at('a', '9'), at('b', '12'), at('a', '11'), at('a', '10'), []];
    const passed = await lastValueFrom(of(...snapshots).pipe(fromWrittenVersion({ uid: 'a', resourceVersion: '10' }), toArray()));
    expect(passed).toEqual([at('a', '11'), at('a', '10'), []]);
  });
});
