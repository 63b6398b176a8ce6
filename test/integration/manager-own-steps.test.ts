// Adopting the kit swaps only the node calls of Manager's jobs (docs/manager.md, sections 5
// and 6): Manager's own create job (test/support/manager/bin/create-container.cjs, shaped
// like Manager's at the named commit, with the kit's lines) keeps its Cloudflare DNS and
// NetBox steps for a kubernetes node and for a dummy node, whose node calls stay Manager's;
// its reconfigure job restarts nothing for an approval the container already has; and a
// failed setPorts in Manager's PUT is healed by the next save or reconfigure. On the real
// control plane; Cloudflare and NetBox are a loopback recorder; kubectl and the SQLite rows
// are the independent witnesses.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Model, ModelStatic, Sequelize } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V1Pod, V1Service } from '../../src/kube/objects.js';
import { clusterEnv } from '../support/cluster-env.js';
import { runExample } from '../support/examples.js';
import { MANAGER_MODELS, createManagerDatabase } from '../support/manager-database.js';
import { createNamespace, kubectl, kubectlJson, uniqueName } from '../support/kube.js';
import { runNode, type ProcessRun } from '../support/run-process.js';

type Table = ModelStatic<Model>;
interface Models {
  readonly sequelize: Sequelize;
  readonly Container: Table;
  readonly Node: Table;
  readonly Site: Table;
  readonly Service: Table;
  readonly HTTPService: Table;
  readonly ExternalDomain: Table;
  readonly Setting: Table;
  readonly ResourceRequest: Table;
}

interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, unknown> | null;
}

const NGINX = 'docker.io/library/nginx:1.27';
const CONTAINER_ID_LABEL = 'org.mieweb.opensource-server.container-id';
const SITE_IP = '203.0.113.7';

let namespace: string;
let dir: string;
let dbPath: string;
let models: Models;
let siteId: number;
let domainId: number;
const nodeIds: Record<string, number> = {};
let recorder: Server;
let recorderUrl: string;
const recorded: Recorded[] = [];
let manager: Server;
let api: string;

function bodyOf(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => resolve(text));
  });
}

/** Cloudflare's and NetBox's answers, as far as Manager's steps read them; every request recorded. */
async function answer(request: IncomingMessage): Promise<unknown> {
  const text = await bodyOf(request);
  const path = request.url ?? '';
  recorded.push({ method: request.method ?? '', path, body: text ? (JSON.parse(text) as Record<string, unknown>) : null });
  if (path.startsWith('/cloudflare/zones?')) return { success: true, result: [{ id: 'zone-1' }] };
  if (path.startsWith('/cloudflare/')) return { success: true, result: { id: 'record-1' } };
  if (path.startsWith('/netbox/api/virtualization/clusters/')) return { results: [{ id: 7 }] };
  return { id: 11 };
}

