// The package as a user gets it: `npm pack` of the built tree, installed into scratch
// projects from the tarball (with Jest, @types/node and their dependencies from the npm
// registry). Checks what the tarball contains, that plain Jest 30 loads both entry points from
// a CommonJS project (no NODE_OPTIONS, no Jest configuration), that TypeScript consumers
// compile against our declarations without skipLibCheck (CommonJS with module node16, ESM with
// nodenext), and that docs/runtime.md's examples run as written. `npm test` builds first.
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** Jest's major line that Manager uses. */
const JEST = 'jest@30';
/** Manager's Node line, for the consumers' Node types. */
const NODE_TYPES = '@types/node@24';
/**
 * The dependencies the package declares (the bundle carries its own copies; these are for
 * the types in our declarations), from the oldest release our declarations compile against:
 * npm then keeps the copy the host project already has (docs/runtime.md).
 */
const OLDEST_TYPES = { rxjs: '^7.6.0', zod: '^4.0.0' };
/**
 * Manager's direct dependencies at the versions its package-lock.json holds (mieweb/
 * opensource-server, create-a-container, ee03a1b): installing our tarball beside them must
 * change none of their versions, nor any package below them.
 */
const MANAGER_DEPENDENCIES = [
  'argon2@0.44.0',
  'axios@1.18.1',
  'cookie-parser@1.4.7',
  'csrf-sync@4.2.1',
  'dotenv@17.4.2',
  'express@5.2.1',
  'express-rate-limit@8.5.2',
  'express-session@1.19.0',
  'express-session-sequelize@2.3.0',
  'morgan@1.11.0',
  'nodemailer@9.0.3',
  'openid-client@5.7.1',
  'patch-package@8.0.1',
  'pg@8.22.0',
  'sequelize@6.37.8',
  'swagger-ui-express@5.0.1',
  'umzug@2.3.0',
  'yamljs@0.3.0',
  'zod@4.4.3',
];
const MANAGER_DEV_DEPENDENCIES = [
  '@vscode/sqlite3@5.1.12-vscode',
  'concurrently@9.2.4',
  'jest@30.4.2',
  'nodemon@3.1.14',
  'sequelize-cli@6.6.5',
  'supertest@7.2.2',
];

interface PackedFile {
  readonly path: string;
}

let scratch: string;
let tarball: string;
let files: string[];

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 300_000 });
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function describeFailure(result: SpawnSyncReturns<string>): string {
  return `exit ${String(result.status)}\n${result.stdout}\n${result.stderr}`;
}

beforeAll(() => {
  expect(existsSync(join(root, 'dist', 'bundle.js')), 'dist/ is missing: run `npm run build` (npm test does)').toBe(true);
  scratch = mkdtempSync(join(tmpdir(), 'kp-package-'));
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: root, encoding: 'utf8' })) as {
    filename: string;
    files: PackedFile[];
  }[];
  tarball = join(scratch, packed[0]!.filename);
  files = packed[0]!.files.map((file) => file.path).sort();

  const project = join(scratch, 'consumer');
  write(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'commonjs' }, null, 2));
  const install = run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball, JEST, NODE_TYPES], project);
  expect(install.status, describeFailure(install)).toBe(0);
}, 600_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const project = (): string => join(scratch, 'consumer');

