// The lifecycle and the create flow on Manager's rows, with no cluster: tables made by
// Manager-shaped migrations and the kit's (sequelize-cli, SQLite), the Manager-shaped
// models, the kit's managerProviders, and recording stand-ins for the library's Kubernetes
// operations. Each operation takes the row as Manager has it (or its id), and its result
// lands in the row; input Manager's rules refuse is named, never dropped.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualTimeScheduler, lastValueFrom, of, toArray } from 'rxjs';
import type { Model, ModelStatic, Sequelize } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../src/errors/input.js';
import { OperationAbortedError } from '../../../src/errors/operation.js';
import type { KubernetesClient } from '../../../src/kube/client.js';
import { createContainer } from '../../../src/manager/create-flow.js';
import {
  ContainerMissingError,
  ContainerNotFoundError,
  ContainerNotProvisionedError,
  InvalidContainerRecordError,
  LifecycleResultNotSavedError,
} from '../../../src/manager/errors.js';
import { managerProviders, type ManagerModels } from '../../../src/manager/kit/manager-providers.js';
import { containerLifecycle } from '../../../src/manager/lifecycle.js';
import { createDummyProvider } from '../../../src/manager/providers/dummy.js';
import type { ProvisionFunction } from '../../../src/manager/providers/kubernetes.js';
import { ProviderRegistry } from '../../../src/manager/providers/registry.js';
import { MemoryContainerStore } from '../../../src/manager/store/memory-store.js';
import type { ProvisionEvent } from '../../../src/rollout/events.js';
import { MANAGER_MODELS, createManagerDatabase } from '../../support/manager-database.js';
import { containerRecord, recordingOperations } from './providers/fixtures.js';

interface Models extends ManagerModels {
  readonly sequelize: Sequelize;
  readonly Site: ModelStatic<Model>;
  readonly Node: ModelStatic<Model> & ManagerModels['Node'];
  readonly Container: ModelStatic<Model> & ManagerModels['Container'];
  readonly Setting: ModelStatic<Model>;
  readonly ResourceRequest: ModelStatic<Model> & ManagerModels['ResourceRequest'];
}

const fakeApi = {
  namespace: 'team-a',
  server: 'https://east.example:6443',
  readDeployment: async () => ({ spec: { selector: {}, template: { spec: { containers: [{ name: 'web', env: [] }] } } } }),
} as unknown as KubernetesClient;

let dir: string;
let models: Models;
let siteId: number;
let kubeNodeId: number;
let dummyNodeId: number;
const provisionInputs: Record<string, unknown>[] = [];
const calls: unknown[][] = [];

const provision$: ProvisionFunction = (_api, input) => {
  provisionInputs.push(input as Record<string, unknown>);
  const { hostname, namespace = 'team-a' } = input as { hostname: string; namespace?: string };
  const base = { namespace, name: hostname, providerId: `${namespace}/${hostname}` };
  return of<ProvisionEvent[]>(
    { type: 'created', at: '2025-01-01T00:00:00.000Z', uid: 'uid-1', ...base },
    { type: 'ready', at: '2025-01-01T00:00:02.000Z', adopted: false, durationMs: 2000, address: '10.96.0.7', service: null, ...base },
  );
};

