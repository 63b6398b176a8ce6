// The Sequelize adapter against REAL Sequelize 6 on in-memory SQLite, with the models shaped
// like Manager's that the integration tests use (test/support/manager/models/).
// The Kubernetes provider runs with a fake provision$ and client (no cluster).
import { defer, of, switchMap, throwError } from 'rxjs';
import { createRequire } from 'node:module';
import { Sequelize } from 'sequelize';
import type { Model, ModelStatic } from 'sequelize';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../../src/errors/input.js';
import { RolloutTimeoutError } from '../../../../src/errors/rollout.js';
import type { KubernetesClient } from '../../../../src/kube/client.js';
import { createContainer } from '../../../../src/manager/create-flow.js';
import {
  AlreadyProvisionedError,
  ContainerNotFoundError,
  InvalidContainerRecordError,
  ProviderIdNotSavedError,
} from '../../../../src/manager/errors.js';
import { createKubernetesProvider } from '../../../../src/manager/providers/kubernetes.js';
import type { ProvisionFunction } from '../../../../src/manager/providers/kubernetes.js';
import { ProviderRegistry } from '../../../../src/manager/providers/registry.js';
import { SequelizeContainerStore } from '../../../../src/manager/store/sequelize-store.js';
import type { ProvisionEvent } from '../../../../src/rollout/events.js';
import { recordingOperations } from '../providers/fixtures.js';

const fakeApi = { namespace: 'team-a', server: 'https://east.example:6443' } as KubernetesClient;

interface Models {
  sequelize: Sequelize;
  Site: ModelStatic<Model>;
  Node: ModelStatic<Model>;
  Container: ModelStatic<Model>;
}

/** The Manager-shaped models (test/support/manager/models/) on an in-memory SQLite database. */
function defineManagerModels(): Models {
  const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
  const { defineModels } = createRequire(import.meta.url)('../../../support/manager/define-models.cjs') as {
    defineModels: (sequelize: Sequelize) => Omit<Models, 'sequelize'>;
  };
  return { sequelize, ...defineModels(sequelize) };
}

function rolloutTo(providerId: string): ProvisionEvent[] {
  const [namespace = '', name = ''] = providerId.split('/');
  const base = { namespace, name, providerId };
  return [
    { type: 'created', at: '2025-01-01T00:00:00.000Z', uid: 'uid-1', ...base },
    { type: 'ready', at: '2025-01-01T00:00:02.000Z', adopted: false, durationMs: 2000, address: '10.96.0.9', service: null, ...base },
  ];
}

let models: Models;
let store: SequelizeContainerStore;
let containerId: number;
const provisionInputs: unknown[] = [];

function providers(run: ProvisionFunction = () => of(...rolloutTo('team-a/web-42'))): ProviderRegistry {
  const recording: ProvisionFunction = (api, input, options) => {
    provisionInputs.push(input);
    return run(api, input, options);
  };
  return new ProviderRegistry([
    createKubernetesProvider({ provision$: recording, clientFor: () => fakeApi, operations: recordingOperations([], '10.244.0.9') }),
  ]);
}

async function rowOf(id: number): Promise<Record<string, unknown>> {
  const row = await models.Container.findByPk(id);
  return row?.get({ plain: true }) as Record<string, unknown>;
}