describe('npm pack', () => {
  it('ships both entry points with their types, the CLI, the live page and the notices, and no sources, tests or benchmarks', () => {
    for (const expected of [
      'package.json',
      'README.md',
      'dist/package.json',
      'dist/bundle.js',
      'dist/client-node.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/manager/index.js',
      'dist/manager/index.d.ts',
      'dist/cli/main.js',
      'dist/cli/kube-provision.js',
      'dist/THIRD-PARTY-NOTICES.md',
      'web/index.html',
      'web/live.js',
      'web/live.css',
      // xterm.js for the page's terminal, copied from its packages by the build.
      'web/vendor/xterm.js',
      'web/vendor/xterm.css',
      'web/vendor/addon-fit.js',
      'manager-kit/package.json',
      'manager-kit/index.js',
      'manager-kit/index.d.ts',
      'manager-kit/README.md',
      'manager-kit/migrations/20261201000000-add-kubernetes-node-columns.js',
      'manager-kit/migrations/20261203120000-widen-node-secret-for-tokens.js',
      'manager-kit/migrations/20261205000000-add-kubernetes-system-container-columns.js',
      // The client code docs/manager.md step 8 tells Manager to copy and apply (test/package/manager-client.test.ts builds it).
      'manager-kit/client/ContainerTerminal.tsx',
      'manager-kit/client/ContainerLogs.tsx',
      'manager-kit/client/manager-ee03a1b.patch',
      // The job scripts docs/manager.md tells Manager to copy from node_modules/kube-provisioner/examples/.
      'examples/manager-create-container.cjs',
      'examples/manager-reconfigure-container.cjs',
      'examples/manager-start-stop-container.cjs',
      'examples/manager-container-status.cjs',
    ]) {
      expect(files).toContain(expected);
    }
    expect(
      files.filter(
        (file) =>
          !file.startsWith('dist/') &&
          !file.startsWith('web/') &&
          !file.startsWith('manager-kit/') &&
          !/^examples\/manager-[a-z-]+\.cjs$/.test(file) &&
          !['package.json', 'README.md'].includes(file),
      ),
    ).toEqual([]);
    expect(
      files.filter(
        (file) =>
          /(^|\/)(test|tests|bench|src|scripts|examples)\/|\.test\.|\.map$|\.ts$/.test(file) &&
          !file.endsWith('.d.ts') &&
          !/^examples\/manager-[a-z-]+\.cjs$/.test(file),
      ),
    ).toEqual([]);
  });

  it('declares only rxjs and zod as dependencies, each as wide as the declarations allow, and the Node lines CI tests as engines', () => {
    const manifest = JSON.parse(readFileSync(join(project(), 'node_modules', 'kube-provisioner', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      engines: Record<string, string>;
    };
    expect(manifest.dependencies).toEqual(OLDEST_TYPES);
    expect(manifest.engines).toEqual({ node: '>=20.19' });
  });

  it('has declarations that import only rxjs, zod, Node built-ins and each other', () => {
    const installed = join(project(), 'node_modules', 'kube-provisioner');
    const foreign = files
      .filter((file) => file.endsWith('.d.ts'))
      .flatMap((file) =>
        [...readFileSync(join(installed, file), 'utf8').matchAll(/(?:from|import\()\s*'([^']+)'/g)].map((match) => `${file}: ${match[1]!}`),
      )
      .filter((entry) => !/: (\.{1,2}\/|node:|rxjs$|zod$)/.test(entry));
    expect(foreign).toEqual([]);
  });
});

describe('plain Jest 30 in a CommonJS project', () => {
  it('requires both entry points, provisions through a fake client and shares one core', () => {
    write(
      join(project(), '__tests__', 'kube-provisioner.test.js'),
      `'use strict';
const core = require('kube-provisioner');
const manager = require('kube-provisioner/manager');

test('both entry points load and share one copy of the core', () => {
  expect(typeof core.KubernetesApi.fromConfig).toBe('function');
  expect(typeof manager.createContainer).toBe('function');
  expect(new manager.UnknownNodeTypeError('lxd', [])).toBeInstanceOf(core.KubeProvisionerError);
  expect(new manager.UnknownNodeTypeError('lxd', [])).toBeInstanceOf(Error);
  expect(() => core.parseWorkloadSpec({})).toThrow(core.InvalidSpecError);
});

test('a kubeconfig that is not there is a typed error, not a crash of the bundled client', () => {
  expect(() => core.KubernetesApi.fromConfig({ kubeconfigPath: '/nonexistent/kubeconfig' })).toThrow(core.KubeconfigNotFoundError);
});

test('provision resolves to namespace/name with an in-memory client', async () => {
  let stored;
  const complete = () => ({
    ...stored,
    status: {
      observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1,
      conditions: [
        { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet "web-1" has successfully progressed.' },
      ],
    },
  });
  const client = {
    namespace: 'default',
    server: 'https://fake.invalid',
    async create(kind, namespace, body) {
      stored = { ...body, metadata: { ...body.metadata, namespace, uid: 'uid-1', generation: 1, resourceVersion: '2' } };
      return stored;
    },
    async read() { return stored; },
    async list(kind) { return { items: kind === 'deployments' ? [complete()] : [], resourceVersion: '3' }; },
    watch(kind, namespace, params, handlers) {
      if (params.sendInitialEvents) {
        client.list(kind).then(({ items, resourceVersion }) => {
          for (const item of items) handlers.onEvent('ADDED', item);
          handlers.onEvent('BOOKMARK', { metadata: { resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } } });
        });
      }
      return { abort() {} };
    },
  };
  const result = await core.provision(client, { containerId: 42, nodeId: 7, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 1024 }, { timeoutMs: 5000 });
  expect(result).toMatchObject({ providerId: 'default/web', adopted: false });
});
`,
    );
    // docs/manager.md's Jest example, as written: a test in Manager's suite.
    copyFileSync(join(root, 'examples', 'manager-jest.test.cjs'), join(project(), '__tests__', 'manager-jest.test.cjs'));
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const jest = run(process.execPath, [join('node_modules', 'jest', 'bin', 'jest.js'), '--ci'], project(), env);
    const output = `${jest.stdout}${jest.stderr}`;
    expect(jest.status, output).toBe(0);
    expect(output).toMatch(/Tests:\s+5 passed, 5 total/);
    expect(output).toContain('__tests__/manager-jest.test.cjs');
    const version = run(process.execPath, [join('node_modules', 'jest', 'bin', 'jest.js'), '--version'], project(), env);
    process.stdout.write(`Jest ${version.stdout.trim()} on Node ${process.version}: ${/Tests:.*/.exec(output)?.[0] ?? ''}\n`);
    expect(version.stdout.trim()).toMatch(/^30\./);
  });
});

describe("the kit's migrations under plain Jest 30, from the tarball (SQLite, Manager's versions of sequelize, umzug and sequelize-cli)", () => {
  it("Manager's startup path (umzug over migrations/) and sequelize-cli both run every kit migration up and down, each undo removing only its own columns", () => {
    const migrating = join(scratch, 'migrations-project');
    write(join(migrating, 'package.json'), JSON.stringify({ name: 'manager-shaped', private: true, type: 'commonjs' }, null, 2));
    const install = run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball, JEST, 'sequelize@6.37.8', 'umzug@2.3.0', 'sequelize-cli@6.6.5'],
      migrating,
    );
    expect(install.status, describeFailure(install)).toBe(0);
    // Manager's migrations/: its tables (a Manager-shaped stand-in), then the kit's files, copied as docs/manager.md says.
    mkdirSync(join(migrating, 'migrations'), { recursive: true });
    copyFileSync(
      join(root, 'test', 'support', 'manager', 'migrations', '20250101000000-create-manager-tables.cjs'),
      join(migrating, 'migrations', '20250101000000-create-manager-tables.js'),
    );
    const kitMigrations = join(migrating, 'node_modules', 'kube-provisioner', 'manager-kit', 'migrations');
    const kitFiles = readdirSync(kitMigrations)
      .filter((name) => name.endsWith('.js'))
      .sort();
    expect(kitFiles).toEqual([
      '20261201000000-add-kubernetes-node-columns.js',
      '20261202000000-add-kubernetes-storage-columns.js',
      '20261203120000-widen-node-secret-for-tokens.js',
      '20261205000000-add-kubernetes-system-container-columns.js',
    ]);
    for (const name of kitFiles) copyFileSync(join(kitMigrations, name), join(migrating, 'migrations', name));
    // Manager's config/config.js passes its SQLite driver as dialectModule; here the one this repository built.
    write(
      join(migrating, 'config', 'config.js'),
      `'use strict';
const config = { dialect: 'sqlite', storage: process.env.KP_DATABASE, logging: false, dialectModule: require(process.env.KP_SQLITE3) };
module.exports = { development: config, test: config, production: config };
`,
    );
    write(join(migrating, '__tests__', 'kit-migrations.test.js'), KIT_MIGRATIONS_TEST);
    const env: NodeJS.ProcessEnv = { ...process.env, KP_SQLITE3: join(root, 'node_modules', 'sqlite3') };
    delete env.NODE_OPTIONS;
    const jest = run(process.execPath, [join('node_modules', 'jest', 'bin', 'jest.js'), '--ci', '--runInBand'], migrating, env);
    const output = `${jest.stdout}${jest.stderr}`;
    expect(jest.status, output).toBe(0);
    expect(output).toMatch(/Tests:\s+2 passed, 2 total/);
    process.stdout.write(`the kit's migrations under Jest: ${/Tests:.*/.exec(output)?.[0] ?? ''}\n`);
  }, 600_000);
});

describe('TypeScript consumers, without skipLibCheck', () => {
  const consumerSource = `import { KubernetesApi, provision, KubeProvisionerError, type WorkloadSpec, type V1Deployment } from 'kube-provisioner';
import { createContainer, ProviderRegistry, createKubernetesProvider } from 'kube-provisioner/manager';
import { managerProviders, nodeApi, type KubernetesNodeApi } from 'kube-provisioner/manager-kit';

const spec: WorkloadSpec = { containerId: '42', nodeId: '7', hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 64, env: {} };
export async function main(): Promise<string> {
  const api = KubernetesApi.fromConfig({ kubeconfigPath: '/etc/manager/kubeconfig' });
  const result = await provision(api, spec, { timeoutMs: 60_000 });
  const providers = new ProviderRegistry([createKubernetesProvider()]);
  const deployment: V1Deployment | undefined = undefined;
  const nodes: KubernetesNodeApi = nodeApi({ name: 'k8s', nodeType: 'kubernetes', kubeconfigPath: '/etc/manager/kubeconfig' });
  const names = (await nodes.clusterResources('lxc')).map(({ vmid, status }) => vmid + ' ' + status);
  return [result.providerId, typeof createContainer, String(providers), String(deployment), String(KubeProvisionerError.name), typeof managerProviders, ...names].join();
}
`;
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

  it.each([
    ['CommonJS, module node16', 'cjs-node16', 'commonjs', 'node16'],
    ['ESM, module nodenext', 'esm-nodenext', 'module', 'nodenext'],
  ])('%s compiles', (_, folder, type, module) => {
    const result = compileConsumer(join(project(), folder), type, module);
    expect(result.status, describeFailure(result)).toBe(0);
  });

  it('compiles against the oldest rxjs and zod the dependency ranges allow', () => {
    const dir = join(scratch, 'oldest-types');
    write(join(dir, 'package.json'), JSON.stringify({ name: 'oldest-types', private: true }, null, 2));
    const oldest = Object.entries(OLDEST_TYPES).map(([name, range]) => `${name}@${range.slice(1)}`);
    const install = run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...oldest, NODE_TYPES, tarball], dir);
    expect(install.status, describeFailure(install)).toBe(0);
    expect(installedVersions(dir)).toMatchObject({ 'node_modules/rxjs': '7.6.0', 'node_modules/zod': '4.0.0' });
    const result = compileConsumer(join(dir, 'consumer'), 'commonjs', 'node16');
    expect(result.status, describeFailure(result)).toBe(0);
  });

  function compileConsumer(dir: string, type: string, module: string): SpawnSyncReturns<string> {
    write(join(dir, 'package.json'), JSON.stringify({ name: 'ts-consumer', private: true, type }, null, 2));
    write(
      join(dir, 'tsconfig.json'),
      JSON.stringify(
        {
          compilerOptions: {
            module,
            moduleResolution: module,
            target: 'es2022',
            strict: true,
            noEmit: true,
            types: ['node'],
            skipLibCheck: false,
          },
        },
        null,
        2,
      ),
    );
    write(join(dir, 'main.ts'), consumerSource);
    return run(process.execPath, [tsc, '-p', dir], dir);
  }
});

