// docs/manager.md's whole path on the real control plane, as Manager runs it: a node saved
// through the Manager-shaped node routes (test/support/manager/routers/nodes.cjs), a row the
// create route would pick that node for (Node.provisionableWhere), then every job as its
// route queues it, run as written from examples/ (create, start-stop, reconfigure), the
// status Manager's list reads (examples/manager-container-status.cjs), and Manager's own
// DELETE route through node.api(). The database is made by sequelize-cli from Manager-shaped
// migrations and the kit's. kubectl and the SQLite rows are the independent witnesses.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Model, ModelStatic, Sequelize } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V1Deployment, V1Pod } from '../../src/kube/objects.js';
import { clusterEnv } from '../support/cluster-env.js';
import { EXAMPLES, runExample, type ExampleRun } from '../support/examples.js';
import { MANAGER_MODELS, createManagerDatabase } from '../support/manager-database.js';
import { createNamespace, kubectl, kubectlJson, uniqueName } from '../support/kube.js';

interface Models {
  readonly sequelize: Sequelize;
  readonly Container: ModelStatic<Model>;
  readonly Node: ModelStatic<Model> & { provisionableWhere(): Record<string | symbol, unknown> };
  readonly Job: ModelStatic<Model>;
  readonly ResourceRequest: ModelStatic<Model>;
  readonly Site: ModelStatic<Model>;
}

const NGINX = 'docker.io/library/nginx:1.27';
const CONTAINER_ID_LABEL = 'org.mieweb.opensource-server.container-id';
const JOB_LINE = /^\d\d:\d\d:\d\d\.\d{3} \S/;
/** The job scripts Manager's routes queue, and the examples that are them. */
const JOB_SCRIPTS: Readonly<Record<string, string>> = {
  'bin/create-container.js': 'manager-create-container.cjs',
  'bin/reconfigure-container.js': 'manager-reconfigure-container.cjs',
  'bin/start-stop-container.js': 'manager-start-stop-container.cjs',
};

let namespace: string;
let dir: string;
let dbPath: string;
let models: Models;
let siteId: number;
let nodeId: number;
let server: Server;
let api: string;

beforeAll(async () => {
  namespace = createNamespace('it-mgr-jobs');
  dir = mkdtempSync(join(tmpdir(), 'kp-manager-jobs-'));
  dbPath = createManagerDatabase(dir).dbPath;
  process.env.MANAGER_DB = dbPath;
  process.env.MANAGER_MODELS = MANAGER_MODELS;
  models = createRequire(import.meta.url)(MANAGER_MODELS) as Models;
  // Manager allows a site without an internal domain; a kubernetes node never uses it.
  siteId = (await models.Site.create({ name: 'Main', internalDomain: null })).get('id') as number;
  const app = createRequire(import.meta.url)('../support/manager/app.cjs') as {
    managerApp: () => { listen(port: number, host: string): Server };
  };
  server = app.managerApp().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/sites/${siteId}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await models?.sequelize.close();
  rmSync(dir, { recursive: true, force: true });
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; data?: Record<string, unknown>; error?: { code: string; message: string } }> {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, ...((await response.json()) as object) };
}

/** A job as the job runner runs it: the command of a Job row, its script being the example. */
function runCommand(command: string): Promise<ExampleRun> {
  const [node, script, ...args] = command.split(' ');
  expect(node).toBe('node');
  const example = JOB_SCRIPTS[script ?? ''];
  expect(example, `a job script the docs give: ${script}`).toBeDefined();
  return runExample(example!, { MANAGER_MODELS, MANAGER_DB: dbPath }, 90_000, args);
}

function expectJobLog(run: ExampleRun): string[] {
  expect(run.stderr).toBe('');
  expect(run.code, 'exit code (null: killed because it did not exit on its own)').toBe(0);
  const lines = run.stdout.trimEnd().split('\n');
  for (const line of lines) {
    expect(line).toMatch(JOB_LINE);
    expect(line).not.toContain('undefined');
  }
  return lines;
}

/** A Container row as Manager's create route stores it, on the node the test saved. */
async function containerRow(prefix: string, fields: Record<string, unknown> = {}): Promise<{ id: number; hostname: string }> {
  const hostname = uniqueName(prefix);
  const row = await models.Container.create({ hostname, username: 'alice', template: NGINX, nodeId, siteId, ...fields });
  return { id: row.get('id') as number, hostname };
}

