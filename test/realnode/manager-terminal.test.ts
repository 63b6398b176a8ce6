// Manager's terminal and log handlers (containerTerminal, containerLogs) through the real
// node: a browser-side WebSocket types into a real container's shell (busybox: sh, no
// bash), resizes it, and closing it ends the session; the log's event stream shows a line
// the container wrote. The authorization hook stands for Manager's (the Manager-shaped app's
// own rule is tested in test/unit/manager/container-sessions.test.ts); the cluster is real.
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { provision } from '../../src/index.js';
import { containerLogs } from '../../src/manager/web/container-logs.js';
import { containerTerminal } from '../../src/manager/web/container-terminal.js';
import { apiFor, kubectl } from '../support/kube.js';
import { createRealNodeNamespace, realSpec, shellEntrypoint } from '../support/real-node.js';

const api = apiFor('admin');
let namespace: string;
let providerId: string;
let containerId: string;
let server: Server;
let port: number;
let terminal: ReturnType<typeof containerTerminal>;
const lines: string[] = [];

beforeAll(async () => {
  namespace = createRealNodeNamespace('rn-mgr-term');
  const spec = realSpec({ namespace, entrypoint: shellEntrypoint('echo manager-log-line; while true; do sleep 1; done') });
  containerId = String(spec['containerId']);
  providerId = (await provision(api, spec, { timeoutMs: 120_000 })).providerId;
  const authorize = async () => ({
    user: 'alice',
    container: { id: containerId, containerId: providerId },
    node: { id: 1, name: 'real', nodeType: 'kubernetes' },
  });
  terminal = containerTerminal({ authorize, clientFor: () => api, log: (line) => lines.push(line) });
  const logs = containerLogs({ authorize, clientFor: () => api, log: (line) => lines.push(line) });
  server = http.createServer((req, res) => {
    const match = /^\/api\/v1\/sites\/(\d+)\/containers\/(\d+)\/logs/.exec(req.url ?? '');
    if (!match) return void res.writeHead(404).end();
    logs(Object.assign(req, { params: { siteId: match[1]!, id: match[2]! } }), res);
  });
  server.on('upgrade', (req, socket, head) => {
    if (!terminal.handleUpgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
}, 150_000);

afterAll(async () => {
  await terminal?.close();
  if (server) await new Promise((resolve) => server.close(resolve));
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const until = async (check: () => boolean, ms = 15_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe("Manager's terminal and log handlers on the real node", () => {
  it('a browser socket types into the shell, resizes it, and closing it ends the session', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v1/sites/1/containers/${containerId}/terminal?columns=80&rows=24`, {
      origin: `http://127.0.0.1:${port}`,
    });
    let output = '';
    socket.on('message', (data: Buffer, isBinary: boolean) => isBinary && (output += data.toString('utf8')));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.send(Buffer.from('echo $((6*7))\r'));
    await until(() => output.includes('42'));
    socket.send(JSON.stringify({ type: 'resize', columns: 120, rows: 40 }));
    // The new size reaches the pty: stty reads it there.
    await until(() => {
      socket.send(Buffer.from('stty size\r'));
      return output.includes('40 120');
    });
    socket.close();
    await until(() => terminal.openSessions === 0 && lines.some((line) => line.startsWith('terminal session:')));
    expect(lines.find((line) => line.startsWith('terminal session:'))).toMatch(
      new RegExp(`^terminal session: user alice, container ${containerId} \\(${providerId}\\), \\d+\\.\\d s, closed by the browser$`),
    );
  }, 60_000);

  it("the log's event stream shows the line the container wrote", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/sites/1/containers/${containerId}/logs?tail=10`);
    const body = await response.text();
    expect(response.status).toBe(200);
    expect(body).toContain('event: line\ndata: {"text":"manager-log-line"');
    expect(body).toContain('event: end');
  }, 60_000);
});
