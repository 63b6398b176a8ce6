// Creation and readiness through provision$/provision against FakeKubernetes, an in-memory
// stand-in for the API server (unit test: the real control plane is in test/integration).
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { ApiUnreachableError, ConflictError, ForbiddenError, ResourceExpiredError } from '../../src/errors/api.js';
import { InvalidSpecError } from '../../src/errors/input.js';
import { ProvisionAbortedError, RolloutFailedError, RolloutTimeoutError } from '../../src/errors/rollout.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { provision, provision$ } from '../../src/workload/operations/provision.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import type { ProvisionEvent } from '../../src/rollout/events.js';
import { FakeKubernetes, completeRollout, podOf, startRollout } from '../support/fake-kube.js';
import { replicaSetName } from '../support/fixtures.js';

const input = {
  containerId: 42,
  nodeId: 7,
  hostname: 'web',
  image: 'docker.io/library/nginx:1.27',
  cpus: 1,
  memoryMb: 1024,
  env: { GREETING: 'hello' },
  entrypoint: 'nginx -g "daemon off;"',
};

const fastInformers = () => new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });

function record(fake: FakeKubernetes, spec: object = input, options: Parameters<typeof provision$>[2] = {}) {
  const events: ProvisionEvent[] = [];
  let error: unknown;
  let done = false;
  const subscription = provision$(fake, spec, { informers: fastInformers(), ...options }).subscribe({
    next: (event) => events.push(event),
    error: (e: unknown) => {
      error = e;
      done = true;
    },
    complete: () => (done = true),
  });
  return { events, subscription, error: () => error, done: () => done, types: () => events.map((e) => e.type) };
}

describe('provision (creation)', () => {
  it('Manager can create a Kubernetes Deployment: creates exactly the built manifest and resolves to namespace/name', async () => {
    const fake = new FakeKubernetes('apps');
    const run = record(fake);
    await vi.waitFor(() => expect(run.types()).toContain('created'));
    const stored = fake.get('deployments', 'web');
    const expected = buildDeployment(parseWorkloadSpec(input), { namespace: 'apps' });
    expect(stored?.spec).toEqual(expected.spec);
    expect(stored?.metadata?.labels).toEqual(expected.metadata?.labels);
    startRollout(fake, 'web');
    completeRollout(fake, 'web');
    await vi.waitFor(() => expect(run.done()).toBe(true));
    expect(run.error()).toBeUndefined();
    const ready = run.events.at(-1);
    expect(ready).toMatchObject({ type: 'ready', providerId: 'apps/web', namespace: 'apps', name: 'web', adopted: false });
    expect(run.types()).toEqual(['created', 'progress', 'progress', 'progress', 'ready']);
    expect(run.events.filter((e) => e.type === 'progress').map((e) => e.type === 'progress' && e.status.reason)).toEqual([
      'ObservedGenerationBehind',
      'WaitingForReady',
      'NewReplicaSetAvailable',
    ]);
    // Events are plain JSON.
    expect(JSON.parse(JSON.stringify(run.events))).toEqual(run.events);
  });

  it('Manager waits for Deployment readiness: never resolves before the completing event', async () => {
    const fake = new FakeKubernetes();
    const run = record(fake);
    await vi.waitFor(() => expect(run.types()).toContain('created'));
    startRollout(fake, 'web');
    fake.update('deployments', 'web', (d) => {
      d.status = { ...d.status, readyReplicas: 1 }; // ready but not yet available
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(run.done()).toBe(false);
    completeRollout(fake, 'web');
    await vi.waitFor(() => expect(run.done()).toBe(true));
    expect(run.types().at(-1)).toBe('ready');
  });

  it('the Promise form resolves to { providerId, namespace, name, adopted, durationMs, address, service }', async () => {
    const fake = new FakeKubernetes('default');
    const result = provision(fake, input, { informers: fastInformers() });
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
    completeRollout(fake, 'web');
    const resolved = await result;
    expect(resolved).toEqual({
      providerId: 'default/web',
      namespace: 'default',
      name: 'web',
      adopted: false,
      durationMs: expect.any(Number),
      // No ports: no Service, no address.
      address: null,
      service: null,
    });
    expect(resolved.providerId).not.toContain(replicaSetName('web')); // never a ReplicaSet or Pod name
  });

  it('uses the spec namespace over the client default', async () => {
    const fake = new FakeKubernetes('default');
    const run = record(fake, { ...input, namespace: 'team-a' });
    await vi.waitFor(() => expect(fake.get('deployments', 'web', 'team-a')).toBeDefined());
    completeRollout(fake, 'web', 'team-a');
    await vi.waitFor(() => expect(run.done()).toBe(true));
    expect(run.events.at(-1)).toMatchObject({ providerId: 'team-a/web' });
  });

  it('409 AlreadyExists with our container-id: adopts without modifying the existing Deployment', async () => {
    const fake = new FakeKubernetes();
    await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec(input)));
    completeRollout(fake, 'web');
    const before = structuredClone(fake.get('deployments', 'web'));
    const result = await provision(fake, input, { informers: fastInformers() });
    expect(result).toMatchObject({ providerId: 'default/web', adopted: true });
    expect(fake.get('deployments', 'web')).toEqual(before);
  });

  it('409 AlreadyExists owned by another container: ConflictError, nothing overwritten, no watch opened', async () => {
    const fake = new FakeKubernetes();
    await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec({ ...input, containerId: 99 })));
    const before = structuredClone(fake.get('deployments', 'web'));
    const error = await provision(fake, input, { informers: fastInformers() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as Error).message).toMatch(/default\/web already exists and belongs to container-id 99, not container-id 42/);
    expect(fake.get('deployments', 'web')).toEqual(before);
    expect(fake.watchesOpened).toBe(0);
  });

  it('403 on create: ForbiddenError naming verb and resource, no watch opened', async () => {
    const fake = new FakeKubernetes();
    fake.failNext('create', new ForbiddenError({ verb: 'create', resource: 'deployments', namespace: 'default' }));
    const error = await provision(fake, input, { informers: fastInformers() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as Error).message).toMatch(/may not create deployments in namespace default/);
    expect(fake.watchesOpened).toBe(0);
  });

  it('invalid input never reaches the cluster and lists every problem', async () => {
    const fake = new FakeKubernetes();
    const error = await provision(fake, { ...input, hostname: 'Bad_Name', cpus: 0, image: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidSpecError);
    expect((error as InvalidSpecError).issues.map((issue) => issue.path).sort()).toEqual(['cpus', 'hostname', 'image']);
    expect(fake.calls).toEqual([]);
  });
});

