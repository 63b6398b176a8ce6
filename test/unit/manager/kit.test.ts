// The kit (kube-provisioner/manager-kit) in Manager's own files, with no cluster: its
// migration run by sequelize-cli on SQLite over tables shaped like Manager's, the model
// attributes and the Node model's methods on those tables (test/support/manager/models/),
// and Manager-shaped node routes over Express (test/support/manager/routers/nodes.cjs).
// The models load the built package (dist/), as Manager does; `npm test` builds first.
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { DataTypes, Op, Sequelize } from 'sequelize';
import type { Model, ModelStatic } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubernetesNodeConfigError, UnsupportedNodeCallError } from '../../../src/manager/errors.js';
import { MAX_KUBECONFIG_PATH_LENGTH, NODE_COLUMNS } from '../../../src/manager/kit/node-columns.js';
import { addNodeColumns, removeNodeColumns } from '../../../src/manager/kit/migration.js';
import { hasApiAccess, nodeAttributes, provisionableWhere } from '../../../src/manager/kit/node-model.js';
import { nodeFields, nodeInputProblem } from '../../../src/manager/kit/node-input.js';
import { nodeApi } from '../../../src/manager/kit/node-api.js';
import { managerProviders } from '../../../src/manager/kit/manager-providers.js';
import { portsOfRecord } from '../../../src/manager/providers/service-ports.js';
import { InvalidOptionError, type InvalidSpecError } from '../../../src/errors/input.js';
import { parseWorkloadSpec } from '../../../src/input/workload-spec.js';
import type { KubernetesClient } from '../../../src/kube/client.js';
import { MANAGER_MODELS, createManagerDatabase, sequelizeCli, type ManagerDatabase } from '../../support/manager-database.js';
import { unreachableKubeconfig } from '../../support/unreachable-kubeconfig.js';

interface NodeRow extends Model {
  hasApiAccess(): boolean;
  api(): Promise<Record<string, (...args: unknown[]) => Promise<unknown>>>;
}
interface ManagerModels {
  readonly sequelize: Sequelize;
  readonly Node: ModelStatic<NodeRow> & { provisionableWhere(): Record<string | symbol, unknown> };
  readonly Site: ModelStatic<Model>;
}

let dir: string;
let kubeconfig: { dir: string; path: string };
let database: ManagerDatabase;
let models: ManagerModels;
let siteId: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kp-kit-'));
  database = createManagerDatabase(dir);
  kubeconfig = unreachableKubeconfig({ token: 'kit-route-token' });
  process.env.MANAGER_DB = database.dbPath;
  process.env.MANAGER_MODELS = MANAGER_MODELS;
  models = createRequire(import.meta.url)(MANAGER_MODELS) as ManagerModels;
  siteId = (await models.Site.create({ name: 'Main', internalDomain: null })).get('id') as number;
}, 60_000);

afterAll(async () => {
  await models?.sequelize.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(kubeconfig.dir, { recursive: true, force: true });
});

function nodesTable(): Promise<Record<string, { type: string; allowNull: boolean }>> {
  return models.sequelize.getQueryInterface().describeTable('Nodes');
}

/** The columns of the kit's second migration (20261202000000-add-kubernetes-storage-columns.js). */
const STORAGE_COLUMNS = ['kubeStorageClass', 'kubePersistPaths', 'kubePersistence'];
/** The columns of the kit's third migration (20261205000000-add-kubernetes-system-container-columns.js). */
const SYSTEM_COLUMNS = ['kubeSystemRuntimeClass', 'kubeUserNamespaces'];

const expectedType = (column: (typeof NODE_COLUMNS)[number]): string => (column.type === 'text' ? 'TEXT' : `VARCHAR(${column.length})`);

