/// <reference lib="dom" />
// The live page's rows, terminal and log pane, in a real headless Chromium against the real
// UI server, with a FAKE backend: statuses from a Subject, a stand-in terminal that echoes
// what is typed, and log lines from a Subject (the fake client, test/support/fake-kube.ts,
// is never asked for anything). What is checked here is the page and the server: the layout
// at 1280 px, the actions each state offers, a long detail folded, the panes' wiring and
// the server's refusals (another namespace, a foreign Origin or Host, the caps), its idle
// bound, its pings and its one line per session. The real terminal and log against a real
// container are test/realnode/live-page-terminal.test.ts.
import http from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { Observable, Subject } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { UiBackend, WorkloadStatus, WorkloadStatusEvent } from '../../src/ui/backend.js';
import { LiveHub } from '../../src/ui/live-hub.js';
import { startUiServer, type UiServer, type UiServerOptions } from '../../src/ui/server.js';
import type { LogLine, LogsOptions } from '../../src/workload/reads/logs.js';
import type { ExecExit, Terminal, TerminalOptions } from '../../src/workload/reads/terminal.js';
import { launchBrowser } from '../support/browser.js';
import { FakeKubernetes } from '../support/fake-kube.js';

const NS = 'team-a';

/** A stand-in terminal: echoes what is typed, records sizes, and says when it is closed. */
interface FakeTerminal extends Terminal {
  readonly typed: string[];
  readonly sizes: [number, number][];
  closed: boolean;
  exitWith(code: number): void;
}

function fakeTerminal(providerId: string, options: TerminalOptions): FakeTerminal {
  let settle: (exit: ExecExit) => void = () => undefined;
  const exit = new Promise<ExecExit>((resolve) => (settle = resolve));
  const terminal: FakeTerminal = {
    namespace: providerId.split('/')[0]!,
    pod: `${providerId.split('/')[1]}-pod`,
    container: 'main',
    command: ['sh'],
    typed: [],
    sizes: options.columns && options.rows ? [[options.columns, options.rows]] : [],
    closed: false,
    exit,
    write(data) {
      const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
      terminal.typed.push(text);
      options.onStdout?.(Buffer.from(text.replace(/\r/g, '\r\n')));
    },
    resize(columns, rows) {
      terminal.sizes.push([columns, rows]);
    },
    closeStdin() {},
    close() {
      terminal.closed = true;
      settle({ exitCode: null });
      return Promise.resolve();
    },
    exitWith(code) {
      settle({ exitCode: code });
    },
  };
  return terminal;
}

interface Harness {
  readonly server: UiServer;
  readonly hub: LiveHub;
  readonly statuses: Subject<WorkloadStatusEvent>;
  readonly terminals: FakeTerminal[];
  readonly logRequests: { providerId: string; options: LogsOptions; lines: Subject<LogLine>; unsubscribed: boolean }[];
  readonly log: string[];
}

const opened: Harness[] = [];

async function harness(options: Partial<UiServerOptions> = {}): Promise<Harness> {
  const statuses = new Subject<WorkloadStatusEvent>();
  const terminals: FakeTerminal[] = [];
  const logRequests: Harness['logRequests'] = [];
  const log: string[] = [];
  const idle = () => new Subject<never>() as Observable<never>;
  const backend: UiBackend = {
    statuses$: () => statuses,
    start$: idle,
    stop$: idle,
    restart$: idle,
    remove$: idle,
    openTerminal: (_api, providerId, terminalOptions) => {
      const terminal = fakeTerminal(providerId, terminalOptions);
      terminals.push(terminal);
      return Promise.resolve(terminal);
    },
    logs$: (_api, providerId, logOptions) => {
      const lines = new Subject<LogLine>();
      const request = { providerId, options: logOptions, lines, unsubscribed: false };
      logRequests.push(request);
      return new Observable<LogLine>((subscriber) => {
        const subscription = lines.subscribe(subscriber);
        return () => {
          request.unsubscribed = true;
          subscription.unsubscribe();
        };
      });
    },
  };
  const hub = new LiveHub({ api: new FakeKubernetes(NS), namespace: NS, backend });
  const server = await startUiServer({ hub, port: 0, log: (line) => log.push(line), ...options });
  const made = { server, hub, statuses, terminals, logRequests, log };
  opened.push(made);
  return made;
}

