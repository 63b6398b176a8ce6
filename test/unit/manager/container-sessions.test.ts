// The terminal (WebSocket upgrade) and log (Server-Sent Events) handlers Manager mounts
// (issue 41, item 4), in the Manager-shaped app (test/support/manager/sessions-server.cjs
// and routers/container-sessions.cjs, the lines docs/manager.md shows) over Manager-shaped
// models on SQLite. The cluster is a FAKE API server on 127.0.0.1 (test/support/
// fake-pod-api.ts) behind a counting TCP proxy, so a test sees whether a request reached
// the cluster at all; the node is a token node whose API URL is that proxy, so the
// handlers' default client (from the node's columns) is the one that runs. The models load
// the built package (dist/).
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Model, ModelStatic, Sequelize } from 'sequelize';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { CONTAINER_ID_LABEL, MANAGED_LABEL } from '../../../src/input/labels.js';
import { containerLogs } from '../../../src/manager/web/container-logs.js';
import { containerTerminal } from '../../../src/manager/web/container-terminal.js';
import { SessionOptionError } from '../../../src/manager/web/container-access.js';
import { deployment as deploymentFixture, pod as podFixture, containerStatus, states } from '../../support/fixtures.js';
import { exitFrame, frame, startFakePodApi, type FakePodApi } from '../../support/fake-pod-api.js';
import { MANAGER_MODELS, createManagerDatabase } from '../../support/manager-database.js';

interface ManagerModels {
  readonly sequelize: Sequelize;
  readonly Node: ModelStatic<Model>;
  readonly Site: ModelStatic<Model>;
  readonly Container: ModelStatic<Model>;
  readonly ContainerCollaborator: ModelStatic<Model>;
}
interface SessionsServer {
  readonly server: Server;
  readonly port: number;
  readonly terminal: { openSessions: number; close(): Promise<void> };
}

let dir: string;
let models: ManagerModels;
let fake: FakePodApi;
let proxy: { server: net.Server; url: string; connections: number };
let app: SessionsServer;
let siteId: number;
let containerId: number;
let dockerContainerId: number;
let logLines: string[];

/** A TCP proxy in front of the fake API server that counts the connections made to it. */
async function countingProxy(target: string): Promise<{ server: net.Server; url: string; connections: number }> {
  const { port } = new URL(target);
  const state = { server: undefined as unknown as net.Server, url: '', connections: 0 };
  const sockets = new Set<net.Socket>();
  state.server = net.createServer((client) => {
    state.connections += 1;
    const upstream = net.connect(Number(port), '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  state.server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  return state;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kp-sessions-'));
  process.env.MANAGER_DB = createManagerDatabase(dir).dbPath;
  process.env.MANAGER_MODELS = MANAGER_MODELS;
  const require = createRequire(import.meta.url);
  models = require(MANAGER_MODELS) as ManagerModels;
  siteId = (await models.Site.create({ name: 'Main', internalDomain: null })).get('id') as number;
  fake = await startFakePodApi();
  proxy = await countingProxy(fake.url);
  const node = await models.Node.create({
    name: 'k8s',
    nodeType: 'kubernetes',
    siteId,
    apiUrl: proxy.url,
    secret: 'session-test-token',
    tlsVerify: false,
    kubeNamespace: 'default',
  });
  const container = await models.Container.create({
    hostname: 'web',
    username: 'alice',
    nodeId: node.get('id'),
    siteId,
    containerId: 'default/web',
  });
  containerId = container.get('id') as number;
  await models.ContainerCollaborator.create({ containerId, username: 'bob' });
  const docker = await models.Node.create({ name: 'dock', nodeType: 'docker', siteId, apiUrl: 'http://127.0.0.1:1' });
  dockerContainerId = (
    await models.Container.create({ hostname: 'dock-web', username: 'alice', nodeId: docker.get('id'), siteId, containerId: 'abc' })
  ).get('id') as number;
  // The fake's workload is this container's: its Deployment and Pods carry its id.
  const labels = { [MANAGED_LABEL]: 'true', [CONTAINER_ID_LABEL]: String(containerId) };
  fake.deployment = deploymentFixture({ name: 'web', labels });
  fake.pods = [podFixture({ name: 'web-7c9f5d-aaaaa', labels, containerStatuses: [containerStatus({ state: states.running() })] })];
  const { startSessionsServer } = require('../../support/manager/sessions-server.cjs') as {
    startSessionsServer: () => Promise<SessionsServer>;
  };
  app = await startSessionsServer();
}, 60_000);