describe("the kit's migration, run by sequelize-cli on Manager-shaped tables (SQLite)", () => {
  it("runs after Manager's migrations and adds every kit column, nullable, with the rules' lengths", async () => {
    expect(database.migrateOutput).toContain('20261201000000-add-kubernetes-node-columns: migrated');
    expect(database.migrateOutput).toContain('20261202000000-add-kubernetes-storage-columns: migrated');
    expect(database.migrateOutput).toContain('20261203120000-widen-node-secret-for-tokens: migrated');
    expect(database.migrateOutput).toContain('20261205000000-add-kubernetes-system-container-columns: migrated');
    const table = await nodesTable();
    for (const column of NODE_COLUMNS)
      expect(table[column.name], column.name).toMatchObject({ type: expectedType(column), allowNull: true });
    expect(table['kubeconfigPath']?.type).toBe(`VARCHAR(${MAX_KUBECONFIG_PATH_LENGTH})`);
    expect(MAX_KUBECONFIG_PATH_LENGTH).toBe(4096);
    // Manager's own columns are untouched on SQLite, which never enforces a VARCHAR's length (PostgreSQL: postgres.test.ts).
    expect(table).toMatchObject({ apiUrl: { type: 'VARCHAR(255)' }, secret: { type: 'VARCHAR(255)' }, nodeType: { type: 'VARCHAR(50)' } });
  });

  it("undoes (each db:migrate:undo removes exactly its migration's columns, the nodes stay) and runs again", async () => {
    const node = await models.Node.create({ name: 'pve-1', nodeType: 'proxmox', siteId });
    sequelizeCli(database.project, database.dbPath, 'db:migrate:undo');
    const systemUndone = await nodesTable();
    for (const column of SYSTEM_COLUMNS) expect(systemUndone).not.toHaveProperty(column);
    for (const column of NODE_COLUMNS.filter((column) => !SYSTEM_COLUMNS.includes(column.name))) {
      expect(systemUndone).toHaveProperty(column.name);
    }
    // The migration before widens Manager's secret (TEXT), which SQLite leaves as it is: its undo changes nothing here.
    sequelizeCli(database.project, database.dbPath, 'db:migrate:undo');
    expect(Object.keys(await nodesTable()).sort()).toEqual(Object.keys(systemUndone).sort());
    sequelizeCli(database.project, database.dbPath, 'db:migrate:undo');
    const storageUndone = await nodesTable();
    for (const column of [...STORAGE_COLUMNS, ...SYSTEM_COLUMNS]) expect(storageUndone).not.toHaveProperty(column);
    for (const column of NODE_COLUMNS.filter((column) => ![...STORAGE_COLUMNS, ...SYSTEM_COLUMNS].includes(column.name))) {
      expect(storageUndone).toHaveProperty(column.name);
    }
    sequelizeCli(database.project, database.dbPath, 'db:migrate:undo');
    const undone = await nodesTable();
    for (const column of NODE_COLUMNS) expect(undone).not.toHaveProperty(column.name);
    expect(undone).toHaveProperty('apiUrl');
    sequelizeCli(database.project, database.dbPath, 'db:migrate');
    expect(Object.keys(await nodesTable())).toEqual(expect.arrayContaining(NODE_COLUMNS.map((column) => column.name)));
    expect((await models.Node.findByPk(node.get('id') as number))?.get('name')).toBe('pve-1');
    await node.destroy();
  }, 120_000);

  it('adds only the columns a table lacks, and removes only those it has', async () => {
    const calls: string[] = [];
    const queryInterface = {
      describeTable: async () => ({ id: {}, kubeconfigPath: {} }),
      addColumn: async (_table: string, column: string) => void calls.push(`add ${column}`),
      removeColumn: async (_table: string, column: string) => void calls.push(`remove ${column}`),
    };
    const added = await addNodeColumns(queryInterface, DataTypes);
    expect(added).toEqual(NODE_COLUMNS.map((column) => column.name).filter((name) => name !== 'kubeconfigPath'));
    expect(await removeNodeColumns(queryInterface)).toEqual(['kubeconfigPath']);
  });

  it('takes the columns a migration names, and refuses a name that is not a kit column', async () => {
    const calls: string[] = [];
    const queryInterface = {
      describeTable: async () => ({ id: {}, kubeconfigPath: {}, kubeStorageClass: {} }),
      addColumn: async (_table: string, column: string) => void calls.push(`add ${column}`),
      removeColumn: async (_table: string, column: string) => void calls.push(`remove ${column}`),
    };
    expect(await addNodeColumns(queryInterface, DataTypes, STORAGE_COLUMNS)).toEqual(['kubePersistPaths', 'kubePersistence']);
    expect(await removeNodeColumns(queryInterface, STORAGE_COLUMNS)).toEqual(['kubeStorageClass']);
    expect(calls).toEqual(['add kubePersistPaths', 'add kubePersistence', 'remove kubeStorageClass']);
    await expect(removeNodeColumns(queryInterface, ['kubeStorage'])).rejects.toThrow(/kubeStorage is not a kit node column/);
    expect(calls).toHaveLength(3);
  });
});