afterEach(async () => {
  for (const { hub, server } of opened.splice(0)) {
    await server.close();
    hub.close();
  }
});

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
});

const LONG_FAILURE = [
  'Back-off pulling image "registry.example.internal/team-a/a-very-long-image-name-for-layout-tests:2026.12.05-build.123456789"',
  ...Array.from({ length: 16 }, (_, i) => `line ${i + 2}: the kubelet said something rather long about this pull, attempt ${i + 2}`),
].join('\n');

function statusEvent(name: string, status: Partial<WorkloadStatus>): WorkloadStatusEvent {
  return {
    type: 'status',
    at: new Date().toISOString(),
    namespace: NS,
    name,
    providerId: `${NS}/${name}`,
    containerId: '123456789012',
    nodeId: 'node-with-a-rather-long-name-0001',
    status: {
      state: 'running',
      reason: 'Running',
      message: '',
      podIp: '10.244.100.200',
      nodeName: 'node-with-a-rather-long-name-0001.cluster.example.internal',
      restarts: 12,
      image: 'registry.example.internal/team-a/a-very-long-image-name-for-layout-tests:2026.12.05-build.123456789',
      generation: 3,
      address: '10.96.123.234',
      service: {
        type: 'NodePort',
        address: '10.96.123.234',
        ports: [
          { name: 'ssh', port: 22, protocol: 'TCP', nodePort: 30022 },
          { name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 },
        ],
        routed: true,
        reason: 'Routed',
        message: 'ready',
      } as unknown as WorkloadStatus['service'],
      ...status,
    },
  };
}

async function openPage(server: UiServer, width = 1280): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 800 } });
  await page.goto(server.url);
  await page.waitForFunction(() => document.body.dataset.snapshots === '1');
  return page;
}

const visibleButtons = (page: Page, name: string) =>
  page.$$eval(`tr[data-provider-id="${NS}/${name}"] td.actions button`, (buttons) =>
    buttons.filter((button) => !(button as HTMLButtonElement).hidden).map((button) => button.textContent),
  );