afterAll(async () => {
  await app?.terminal.close();
  if (app) await new Promise((resolve) => app.server.close(resolve));
  if (proxy) await new Promise((resolve) => proxy.server.close(resolve));
  await fake?.close();
  await models?.sequelize.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  logLines = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void logLines.push(line));
  proxy.connections = 0;
  fake.exec = (socket) => socket.close();
  fake.log = (_pod, _query, res) => res.end();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const until = async (check: () => boolean, ms = 3_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

interface Opened {
  readonly socket?: WebSocket;
  readonly status?: number;
  readonly body?: string;
}

/** Opens the terminal as a browser would; resolves with the socket, or with the refused upgrade's status and body. */
function openTerminalSocket(
  user: string | undefined,
  id: number = containerId,
  headers: Record<string, string> = {},
  query = '',
): Promise<Opened> {
  const origin = `http://127.0.0.1:${app.port}`;
  const socket = new WebSocket(`ws://127.0.0.1:${app.port}/api/v1/sites/${siteId}/containers/${id}/terminal${query}`, {
    headers: { origin, ...(user ? { cookie: `session=${user}` } : {}), ...headers },
  });
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_req, res: IncomingMessage) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    socket.once('error', reject);
  });
}

/** A shell in the fake: echoes stdin on stdout, exits with the code typed as `exit N`. */
function echoShell(): { stdin: string[]; closed: () => boolean } {
  const seen = { stdin: [] as string[], closed: false };
  fake.exec = (socket) => {
    socket.on('message', (data: Buffer) => {
      if (data[0] !== 0) return;
      const text = data.subarray(1).toString('utf8');
      seen.stdin.push(text);
      const exit = /exit (\d+)/.exec(text);
      if (exit) {
        socket.send(exitFrame(Number(exit[1])));
        socket.close();
      } else socket.send(frame(1, `echo:${text}`));
    });
    socket.on('close', () => (seen.closed = true));
  };
  return { stdin: seen.stdin, closed: () => seen.closed };
}

describe("the terminal's upgrade: refused before anything reaches the cluster", () => {
  it.each([
    ['no session', undefined, {}, 401, 'Unauthorized'],
    ['a user the container is not shared with', 'mallory', {}, 404, 'Container not found'],
    ['another site as Origin', 'alice', { origin: 'https://evil.example' }, 403, 'Origin https://evil.example may not open a terminal'],
    ['no Origin', 'alice', { origin: '' }, 403, 'no Origin header'],
  ] as const)('%s: %s, no connection to the API server', async (_, user, headers, status, words) => {
    const opened = await openTerminalSocket(user, containerId, headers);
    expect(opened.status).toBe(status);
    expect(opened.body).toContain(words);
    expect(proxy.connections).toBe(0);
    expect(logLines).toHaveLength(1);
    expect(logLines[0]).toMatch(new RegExp(`^terminal refused: container ${containerId} of site ${siteId}, ${status} `));
  });

  it('a container on a docker node: 409 naming the node type, no connection', async () => {
    const opened = await openTerminalSocket('alice', dockerContainerId);
    expect(opened.status).toBe(409);
    expect(opened.body).toContain('runs on node dock (docker): a terminal and its log are served only for kubernetes nodes');
    expect(proxy.connections).toBe(0);
  });

  it('a size out of range in the URL: 400 naming columns and rows, no connection', async () => {
    const opened = await openTerminalSocket('alice', containerId, {}, '?columns=0&rows=24');
    expect(opened.status).toBe(400);
    expect(opened.body).toContain('columns and rows must both be whole numbers from 1 to 1000, got columns=0 rows=24');
    expect(proxy.connections).toBe(0);
  });
});

