// The live page's HTTP server: the page's files (and xterm.js's), one Server-Sent Events
// stream of the hub's channel, the actions, and per workload a terminal (a WebSocket
// upgrade) and a log stream (Server-Sent Events). It listens on 127.0.0.1 only and has no
// authentication, so it guards what a loopback server must against other web pages the
// user visits: requests must name this server in Host (no DNS rebinding), an Origin, when
// a request has one, must be this server's page, a WebSocket upgrade must have one (a
// browser always sends it), and a POST must carry a custom header (a cross-origin page
// cannot send one without a CORS preflight, which this server never approves). It serves
// at most `maxViewers` event streams and `maxSessions` terminals and log panes at once (at
// most `maxSessionsPerWorkload` on one workload); what the hub refuses (another namespace,
// a second operation on a workload, too many at once) is answered with its own status.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { InvalidOptionError, InvalidSpecError } from '../errors/input.js';
import { KubeProvisionerError } from '../errors/base.js';
import { OperationInProgressError, OtherNamespaceError, PageBusyError } from './refusals.js';
import { errorForViewers } from '../sse/error-for-viewers.js';
import { toEventStream } from '../sse/to-event-stream.js';
import { LIFECYCLE_ACTIONS, type LifecycleAction } from './backend.js';
import type { LiveHub } from './live-hub.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SESSIONS_PER_WORKLOAD, SessionBoard, type SessionKind } from './sessions.js';
import { bridgeTerminal, DEFAULT_PAGE_PING_MS, DEFAULT_TERMINAL_IDLE_MS, isCells } from './terminal-socket.js';
import { streamLogLines } from './log-stream.js';
import { VENDOR_FILES, vendorFile } from './vendor-files.js';

export const UI_HOST = '127.0.0.1';
export const DEFAULT_UI_PORT = 8765;
/** The header every POST must carry (see above). */
export const ACTION_HEADER = 'x-kube-provision-ui';
const MAX_BODY_BYTES = 64 * 1024;
/** Event streams served at once; one more is answered 503. */
export const DEFAULT_MAX_VIEWERS = 64;

/**
 * The page's files ship in the package's web/ folder, at the package root: the folder of
 * the named package.json nearest above this code (a nameless one, such as dist/package.json
 * that sets the module type, is passed), which must be kube-provisioner's own (any other
 * web/ folder, an ancestor's included, is never served). This code runs from src/ui (tests
 * and tsx), from dist/bundle.js or from dist/cli/kube-provision.js (the CommonJS bundles,
 * where import.meta.url is the bundle file's URL: see scripts/build.ts).
 */
export function webDir(from: string = dirname(fileURLToPath(import.meta.url))): string {
  const missing = (): Error => new Error("kube-provisioner's web/ folder (the live page's files) is missing from the package");
  for (let directory = from; ; directory = dirname(directory)) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest)) {
      let name: unknown;
      try {
        name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
      } catch {
        throw missing();
      }
      // A nameless one only sets the module type of its folder (dist/package.json): climb on.
      if (name !== undefined) {
        const candidate = join(directory, 'web');
        if (name !== 'kube-provisioner' || !existsSync(join(candidate, 'index.html'))) throw missing();
        return candidate;
      }
    }
    if (dirname(directory) === directory) throw missing();
  }
}

const PAGE_FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/live.js': { file: 'live.js', type: 'text/javascript; charset=utf-8' },
  '/live.css': { file: 'live.css', type: 'text/css; charset=utf-8' },
};

const PAGE_HEADERS = {
  // xterm.js writes its colours and cell sizes into <style> elements: styles may be inline,
  // scripts may not ('self' only).
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
} as const;

export interface UiServerOptions {
  readonly hub: LiveHub;
  /** Port on 127.0.0.1; 0 picks a free one. Default 8765. */
  readonly port?: number;
  /** Heartbeat interval of the event stream. Default 15000. */
  readonly heartbeatMs?: number;
  /** Where the page's files are (tests only). Default: the package's web/ folder. */
  readonly webDir?: string;
  /** Event streams served at once. Default 64. */
  readonly maxViewers?: number;
  /** Terminals and log panes open at once. Default 16. */
  readonly maxSessions?: number;
  /** Terminals and log panes open at once on one workload. Default 4. */
  readonly maxSessionsPerWorkload?: number;
  /** A terminal without input or output this long is closed. Default 30 minutes. */
  readonly terminalIdleMs?: number;
  /** Between pings of a terminal's socket. Default 20000. */
  readonly pingIntervalMs?: number;
  /** The server's log: one line per terminal or log pane when it ends (who, which workload, how long). Default: none. */
  readonly log?: (line: string) => void;
}

