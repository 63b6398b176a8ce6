// Manager's container routes with the kit's lines (test/support/manager/routers/), over
// Manager-shaped models on SQLite, with no cluster: a kubernetes node whose API server is a
// closed loopback port (every connection refused at once), and the kit's node API over the
// fake client where a cluster's answer matters. The models load the built package (dist/).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Model, ModelStatic, Sequelize } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerStillOnNodeError } from '../../../src/manager/errors.js';
import { nodeApi } from '../../../src/manager/kit/node-api.js';
import { ApiUnreachableError, NotFoundError } from '../../../src/errors/api.js';
import type { KubernetesClient } from '../../../src/kube/client.js';
import { MANAGER_MODELS, createManagerDatabase } from '../../support/manager-database.js';
import { unreachableKubeconfig } from '../../support/unreachable-kubeconfig.js';

interface ManagerModels {
  readonly sequelize: Sequelize;
  readonly Node: ModelStatic<Model>;
  readonly Site: ModelStatic<Model>;
  readonly Container: ModelStatic<Model>;
  readonly Service: ModelStatic<Model>;
  readonly Job: ModelStatic<Model>;
}

let dir: string;
let kubeconfig: { dir: string; path: string };
let models: ManagerModels;
let siteId: number;
let server: Server;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kp-routes-'));
  kubeconfig = unreachableKubeconfig({ token: 'route-test-token' });
  process.env.MANAGER_DB = createManagerDatabase(dir).dbPath;
  process.env.MANAGER_MODELS = MANAGER_MODELS;
  models = createRequire(import.meta.url)(MANAGER_MODELS) as ManagerModels;
  siteId = (await models.Site.create({ name: 'Main', internalDomain: null })).get('id') as number;
  const { managerApp } = createRequire(import.meta.url)('../../support/manager/app.cjs') as {
    managerApp: () => { listen(port: number, host: string): Server };
  };
  server = managerApp().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/sites/${siteId}`;
}, 60_000);

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await models?.sequelize.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(kubeconfig.dir, { recursive: true, force: true });
});

async function send(method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data?: Record<string, unknown>; error?: { code: string; message: string } },
  };
}

describe("Manager's DELETE /containers/:id on a kubernetes node (issue 42, item 6: the row stays while the workload may run)", () => {
  it('answers 502 naming the node and the cause when the node cannot be reached, and keeps the row for a retry', async () => {
    const node = await models.Node.create({
      name: 'k8s-down',
      nodeType: 'kubernetes',
      siteId,
      kubeconfigPath: kubeconfig.path,
      kubeNamespace: 'team-a',
    });
    const container = await models.Container.create({
      hostname: 'web',
      username: 'alice',
      nodeId: node.get('id'),
      siteId,
      containerId: 'team-a/web',
    });
    const started = Date.now();
    const answer = await send('DELETE', `/containers/${String(container.get('id'))}`);
    expect(answer.status).toBe(502);
    expect(answer.body.error?.code).toBe('node_deletion_failed');
    expect(answer.body.error?.message).toMatch(
      /^Kubernetes node k8s-down could not delete container team-a\/web, so it may still run there and its row is kept: retry the delete once the node answers \(ApiUnreachableError: /,
    );
    expect(answer.body.error?.message).not.toContain('route-test-token');
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await models.Container.findByPk(container.get('id') as number)).not.toBeNull();
    await container.destroy();
    await node.destroy();
  }, 60_000);

  it('the node API says gone for a Deployment that is not there (the route then deletes the row), and keepRow for anything else', async () => {
    const node = { id: 1, name: 'k8s', nodeType: 'kubernetes', kubeconfigPath: '/etc/k' };
    const answering = (failure: Error) => ({ read: async () => Promise.reject(failure) }) as unknown as KubernetesClient;

    const gone = nodeApi(node, { clientFor: () => answering(new NotFoundError('deployments team-a/web')) });
    expect(await gone.deleteContainer('k8s', 'team-a/web')).toBeUndefined();
    const lookup = await gone.lxcConfig('k8s', 'team-a/web').catch((error: unknown) => error);
    expect(lookup).toBeInstanceOf(NotFoundError);
    expect((lookup as { keepRow?: unknown }).keepRow).toBeUndefined();

    const down = nodeApi(node, { clientFor: () => answering(new ApiUnreachableError('https://127.0.0.1:1', 'connect ECONNREFUSED')) });
    for (const call of [() => down.lxcConfig('k8s', 'team-a/web'), () => down.deleteContainer('k8s', 'team-a/web')]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ContainerStillOnNodeError);
      expect(error).toMatchObject({ keepRow: true, nodeName: 'k8s', providerId: 'team-a/web' });
      expect((error as Error).cause).toBeInstanceOf(ApiUnreachableError);
    }
  });
});

describe("Manager's PUT /containers/:id with the kit's setPorts lines (issue 42, item 7)", () => {
  it('answers what failed and what state the container is in when the node does not take the ports, the rows kept', async () => {
    const node = await models.Node.create({
      name: 'k8s-away',
      nodeType: 'kubernetes',
      siteId,
      kubeconfigPath: kubeconfig.path,
      kubeNamespace: 'team-a',
    });
    const container = await models.Container.create({
      hostname: 'api',
      username: 'alice',
      nodeId: node.get('id'),
      siteId,
      containerId: 'team-a/api',
    });
    const id = container.get('id') as number;
    const errors: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.join(' '));
    const answer = await send('PUT', `/containers/${id}`, { services: { 0: { type: 'http', internalPort: 8080 } } }).finally(() => {
      console.error = original;
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ containerId: id, jobId: null, message: 'Container updated' });
    const portsError = answer.body.data!['portsError'] as string;
    expect(portsError).toMatch(
      /^The services are saved, but the node did not take their ports: Kubernetes node k8s-away \(id \d+\): kubeconfigPath names a kubeconfig whose server is not reachable from Manager .*\. The container runs as before, on its previous ports; saving the container again, or restarting it, applies them\.$/,
    );
    expect(portsError).not.toContain('route-test-token');
    expect(errors).toEqual([`Container ${id}: ${portsError}`]);
    expect((await models.Service.findAll({ where: { containerId: id } })).map((row) => row.get('internalPort'))).toEqual([8080]);

    // A restart queues the reconfigure job, which applies the ports with the rest: no setPorts call, no error.
    const restart = await send('PUT', `/containers/${id}`, { services: {}, restart: true });
    expect(restart.body.data).toMatchObject({ portsError: null, message: 'Container is restarting' });
    expect((await models.Job.findByPk(restart.body.data!['jobId'] as number))?.get('command')).toBe(
      `node bin/reconfigure-container.js --container-id=${id}`,
    );
    await models.Service.destroy({ where: { containerId: id } });
    await container.destroy();
    await node.destroy();
  }, 60_000);
});