describe('the terminal, for the owner, a collaborator and an admin', () => {
  it.each(['alice', 'bob', 'admin'])(
    '%s types, sees the echo, and gets the exit status; one log line without the keystrokes',
    async (user) => {
      const shell = echoShell();
      const { socket } = await openTerminalSocket(user, containerId, {}, '?columns=100&rows=30');
      const received: Buffer[] = [];
      const texts: string[] = [];
      socket!.on('message', (data: Buffer, isBinary: boolean) => (isBinary ? received.push(data) : texts.push(data.toString('utf8'))));
      const closed = new Promise<number>((resolve) => socket!.once('close', resolve));
      socket!.send(Buffer.from('secret-typed-words\r'));
      await until(() => Buffer.concat(received).toString('utf8').includes('echo:secret-typed-words'));
      socket!.send(JSON.stringify({ type: 'resize', columns: 120, rows: 40 }));
      socket!.send(Buffer.from('exit 3\r'));
      expect(await closed).toBe(1000);
      expect(texts.map((text) => JSON.parse(text) as unknown)).toEqual([{ type: 'exit', exitCode: 3 }]);
      // The counter is live: an admitted session does reach the API server through it.
      expect(proxy.connections).toBeGreaterThan(0);
      const request = fake.seen.exec.at(-1);
      expect(request?.query.get('tty')).toBe('true');
      await until(() => logLines.length === 1);
      expect(logLines[0]).toMatch(
        new RegExp(`^terminal session: user ${user}, container ${containerId} \\(default/web\\), \\d+\\.\\d s, exit 3$`),
      );
      expect(logLines.join('\n')).not.toContain('secret-typed-words');
      expect(shell.stdin.join('')).toContain('secret-typed-words');
    },
  );

  it('closing the browser socket closes the terminal in the container', async () => {
    const shell = echoShell();
    const { socket } = await openTerminalSocket('alice');
    socket!.send(Buffer.from('x'));
    await until(() => shell.stdin.length > 0);
    socket!.close();
    await until(() => shell.closed());
    await until(() => app.terminal.openSessions === 0);
    await until(() => logLines.length === 1);
    expect(logLines[0]).toContain('closed by the browser');
  });

  it('caps sessions per user: the fifth of alice is refused 429 before the cluster, a place is free again once one closes', async () => {
    echoShell();
    const sockets: WebSocket[] = [];
    for (let index = 0; index < 4; index++) sockets.push((await openTerminalSocket('alice')).socket!);
    await until(() => fake.seen.openSockets >= 4);
    const before = proxy.connections;
    const fifth = await openTerminalSocket('alice');
    expect(fifth.status).toBe(429);
    expect(fifth.body).toContain('User alice has 4 sessions open already');
    expect(proxy.connections).toBe(before);
    sockets[0]!.close();
    await until(() => app.terminal.openSessions === 3);
    const again = await openTerminalSocket('alice');
    expect(again.socket).toBeDefined();
    for (const socket of [...sockets.slice(1), again.socket!]) socket.close();
    await until(() => app.terminal.openSessions === 0);
  });
});