describe('rows at 1280 px: nothing overflows, actions follow the state, a long detail is folded', () => {
  it('three rows of long names, images and a 17-line failure fit the page; each offers what its state allows', async () => {
    const { server, statuses } = await harness();
    const page = await openPage(server);
    try {
      statuses.next(statusEvent('web-with-a-long-hostname-for-the-layout-test', {}));
      statuses.next(statusEvent('stopped', { state: 'offline', reason: 'Stopped', podIp: null, restarts: 0 }));
      statuses.next(statusEvent('broken', { state: 'failed', reason: 'ImagePullBackOff', message: LONG_FAILURE, podIp: null }));
      await page.waitForFunction(() => document.querySelectorAll('#workloads tbody tr').length === 3);
      await page.waitForFunction(() => !document.querySelector('td.actions button:not([hidden])') === false);

      expect(await visibleButtons(page, 'web-with-a-long-hostname-for-the-layout-test')).toEqual([
        'Terminal',
        'Logs',
        'Stop',
        'Restart',
        'Delete',
      ]);
      expect(await visibleButtons(page, 'stopped')).toEqual(['Start', 'Delete']);
      expect(await visibleButtons(page, 'broken')).toEqual(['Logs', 'Stop', 'Restart', 'Delete']);

      // A long failure: its first line, the other 16 behind "more".
      const detail = `tr[data-provider-id="${NS}/broken"] td.detail`;
      expect(await page.$eval(`${detail} .message`, (node) => node.textContent)).toBe(
        `${LONG_FAILURE.split('\n')[0]!.slice(0, 160)}${LONG_FAILURE.split('\n')[0]!.length > 160 ? '…' : ''}`,
      );
      expect(await page.isVisible(`${detail} .more pre`)).toBe(false);
      expect(await page.$eval(`${detail} .more summary`, (node) => node.textContent)).toBe('more (16 lines)');
      const folded = await page.$eval(`tr[data-provider-id="${NS}/broken"]`, (row) => row.getBoundingClientRect().height);
      await page.click(`${detail} .more summary`);
      expect(await page.isVisible(`${detail} .more pre`)).toBe(true);
      const unfolded = await page.$eval(`tr[data-provider-id="${NS}/broken"]`, (row) => row.getBoundingClientRect().height);
      expect(folded).toBeLessThan(unfolded / 2);
      if (process.env.KUBE_PROVISIONER_PANES_SCREENSHOT)
        await page.screenshot({ path: process.env.KUBE_PROVISIONER_PANES_SCREENSHOT, fullPage: true });
      expect(await page.$eval(`${detail} .more pre`, (node) => node.textContent)).toBe(LONG_FAILURE.split('\n').slice(1).join('\n'));

      const fits = () =>
        page.evaluate(() => {
          const section = document.querySelector('#workloads')!.parentElement!;
          const right = section.getBoundingClientRect().right;
          return {
            document: document.documentElement.scrollWidth <= window.innerWidth,
            table: document.querySelector('#workloads')!.scrollWidth <= section.clientWidth,
            buttons: Array.from(document.querySelectorAll('td.actions button:not([hidden])')).every(
              (button) => button.getBoundingClientRect().right <= right,
            ),
          };
        });
      expect(await fits()).toEqual({ document: true, table: true, buttons: true });

      // With a terminal and a log open under a row, still nothing overflows.
      await page.click(`tr[data-provider-id="${NS}/web-with-a-long-hostname-for-the-layout-test"] button[data-action="terminal"]`);
      await page.click(`tr[data-provider-id="${NS}/web-with-a-long-hostname-for-the-layout-test"] button[data-action="logs"]`);
      await page.waitForSelector('tr.pane-row[data-kind="terminal"][data-state="open"]');
      await page.waitForSelector('tr.pane-row[data-kind="logs"][data-state="open"]');
      expect(await fits()).toEqual({ document: true, table: true, buttons: true });
      if (process.env.KUBE_PROVISIONER_PANES_SCREENSHOT)
        await page.screenshot({ path: `${process.env.KUBE_PROVISIONER_PANES_SCREENSHOT}.panes.png`, fullPage: true });
      // The panes follow their row, the terminal first.
      expect(
        await page.$$eval('#workloads tbody tr', (rows) => rows.map((row) => row.dataset.kind ?? row.dataset.providerId?.split('/')[1])),
      ).toEqual(['broken', 'stopped', 'web-with-a-long-hostname-for-the-layout-test', 'terminal', 'logs']);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('a running workload whose backend has no terminal or log offers neither', async () => {
    const statuses = new Subject<WorkloadStatusEvent>();
    const hub = new LiveHub({ api: new FakeKubernetes(NS), namespace: NS, backend: { statuses$: () => statuses } });
    const server = await startUiServer({ hub, port: 0 });
    opened.push({ server, hub, statuses, terminals: [], logRequests: [], log: [] });
    const page = await openPage(server);
    try {
      statuses.next(statusEvent('web', {}));
      await page.waitForSelector(`tr[data-provider-id="${NS}/web"]`);
      expect(await visibleButtons(page, 'web')).toEqual([]);
      // Asked anyway: the socket is closed with 4501, naming what the backend lacks.
      const answer = await upgrade(server, `/api/workloads/${NS}/web/terminal`);
      if (!('socket' in answer)) throw new Error(answer.body);
      const closed = await closeOf(answer.socket);
      expect(closed.code).toBe(4501);
      expect(JSON.parse(closed.messages[0]!)).toMatchObject({ type: 'error', name: 'InvalidOptionError' });
    } finally {
      await page.close();
    }
  });
});

describe('the terminal pane (stand-in terminal)', () => {
  it('types, shows the output, resizes with the page, and closing the tab closes the terminal and logs one line', async () => {
    const { server, statuses, terminals, log } = await harness();
    const page = await openPage(server);
    statuses.next(statusEvent('web', {}));
    await page.click(`tr[data-provider-id="${NS}/web"] button[data-action="terminal"]`);
    await page.waitForSelector('tr.pane-row[data-kind="terminal"][data-state="open"]');
    expect(await page.textContent('tr.pane-row .pane-status')).toBe('connected to web-pod');
    await page.keyboard.type('echo secret-keystrokes');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('.xterm-rows')?.textContent?.includes('echo secret-keystrokes'));
    expect(terminals[0]!.typed.join('')).toBe('echo secret-keystrokes\r');
    // At its first output, the shell that answered is named.
    expect(await page.textContent('tr.pane-row .pane-status')).toBe('sh in web-pod');

    const [firstColumns] = terminals[0]!.sizes.at(-1)!;
    await page.setViewportSize({ width: 900, height: 800 });
    await expect.poll(() => terminals[0]!.sizes.at(-1)![0], { timeout: 5_000 }).toBeLessThan(firstColumns);

    await page.close();
    await expect.poll(() => terminals[0]!.closed, { timeout: 5_000 }).toBe(true);
    await expect.poll(() => log.length, { timeout: 5_000 }).toBe(1);
    expect(log[0]).toMatch(new RegExp(`^terminal ${NS}/web for 127\\.0\\.0\\.1:\\d+: \\d+\\.\\ds, closed by the page$`));
    expect(log.join('\n')).not.toContain('secret');
  }, 30_000);

  it('the shell exiting says so in the pane and closes the socket', async () => {
    const { server, statuses, terminals } = await harness();
    const page = await openPage(server);
    try {
      statuses.next(statusEvent('web', {}));
      await page.click(`tr[data-provider-id="${NS}/web"] button[data-action="terminal"]`);
      await page.waitForSelector('tr.pane-row[data-kind="terminal"][data-state="open"]');
      terminals[0]!.exitWith(3);
      await page.waitForSelector('tr.pane-row[data-kind="terminal"][data-state="exited"]');
      expect(await page.textContent('tr.pane-row .pane-status')).toBe('exited with 3');
      await page.waitForSelector('tr.pane-row[data-close-code="1000"]');
    } finally {
      await page.close();
    }
  });
});

describe('the log pane (stand-in log)', () => {
  it('follows, pauses (holding what comes), resumes, and reads the previous run; closing it ends the stream', async () => {
    const { server, statuses, logRequests, log } = await harness();
    const page = await openPage(server);
    try {
      statuses.next(statusEvent('web', {}));
      await page.click(`tr[data-provider-id="${NS}/web"] button[data-action="logs"]`);
      await page.waitForSelector('tr.pane-row[data-kind="logs"][data-state="open"]');
      expect(logRequests[0]!.options).toMatchObject({ follow: true, previous: false, timestamps: true, tailLines: 500 });
      const line = (text: string): LogLine => ({
        text,
        time: '2026-12-05T07:00:00.123456789Z',
        pod: 'web-pod',
        container: 'main',
        truncated: false,
      });
      const shown = () => page.$$eval('.log-lines li', (items) => items.map((item) => item.childNodes[1]?.textContent));
      logRequests[0]!.lines.next(line('first'));
      await expect.poll(shown).toEqual(['first']);

      await page.click('tr.pane-row button[data-pane-action="pause"]');
      logRequests[0]!.lines.next(line('second'));
      await page.waitForFunction(
        () => document.querySelector('tr.pane-row[data-kind="logs"] .pane-status')?.textContent === 'paused: 1 new line held',
      );
      expect(await shown()).toEqual(['first']);
      await page.click('tr.pane-row button[data-pane-action="pause"]');
      await expect.poll(shown).toEqual(['first', 'second']);

      await page.click('tr.pane-row label:has-text("Previous run") input');
      await expect.poll(() => logRequests.length).toBe(2);
      expect(logRequests[1]!.options).toMatchObject({ follow: false, previous: true });
      await expect.poll(() => logRequests[0]!.unsubscribed).toBe(true);
      logRequests[1]!.lines.next(line('last words'));
      logRequests[1]!.lines.complete();
      await expect.poll(shown).toEqual(['last words']);
      await page.waitForSelector('tr.pane-row[data-kind="logs"][data-state="ended"]');

      await page.click('tr.pane-row[data-kind="logs"] button[data-pane-action="close"]');
      expect(await page.$$('tr.pane-row')).toHaveLength(0);
      await expect.poll(() => log.length).toBe(2);
      expect(log[0]).toMatch(new RegExp(`^logs ${NS}/web for 127\\.0\\.0\\.1:\\d+: \\d+\\.\\ds, closed by the page after 2 lines$`));
      expect(log[1]).toMatch(/, ended with the log after 1 lines$/);
    } finally {
      await page.close();
    }
  }, 30_000);
});

/** A WebSocket upgrade from Node: its HTTP refusal, or the open socket. */
function upgrade(
  server: UiServer,
  path: string,
  headers: Record<string, string> = {},
  options: WebSocket.ClientOptions = {},
): Promise<{ status: number; body: string } | { socket: WebSocket }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}${path}`, {
      headers: { Origin: `http://127.0.0.1:${server.port}`, ...headers },
      ...options,
    });
    // From the start: the server may send (and close) in the same packet as its 101.
    const messages: string[] = [];
    socket.on('message', (data, isBinary) => {
      if (!isBinary) messages.push((data as Buffer).toString());
    });
    closings.set(socket, new Promise((closed) => socket.once('close', (code) => closed({ code, messages }))));
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_request, response: http.IncomingMessage) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.once('error', reject);
  });
}