describe('provision (readiness, bounded)', () => {
  it('Creation has a bounded timeout: RolloutTimeoutError carries the last status, and every watch is closed', async () => {
    const fake = new FakeKubernetes();
    const registry = fastInformers();
    const pending = provision(fake, input, { timeoutMs: 200, informers: registry });
    await vi.waitFor(() => expect(fake.get('deployments', 'web')).toBeDefined());
    startRollout(fake, 'web');
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RolloutTimeoutError);
    expect((error as RolloutTimeoutError).lastStatus).toMatchObject({ state: 'InProgress', reason: 'WaitingForReady' });
    expect((error as Error).message).toMatch(/default\/web did not complete within 200 ms; last status: InProgress \(WaitingForReady\)/);
    expect(fake.activeWatches).toBe(0);
    expect(registry.count(fake)).toBe(0);
  });

  it('an already-aborted signal rejects at once and calls nothing', async () => {
    const fake = new FakeKubernetes();
    const controller = new AbortController();
    controller.abort(new Error('user cancelled'));
    const error = await provision(fake, input, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProvisionAbortedError);
    expect((error as Error).cause).toEqual(new Error('user cancelled'));
    expect(fake.calls).toEqual([]);
  });

  it('aborting mid-rollout rejects and closes the watches', async () => {
    const fake = new FakeKubernetes();
    const controller = new AbortController();
    const pending = provision(fake, input, { signal: controller.signal, informers: fastInformers() });
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(ProvisionAbortedError);
    expect(fake.activeWatches).toBe(0);
  });

  it('fails with the Deployment deleted while waiting', async () => {
    const fake = new FakeKubernetes();
    const pending = provision(fake, input, { informers: fastInformers() });
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    startRollout(fake, 'web');
    fake.removeObject('deployments', 'web');
    await expect(pending).rejects.toMatchObject({ name: 'RolloutFailedError', reason: 'Deleted' });
  });

  it('names a pod failure from the shared Pod informer (image does not exist)', async () => {
    const fake = new FakeKubernetes();
    const pending = provision(fake, input, { informers: fastInformers() });
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    const deployment = startRollout(fake, 'web');
    fake.addPod(
      podOf(deployment, {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'True' }],
        containerStatuses: [
          {
            name: 'web',
            image: 'x',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ErrImagePull', message: 'manifest unknown' } },
          },
        ],
      }),
    );
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RolloutFailedError);
    expect(error).toMatchObject({
      reason: 'ErrImagePull',
      detail: 'manifest unknown',
      container: 'web',
      pod: `${replicaSetName('web')}-x1`,
    });
  });
});