describe("the model attributes in Manager's Node model", () => {
  it('declare each migrated column with the same type, so Node.create keeps the fields', async () => {
    const attributes = nodeAttributes(DataTypes);
    expect(Object.keys(attributes)).toEqual(NODE_COLUMNS.map((column) => column.name));
    const table = await nodesTable();
    for (const [name, attribute] of Object.entries(attributes)) {
      expect(String((attribute.type as { toSql(): string }).toSql())).toBe(table[name]?.type);
    }
    const path = `/${'k'.repeat(MAX_KUBECONFIG_PATH_LENGTH - 1)}`;
    const node = await models.Node.create({
      name: 'k8s-long',
      nodeType: 'kubernetes',
      siteId,
      kubeconfigPath: path,
      kubeGpuResource: 'amd.com/gpu',
    });
    const stored = (await models.Node.findByPk(node.get('id') as number))!;
    expect(stored.get('kubeconfigPath')).toBe(path);
    expect(stored.get('kubeGpuResource')).toBe('amd.com/gpu');
    await node.destroy();
  });

  it('without them, Sequelize drops the fields on create without a word (what the kit prevents)', async () => {
    const bare = new Sequelize({ dialect: 'sqlite', storage: database.dbPath, logging: false });
    try {
      const Node = bare.define('Node', { name: DataTypes.STRING, nodeType: DataTypes.STRING, siteId: DataTypes.INTEGER });
      const node = await Node.create({ name: 'k8s-dropped', nodeType: 'kubernetes', siteId, kubeconfigPath: '/etc/k8s.kubeconfig' });
      const stored = (await models.Node.findByPk(node.get('id') as number))!;
      expect(stored.get('kubeconfigPath')).toBeNull();
      await stored.destroy();
    } finally {
      await bare.close();
    }
  });
});

describe("hasApiAccess and provisionableWhere in Manager's Node model", () => {
  it('pick exactly the kubernetes nodes that can reach their cluster, beside the other types', async () => {
    const rows = {
      kubeconfig: { nodeType: 'kubernetes', kubeconfigPath: '/etc/manager/east.kubeconfig', kubeNamespace: 'team-a' },
      token: { nodeType: 'kubernetes', apiUrl: 'https://10.0.0.1:6443', secret: 'token-value' },
      bare: { nodeType: 'kubernetes', kubeNamespace: 'team-a' },
      emptyPath: { nodeType: 'kubernetes', kubeconfigPath: '' },
      tokenWithoutSecret: { nodeType: 'kubernetes', apiUrl: 'https://10.0.0.1:6443' },
      proxmox: { nodeType: 'proxmox', apiUrl: 'https://pve:8006', tokenId: 'root@pam!t', secret: 's' },
      proxmoxBare: { nodeType: 'proxmox' },
      dummy: { nodeType: 'dummy' },
    };
    const ids = new Map<number, string>();
    for (const [name, fields] of Object.entries(rows)) {
      const node = await models.Node.create({ name: `node-${name}`, siteId, ...fields });
      ids.set(node.get('id') as number, name);
    }
    const picked = (await models.Node.findAll({ where: { siteId, ...models.Node.provisionableWhere() } }))
      .map((node) => ids.get(node.get('id') as number))
      .filter(Boolean)
      .sort();
    expect(picked).toEqual(['dummy', 'kubeconfig', 'proxmox', 'token']);
    const access = Object.fromEntries(
      (await models.Node.findAll({ where: { siteId } })).map((node) => [ids.get(node.get('id') as number), node.hasApiAccess()]),
    );
    expect(access).toEqual({
      kubeconfig: true,
      token: true,
      bare: false,
      emptyPath: false,
      tokenWithoutSecret: false,
      proxmox: true,
      proxmoxBare: false,
      dummy: true,
    });
    await models.Node.destroy({ where: { id: [...ids.keys()] } });
  });

  it('provisionableWhere is built from the Op it is given (Manager passes its own)', () => {
    const where = provisionableWhere(Op);
    expect(where['nodeType']).toBe('kubernetes');
    expect(where[Op.or]).toEqual([
      { kubeconfigPath: { [Op.ne]: null, [Op.notIn]: [''] } },
      { apiUrl: { [Op.ne]: null, [Op.notIn]: [''] }, secret: { [Op.ne]: null, [Op.notIn]: [''] } },
    ]);
  });

  it('hasApiAccess answers false for what the rules refuse, and sends nothing', () => {
    expect(hasApiAccess({ name: 'k', kubeconfigPath: 'relative/kubeconfig' })).toBe(false);
    expect(hasApiAccess({ name: 'k', kubeconfigPath: '/etc/k', apiUrl: 'https://x' })).toBe(false);
    expect(hasApiAccess(null)).toBe(false);
    expect(hasApiAccess({ name: 'k', kubeconfigPath: '/etc/k', kubeContext: 'prod' })).toBe(true);
  });
});