export interface UiServer {
  /** http://127.0.0.1:<port>/ */
  readonly url: string;
  readonly port: number;
  /** Stops listening and ends every open connection; the hub (and its operations) go on. */
  close(): Promise<void>;
}

export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const port = options.port ?? DEFAULT_UI_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidOptionError('port', `port must be a whole number from 0 to 65535 (got ${port})`);
  }
  const pageDir = options.webDir ?? webDir();
  const files = new Map(
    Object.entries(PAGE_FILES).map(([path, { file, type }]) => [path, { body: readFileSync(join(pageDir, file)), type }]),
  );
  const hub = options.hub;
  const maxViewers = options.maxViewers ?? DEFAULT_MAX_VIEWERS;
  if (!Number.isInteger(maxViewers) || maxViewers < 1) {
    throw new InvalidOptionError('maxViewers', `maxViewers must be a whole number, at least 1 (got ${maxViewers})`);
  }
  const maxSessions = positive('maxSessions', options.maxSessions ?? DEFAULT_MAX_SESSIONS);
  const maxPerWorkload = positive('maxSessionsPerWorkload', options.maxSessionsPerWorkload ?? DEFAULT_MAX_SESSIONS_PER_WORKLOAD);
  const terminalIdleMs = positive('terminalIdleMs', options.terminalIdleMs ?? DEFAULT_TERMINAL_IDLE_MS);
  const pingIntervalMs = positive('pingIntervalMs', options.pingIntervalMs ?? DEFAULT_PAGE_PING_MS);
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const sessions = new SessionBoard(maxSessions, maxPerWorkload, options.log ?? (() => undefined));
  /** What ends each open terminal and log pane when the server closes. */
  const openSessions = new Set<(outcome: string) => void>();
  /** Terminals still being closed in the cluster (their sockets to the page closed first). */
  const releasing = new Set<Promise<void>>();
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  for (const path of Object.keys(VENDOR_FILES)) {
    files.set(path, { body: readFileSync(vendorFile(pageDir, path)), type: VENDOR_FILES[path]!.type });
  }
  let allowedHosts: ReadonlySet<string> = new Set();

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => sendError(response, error));
  });
  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => upgrade(request, socket, head));

  /** Who may ask anything: Host names this server; an Origin, when there is one (always on an upgrade), is this server's page. */
  function refusal(request: IncomingMessage, originRequired: boolean): { name: string; message: string } | undefined {
    const host = request.headers.host ?? '';
    if (!allowedHosts.has(host)) return { name: 'ForbiddenHost', message: 'this server answers only to 127.0.0.1 and localhost' };
    const origin = request.headers.origin;
    if (origin === undefined ? originRequired : ![...allowedHosts].some((allowed) => origin === `http://${allowed}`)) {
      return { name: 'ForbiddenOrigin', message: "only this server's own page may open a terminal or act (Origin)" };
    }
    return undefined;
  }

  /** The path of the request target: origin-form only ("/path?query"): "//live.js" is a path, never a host. */
  function urlOf(request: IncomingMessage): URL {
    const target = request.url ?? '/';
    if (!target.startsWith('/')) throw new BadRequestError('the request target must be a path');
    return new URL(`http://localhost${target}`);
  }

  /** A workload's terminal or log path: its provider ID. */
  function sessionTarget(path: string, kind: SessionKind): string | undefined {
    const match = /^\/api\/workloads\/([^/]+)\/([^/]+)\/([a-z]+)$/.exec(path);
    if (!match || match[3] !== kind) return undefined;
    return `${decodePart(match[1]!)}/${decodePart(match[2]!)}`;
  }

  function whoIs(request: IncomingMessage): string {
    return `${request.socket.remoteAddress ?? 'unknown'}:${request.socket.remotePort ?? 0}`;
  }

  function upgrade(request: IncomingMessage, socket: Socket, head: Buffer): void {
    const refuse = (status: number, body: { name: string; message: string }): void => {
      const text = JSON.stringify(body);
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    };
    // A page that resets the connection mid-answer is no error of the server's.
    socket.on('error', () => socket.destroy());
    try {
      const refused = refusal(request, true);
      if (refused) return refuse(403, refused);
      const url = urlOf(request);
      const providerId = sessionTarget(url.pathname, 'terminal');
      if (providerId === undefined) return refuse(404, { name: 'NotFound', message: `no terminal at ${url.pathname}` });
      const size = { columns: cells(url, 'columns', 80), rows: cells(url, 'rows', 24) };
      // Refused before the upgrade, with the status a page can tell apart: another namespace, too many.
      hub.checkScope(providerId);
      const ticket = sessions.admit('terminal', providerId, whoIs(request));
      // ws answers a bad handshake itself (400) without calling back: the place is freed then.
      let upgraded = false;
      socket.once('close', () => {
        if (!upgraded) ticket.end('not opened: the WebSocket handshake was refused');
      });
      sockets.handleUpgrade(request, socket, head, (webSocket) => {
        upgraded = true;
        const { end, released } = bridgeTerminal(
          webSocket,
          // A backend without openTerminal throws: a rejection, answered on the socket like any failure.
          (terminalOptions) => Promise.resolve().then(() => hub.openTerminal(providerId, terminalOptions)),
          size,
          ticket,
          {
            idleMs: terminalIdleMs,
            pingIntervalMs,
            forViewers: (error) => hub.forViewers(error),
            closeCodeFor: (error) => 4000 + statusFor(error),
          },
        );
        openSessions.add(end);
        webSocket.once('close', () => openSessions.delete(end));
        releasing.add(released);
        void released.then(() => releasing.delete(released));
      });
    } catch (error) {
      refuse(statusFor(error), hub.forViewers(error));
    }
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const refused = refusal(request, false);
    if (refused) return sendJson(response, 403, refused);
    const url = urlOf(request);
    const path = url.pathname;
    if (request.method === 'GET' || request.method === 'HEAD') {
      const logsOf = sessionTarget(path, 'logs');
      if (logsOf !== undefined && request.method === 'GET') return openLogs(request, response, url, logsOf);
      const file = files.get(path);
      if (file) {
        response.writeHead(200, { 'Content-Type': file.type, 'Content-Length': file.body.length, ...PAGE_HEADERS });
        response.end(request.method === 'HEAD' ? undefined : file.body);
        return;
      }
      if (path === '/api/events') {
        if (request.method === 'HEAD') {
          // Headers only: no viewer is attached for a request that reads no body.
          response.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform' });
          response.end();
          return;
        }
        if (hub.channel.viewerCount >= maxViewers) throw new PageBusyError('viewers', maxViewers);
        const lastEventId = url.searchParams.get('lastEventId') ?? undefined;
        const header = request.headers['last-event-id'];
        toEventStream(hub.channel, response, {
          ...(header === undefined && lastEventId !== undefined ? { lastEventId } : {}),
          ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
        });
        return;
      }
      if (path.endsWith('/terminal')) {
        return sendJson(response, 426, { name: 'UpgradeRequired', message: 'a terminal is a WebSocket: open it with an upgrade' });
      }
      if (path === '/api/state') {
        return sendJson(response, 200, { lastEventId: hub.channel.lastEventId ?? null, ...hub.snapshot() }, request.method === 'HEAD');
      }
      return sendJson(response, 404, { name: 'NotFound', message: `no page at ${path}` });
    }
    if (request.method === 'POST') {
      if (request.headers[ACTION_HEADER] !== '1') {
        return sendJson(response, 403, { name: 'MissingActionHeader', message: `actions need the ${ACTION_HEADER}: 1 header` });
      }
      if (path === '/api/workloads') return sendOperation(response, hub.provision(await readJson(request)));
      const match = /^\/api\/workloads\/([^/]+)\/([^/]+)\/([a-z]+)$/.exec(path);
      const action = match?.[3] as LifecycleAction | undefined;
      if (match && action && LIFECYCLE_ACTIONS.includes(action)) {
        return sendOperation(response, hub.act(action, `${decodePart(match[1]!)}/${decodePart(match[2]!)}`));
      }
      return sendJson(response, 404, { name: 'NotFound', message: `no action at ${path}` });
    }
    response.setHeader('Allow', 'GET, HEAD, POST');
    return sendJson(response, 405, { name: 'MethodNotAllowed', message: `${request.method} is not allowed` });
  }

  /** A log pane: `follow` (1 or 0, default 1), `previous` (1 or 0, default 0), `tailLines` (default 500). */
  function openLogs(request: IncomingMessage, response: ServerResponse, url: URL, providerId: string): void {
    const follow = flag(url, 'follow', true);
    const previous = flag(url, 'previous', false);
    if (follow && previous) throw new BadRequestError('follow=1 and previous=1 do not go together: the previous run has ended');
    const tailLines = wholeParameter(url, 'tailLines', 500, 100_000);
    hub.checkScope(providerId);
    const lines$ = hub.logs$(providerId, { follow, previous, tailLines, timestamps: true });
    const ticket = sessions.admit('logs', providerId, whoIs(request));
    const end = (outcome: string): void => {
      ticket.end(outcome);
      response.destroy();
    };
    openSessions.add(end);
    response.once('close', () => openSessions.delete(end));
    streamLogLines(response, lines$, ticket, { heartbeatMs, forViewers: (error) => hub.forViewers(error) });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, UI_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;
  allowedHosts = allowedHostsFor(actualPort);

  let closing: Promise<void> | undefined;
  return {
    url: `http://${UI_HOST}:${actualPort}/`,
    port: actualPort,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        // Upgraded sockets are no longer the server's connections: each session ends its own.
        for (const end of [...openSessions]) end('the server closed');
        sockets.close();
        const closed = new Promise<void>((done) => server.close(() => done()));
        void Promise.all([closed, ...releasing]).then(() => resolve());
        // Event streams never end by themselves: cut them (browsers reconnect to the next server).
        server.closeAllConnections();
      })),
  };
}

