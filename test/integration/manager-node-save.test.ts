// Saving a kubernetes node through the Manager-shaped node routes (test/support/manager/),
// against the real control plane: what a column decides is asked of the cluster when the
// node is saved (issue 42, items 4 and 5), and each refusal names the column. The models
// load the built package (dist/); the integration suite builds first.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Model, ModelStatic, Sequelize } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterEnv } from '../support/cluster-env.js';
import { createNamespace, kubectl } from '../support/kube.js';
import { MANAGER_MODELS, createManagerDatabase } from '../support/manager-database.js';

interface ManagerModels {
  readonly sequelize: Sequelize;
  readonly Node: ModelStatic<Model>;
  readonly Site: ModelStatic<Model>;
}

let dir: string;
let namespace: string;
let models: ManagerModels;
let server: Server;
let base: string;

beforeAll(async () => {
  namespace = createNamespace('it-mgr-save');
  dir = mkdtempSync(join(tmpdir(), 'kp-node-save-'));
  process.env.MANAGER_DB = createManagerDatabase(dir).dbPath;
  process.env.MANAGER_MODELS = MANAGER_MODELS;
  models = createRequire(import.meta.url)(MANAGER_MODELS) as ManagerModels;
  const siteId = (await models.Site.create({ name: 'Main', internalDomain: null })).get('id') as number;
  const { managerApp } = createRequire(import.meta.url)('../support/manager/app.cjs') as {
    managerApp: () => { listen(port: number, host: string): Server };
  };
  server = managerApp().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/sites/${siteId}/nodes`;
});

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await models?.sequelize.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (namespace) kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const post = async (body: Record<string, unknown>) => {
  const response = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown>; error?: { message: string } } };
};

describe('POST /nodes asks the cluster what a kubernetes node column decides', () => {
  it('saves a node whose kubeconfig, context and namespace the cluster accepts', async () => {
    const saved = await post({
      name: 'k8s-ok',
      nodeType: 'kubernetes',
      kubeconfigPath: clusterEnv().kubeconfigPath,
      kubeNamespace: namespace,
      kubePersistence: 'off',
    });
    expect(saved.body.error?.message).toBeUndefined();
    expect(saved.status).toBe(201);
  });

  it('refuses a namespace the cluster does not have, naming kubeNamespace (every create there would fail)', async () => {
    const refused = await post({
      name: 'k8s-mgr',
      nodeType: 'kubernetes',
      kubeconfigPath: clusterEnv().kubeconfigPath,
      kubeNamespace: 'mgr-does-not-exist',
      kubePersistence: 'off',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.message).toBe(
      'Kubernetes node k8s-mgr: kubeNamespace names a namespace the cluster does not have (mgr-does-not-exist): create it, or name an existing one',
    );
  });

  it('refuses a StorageClass the cluster does not have, naming kubeStorageClass; with kubePersistence off it is not asked', async () => {
    const node = {
      nodeType: 'kubernetes',
      kubeconfigPath: clusterEnv().kubeconfigPath,
      kubeNamespace: namespace,
      kubeStorageClass: 'gold-missing',
    };
    const refused = await post({ ...node, name: 'k8s-gold' });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.message).toMatch(
      /^Kubernetes node k8s-gold: kubeStorageClass names a StorageClass the cluster does not have/,
    );
    expect((await post({ ...node, name: 'k8s-gold-off', kubePersistence: 'off' })).status).toBe(201);
  });
});
