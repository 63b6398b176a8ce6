// The kit's migrations on PostgreSQL, Manager's production database, on a real server the
// test starts itself (test/support/postgres.ts: Debian's postgresql package, a throw-away
// cluster on a unix socket, stopped by its pid). SQLite never enforces a VARCHAR's length;
// PostgreSQL does, so this is where a column too narrow for what the node rule accepts
// shows: a ServiceAccount token (about 920 characters) in Manager's Nodes.secret
// (VARCHAR(255)) made POST /nodes answer 500. Manager-shaped migrations and the kit's run
// by sequelize-cli with a config file (as Manager's config/config.js), then the node is
// saved through the Manager-shaped route. No cluster is involved: the node's API URL is a
// closed loopback port. The models load the built package (dist/).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Model, ModelStatic, Sequelize } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_COLUMNS } from '../../../src/manager/kit/node-columns.js';
import { MANAGER_MODELS, createManagerProject, sequelizeCliWith } from '../../support/manager-database.js';
import { startPostgres, type PostgresServer } from '../../support/postgres.js';

interface ManagerModels {
  readonly sequelize: Sequelize;
  readonly Node: ModelStatic<Model>;
  readonly Site: ModelStatic<Model>;
}

/** What `kubectl create token` prints: a JWT of about 920 characters (three base64url parts). */
const TOKEN = ['eyJhbGciOiJSUzI1NiIsImtpZCI6Im1hbmFnZXIifQ', 'a'.repeat(640), 'b'.repeat(236)].join('.');

let dir: string;
let server: PostgresServer;
let project: string;
let connection: string[];
let models: ManagerModels;
let siteId: number;
let app: Server;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kp-kit-pg-'));
  server = await startPostgres();
  const config = { dialect: 'postgres', host: server.host, port: server.port, username: server.username, database: server.database };
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ development: config }));
  writeFileSync(join(dir, 'sequelize-options.json'), JSON.stringify(config));
  project = createManagerProject(dir);
  connection = ['--config', configFile, '--env', 'development'];
  process.env.MANAGER_DB_CONFIG = join(dir, 'sequelize-options.json');
  process.env.MANAGER_MODELS = MANAGER_MODELS;
  models = createRequire(import.meta.url)(MANAGER_MODELS) as ManagerModels;
  const output = sequelizeCliWith(project, connection, 'db:migrate');
  expect(output).toContain('20261203120000-widen-node-secret-for-tokens: migrated');
  siteId = (await models.Site.create({ name: 'Main', internalDomain: null })).get('id') as number;
  const { managerApp } = createRequire(import.meta.url)('../../support/manager/app.cjs') as {
    managerApp: () => { listen(port: number, host: string): Server };
  };
  app = managerApp().listen(0, '127.0.0.1');
  await new Promise((resolve) => app.once('listening', resolve));
  base = `http://127.0.0.1:${(app.address() as AddressInfo).port}/api/v1/sites/${siteId}/nodes`;
}, 120_000);

afterAll(async () => {
  if (app) await new Promise((resolve) => app.close(resolve));
  await models?.sequelize.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const columns = async () =>
  (await models.sequelize.getQueryInterface().describeTable('Nodes')) as Record<string, { type: string; allowNull: boolean }>;

const post = async (body: unknown) => {
  const response = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown>; error?: { message: string } } };
};

describe("the kit's migrations on a real PostgreSQL server (Manager's production database)", () => {
  it("leave every column the kit relies on wide enough: its own at the rules' lengths, Manager's secret TEXT", async () => {
    expect(TOKEN.length).toBeGreaterThan(900);
    const table = await columns();
    for (const column of NODE_COLUMNS) {
      expect(table[column.name], column.name).toMatchObject({
        type: column.type === 'text' ? 'TEXT' : `CHARACTER VARYING(${column.length})`,
        allowNull: true,
      });
    }
    expect(table['secret']).toMatchObject({ type: 'TEXT', allowNull: true });
    expect(table['apiUrl']?.type).toBe('CHARACTER VARYING(255)');
  });

  it('save a token-mode node with a ServiceAccount token through POST /nodes (201), and read it back whole', async () => {
    const created = await post({ name: 'k8s-token', nodeType: 'kubernetes', apiUrl: 'https://127.0.0.1:1', secret: TOKEN });
    expect(created.body.error?.message).toBeUndefined();
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain(TOKEN.slice(0, 60));
    const stored = await models.Node.findByPk(created.body.data!['id'] as number);
    expect(stored?.get('secret')).toBe(TOKEN);
  });

  it('refuse with 400, naming the column, what Manager’s own columns cannot hold (nothing reaches the database)', async () => {
    const before = await models.Node.count();
    const refused = await post({
      name: 'k8s-long-url',
      nodeType: 'kubernetes',
      apiUrl: `https://127.0.0.1:1/${'p'.repeat(300)}`,
      secret: TOKEN,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.message).toMatch(
      /apiUrl must be at most 255 characters \(Manager's Nodes\.apiUrl column holds no more; it has 3\d\d\)/,
    );
    expect(refused.body.error?.message).not.toContain(TOKEN.slice(0, 60));
    expect(await models.Node.count()).toBe(before);
  });

  it('undo the widening only when no node holds a longer secret, and then PostgreSQL refuses a token again', async () => {
    const undo = () => sequelizeCliWith(project, connection, 'db:migrate:undo');
    // The system-container columns' migration comes after the widening: it is undone first.
    undo();
    let refusal = '';
    try {
      undo();
    } catch (error) {
      refusal = String((error as { stderr?: unknown; stdout?: unknown }).stderr) + String((error as { stdout?: unknown }).stdout);
    }
    expect(refusal).toMatch(/Nodes\.secret cannot go back to VARCHAR\(255\): node k8s-token \(id \d+\) holds a longer value/);
    expect((await columns())['secret']?.type).toBe('TEXT');

    await models.Node.update({ secret: 'short' }, { where: { name: 'k8s-token' } });
    undo();
    expect((await columns())['secret']?.type).toBe('CHARACTER VARYING(255)');
    // What Manager's database did without the kit's migration: the token does not fit.
    // Only Manager's own columns: the kit's later ones are undone too by now.
    const error = await models.Node.create(
      { name: 'k8s-narrow', nodeType: 'kubernetes', siteId, apiUrl: 'https://127.0.0.1:1', secret: TOKEN },
      { fields: ['name', 'nodeType', 'siteId', 'apiUrl', 'secret', 'createdAt', 'updatedAt'], returning: false },
    ).catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(/value too long for type character varying\(255\)/);

    sequelizeCliWith(project, connection, 'db:migrate');
    expect((await columns())['secret']?.type).toBe('TEXT');
  }, 60_000);
});