/** The Host values this server answers to: itself, by address or as localhost (no DNS rebinding). */
export function allowedHostsFor(port: number): ReadonlySet<string> {
  return new Set([
    `${UI_HOST}:${port}`,
    `localhost:${port}`,
    // Browsers leave the default port out of Host.
    ...(port === 80 ? [UI_HOST, 'localhost'] : []),
  ]);
}

function sendJson(response: ServerResponse, status: number, body: unknown, headOnly = false): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(headOnly ? undefined : text);
}

/** 202 for an operation started, 200 for one that was running already and is joined. */
function sendOperation(response: ServerResponse, operation: { id: string; providerId: string; joined: boolean }): void {
  sendJson(response, operation.joined ? 200 : 202, {
    operationId: operation.id,
    providerId: operation.providerId,
    ...(operation.joined ? { joined: true } : {}),
  });
}

/** One percent-decoded path segment; a bad encoding is the client's error (400), not ours. */
function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new BadRequestError('the path has an invalid percent-encoding');
  }
}

/** The status the server answers an error with (a terminal's socket closes with 4000 + it). */
export function statusFor(error: unknown): number {
  if (error instanceof InvalidSpecError || error instanceof BadRequestError) return 400;
  if (error instanceof OperationInProgressError) return 409;
  if (error instanceof OtherNamespaceError || error instanceof PageBusyError) return error.status;
  // The backend lacks that operation.
  if (error instanceof InvalidOptionError) return 501;
  return error instanceof KubeProvisionerError ? 400 : 500;
}