/** Every installed package of a project, by its path in node_modules, with its version (npm's lockfile). */
function installedVersions(dir: string): Record<string, string> {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  return Object.fromEntries(
    Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .map(([path, entry]) => [path, entry.version ?? '']),
  );
}

describe("installing the package into a project with Manager's dependencies", () => {
  it('changes none of their versions: the only package added is kube-provisioner itself', () => {
    const dir = join(scratch, 'manager-dependencies');
    write(join(dir, 'package.json'), JSON.stringify({ name: 'create-a-container', private: true }, null, 2));
    // Install scripts are not needed to resolve versions (and two of Manager's build native code).
    const quiet = ['--no-audit', '--no-fund', '--loglevel=error', '--ignore-scripts'];
    const own = run('npm', ['install', ...quiet, ...MANAGER_DEPENDENCIES], dir);
    expect(own.status, describeFailure(own)).toBe(0);
    const ownDev = run('npm', ['install', ...quiet, '--save-dev', ...MANAGER_DEV_DEPENDENCIES], dir);
    expect(ownDev.status, describeFailure(ownDev)).toBe(0);
    const before = installedVersions(dir);
    expect(before['node_modules/zod']).toBe('4.4.3');

    const ours = run('npm', ['install', ...quiet, tarball], dir);
    expect(ours.status, describeFailure(ours)).toBe(0);
    const after = installedVersions(dir);
    const changed = Object.keys(before).filter((path) => after[path] !== before[path]);
    const added = Object.keys(after).filter((path) => !(path in before));
    expect(changed).toEqual([]);
    expect(added).toEqual(['node_modules/kube-provisioner']);
    process.stdout.write(
      `[package] Manager's ${Object.keys(before).length} installed packages unchanged after npm install of the tarball (zod ${after['node_modules/zod']}, rxjs ${after['node_modules/rxjs']})\n`,
    );
  }, 600_000);
});

