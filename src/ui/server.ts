// The live page's HTTP server: the page's three files, one Server-Sent Events stream of
// the hub's channel, and the actions. It listens on 127.0.0.1 only and has no
// authentication, so it guards what a loopback server must against other web pages the
// user visits: requests must name this server in Host (no DNS rebinding), and a POST
// must carry a custom header (a cross-origin page cannot send one without a CORS
// preflight, which this server never approves). It serves at most `maxViewers` event
// streams at once; what the hub refuses (another namespace, a second operation on a
// workload, too many at once) is answered with its own status.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidOptionError, InvalidSpecError } from '../errors/input.js';
import { KubeProvisionerError } from '../errors/base.js';
import { OperationInProgressError, OtherNamespaceError, PageBusyError } from './refusals.js';
import { errorForViewers } from '../sse/error-for-viewers.js';
import { toEventStream } from '../sse/to-event-stream.js';
import { LIFECYCLE_ACTIONS, type LifecycleAction } from './backend.js';
import type { LiveHub } from './live-hub.js';

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
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:",
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
  let allowedHosts: ReadonlySet<string> = new Set();

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => sendError(response, error));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!allowedHosts.has(request.headers.host ?? '')) {
      return sendJson(response, 403, { name: 'ForbiddenHost', message: 'this server answers only to 127.0.0.1 and localhost' });
    }
    const target = request.url ?? '/';
    // Origin-form only ("/path?query"): "//live.js" is a path, never a host.
    if (!target.startsWith('/')) throw new BadRequestError('the request target must be a path');
    const url = new URL(`http://localhost${target}`);
    const path = url.pathname;
    if (request.method === 'GET' || request.method === 'HEAD') {
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
        server.close(() => resolve());
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

function sendError(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  if (error instanceof InvalidSpecError) {
    return sendJson(response, 400, { ...errorForViewers(error), issues: error.issues, omittedIssues: error.omittedIssues });
  }
  if (error instanceof BadRequestError) return sendJson(response, 400, errorForViewers(error));
  if (error instanceof OperationInProgressError)
    return sendJson(response, 409, { ...errorForViewers(error), operationId: error.operationId });
  if (error instanceof OtherNamespaceError || error instanceof PageBusyError) {
    if (error instanceof PageBusyError) response.setHeader('Retry-After', '5');
    return sendJson(response, error.status, errorForViewers(error));
  }
  // The backend lacks that operation.
  if (error instanceof InvalidOptionError) return sendJson(response, 501, errorForViewers(error));
  sendJson(response, error instanceof KubeProvisionerError ? 400 : 500, errorForViewers(error));
}

class BadRequestError extends Error {
  override readonly name = 'BadRequestError';
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