/** The kit's store, providers and lifecycle; the Kubernetes operations answer `podIp` (unique per site in Manager's table). */
function kit(podIp = '10.244.0.7') {
  return managerProviders(models, {
    kubernetes: { provision$, clientFor: () => fakeApi, operations: recordingOperations(calls, podIp) },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kp-rows-'));
  process.env.MANAGER_DB = createManagerDatabase(dir).dbPath;
  models = createRequire(import.meta.url)(MANAGER_MODELS) as Models;
  // Manager allows a site without an internal domain; a Kubernetes or dummy node never uses it.
  siteId = (await models.Site.create({ name: 'Main', internalDomain: null })).get('id') as number;
  const node = (fields: Record<string, unknown>) => models.Node.create({ siteId, ...fields }).then((row) => row.get('id') as number);
  kubeNodeId = await node({
    name: 'k8s-east',
    nodeType: 'kubernetes',
    kubeconfigPath: '/etc/manager/east.kubeconfig',
    kubeNamespace: 'team-a',
  });
  dummyNodeId = await node({ name: 'dev', nodeType: 'dummy' });
  await models.Setting.create({ key: 'default_container_env_vars', value: JSON.stringify([{ key: 'TZ', value: 'UTC', description: '' }]) });
}, 60_000);

afterAll(async () => {
  await models?.sequelize.close();
  rmSync(dir, { recursive: true, force: true });
});

let hostnames = 0;
async function row(fields: Record<string, unknown> = {}): Promise<Row> {
  hostnames += 1;
  return (await models.Container.create({
    hostname: `web-${hostnames}`,
    username: 'alice',
    template: 'docker.io/library/nginx:1.27',
    nodeId: kubeNodeId,
    siteId,
    ...fields,
  })) as Row;
}

type Row = Model & { readonly id: number };
const plain = async (id: number) => (await models.Container.findByPk(id))!.get({ plain: true }) as Record<string, unknown>;

describe("the create flow on Manager's rows", () => {
  it('converts numbers and booleans to text as documented, over the admin defaults, and stores the address the container has now', async () => {
    const container = await row({ environmentVars: JSON.stringify({ PORT: 8080, DEBUG: true, NAME: 'web' }) });
    const { store, providers } = kit();
    const result = await createContainer(container.id, { providers, store });
    expect(provisionInputs.at(-1)?.['env']).toEqual({ TZ: 'UTC', PORT: '8080', DEBUG: 'true', NAME: 'web' });
    expect(result).toMatchObject({ providerId: `team-a/${String(container.get('hostname'))}`, macAddress: null, ipAddress: '10.96.0.7' });
    expect(await plain(container.id)).toMatchObject({ containerId: result.providerId, ipv4Address: '10.96.0.7' });
  });

  it.each([
    [
      { 'BAD KEY': 'x', PORT: 8080 },
      ['environmentVars."BAD KEY" is not a variable name (letters, digits and _, not starting with a digit)'],
    ],
    [
      { PORT: null, LIST: [1], OBJ: {} },
      [
        'environmentVars.PORT must be a string, number or boolean, not null',
        'environmentVars.LIST must be a string, number or boolean, not a list',
        'environmentVars.OBJ must be a string, number or boolean, not an object',
      ],
    ],
    [['PORT=8080'], ['environmentVars must be an object of NAME: value pairs, not a list']],
    ['PORT=8080', ['environmentVars must be an object of NAME: value pairs, not a string']],
  ])('refuses %j naming each variable, before any provider runs; the row stays as it was', async (variables, problems) => {
    const container = await row({ environmentVars: JSON.stringify(variables) });
    const before = await plain(container.id);
    const count = provisionInputs.length;
    const { store, providers } = kit();
    const error = await createContainer(container.id, { providers, store }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidContainerRecordError);
    expect((error as InvalidContainerRecordError).problems).toEqual(problems);
    expect((error as Error).message).toBe(`Container ${String(container.get('id'))} cannot be used as it is: ${problems.join('; ')}`);
    expect(provisionInputs).toHaveLength(count);
    expect(await plain(container.id)).toEqual(before);
  });

  it('a site without an internal domain creates on a dummy node as on a Kubernetes one', async () => {
    const container = await row({ nodeId: dummyNodeId });
    const registry = new ProviderRegistry([createDummyProvider({ stepDelayMs: 0 })]);
    const result = await createContainer(container.id, { providers: registry, store: kit().store });
    expect(result.providerId).toBe(`dummy-${String(container.get('id'))}`);
  });
});

describe('the lifecycle takes the row as Manager has it, or its id, and saves what it did', () => {
  it('takes a Sequelize instance without its node, a plain row and an id alike, reading each through the store', async () => {
    const container = await row({ containerId: 'team-a/web-rows', ipv4Address: '10.244.0.1' });
    const id = container.id;
    const { lifecycle } = kit();
    calls.length = 0;
    expect(await lifecycle.status(container)).toMatchObject({ state: 'running' });
    expect(await lifecycle.status(container.get({ plain: true }) as { id: number })).toMatchObject({ state: 'running' });
    expect(await lifecycle.status(id)).toMatchObject({ state: 'running' });
    expect(await lifecycle.status(String(id))).toMatchObject({ state: 'running' });
    expect(calls.map((call) => call.slice(0, 3))).toEqual(Array(4).fill(['status', 'team-a/web-rows', String(id)]));
  });

  it('saves start (the address), stop (the address kept: the Service outlives the Pod) and remove (no provider ID: off its node)', async () => {
    const container = await row({ containerId: 'team-a/web-save', ipv4Address: '10.244.0.2' });
    const id = container.id;
    const { lifecycle } = kit('10.244.0.3');
    const events = await lastValueFrom(lifecycle.start$(id).pipe(toArray()));
    expect(events.map((event) => event.type)).toEqual(['started', 'completed', 'saved']);
    expect(events.at(-1)).toMatchObject({
      type: 'saved',
      containerId: id,
      operation: 'start',
      providerId: 'team-a/web-save',
      ipAddress: '10.244.0.3',
    });
    expect(await plain(id)).toMatchObject({ containerId: 'team-a/web-save', macAddress: null, ipv4Address: '10.244.0.3' });
    await lifecycle.stop(id);
    // The Service's address outlives the stop: the row keeps it.
    expect(await plain(id)).toMatchObject({ containerId: 'team-a/web-save', ipv4Address: '10.244.0.3' });
    const seen: string[] = [];
    await lifecycle.remove(container, { onEvent: (event) => seen.push(event.type) });
    expect(seen).toEqual(['removed', 'completed', 'saved']);
    expect(await plain(id)).toMatchObject({ containerId: null, macAddress: null, ipv4Address: null });
  });

  it("a rootfs approval becomes a resize: Manager's approval (a ResourceRequest row) is the size the reconfigure job asks the volume for", async () => {
    const container = await row({ containerId: 'team-a/web-disk' });
    const hostname = (await plain(container.id))['hostname'] as string;
    // The live Deployment mounts the container's claim (it was created with persistence on, the node's default).
    const withClaim = {
      ...fakeApi,
      read: async () => ({
        spec: {
          selector: {},
          template: {
            spec: {
              containers: [{ name: 'web', env: [] }],
              volumes: [{ name: 'storage', persistentVolumeClaim: { claimName: hostname } }],
            },
          },
        },
      }),
    } as unknown as KubernetesClient;
    const seen: unknown[][] = [];
    const { lifecycle } = managerProviders(models, {
      kubernetes: { provision$, clientFor: () => withClaim, operations: recordingOperations(seen, '10.244.0.7') },
    });
    // Never approved: Manager's default rootfs (50 GB), the size the claim was created with (no change).
    const reconfigured = () => seen.filter((call) => call[0] === 'reconfigure$').at(-1);
    await lifecycle.reconfigure(container.id);
    expect(reconfigured()?.[2]).toMatchObject({ storageGb: 50 });
    // An admin approves 80 GB (PUT /resource-requests/:id/approve stores it, then queues the job with --rootfs=80).
    await models.ResourceRequest.create({
      siteId,
      hostname,
      username: 'alice',
      resourceType: 'rootfs',
      value: 80,
      status: 'approved',
      reviewedAt: new Date(),
    });
    await lifecycle.reconfigure(container.id);
    expect(reconfigured()).toEqual(['reconfigure$', 'team-a/web-disk', expect.objectContaining({ storageGb: 80 })]);
  });

  it('a row never provisioned is refused in the words of the operation, with no call to its node', async () => {
    const container = await row();
    const { lifecycle } = kit();
    calls.length = 0;
    const error = await lifecycle.restart(container).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContainerNotProvisionedError);
    expect((error as Error).message).toMatch(/^Container \d+ cannot be restarted: it has no provider ID \(containerId\)/);
    expect(calls).toEqual([]);
  });

  it('names a missing row, and a row whose provider ID changed meanwhile (the result is not written over it)', async () => {
    const { lifecycle, store } = kit();
    await expect(lifecycle.stop(999_999)).rejects.toBeInstanceOf(ContainerNotFoundError);
    const container = await row({ containerId: 'team-a/web-raced' });
    const id = container.id;
    const racing = containerLifecycle(kit().providers, {
      store: {
        load: async (containerId) => {
          const record = await store.load(containerId);
          await models.Container.update({ containerId: 'team-a/web-other' }, { where: { id } });
          return record;
        },
        saveProvisioned: async () => false,
        saveOperation: (...args) => store.saveOperation(...args),
      },
    });
    const error = await racing.start(id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LifecycleResultNotSavedError);
    expect((error as Error).message).toBe(
      `Container ${id}: the start of team-a/web-raced succeeded but its result was not saved: the row no longer has provider ID team-a/web-raced (deleted or changed meanwhile)`,
    );
    expect(await plain(id)).toMatchObject({ containerId: 'team-a/web-other' });
  });

  it('without a store, a row is refused by name, not with a TypeError', async () => {
    const lifecycle = containerLifecycle(kit().providers);
    const error = await lifecycle
      .stop((await row({ containerId: 'team-a/x' })).get({ plain: true }) as { id: number })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toMatch(/containerLifecycle needs \{ store \} to take Manager's row or its id/);
    expect(() => containerLifecycle(kit().providers, { store: { load: async () => undefined } as never })).toThrow(InvalidOptionError);
  });

  it('an already aborted signal stops the operation before the row is read', async () => {
    const controller = new AbortController();
    controller.abort(new Error('job cancelled'));
    const error = await kit()
      .lifecycle.stop(123, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationAbortedError);
    expect((error as Error).message).toBe('Stop of container 123 was aborted');
  });
});

describe('the dummy provider keeps to what happened', () => {
  const record = containerRecord({ id: 7, providerId: 'dummy-7', node: { nodeType: 'dummy', name: 'dev' } });

  it('honours an aborted signal: an operation already aborted does nothing, one aborted in its delay stops', async () => {
    const clock = new VirtualTimeScheduler();
    const provider = createDummyProvider({ stepDelayMs: 100 });
    const lifecycle = provider.lifecycle!;
    const aborted = new AbortController();
    aborted.abort();
    const errors: unknown[] = [];
    lifecycle.stop$(record, { clock, signal: aborted.signal }).subscribe({ error: (e: unknown) => errors.push(e) });
    const midway = new AbortController();
    const seen: string[] = [];
    lifecycle
      .stop$(record, { clock, signal: midway.signal })
      .subscribe({ next: (e) => seen.push(e.type), error: (e: unknown) => errors.push(e) });
    clock.schedule(() => midway.abort(), 50);
    clock.flush();
    expect(errors.map((error) => (error as Error).name)).toEqual(['OperationAbortedError', 'OperationAbortedError']);
    expect(seen).toEqual([]);
    expect(await lifecycle.status(record, { clock })).toMatchObject({ state: 'running' });
  });

  it('never revives a removed container: a later stop or start fails, a second remove changes nothing, status says missing', async () => {
    const lifecycle = containerLifecycle(new ProviderRegistry([createDummyProvider({ stepDelayMs: 0 })]));
    expect(await lifecycle.remove(record)).toMatchObject({ changed: true });
    for (const operation of ['stop', 'start', 'restart', 'reconfigure'] as const) {
      const error = await lifecycle[operation](record).catch((e: unknown) => e);
      expect(error, operation).toBeInstanceOf(ContainerMissingError);
      expect((error as Error).message).toMatch(/node dev has no container dummy-7 \(it was removed\)$/);
    }
    expect(await lifecycle.remove(record)).toMatchObject({ changed: false });
    expect(await lifecycle.status(record)).toMatchObject({ state: 'missing', reason: 'NotFound', ipAddress: null });
  });

  it('with a store, a removed dummy container is off its node: its row has no provider ID', async () => {
    const store = new MemoryContainerStore([record]);
    const lifecycle = containerLifecycle(new ProviderRegistry([createDummyProvider({ stepDelayMs: 0 })]), { store });
    await lifecycle.remove(7);
    expect(await store.load(7)).toMatchObject({ providerId: null, macAddress: null, ipAddress: null });
    await expect(lifecycle.stop(7)).rejects.toBeInstanceOf(ContainerNotProvisionedError);
  });
});