beforeEach(async () => {
  provisionInputs.length = 0;
  models = defineManagerModels();
  await models.sequelize.sync();
  const site = await models.Site.create({ name: 'Main', internalDomain: 'main.internal' });
  const node = await models.Node.create({
    name: 'k8s-east',
    nodeType: 'kubernetes',
    kubeconfigPath: '/etc/manager/east.kubeconfig',
    kubeNamespace: 'team-a',
    kubePersistence: 'off',
    siteId: site.get('id'),
  });
  const container = await models.Container.create({
    hostname: 'web-42',
    username: 'alice',
    template: 'docker.io/library/nginx:latest',
    nodeId: node.get('id'),
    siteId: site.get('id'),
    environmentVars: JSON.stringify({ APP_MODE: 'production' }),
    entrypoint: 'nginx -g "daemon off;"',
  });
  containerId = container.get('id') as number;
  store = new SequelizeContainerStore({
    Container: models.Container,
    findOptions: { include: [{ model: models.Node, as: 'node', include: [{ model: models.Site, as: 'site' }] }] },
    approvedResources: () => ({ cpus: 1, memory: 0 }),
    resourceDefaults: { cpus: 4, memory: 4096, swap: 0, rootfs: 50 },
    defaultEnvironment: () => ({ TZ: 'UTC' }),
  });
});

afterEach(async () => {
  await models.sequelize.close();
});