describe("node.api() of a kubernetes node (the kit's nodeApi), without a cluster", () => {
  it('refuses a node whose columns do not say how to reach its cluster, as the Proxmox branch does', async () => {
    const node = await models.Node.create({ name: 'k8s-bare', nodeType: 'kubernetes', siteId });
    const error = await node.api().catch((e: unknown) => e);
    expect((error as Error).name).toBe('KubernetesNodeConfigError');
    expect((error as Error).message).toMatch(/^Kubernetes node k8s-bare \(id \d+\): kubeconfigPath is missing/);
    await node.destroy();
  });

  it('answers every other call of Manager’s node API with an error naming it and where that work happens', async () => {
    const api = nodeApi(
      { id: 1, name: 'k8s-east', nodeType: 'kubernetes', kubeconfigPath: '/etc/k.kubeconfig' },
      {
        clientFor: () => ({}) as KubernetesClient,
      },
    );
    for (const method of ['nextId', 'datastores', 'updateLxcConfig', 'startLxc', 'stopLxc', 'getLxcIpAddress', 'waitForTask']) {
      const error = await (api[method] as () => Promise<unknown>)().catch((e: unknown) => e);
      expect(error, method).toBeInstanceOf(UnsupportedNodeCallError);
      expect((error as Error).message, method).toMatch(new RegExp(`^Kubernetes node k8s-east has no ${method}\\(\\): \\S`));
    }
    expect(await api.clusterResources('storage')).toEqual([]);
    expect(() => nodeApi({ name: 'k8s-east', nodeType: 'kubernetes' })).toThrow(KubernetesNodeConfigError);
  });

  it("lxcConfig answers the hostname Manager's DELETE route compares, from the Deployment's pod template", async () => {
    const reads: string[] = [];
    const client = {
      read: async (kind: string, namespace: string, name: string) => {
        reads.push(`${kind} ${namespace}/${name}`);
        return { spec: { selector: {}, template: { spec: { hostname: 'web', containers: [] } } } };
      },
    } as unknown as KubernetesClient;
    const api = nodeApi({ id: 1, name: 'k8s', nodeType: 'kubernetes', kubeconfigPath: '/etc/k' }, { clientFor: () => client });
    expect(await api.lxcConfig('k8s', 'team-a/web')).toEqual({ hostname: 'web' });
    expect(reads).toEqual(['deployments team-a/web']);
  });
});