describe("docs/runtime.md's examples, run from the installed tarball", () => {
  it.each([
    ['examples/require-commonjs.cjs', 'function function function function\ntrue\n'],
    ['examples/import-esm.mjs', 'function function function\ntrue\ntrue\n'],
  ])('%s', (example, expected) => {
    const target = join(project(), example.replace('examples/', ''));
    copyFileSync(join(root, example), target);
    const result = run(process.execPath, [target], project());
    expect(result.status, describeFailure(result)).toBe(0);
    expect(result.stdout).toBe(expected);
  });
});

/**
 * A test in a Manager-shaped CommonJS project: the kit's migrations run the two ways Manager
 * runs its own (utils/migrate.js's umzug v2 at startup, and `npx sequelize-cli db:migrate`),
 * up and down, on SQLite; the columns are checked against the kit's NODE_COLUMNS, and a
 * Node row saved through nodeAttributes keeps its values through the undo of the storage columns.
 */
const KIT_MIGRATIONS_TEST = `'use strict';
const { execFileSync } = require('node:child_process');
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { DataTypes, Sequelize } = require('sequelize');
const Umzug = require('umzug');
const kit = require('kube-provisioner/manager-kit');

// Each migration rebuilds SQLite tables, and the CLI runs are child processes: a loaded machine needs more than Jest's 5 s.
jest.setTimeout(120000);

const root = path.join(__dirname, '..');
const STORAGE = ['kubeStorageClass', 'kubePersistPaths', 'kubePersistence'];
const SYSTEM = ['kubeSystemRuntimeClass', 'kubeUserNamespaces'];
const BEFORE_SYSTEM = kit.NODE_COLUMN_NAMES.filter((name) => !SYSTEM.includes(name));
const FIRST = BEFORE_SYSTEM.filter((name) => !STORAGE.includes(name));
const typeOf = (column) => (column.type === 'text' ? 'TEXT' : 'VARCHAR(' + column.length + ')');
const databasePath = () => path.join(mkdtempSync(path.join(tmpdir(), 'kp-kit-db-')), 'manager.sqlite');

function connect(storage) {
  return new Sequelize({ dialect: 'sqlite', storage, logging: false, dialectModule: require(process.env.KP_SQLITE3) });
}

async function nodeColumns(sequelize) {
  const table = await sequelize.getQueryInterface().describeTable('Nodes');
  return Object.keys(table).filter((name) => kit.NODE_COLUMN_NAMES.includes(name)).sort();
}

test("Manager's startup path: umzug v2 over migrations/ (as utils/migrate.js), up, down one by one, and up again", async () => {
  const sequelize = connect(databasePath());
  const umzug = new Umzug({
    storage: 'sequelize',
    storageOptions: { sequelize },
    logging: false,
    migrations: {
      path: path.join(root, 'migrations'),
      params: [sequelize.getQueryInterface(), sequelize.constructor],
      pattern: /^\\d.+\\.js$/,
    },
  });
  const applied = (await umzug.up()).map((migration) => migration.file);
  expect(applied).toEqual([
    '20250101000000-create-manager-tables.js',
    '20261201000000-add-kubernetes-node-columns.js',
    '20261202000000-add-kubernetes-storage-columns.js',
    '20261203120000-widen-node-secret-for-tokens.js',
    '20261205000000-add-kubernetes-system-container-columns.js',
  ]);
  const table = await sequelize.getQueryInterface().describeTable('Nodes');
  for (const column of kit.NODE_COLUMNS) expect([column.name, table[column.name]]).toEqual([column.name, expect.objectContaining({ type: typeOf(column), allowNull: true })]);

  const Node = sequelize.define('Node', { name: DataTypes.STRING, nodeType: DataTypes.STRING, ...kit.nodeAttributes(DataTypes) }, { tableName: 'Nodes' });
  const saved = await Node.create({ name: 'k8s', nodeType: kit.NODE_TYPE, kubeconfigPath: '/etc/manager/k8s.kubeconfig', kubeGpuResource: 'amd.com/gpu', kubePersistence: 'off' });
  expect((await Node.findByPk(saved.id)).get()).toMatchObject({ kubeconfigPath: '/etc/manager/k8s.kubeconfig', kubeGpuResource: 'amd.com/gpu', kubePersistence: 'off' });

  await umzug.down(); // the system containers' columns
  expect(await nodeColumns(sequelize)).toEqual([...BEFORE_SYSTEM].sort());
  await umzug.down(); // the secret's widening: SQLite never enforces a VARCHAR's length, so nothing changes here
  expect(await nodeColumns(sequelize)).toEqual([...BEFORE_SYSTEM].sort());
  await umzug.down(); // the storage columns' migration
  expect(await nodeColumns(sequelize)).toEqual([...FIRST].sort());
  const [[row]] = await sequelize.query('SELECT name, kubeconfigPath, kubeGpuResource FROM Nodes');
  expect(row).toEqual({ name: 'k8s', kubeconfigPath: '/etc/manager/k8s.kubeconfig', kubeGpuResource: 'amd.com/gpu' });
  await umzug.down(); // the node columns' migration
  expect(await nodeColumns(sequelize)).toEqual([]);
  expect((await sequelize.query('SELECT name FROM Nodes'))[0]).toEqual([{ name: 'k8s' }]);
  expect((await umzug.up()).map((migration) => migration.file)).toEqual(applied.slice(1));
  expect(await nodeColumns(sequelize)).toEqual([...kit.NODE_COLUMN_NAMES].sort());
  await sequelize.close();
});

test('npx sequelize-cli db:migrate, db:migrate:undo (each undo its own columns) and db:migrate again, over the same files', async () => {
  const storage = databasePath();
  const cli = (...args) =>
    execFileSync(process.execPath, [require.resolve('sequelize-cli/lib/sequelize'), ...args], {
      cwd: root,
      env: { ...process.env, KP_DATABASE: storage },
      encoding: 'utf8',
    });
  const columns = async () => {
    const sequelize = connect(storage);
    try {
      return await nodeColumns(sequelize);
    } finally {
      await sequelize.close();
    }
  };
  expect(cli('db:migrate')).toContain('20261205000000-add-kubernetes-system-container-columns: migrated');
  expect(await columns()).toEqual([...kit.NODE_COLUMN_NAMES].sort());
  expect(cli('db:migrate:undo')).toContain('20261205000000-add-kubernetes-system-container-columns: reverted');
  expect(await columns()).toEqual([...BEFORE_SYSTEM].sort());
  expect(cli('db:migrate:undo')).toContain('20261203120000-widen-node-secret-for-tokens: reverted');
  expect(await columns()).toEqual([...BEFORE_SYSTEM].sort());
  expect(cli('db:migrate:undo')).toContain('20261202000000-add-kubernetes-storage-columns: reverted');
  expect(await columns()).toEqual([...FIRST].sort());
  expect(cli('db:migrate:undo')).toContain('20261201000000-add-kubernetes-node-columns: reverted');
  expect(await columns()).toEqual([]);
  expect(cli('db:migrate')).toContain('20261201000000-add-kubernetes-node-columns: migrated');
  expect(await columns()).toEqual([...kit.NODE_COLUMN_NAMES].sort());
});
`;