describe('the idle bound and the pings (a handler of its own, with short intervals)', () => {
  let server: Server;
  let port: number;
  let handler: ReturnType<typeof containerTerminal>;
  const lines: string[] = [];

  const start = async (options: { idleTimeoutMs?: number; browserPingMs?: number; maxSessionsPerContainer?: number }) => {
    handler = containerTerminal({
      authorize: async () => ({
        user: 'carol',
        container: { id: containerId, containerId: 'default/web' },
        node: { id: 1, name: 'k8s', nodeType: 'kubernetes' },
      }),
      clientFor: () => fake.client,
      log: (line) => lines.push(line),
      ...options,
    });
    const http = await import('node:http');
    server = http.createServer();
    server.on('upgrade', (req, socket, head) => handler.handleUpgrade(req, socket, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  afterEach(async () => {
    await handler.close();
    await new Promise((resolve) => server.close(resolve));
    lines.length = 0;
  });

  it('closes a session the browser sent nothing on for idleTimeoutMs, saying why', async () => {
    const shell = echoShell();
    await start({ idleTimeoutMs: 300 });
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v1/sites/1/containers/1/terminal`, { origin: `http://127.0.0.1:${port}` });
    const texts: string[] = [];
    socket.on('message', (data: Buffer, isBinary: boolean) => !isBinary && texts.push(data.toString('utf8')));
    await new Promise((resolve) => socket.once('close', resolve));
    expect(texts.map((text) => JSON.parse(text) as unknown)).toEqual([{ type: 'error', message: 'Closed after 0 s without input' }]);
    await until(() => shell.closed() && lines.length === 1);
    expect(lines[0]).toContain('idle for 0 s');
  });

  it('pings the browser within the interval, so a proxy sees traffic on an idle session', async () => {
    echoShell();
    await start({ browserPingMs: 100 });
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v1/sites/1/containers/1/terminal`, { origin: `http://127.0.0.1:${port}` });
    let pings = 0;
    socket.on('ping', () => (pings += 1));
    await new Promise((resolve) => socket.once('open', resolve));
    await until(() => pings >= 3);
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close();
  });

  it('ends a session whose browser answers no ping', async () => {
    const shell = echoShell();
    await start({ browserPingMs: 100 });
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v1/sites/1/containers/1/terminal`, {
      origin: `http://127.0.0.1:${port}`,
      autoPong: false,
    });
    await new Promise((resolve) => socket.once('close', resolve));
    await until(() => shell.closed() && lines.length === 1);
    expect(lines[0]).toContain('the browser answered no ping');
  });

  it('ends a session whose browser reads the output more slowly than it comes, instead of queueing it without bound', async () => {
    let sent = 0;
    fake.exec = (socket) => {
      const chunk = frame(1, 'x'.repeat(1024 * 1024));
      const pump = (): void => {
        // 64 MiB at most, each MiB once the fake's own socket took the last.
        if (socket.readyState !== socket.OPEN || sent >= 64) return;
        sent += 1;
        socket.send(chunk, () => setImmediate(pump));
      };
      pump();
    };
    await start({});
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v1/sites/1/containers/1/terminal`, { origin: `http://127.0.0.1:${port}` });
    await new Promise((resolve) => socket.once('open', resolve));
    socket.pause();
    await until(() => lines.length === 1, 20_000);
    expect(lines[0]).toContain('the browser read too slowly');
    expect(sent).toBeLessThan(64);
    socket.terminate();
  }, 30_000);

  it('caps sessions per container', async () => {
    echoShell();
    await start({ maxSessionsPerContainer: 1 });
    const url = `ws://127.0.0.1:${port}/api/v1/sites/1/containers/1/terminal`;
    const first = new WebSocket(url, { origin: `http://127.0.0.1:${port}` });
    await new Promise((resolve) => first.once('open', resolve));
    const second = new WebSocket(url, { origin: `http://127.0.0.1:${port}` });
    const status = await new Promise<number>((resolve) =>
      second.once('unexpected-response', (_req, res: IncomingMessage) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(429);
    first.close();
  });

  it('refuses an option out of its rule, naming it', () => {
    expect(() => containerTerminal({ authorize: async () => ({ user: 'x', container: {}, node: {} }), idleTimeoutMs: 0 })).toThrow(
      new SessionOptionError('idleTimeoutMs', 0, 'a number of milliseconds above 0'),
    );
  });
});

/** Reads the SSE response to its end (or until `stop` says so): its status and events. */
async function readLogs(
  user: string | undefined,
  query: string,
  id = containerId,
): Promise<{ status: number; events: { event: string; data: unknown }[]; body: string }> {
  const response = await fetch(`http://127.0.0.1:${app.port}/api/v1/sites/${siteId}/containers/${id}/logs${query}`, {
    headers: user ? { cookie: `session=${user}` } : {},
  });
  const body = await response.text();
  const events = [...body.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((match) => ({
    event: match[1]!,
    data: JSON.parse(match[2]!) as unknown,
  }));
  return { status: response.status, events, body };
}

describe("the log's Server-Sent Events", () => {
  it('gives the owner the tail of the log as line events, then end; one log line', async () => {
    fake.log = (_pod, query, res) => {
      res.end(query.get('previous') === 'true' ? 'crashed\n' : 'one\ntwo\n');
    };
    const { status, events } = await readLogs('alice', '?tail=2');
    expect(status).toBe(200);
    expect(events).toEqual([
      { event: 'line', data: { text: 'one', pod: 'web-7c9f5d-aaaaa', truncated: false } },
      { event: 'line', data: { text: 'two', pod: 'web-7c9f5d-aaaaa', truncated: false } },
      { event: 'end', data: {} },
    ]);
    expect(fake.seen.logs.at(-1)?.query.get('tailLines')).toBe('2');
    await until(() => logLines.length === 1);
    expect(logLines[0]).toMatch(
      new RegExp(`^logs session: user alice, container ${containerId} \\(default/web\\), \\d+\\.\\d s, 2 lines, read to its end$`),
    );
    // A collaborator asks for the run before, which this container never had: the library's named error reaches the page.
    const previous = await readLogs('bob', '?previous=true');
    expect(previous.status).toBe(200);
    expect(previous.events).toEqual([
      {
        event: 'error',
        data: { message: expect.stringContaining('NoRunningContainerError: workload default/web has no container to reach') },
      },
    ]);
  });

  it.each([
    ['no session', undefined, '', 401, 'Unauthorized'],
    ['a user it is not shared with', 'mallory', '', 404, 'Container not found'],
    ['a bad tail', 'alice', '?tail=-1', 400, 'tail must be a whole number of at least 0, got \\"-1\\"'],
    ['follow with previous', 'alice', '?follow=true&previous=true', 400, 'cannot be followed'],
    ['an unknown parameter', 'alice', '?lines=5', 400, 'Unknown query parameter lines'],
  ] as const)('%s: %s, no connection to the API server', async (_, user, query, status, words) => {
    const result = await readLogs(user, query);
    expect(result.status).toBe(status);
    expect(result.body).toContain(words);
    expect(proxy.connections).toBe(0);
  });

  it('a follow stops reading at once when the browser goes away', async () => {
    fake.log = (_pod, _query, res) => {
      res.writeHead(200);
      res.write('first\n');
    };
    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${app.port}/api/v1/sites/${siteId}/containers/${containerId}/logs?follow=true`, {
      headers: { cookie: 'session=alice' },
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('first')) text += new TextDecoder().decode((await reader.read()).value);
    expect(fake.seen.openLogs).toBe(1);
    controller.abort();
    await until(() => fake.seen.openLogs === 0);
    await until(() => logLines.length === 1);
    expect(logLines[0]).toContain('1 lines, closed by the browser');
  });
});

describe("the log's heartbeat and session bound (a handler of its own, with short intervals)", () => {
  it('sends a heartbeat comment on a quiet follow, and ends the stream at maxSessionMs with one log line', async () => {
    fake.log = (_pod, _query, res) => {
      res.writeHead(200);
      res.write('only\n');
    };
    const lines: string[] = [];
    const handler = containerLogs({
      authorize: async () => ({
        user: 'carol',
        container: { id: containerId, containerId: 'default/web' },
        node: { id: 1, name: 'k8s', nodeType: 'kubernetes' },
      }),
      clientFor: () => fake.client,
      log: (line) => lines.push(line),
      heartbeatMs: 50,
      maxSessionMs: 400,
    });
    const http = await import('node:http');
    const server = http.createServer((req, res) => handler(Object.assign(req, { params: { siteId: '1', id: String(containerId) } }), res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/?follow=true`);
      const body = await response.text();
      expect(body).toContain('event: line\ndata: {"text":"only"');
      expect(body.split(': heartbeat\n\n').length - 1).toBeGreaterThanOrEqual(3);
      expect(body).toContain('event: error\ndata: {"message":"Closed after the session bound"}');
      await until(() => fake.seen.openLogs === 0 && lines.length === 1);
      expect(lines[0]).toMatch(/^logs session: user carol, container \d+ \(default\/web\), 0\.\d s, 1 lines, session bound reached$/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