describe("Manager's node routes with the kubernetes node type (Express, the Manager-shaped router)", () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = createRequire(import.meta.url)('../../support/manager/app.cjs') as {
      managerApp: () => { listen(port: number, host: string): Server };
    };
    server = app.managerApp().listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/sites`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const send = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${base}/${siteId}/nodes${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as { data?: Record<string, unknown>; error?: { code: string; message: string } },
    };
  };

  it('POST saves a kubernetes node with its columns (empty ones null) and shows them back', async () => {
    const created = await send('POST', '/', {
      name: 'k8s-east',
      nodeType: 'kubernetes',
      kubeconfigPath: kubeconfig.path,
      kubeContext: '',
      kubeNamespace: 'team-a',
      kubeGpuResource: 'nvidia.com/gpu',
      tlsVerify: 'true',
    });
    expect(created.body.error?.message).toBeUndefined();
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      nodeType: 'kubernetes',
      kubeconfigPath: kubeconfig.path,
      kubeContext: null,
      kubeNamespace: 'team-a',
      kubeGpuResource: 'nvidia.com/gpu',
      kubeGpuRuntimeClass: null,
      tlsVerify: true,
    });
    const node = await models.Node.findByPk(created.body.data!['id'] as number);
    expect(node?.hasApiAccess()).toBe(true);
  });

  it('POST refuses, with 400 naming every column at fault, a kubernetes node that could not reach its cluster; nothing is saved', async () => {
    const before = await models.Node.count();
    const refused = await send('POST', '/', {
      name: 'k8s-bad',
      nodeType: 'kubernetes',
      kubeconfigPath: 'east.kubeconfig',
      kubeNamespace: 'Team_A',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.code).toBe('invalid_kubernetes_node');
    expect(refused.body.error?.message).toMatch(
      /^Kubernetes node k8s-bad: kubeconfigPath must be an absolute path .*; kubeNamespace must be a DNS-1123 label/,
    );
    expect((await send('POST', '/', { name: 'k8s-none', nodeType: 'kubernetes' })).body.error?.message).toMatch(
      /kubeconfigPath is missing/,
    );
    expect((await send('POST', '/', { name: 'x', nodeType: 'lxd' })).body.error?.message).toBe(
      'Node type must be proxmox, docker, dummy, or kubernetes',
    );
    expect(await models.Node.count()).toBe(before);
  });

  it('POST refuses, naming the column, a kubeconfig file that does not exist or a context it does not have (issue 42, item 5)', async () => {
    const before = await models.Node.count();
    const missing = await send('POST', '/', { name: 'k8s-gone', nodeType: 'kubernetes', kubeconfigPath: join(dir, 'no-such.kubeconfig') });
    expect(missing.status).toBe(400);
    expect(missing.body.error?.message).toBe(
      'Kubernetes node k8s-gone: kubeconfigPath names no kubeconfig file Manager can read: name an existing, readable file on the Manager host',
    );
    const context = await send('POST', '/', {
      name: 'k8s-ctx',
      nodeType: 'kubernetes',
      kubeconfigPath: kubeconfig.path,
      kubeContext: 'prod',
    });
    expect(context.status).toBe(400);
    expect(context.body.error?.message).toMatch(
      /^Kubernetes node k8s-ctx: kubeContext is not a context of the kubeconfig \(.*prod.*\): name one it has/,
    );
    expect(JSON.stringify(context.body)).not.toContain('kit-route-token');
    expect(await models.Node.count()).toBe(before);
  });

  it("still saves a Docker node, and still refuses a bad Docker host: Manager's own check stays in validateNodeInput (issue 42, item 3)", async () => {
    const docker = await send('POST', '/', { name: 'docker-1', nodeType: 'docker', apiUrl: 'unix:///var/run/docker.sock' });
    expect(docker.body.error?.message).toBeUndefined();
    expect(docker.status).toBe(201);
    const bad = await send('POST', '/', { name: 'docker-2', nodeType: 'docker', apiUrl: 'ftp://docker' });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'invalid_docker_host' } } });
    const id = docker.body.data!['id'] as number;
    expect((await send('PUT', `/${id}`, { name: 'docker-1', apiUrl: 'tcp://docker:2375' })).status).toBe(200);
    expect((await send('PUT', `/${id}`, { name: 'docker-1', apiUrl: 'tcp://docker' })).body.error?.code).toBe('invalid_docker_host');
  });

  it('PUT keeps the saved token when the form leaves it out, and still checks the columns', async () => {
    const created = await send('POST', '/', {
      name: 'k8s-token',
      nodeType: 'kubernetes',
      apiUrl: 'https://127.0.0.1:1',
      secret: 'sa-token',
    });
    expect(created.body.error?.message).toBeUndefined();
    expect(created.status).toBe(201);
    const id = created.body.data!['id'] as number;
    const updated = await send('PUT', `/${id}`, { name: 'k8s-token', apiUrl: 'https://127.0.0.1:2', kubeNamespace: 'team-b' });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ apiUrl: 'https://127.0.0.1:2', kubeNamespace: 'team-b', hasSecret: true });
    const refused = await send('PUT', `/${id}`, { name: 'k8s-token', apiUrl: 'https://127.0.0.1:2', kubeContext: 'prod' });
    expect(refused.body.error?.message).toMatch(/kubeContext applies only with kubeconfigPath/);
    expect(JSON.stringify(updated.body)).not.toContain('sa-token');
  });

  it('nodeFields takes only the kit columns, empty as null; nodeInputProblem reads a form’s tlsVerify', () => {
    expect(nodeFields({ kubeconfigPath: '/k', kubeContext: '', other: 'x' })).toEqual({
      kubeconfigPath: '/k',
      kubeContext: null,
      kubeNamespace: null,
      kubeGpuResource: null,
      kubeGpuRuntimeClass: null,
      kubeStorageClass: null,
      kubePersistPaths: null,
      kubePersistence: null,
      kubeSystemRuntimeClass: null,
      kubeUserNamespaces: null,
    });
    expect(nodeInputProblem({ name: 'k', kubeconfigPath: '/k', tlsVerify: 'false' })).toBeUndefined();
    expect(
      nodeInputProblem({ name: 'k', kubeconfigPath: '/k', kubeSystemRuntimeClass: 'cgroup-writable', kubeUserNamespaces: 'on' }),
    ).toBeUndefined();
    expect(
      nodeInputProblem({ name: 'k', kubeconfigPath: '/k', kubeSystemRuntimeClass: 'Cgroup_Writable', kubeUserNamespaces: 'yes' }),
    ).toMatch(/kubeSystemRuntimeClass must be a DNS-1123 subdomain.*; kubeUserNamespaces must be "on" or "off"/);
    expect(nodeInputProblem({ name: 'k', kubeconfigPath: '/k', kubeStorageClass: 'Fast_SSD', kubePersistence: 'yes' })).toMatch(
      /kubePersistence must be "on" or "off".*; kubeStorageClass must be a DNS-1123 subdomain/,
    );
    expect(nodeInputProblem({ name: 'k', kubeconfigPath: '/k', kubePersistPaths: `/${'p'.repeat(4096)}` })).toMatch(
      /kubePersistPaths must be at most 4096 characters/,
    );
    expect(nodeInputProblem({ name: 'k', kubeconfigPath: '/k', tlsVerify: 'maybe' })).toMatch(/tlsVerify must be true or false/);
  });

  it("refuses the persisted paths every create on the node would refuse, by the create's own rule (parseWorkloadSpec)", () => {
    const many = Array.from({ length: 70 }, (_, index) => `/data${index}`).join(' ');
    for (const paths of ['etc home', '/proc /etc', '/', '/etc/hosts', '/var/../etc', many, '/var /var/lib', '/srv /srv']) {
      const problem = nodeInputProblem({ name: 'k', kubeconfigPath: '/k', kubePersistPaths: paths });
      // What a create on that node says of the same paths (storage.paths.N: ...), from the public entry.
      const create = (() => {
        try {
          const spec = { containerId: 1, nodeId: 1, hostname: 'web', image: 'nginx', cpus: 1, memoryMb: 256 };
          parseWorkloadSpec({ ...spec, storage: { sizeGb: 1, paths: paths.split(' ') } });
          return 'accepted';
        } catch (error) {
          const issues = (error as InvalidSpecError).issues;
          expect(
            issues.every((issue) => issue.path.startsWith('storage.paths')),
            JSON.stringify(issues),
          ).toBe(true);
          // The create names the value after the rule; the node names it before, with its place.
          return issues.map((issue) => issue.message.replace(/ \(got .*\)$/, ''));
        }
      })();
      expect(create, paths).not.toBe('accepted');
      expect(problem, paths).toMatch(/^Kubernetes node k: kubePersistPaths /);
      for (const message of create) expect(problem, paths).toContain(message);
    }
    expect(nodeInputProblem({ name: 'k', kubeconfigPath: '/k', kubePersistPaths: 'etc' })).toBe(
      'Kubernetes node k: kubePersistPaths path 1 ("etc") must be an absolute path (starting with "/")',
    );
    expect(nodeInputProblem({ name: 'k', kubeconfigPath: '/k', kubePersistPaths: ' /srv  /home/user ' })).toBeUndefined();
  });

  it('refuses, naming the column, a value longer than Manager’s own column holds, never quoting it', () => {
    const token = 't'.repeat(70_000);
    const problem = nodeInputProblem({ name: 'k', apiUrl: `https://127.0.0.1:1/${'p'.repeat(300)}`, secret: token });
    expect(problem).toMatch(/apiUrl must be at most 255 characters \(Manager's Nodes\.apiUrl column holds no more; it has 320\)/);
    expect(problem).toMatch(
      /secret must be at most 65535 characters \(Manager's Nodes\.secret column holds no more, once the kit's migrations widened it; it has 70000\)/,
    );
    expect(problem).not.toContain('tttt');
    expect(nodeInputProblem({ name: 'k', apiUrl: 'https://127.0.0.1:1', secret: 't'.repeat(920) })).toBeUndefined();
  });
});