function refusal(answer: Awaited<ReturnType<typeof upgrade>>): { status: number; name: string } {
  if ('socket' in answer) {
    answer.socket.terminate();
    throw new Error('the upgrade was accepted');
  }
  return { status: answer.status, name: (JSON.parse(answer.body) as { name: string }).name };
}

/** How each socket opened by upgrade() closed, with the text messages it received. */
const closings = new WeakMap<WebSocket, Promise<{ code: number; messages: string[] }>>();

const closeOf = (socket: WebSocket): Promise<{ code: number; messages: string[] }> => closings.get(socket)!;

/** A GET with full control of its headers. */
function get(server: UiServer, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port: server.port, path, headers: { Host: `127.0.0.1:${server.port}`, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
  });
}

describe('the server refuses what the page must not do', () => {
  const path = (name: string, what = 'terminal', namespace = NS) => `/api/workloads/${namespace}/${name}/${what}`;

  it('a terminal of another namespace: 403 before the upgrade, and the backend is never asked', async () => {
    const { server, terminals, logRequests, log } = await harness();
    expect(refusal(await upgrade(server, path('web', 'terminal', 'team-b')))).toEqual({ status: 403, name: 'OtherNamespaceError' });
    expect(await get(server, path('web', 'logs', 'team-b'))).toMatchObject({ status: 403 });
    expect(JSON.parse((await get(server, path('web', 'logs', 'team-b'))).body)).toMatchObject({
      name: 'OtherNamespaceError',
      message: `this page serves namespace ${NS} only: team-b/web is refused`,
    });
    expect(terminals).toEqual([]);
    expect(logRequests).toEqual([]);
    expect(log).toEqual([]);
  });

  it('an upgrade without an Origin, with another site’s, or with another Host: 403', async () => {
    const { server, terminals } = await harness();
    expect(refusal(await upgrade(server, path('web'), { Origin: 'https://evil.example' }))).toEqual({
      status: 403,
      name: 'ForbiddenOrigin',
    });
    expect(refusal(await upgrade(server, path('web'), { Origin: `http://localhost:${server.port}.evil.example` }))).toEqual({
      status: 403,
      name: 'ForbiddenOrigin',
    });
    expect(refusal(await upgrade(server, path('web'), { Host: `evil.example:${server.port}` }))).toEqual({
      status: 403,
      name: 'ForbiddenHost',
    });
    // ws sends no Origin unless told to: without one, refused.
    const bare = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}${path('web')}`);
      socket.once('unexpected-response', (_request, response: http.IncomingMessage) => resolve(response.statusCode ?? 0));
      socket.once('open', () => resolve(101));
    });
    expect(bare).toBe(403);
    // A log stream asked for by another site's page (EventSource sends its Origin): 403.
    expect(await get(server, path('web', 'logs'), { Origin: 'https://evil.example' })).toMatchObject({ status: 403 });
    // The same Origin rule for every request: a forged POST with the header but another Origin.
    expect(terminals).toEqual([]);
    // This server's own Origin, by either name, is let in.
    const localhost = await upgrade(server, path('web'), { Origin: `http://localhost:${server.port}` });
    expect('socket' in localhost).toBe(true);
    if ('socket' in localhost) localhost.socket.close();
  });

  it('bad sizes and log parameters are client errors naming the parameter', async () => {
    const { server } = await harness();
    expect(JSON.parse((await get(server, `${path('web', 'logs')}?tailLines=0`)).body)).toMatchObject({
      name: 'BadRequestError',
      message: 'tailLines must be a whole number from 1 to 100000 (got "0")',
    });
    expect((await get(server, `${path('web', 'logs')}?follow=1&previous=1`)).status).toBe(400);
    expect(refusal(await upgrade(server, `${path('web')}?columns=0`))).toEqual({ status: 400, name: 'BadRequestError' });
    expect((await get(server, path('web'))).status).toBe(426);
  });

  it('caps: at most maxSessionsPerWorkload on one workload and maxSessions in all (429); a closed one frees its place', async () => {
    const { server, terminals, log } = await harness({ maxSessions: 3, maxSessionsPerWorkload: 2 });
    const open = async (name: string) => {
      const answer = await upgrade(server, path(name));
      if (!('socket' in answer)) throw new Error(`refused: ${answer.body}`);
      return answer.socket;
    };
    const first = await open('a');
    await open('a');
    expect(refusal(await upgrade(server, path('a')))).toEqual({ status: 429, name: 'PageBusyError' });
    await open('b');
    expect(refusal(await upgrade(server, path('c')))).toEqual({ status: 429, name: 'PageBusyError' });
    const logs = await get(server, path('c', 'logs'));
    expect(logs.status).toBe(429);
    expect(JSON.parse(logs.body)).toMatchObject({ message: expect.stringContaining('3 terminals and log panes are open') });
    first.close();
    await expect.poll(() => log.length).toBe(1);
    await expect.poll(() => terminals[0]!.closed).toBe(true);
    const again = await open('c');
    again.close();
  });

  it('a handshake ws refuses (a bad Sec-WebSocket-Version) frees its place at once', async () => {
    const { server, terminals, log } = await harness({ maxSessions: 1 });
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request({
        host: '127.0.0.1',
        port: server.port,
        path: path('web'),
        headers: {
          Host: `127.0.0.1:${server.port}`,
          Origin: `http://127.0.0.1:${server.port}`,
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'Sec-WebSocket-Version': '7',
        },
      });
      request.on('response', (response) => resolve(response.statusCode ?? 0));
      request.on('upgrade', () => resolve(101));
      request.on('error', reject);
      request.end();
    });
    expect(status).toBe(400);
    await expect.poll(() => log).toEqual([expect.stringMatching(/not opened: the WebSocket handshake was refused$/)]);
    expect(terminals).toEqual([]);
    const next = await upgrade(server, path('web'));
    expect('socket' in next).toBe(true);
    if ('socket' in next) next.socket.close();
  });

  it('an idle terminal is closed after terminalIdleMs (4408), the remote end too', async () => {
    const { server, terminals, log } = await harness({ terminalIdleMs: 300 });
    const answer = await upgrade(server, path('web'));
    if (!('socket' in answer)) throw new Error(answer.body);
    const closed = await closeOf(answer.socket);
    expect(closed.code).toBe(4408);
    expect(closed.messages.map((message) => (JSON.parse(message) as { type: string; name?: string }).name ?? '')).toContain(
      'TerminalIdleError',
    );
    await expect.poll(() => terminals[0]!.closed).toBe(true);
    expect(log[0]).toMatch(/: 0\.\ds, idle for 0s$/);
  });

  it('a page that stops answering pings is cut, and its terminal closed', async () => {
    const { server, terminals, log } = await harness({ pingIntervalMs: 100 });
    const answer = await upgrade(server, path('web'), {}, { autoPong: false });
    if (!('socket' in answer)) throw new Error(answer.body);
    await closeOf(answer.socket);
    await expect.poll(() => terminals[0]!.closed).toBe(true);
    expect(log[0]).toMatch(/the page stopped answering pings$/);
  });

  it('a page that answers pings keeps its terminal open past many intervals; the server closing ends it', async () => {
    const { server, terminals, log } = await harness({ pingIntervalMs: 50 });
    const answer = await upgrade(server, path('web'));
    if (!('socket' in answer)) throw new Error(answer.body);
    const closed = closeOf(answer.socket);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(terminals[0]!.closed).toBe(false);
    await server.close();
    // close() resolves once the terminal is closed in the cluster too.
    expect(terminals[0]!.closed).toBe(true);
    expect((await closed).code).toBe(1001);
    expect(log[0]).toMatch(/the server closed$/);
  });

  it('a message that is not one of ours closes the terminal (4400)', async () => {
    const { server, terminals } = await harness();
    const answer = await upgrade(server, path('web'));
    if (!('socket' in answer)) throw new Error(answer.body);
    const closed = closeOf(answer.socket);
    answer.socket.send('rm -rf /');
    expect((await closed).code).toBe(4400);
    // Nothing of it reached the shell.
    await expect.poll(() => terminals[0]!.closed).toBe(true);
    expect(terminals[0]!.typed).toEqual([]);
  });
});