const rowOf = async (id: number) => (await models.Container.findByPk(id))?.get({ plain: true }) as Record<string, unknown> | undefined;
const deployment = (name: string) => kubectlJson<V1Deployment>(['get', 'deployment', name, '-n', namespace]);
const podsOf = (id: number) => kubectlJson<{ items: V1Pod[] }>(['get', 'pods', '-n', namespace, '-l', `${CONTAINER_ID_LABEL}=${id}`]).items;
const readyPodIp = (id: number) =>
  podsOf(id).find(
    (pod) => !pod.metadata?.deletionTimestamp && pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  )?.status?.podIP;

describe("docs/manager.md's path: a kubernetes node in Manager, and a container's whole life through its jobs", () => {
  it('names the examples it runs', () => {
    for (const file of ['manager-reconfigure-container.cjs', 'manager-start-stop-container.cjs', 'manager-container-status.cjs']) {
      expect(EXAMPLES[file]).toBe('tested by test/integration/manager-jobs.test.ts');
    }
  });

  it('save the node, create, show running, stop, start, reconfigure, approve more CPU, restart, remove', async () => {
    // The admin saves the node through Manager's node route.
    const saved = await call('POST', '/nodes', {
      name: 'k8s-local',
      nodeType: 'kubernetes',
      kubeconfigPath: clusterEnv().kubeconfigPath,
      kubeNamespace: namespace,
      // The KWOK cluster has no StorageClass: this path is about the jobs, storage.test.ts about the volume.
      kubePersistence: 'off',
      nvidiaAvailable: false,
    });
    expect(saved.status, JSON.stringify(saved)).toBe(201);
    nodeId = saved.data!['id'] as number;

    // Manager's create route picks a provisionable node of the site: this one.
    const picked = await models.Node.findOne({ where: { siteId, ...models.Node.provisionableWhere() } });
    expect(picked?.get('id')).toBe(nodeId);
    const { id, hostname } = await containerRow('life', { environmentVars: JSON.stringify({ PORT: 8080, DEBUG: true }) });
    const providerId = `${namespace}/${hostname}`;

    // Create: the job the create route queues.
    const create = expectJobLog(await runCommand(`node bin/create-container.js --container-id=${id}`));
    expect(create.at(-1)).toMatch(new RegExp(`${providerId} stored as container ${id}'s provider ID$`));
    const env = deployment(hostname).spec?.template.spec?.containers[0]?.env;
    expect(env).toEqual([
      { name: 'DEBUG', value: 'true' },
      { name: 'PORT', value: '8080' },
    ]);
    // No services, so no Service and no address (never the Pod IP, which changes with every Pod).
    expect(await rowOf(id)).toMatchObject({ containerId: providerId, macAddress: null, ipv4Address: null });

    // What Manager's status list reads: one clusterResources('lxc') for the node.
    const status = async () => {
      const run = await runExample('manager-container-status.cjs', { MANAGER_MODELS, MANAGER_DB: dbPath }, 60_000, [`--node-id=${nodeId}`]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      return run.stdout;
    };
    expect(await status()).toBe(`${providerId} running\n`);

    // Stop: the route queues the job; the job scales to 0 (the row's address is left as it is).
    const stopRoute = await call('POST', `/containers/${id}/stop`);
    expect(stopRoute.status).toBe(200);
    const stopJob = await models.Job.findByPk(stopRoute.data!['jobId'] as number);
    expect(stopJob?.get('command')).toBe(`node bin/start-stop-container.js --container-id=${id} --action=stop`);
    const stop = expectJobLog(await runCommand(stopJob!.get('command') as string));
    expect(stop.some((line) => line.endsWith(`${providerId} scaled from 1 to 0 (generation 2)`))).toBe(true);
    expect(stop.at(-1)).toMatch(new RegExp(`container ${id} saved after stop: provider ID ${providerId}$`));
    expect(deployment(hostname).spec?.replicas).toBe(0);
    expect(podsOf(id)).toEqual([]);
    expect(await rowOf(id)).toMatchObject({ containerId: providerId, ipv4Address: null });
    expect(await status()).toBe(`${providerId} offline\n`);

    // Start: a new Pod, its address saved.
    const startRoute = await call('POST', `/containers/${id}/start`);
    expectJobLog(await runCommand((await models.Job.findByPk(startRoute.data!['jobId'] as number))!.get('command') as string));
    expect(deployment(hostname).status?.availableReplicas).toBe(1);
    expect(readyPodIp(id)).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect((await rowOf(id))?.['ipv4Address']).toBeNull();
    expect(await status()).toBe(`${providerId} running\n`);

    // The user edits the variables (Manager's PUT stores them and queues the reconfigure job).
    await models.Container.update({ environmentVars: JSON.stringify({ PORT: '9090' }) }, { where: { id } });
    const reconfigure = expectJobLog(await runCommand(`node bin/reconfigure-container.js --container-id=${id}`));
    expect(reconfigure.some((line) => line.includes(`${providerId} reconfigured (`))).toBe(true);
    expect(deployment(hostname).spec?.template.spec?.containers[0]?.env).toEqual([{ name: 'PORT', value: '9090' }]);
    expect((await rowOf(id))?.['ipv4Address']).toBeNull();

    // An admin approves 2 CPUs (Manager queues the job with --cpus=2 after the approval).
    await models.ResourceRequest.create({
      siteId,
      hostname,
      username: 'alice',
      resourceType: 'cpus',
      value: 2,
      status: 'approved',
      reviewedAt: new Date(),
    });
    expectJobLog(await runCommand(`node bin/reconfigure-container.js --container-id=${id} --cpus=2`));
    expect(deployment(hostname).spec?.template.spec?.containers[0]?.resources).toMatchObject({
      requests: { cpu: '2' },
      limits: { cpu: '2' },
    });

    // A restart from the UI (PUT with restart: true) queues the same job with nothing to change: a new Pod.
    const podsBefore = podsOf(id).map((pod) => pod.metadata?.name);
    const restart = expectJobLog(await runCommand(`node bin/reconfigure-container.js --container-id=${id}`));
    expect(restart.some((line) => line.endsWith(`${providerId} already as requested: nothing to change`))).toBe(true);
    expect(restart.some((line) => line.includes(`${providerId} restarted in `))).toBe(true);
    expect(podsOf(id).map((pod) => pod.metadata?.name)).not.toEqual(podsBefore);

    // Remove: Manager's own DELETE route, through node.api().
    const removed = await call('DELETE', `/containers/${id}`);
    expect(removed.status).toBe(200);
    expect(removed.data).toEqual({ deleted: true, warnings: [] });
    expect(kubectlJson<{ items: unknown[] }>(['get', 'deployments', '-n', namespace, '-l', `${CONTAINER_ID_LABEL}=${id}`]).items).toEqual(
      [],
    );
    expect(podsOf(id)).toEqual([]);
    expect(await rowOf(id)).toBeUndefined();
    expect(await status()).toBe('');
  }, 300_000);

  it("a row Manager's rule refuses fails its job naming the variable, and nothing is created", async () => {
    const { id } = await containerRow('badenv', { environmentVars: JSON.stringify({ 'BAD KEY': 'x', PORT: 8080 }) });
    const run = await runCommand(`node bin/create-container.js --container-id=${id}`);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `error: InvalidContainerRecordError: Container ${id} cannot be used as it is: environmentVars."BAD KEY" is not a variable name (letters, digits and _, not starting with a digit)\n`,
    );
    expect(podsOf(id)).toEqual([]);
    expect((await rowOf(id))?.['containerId']).toBeNull();
  });

  it('stopping a container whose create job has not finished: the route answers 409, the job says so in words that fit', async () => {
    const { id } = await containerRow('pending');
    const refused = await call('POST', `/containers/${id}/stop`);
    expect(refused).toMatchObject({ status: 409, error: { code: 'not_provisioned' } });
    const run = await runCommand(`node bin/start-stop-container.js --container-id=${id} --action=stop`);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: ContainerNotProvisionedError: Container ${id} cannot be stopped: it has no provider ID (containerId), so it was never provisioned or its create job has not finished\n`,
    );
  });
});