describe('managerProviders', () => {
  it('names the model it is missing, so a script given the wrong object says so', () => {
    expect(() => managerProviders({} as never)).toThrow(InvalidOptionError);
    expect(() => managerProviders({} as never)).toThrow(/with Container/);
  });

  it("reads the row with its services (Manager's Service and TransportService models): they become the Service's ports", async () => {
    const findCalls: unknown[] = [];
    const Service = { name: 'Service' };
    const TransportService = { name: 'TransportService' };
    const Node = { findByPk: async () => null };
    const Site = { name: 'Site' };
    const row = {
      id: 5,
      hostname: 'web',
      username: 'alice',
      template: 'docker.io/library/nginx:1.27',
      node: { id: 1, name: 'k8s', nodeType: 'kubernetes', kubeconfigPath: '/k' },
      services: [
        { id: 1, type: 'http', internalPort: 80, transportService: null },
        { id: 2, type: 'transport', internalPort: 53, transportService: { protocol: 'udp' } },
        { id: 3, type: 'dns', internalPort: null },
      ],
    };
    const models = {
      Container: {
        findByPk: async (_id: unknown, options: unknown) => (findCalls.push(options), { get: () => row }),
        update: async () => [1],
        getSystemDefaultEnvVars: async () => ({}),
      },
      Node,
      Site,
      Service,
      TransportService,
      ResourceRequest: { getApprovedResources: async () => ({ cpus: 1, memory: 256, swap: 512, rootfs: 8 }) },
    };
    const { store } = managerProviders(models);
    const record = await store.load(5);
    expect(findCalls[0]).toEqual({
      include: [
        { model: Node, as: 'node', include: [{ model: Site, as: 'site' }] },
        { model: Service, as: 'services', include: [{ model: TransportService, as: 'transportService' }] },
      ],
    });
    expect(record?.services).toEqual([
      { id: 1, type: 'http', internalPort: 80 },
      { id: 2, type: 'transport', internalPort: 53, protocol: 'udp' },
      { id: 3, type: 'dns', internalPort: null },
    ]);
    expect(portsOfRecord(record!)).toEqual([
      { port: 53, protocol: 'udp' },
      { port: 80, protocol: 'tcp' },
    ]);
  });
});