function sendError(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const status = statusFor(error);
  if (error instanceof InvalidSpecError) {
    return sendJson(response, status, { ...errorForViewers(error), issues: error.issues, omittedIssues: error.omittedIssues });
  }
  if (error instanceof OperationInProgressError)
    return sendJson(response, status, { ...errorForViewers(error), operationId: error.operationId });
  if (error instanceof PageBusyError) response.setHeader('Retry-After', '5');
  sendJson(response, status, errorForViewers(error));
}

class BadRequestError extends Error {
  override readonly name = 'BadRequestError';
}

function positive(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidOptionError(option, `${option} must be a whole number, at least 1 (got ${value})`);
  }
  return value;
}

/** A query parameter 1 or 0, or its default when absent. */
function flag(url: URL, name: string, fallback: boolean): boolean {
  const value = url.searchParams.get(name);
  if (value === null) return fallback;
  if (value !== '1' && value !== '0') throw new BadRequestError(`${name} must be 1 or 0 (got ${JSON.stringify(value)})`);
  return value === '1';
}

/** A whole-number query parameter from 1 to max, or its default when absent. */
function wholeParameter(url: URL, name: string, fallback: number, max: number): number {
  const value = url.searchParams.get(name);
  if (value === null) return fallback;
  const number = /^[0-9]{1,9}$/.test(value) ? Number(value) : NaN;
  if (!(number >= 1 && number <= max))
    throw new BadRequestError(`${name} must be a whole number from 1 to ${max} (got ${JSON.stringify(value)})`);
  return number;
}

/** A terminal's size in character cells from the query, or its default when absent. */
function cells(url: URL, name: 'columns' | 'rows', fallback: number): number {
  const value = url.searchParams.get(name);
  if (value === null) return fallback;
  const number = /^[0-9]{1,5}$/.test(value) ? Number(value) : NaN;
  if (!isCells(number)) throw new BadRequestError(`${name} must be a whole number from 1 to 65535 (got ${JSON.stringify(value)})`);
  return number;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BadRequestError(`the request body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadRequestError('the request body is not valid JSON');
  }
}