describe('provision (shared informers, recovery)', () => {
  it('serves many concurrent provisionings from one Deployment watch and one Pod watch, then closes them', async () => {
    const fake = new FakeKubernetes();
    const registry = fastInformers();
    const count = 50;
    const pending = Array.from({ length: count }, (_, i) =>
      provision(fake, { ...input, hostname: `web-${i}`, containerId: i + 1 }, { informers: registry }),
    );
    await vi.waitFor(() => {
      expect(fake.get('deployments', `web-${count - 1}`)).toBeDefined();
      expect(fake.activeWatches).toBe(2);
    });
    for (let i = 0; i < count; i++) completeRollout(fake, `web-${i}`);
    const results = await Promise.all(pending);
    expect(new Set(results.map((r) => r.providerId)).size).toBe(count);
    // One streaming list per kind: the current objects and then the changes, on one request.
    const opened = (method: string) =>
      fake.calls
        .filter((c) => c.method === method)
        .map((c) => `${c.kind}${c.streamingList ? ' (streaming list)' : ''}`)
        .sort();
    expect(opened('watch')).toEqual(['deployments (streaming list)', 'pods (streaming list)']);
    expect(opened('list')).toEqual([]);
    expect(fake.activeWatches).toBe(0);
    expect(registry.count(fake)).toBe(0);
  });

  it('describe() tells what each informer holds while provisionings wait, and nothing once they are done', async () => {
    const fake = new FakeKubernetes();
    const registry = fastInformers();
    const pending = [0, 1, 2].map((i) => provision(fake, { ...input, hostname: `web-${i}`, containerId: i + 1 }, { informers: registry }));
    await vi.waitFor(() => {
      const byKind = Object.fromEntries(registry.describe(fake).map((informer) => [informer.kind, informer]));
      expect(byKind.deployments).toMatchObject({ namespace: 'default', running: true, consumers: 3, objects: 3, keys: 3 });
      expect(byKind.pods).toMatchObject({ namespace: 'default', running: true, consumers: 3, objects: 0, keys: 3 });
    });
    for (let i = 0; i < 3; i++) completeRollout(fake, `web-${i}`);
    await Promise.all(pending);
    expect(registry.describe(fake)).toEqual([]);
  });

  it('on a server without streaming lists, falls back to a list and a watch per kind, once', async () => {
    const fake = new FakeKubernetes();
    fake.supportsStreamingLists = false;
    const registry = fastInformers();
    const count = 5;
    const pending = Array.from({ length: count }, (_, i) =>
      provision(fake, { ...input, hostname: `web-${i}`, containerId: i + 1 }, { informers: registry }),
    );
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    for (let i = 0; i < count; i++) completeRollout(fake, `web-${i}`);
    await expect(Promise.all(pending)).resolves.toHaveLength(count);
    const opened = (method: string) =>
      fake.calls
        .filter((c) => c.method === method)
        .map((c) => `${c.kind}${c.streamingList ? ' (streaming list)' : ''}`)
        .sort();
    expect(opened('watch')).toEqual(['deployments', 'deployments (streaming list)', 'pods', 'pods (streaming list)']);
    expect(opened('list')).toEqual(['deployments', 'pods']);
    expect(fake.activeWatches).toBe(0);
  });

  it('a fatal 403 on the watch fails every waiter at once with ForbiddenError', async () => {
    const fake = new FakeKubernetes();
    const forbidden = new ForbiddenError({ verb: 'watch', resource: 'deployments', namespace: 'default' });
    fake.failNext('watch', forbidden);
    const registry = fastInformers();
    const started = Date.now();
    const results = await Promise.allSettled([
      provision(fake, input, { informers: registry }),
      provision(fake, { ...input, hostname: 'web-2', containerId: 2 }, { informers: registry }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    for (const r of results) expect((r as PromiseRejectedResult).reason).toBe(forbidden);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('survives a dropped watch: the completion that happened while disconnected still resolves', async () => {
    const fake = new FakeKubernetes();
    const pending = provision(fake, input, { informers: fastInformers() });
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    fake.failNext('watch', new ApiUnreachableError(fake.server, 'ECONNREFUSED')); // first reconnect attempt fails too
    fake.dropWatches(new ApiUnreachableError(fake.server, 'ECONNRESET'));
    completeRollout(fake, 'web'); // while nobody watches
    await expect(pending).resolves.toMatchObject({ providerId: 'default/web' });
  });

  it('relists after 410 Gone and resolves from the fresh list', async () => {
    const fake = new FakeKubernetes();
    const pending = provision(fake, input, { informers: fastInformers() });
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    fake.dropWatches(new ResourceExpiredError());
    completeRollout(fake, 'web');
    fake.compact();
    await expect(pending).resolves.toMatchObject({ providerId: 'default/web' });
    // After 410 the informer starts over with a fresh streaming list, not a resumed watch.
    expect(fake.calls.filter((c) => c.method === 'watch' && c.kind === 'deployments' && c.streamingList).length).toBeGreaterThanOrEqual(2);
  });

  it('a Deployment deleted while disconnected fails the waiter after the relist (not at its timeout)', async () => {
    const fake = new FakeKubernetes();
    const pending = provision(fake, input, { informers: fastInformers(), timeoutMs: 60_000 });
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    startRollout(fake, 'web');
    fake.dropWatches(new ResourceExpiredError());
    fake.removeObject('deployments', 'web');
    fake.compact();
    const started = Date.now();
    await expect(pending).rejects.toMatchObject({ name: 'RolloutFailedError', reason: 'Deleted' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('is cold: nothing happens until subscribed, and each subscription provisions once', async () => {
    const fake = new FakeKubernetes();
    const observable = provision$(fake, input, { informers: fastInformers() });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fake.calls).toEqual([]);
    const first = firstValueFrom(observable);
    await expect(first).resolves.toMatchObject({ type: 'created' });
    completeRollout(fake, 'web');
    const second = await lastValueFrom(observable.pipe(toArray()));
    expect(second.map((e) => e.type)).toEqual(['adopted', 'progress', 'ready']);
  });
});