describe('SequelizeContainerStore with Manager-shaped models', () => {
  it('Stable Deployment provider ID is stored: provisions through createContainer and stores namespace/name in containerId', async () => {
    const result = await createContainer(containerId, { providers: providers(), store });

    expect(result).toMatchObject({ providerId: 'team-a/web-42', macAddress: null, ipAddress: '10.96.0.9' });
    const row = await rowOf(containerId);
    expect(row).toMatchObject({ containerId: 'team-a/web-42', macAddress: null, ipv4Address: '10.96.0.9' });
    // The record the provider saw: approved CPU, memory defaulted (0 -> 4096), env merged.
    expect(provisionInputs).toEqual([
      {
        containerId,
        nodeId: row['nodeId'],
        hostname: 'web-42',
        image: 'docker.io/library/nginx:latest',
        cpus: 1,
        memoryMb: 4096,
        env: { TZ: 'UTC', APP_MODE: 'production' },
        entrypoint: 'nginx -g "daemon off;"',
        namespace: 'team-a',
      },
    ]);
  });

  it('maps the row, its node and the node site into a record', async () => {
    const record = await store.load(containerId);
    expect(record).toMatchObject({
      id: containerId,
      providerId: null,
      nvidiaRequested: false,
      environment: { APP_MODE: 'production' },
      defaultEnvironment: { TZ: 'UTC' },
      resources: { cpus: 1, memoryMb: 4096, swapMb: 0, rootfsGb: 50 },
      node: { name: 'k8s-east', nodeType: 'kubernetes', kubeNamespace: 'team-a', kubeContext: null, tlsVerify: null },
      site: { name: 'Main', internalDomain: 'main.internal' },
    });
    expect(await store.load(containerId + 1000)).toBeUndefined();
  });

  it('refuses a row that already has a containerId and leaves it untouched', async () => {
    await models.Container.update({ containerId: 'team-a/old' }, { where: { id: containerId } });
    const before = await rowOf(containerId);
    await expect(createContainer(containerId, { providers: providers(), store })).rejects.toBeInstanceOf(AlreadyProvisionedError);
    expect(provisionInputs).toEqual([]);
    expect(await rowOf(containerId)).toEqual(before);
  });

  it('leaves the row exactly as it was when the provider fails', async () => {
    const before = await rowOf(containerId);
    const timeout = new RolloutTimeoutError({ namespace: 'team-a', name: 'web-42' }, 1000, undefined);
    await expect(createContainer(containerId, { providers: providers(() => throwError(() => timeout)), store })).rejects.toBe(timeout);
    expect(await rowOf(containerId)).toEqual(before);
  });

  it('does not overwrite a containerId another run stored meanwhile (compare-and-set)', async () => {
    // A concurrent run claims the row while our rollout is in flight.
    const racing: ProvisionFunction = () =>
      defer(() => models.Container.update({ containerId: 'team-b/web-42' }, { where: { id: containerId } })).pipe(
        switchMap(() => of(...rolloutTo('team-a/web-42'))),
      );
    const failure = createContainer(containerId, { providers: providers(racing), store });
    await expect(failure).rejects.toBeInstanceOf(ProviderIdNotSavedError);
    await expect(failure).rejects.toMatchObject({ providerId: 'team-a/web-42' });
    expect((await rowOf(containerId))['containerId']).toBe('team-b/web-42');
  });

  it("writes template defaults into Manager's environmentVars and entrypoint columns", async () => {
    const written = await store.saveProvisioned(containerId, {
      providerId: '104',
      macAddress: 'BC:24:11:AA:BB:CC',
      ipAddress: '10.1.2.3',
      templateDefaults: { environment: { LANG: 'C.UTF-8', APP_MODE: 'production' }, entrypoint: '/sbin/init' },
    });
    expect(written).toBe(true);
    const row = await rowOf(containerId);
    expect(row).toMatchObject({ containerId: '104', macAddress: 'BC:24:11:AA:BB:CC', ipv4Address: '10.1.2.3', entrypoint: '/sbin/init' });
    expect(JSON.parse(row['environmentVars'] as string)).toEqual({ LANG: 'C.UTF-8', APP_MODE: 'production' });
  });

  it('fails loudly on unreadable environmentVars rather than dropping them', async () => {
    await models.Container.update({ environmentVars: '{not json' }, { where: { id: containerId } });
    await expect(store.load(containerId)).rejects.toBeInstanceOf(InvalidContainerRecordError);
  });

  it('reports a row without its node as an invalid record', async () => {
    const bare = new SequelizeContainerStore({
      Container: models.Container,
      approvedResources: () => ({}),
      defaultEnvironment: () => ({}),
    });
    await expect(bare.load(containerId)).rejects.toMatchObject({
      name: 'InvalidContainerRecordError',
      problems: [expect.stringContaining('node')],
    });
  });

  it('reports a missing row as ContainerNotFoundError through the flow', async () => {
    await expect(createContainer(containerId + 1000, { providers: providers(), store })).rejects.toBeInstanceOf(ContainerNotFoundError);
  });

  it('takes the approved resources and the default environment explicitly: a store without them is refused', () => {
    const Container = models.Container;
    for (const [option, options] of [
      ['approvedResources', { Container, defaultEnvironment: () => ({}) }],
      ['defaultEnvironment', { Container, approvedResources: () => ({}) }],
    ] as const) {
      let error: unknown;
      try {
        new SequelizeContainerStore(options as unknown as ConstructorParameters<typeof SequelizeContainerStore>[0]);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toMatchObject({ option });
    }
  });

  it('never invents an amount: without resourceDefaults, a resource nobody approved fails the load naming it', async () => {
    const strict = new SequelizeContainerStore({
      Container: models.Container,
      findOptions: { include: [{ model: models.Node, as: 'node', include: [{ model: models.Site, as: 'site' }] }] },
      approvedResources: () => ({ cpus: 1, memory: 0, swap: 0, rootfs: 8 }),
      defaultEnvironment: () => ({}),
    });
    const error = await strict.load(containerId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidContainerRecordError);
    expect((error as InvalidContainerRecordError).problems).toEqual([
      'no approved memory and no resourceDefaults.memory',
      'no approved swap and no resourceDefaults.swap',
    ]);
  });

  it('uses exactly the approved amounts when every resource was approved', async () => {
    const approved = new SequelizeContainerStore({
      Container: models.Container,
      findOptions: { include: [{ model: models.Node, as: 'node', include: [{ model: models.Site, as: 'site' }] }] },
      approvedResources: () => ({ cpus: 1, memory: 512, swap: 256, rootfs: 8 }),
      resourceDefaults: { cpus: 4, memory: 4096, swap: 0, rootfs: 50 },
      defaultEnvironment: () => ({}),
    });
    expect((await approved.load(containerId))?.resources).toEqual({ cpus: 1, memoryMb: 512, swapMb: 256, rootfsGb: 8 });
  });
});