beforeAll(async () => {
  namespace = createNamespace('it-mgr-steps');
  dir = mkdtempSync(join(tmpdir(), 'kp-manager-steps-'));
  dbPath = createManagerDatabase(dir).dbPath;
  process.env.MANAGER_DB = dbPath;
  process.env.MANAGER_MODELS = MANAGER_MODELS;
  models = createRequire(import.meta.url)(MANAGER_MODELS) as Models;

  recorder = createServer((request, response) => {
    void answer(request).then((body) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => recorder.once('listening', resolve));
  recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;

  siteId = (await models.Site.create({ name: 'Main', internalDomain: 'main.internal', externalIp: SITE_IP })).get('id') as number;
  // A domain of another site, with Cloudflare credentials: the create job adds an A record for it.
  const otherSite = (await models.Site.create({ name: 'Other', internalDomain: null })).get('id') as number;
  domainId = (
    await models.ExternalDomain.create({
      name: 'example.org',
      siteId: otherSite,
      cloudflareApiEmail: 'ops@example.org',
      cloudflareApiKey: 'cf-key',
    })
  ).get('id') as number;
  await models.Setting.create({ key: 'netbox_url', value: `${recorderUrl}/netbox` });
  await models.Setting.create({ key: 'netbox_token', value: 'nb-token' });
  nodeIds['kubernetes'] = (
    await models.Node.create({
      name: 'k8s-local',
      nodeType: 'kubernetes',
      siteId,
      kubeconfigPath: clusterEnv().kubeconfigPath,
      kubeNamespace: namespace,
      // The KWOK cluster has no StorageClass; storage.test.ts is about the volume.
      kubePersistence: 'off',
    })
  ).get('id') as number;
  nodeIds['dummy'] = (await models.Node.create({ name: 'dev', nodeType: 'dummy', siteId })).get('id') as number;

  const app = createRequire(import.meta.url)('../support/manager/app.cjs') as {
    managerApp: () => { listen(port: number, host: string): Server };
  };
  manager = app.managerApp().listen(0, '127.0.0.1');
  await new Promise((resolve) => manager.once('listening', resolve));
  api = `http://127.0.0.1:${(manager.address() as AddressInfo).port}/api/v1/sites/${siteId}`;
});

afterAll(async () => {
  await new Promise((resolve) => manager?.close(resolve));
  await new Promise((resolve) => recorder?.close(resolve));
  await models?.sequelize.close();
  rmSync(dir, { recursive: true, force: true });
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

/** Manager's own job script, as the job runner starts it. */
function runJob(script: 'create-container' | 'reconfigure-container', args: readonly string[]): Promise<ProcessRun> {
  return runNode([`test/support/manager/bin/${script}.cjs`, ...args], {
    env: { ...process.env, MANAGER_MODELS, MANAGER_DB: dbPath, MANAGER_CLOUDFLARE_API: `${recorderUrl}/cloudflare` },
  });
}

/** A row as Manager's create route stores it: approved resources, an HTTP service on an external domain. */
async function containerRow(nodeType: string, port: number): Promise<{ id: number; hostname: string }> {
  const hostname = uniqueName(`steps-${nodeType.slice(0, 4)}`);
  const row = await models.Container.create({ hostname, username: 'alice', template: NGINX, nodeId: nodeIds[nodeType], siteId });
  const id = row.get('id') as number;
  for (const [resourceType, value] of [
    ['cpus', 1],
    ['memory', 256],
    ['rootfs', 8],
  ] as const) {
    await models.ResourceRequest.create({
      siteId,
      hostname,
      username: 'alice',
      resourceType,
      value,
      status: 'approved',
      reviewedAt: new Date(),
    });
  }
  const service = await models.Service.create({ containerId: id, type: 'http', internalPort: port });
  await models.HTTPService.create({ serviceId: service.get('id'), externalHostname: hostname, externalDomainId: domainId });
  return { id, hostname };
}

const rowOf = async (id: number) => (await models.Container.findByPk(id))!.get({ plain: true }) as Record<string, unknown>;
const serviceOf = (name: string) => kubectlJson<V1Service>(['get', 'service', name, '-n', namespace]);
const podsOf = (id: number) =>
  kubectlJson<{ items: V1Pod[] }>(['get', 'pods', '-n', namespace, '-l', `${CONTAINER_ID_LABEL}=${id}`]).items.filter(
    (pod) => !pod.metadata?.deletionTimestamp,
  );

function expectDone(run: ProcessRun): void {
  expect(run.code, `exit code; stderr: ${run.stderr}`).toBe(0);
  expect(run.stderr).toBe('');
}

describe("Manager's own create job keeps its DNS and NetBox steps on every node type", () => {
  it.each(['kubernetes', 'dummy'])(
    'on a %s node: the row is provisioned, the A record and the NetBox VM are made',
    async (nodeType) => {
      const { id, hostname } = await containerRow(nodeType, 80);
      const from = recorded.length;
      const run = await runJob('create-container', [`--container-id=${id}`]);
      expectDone(run);
      const row = await rowOf(id);
      if (nodeType === 'kubernetes') {
        expect(row['containerId']).toBe(`${namespace}/${hostname}`);
        expect(row['ipv4Address']).toBe(serviceOf(hostname).spec?.clusterIP);
      } else {
        expect(row['containerId']).toMatch(/^\d+$/);
        expect(row['ipv4Address']).toMatch(/^10\.0\.\d+\.\d+$/);
      }
      const calls = recorded.slice(from);
      // Cloudflare: the A record of the service's external name, at the site's external IP.
      expect(calls).toContainEqual({
        method: 'POST',
        path: '/cloudflare/zones/zone-1/dns_records',
        body: { type: 'A', name: `${hostname}.example.org`, content: SITE_IP, ttl: 1, proxied: false },
      });
      // NetBox: the VM with what the container has, and the row's address.
      const vm = calls.find((call) => call.path === '/netbox/api/virtualization/virtual-machines/');
      expect(vm?.body).toMatchObject({ name: hostname, cluster: 7, vcpus: 1, memory: 256 });
      expect(vm?.body?.['disk']).toBe(nodeType === 'kubernetes' ? undefined : 8000);
      expect(calls.find((call) => call.path === '/netbox/api/ipam/ip-addresses/')?.body).toMatchObject({
        address: `${String(row['ipv4Address'])}/32`,
      });
      expect(run.stdout).toContain(`NetBox: VM "${hostname}" created`);
    },
    120_000,
  );
});

describe("Manager's reconfigure job on a kubernetes node", () => {
  it('a second, identical approval restarts nothing; a restart the user asks for does', async () => {
    const { id, hostname } = await containerRow('kubernetes', 8080);
    expectDone(await runJob('create-container', [`--container-id=${id}`]));
    const uids = () => podsOf(id).map((pod) => pod.metadata?.uid);
    const before = uids();
    expect(before).toHaveLength(1);
    const generation = () =>
      kubectlJson<{ metadata: { generation: number } }>(['get', 'deployment', hostname, '-n', namespace]).metadata.generation;
    const generationBefore = generation();

    // The admin approves 1 CPU again (the job Manager queues after the approval): nothing changes.
    await models.ResourceRequest.create({
      siteId,
      hostname,
      username: 'alice',
      resourceType: 'cpus',
      value: 1,
      status: 'approved',
      reviewedAt: new Date(),
    });
    expectDone(await runJob('reconfigure-container', [`--container-id=${id}`, '--cpus=1']));
    expect(uids()).toEqual(before);
    expect(generation()).toBe(generationBefore);
    // The example job script, the same way.
    const example = await runExample('manager-reconfigure-container.cjs', { MANAGER_MODELS, MANAGER_DB: dbPath }, 90_000, [
      `--container-id=${id}`,
      '--cpus=1',
    ]);
    expect(example.stderr).toBe('');
    expect(example.code).toBe(0);
    expect(example.stdout).toContain('already as requested');
    expect(uids()).toEqual(before);
    expect(generation()).toBe(generationBefore);
    expect((await rowOf(id))['ipv4Address']).toBe(serviceOf(hostname).spec?.clusterIP);

    // A restart from the UI queues the job without a flag: a new Pod, the same address.
    expectDone(await runJob('reconfigure-container', [`--container-id=${id}`]));
    expect(uids()).toHaveLength(1);
    expect(uids()).not.toEqual(before);
    expect((await rowOf(id))['ipv4Address']).toBe(serviceOf(hostname).spec?.clusterIP);
  }, 180_000);
});

describe("a failed setPorts in Manager's PUT is healed by the next save or reconfigure", () => {
  async function put(id: number, body: unknown): Promise<{ status: number; data?: Record<string, unknown> }> {
    const response = await fetch(`${api}/containers/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, ...((await response.json()) as object) };
  }
  const servicePorts = (name: string) => (serviceOf(name).spec?.ports ?? []).map((port) => port.port).sort((a, b) => (a ?? 0) - (b ?? 0));
  const breakNode = (kubeconfigPath: string) => models.Node.update({ kubeconfigPath }, { where: { id: nodeIds['kubernetes'] } });

  it('the rows hold the port, the Service takes it once the node answers again', async () => {
    const { id, hostname } = await containerRow('kubernetes', 80);
    expectDone(await runJob('create-container', [`--container-id=${id}`]));
    const address = (await rowOf(id))['ipv4Address'];
    expect(servicePorts(hostname)).toEqual([80]);

    // The node's kubeconfig is gone (an admin moved it) while the user adds port 81.
    await breakNode(join(dir, 'moved.kubeconfig'));
    try {
      const failed = await put(id, { services: { a: { type: 'http', internalPort: 81 } } });
      expect(failed.status).toBe(200);
      expect(String(failed.data?.['portsError'])).toMatch(
        /^The services are saved, but the node did not take their ports: .*kubeconfigPath/,
      );
      expect(servicePorts(hostname)).toEqual([80]);
    } finally {
      await breakNode(clusterEnv().kubeconfigPath);
    }
    // The next save of the container (its services unchanged) brings the Service to the rows.
    const healed = await put(id, { services: {} });
    expect(healed).toMatchObject({ status: 200, data: { portsError: null } });
    expect(servicePorts(hostname)).toEqual([80, 81]);

    // Again, healed this time by a restart (the reconfigure job sets the ports from the rows).
    await breakNode(join(dir, 'moved.kubeconfig'));
    try {
      expect((await put(id, { services: { b: { type: 'http', internalPort: 82 } } })).data?.['portsError']).not.toBeNull();
    } finally {
      await breakNode(clusterEnv().kubeconfigPath);
    }
    expect(servicePorts(hostname)).toEqual([80, 81]);
    expectDone(await runJob('reconfigure-container', [`--container-id=${id}`]));
    expect(servicePorts(hostname)).toEqual([80, 81, 82]);
    // One address through it all.
    expect((await rowOf(id))['ipv4Address']).toBe(address);
    expect(serviceOf(hostname).spec?.clusterIP).toBe(address);
  }, 180_000);

  it('a container keeps its address through a time without ports: the last port removed, then one added back', async () => {
    const { id, hostname } = await containerRow('kubernetes', 80);
    expectDone(await runJob('create-container', [`--container-id=${id}`]));
    const address = (await rowOf(id))['ipv4Address'];
    expect(address).toBe(serviceOf(hostname).spec?.clusterIP);

    // The user deletes the container's only service: no Service, no address the agent could render.
    const only = (await models.Service.findOne({ where: { containerId: id } }))!.get('id');
    expect(await put(id, { services: { a: { id: only, deleted: true } } })).toMatchObject({ status: 200, data: { portsError: null } });
    expect(kubectlJson<{ items: unknown[] }>(['get', 'services', '-n', namespace, '-l', `${CONTAINER_ID_LABEL}=${id}`]).items).toEqual([]);
    expect((await rowOf(id))['ipv4Address']).toBeNull();

    // A service added back: the Service has the address the container had.
    expect(await put(id, { services: { b: { type: 'http', internalPort: 8080 } } })).toMatchObject({
      status: 200,
      data: { portsError: null },
    });
    expect(serviceOf(hostname).spec?.clusterIP).toBe(address);
    expect((await rowOf(id))['ipv4Address']).toBe(address);
  }, 180_000);
});
