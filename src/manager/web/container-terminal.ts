// containerTerminal(): the WebSocket upgrade handler Manager's server mounts for a
// container's terminal (`server.on('upgrade', terminal.handleUpgrade)`). In order, before
// anything reaches the cluster: the path, the Host and Origin of the upgrade (a page of
// another site must not open a shell in the user's name), Manager's authorization hook, the
// rows (a kubernetes node, a provisioned container) and the caps. Only then is the browser's
// socket accepted and the terminal opened (openTerminal: bash, else sh).
//
// Browser protocol: binary messages are the terminal's bytes both ways; text messages are
// JSON: from the browser {"type":"resize","columns","rows"}; to it {"type":"exit","exitCode"}
// or {"type":"error","message"} before the socket closes. The browser's socket is pinged
// (proxies such as Manager's nginx cut a connection silent for 60 s); a browser that answers
// no ping, or sends nothing for the idle bound, ends the session; closing it ends the
// terminal. One line per session goes to the log: who, which container, how long.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { openTerminal, type Terminal } from '../../index.js';
import { nodeClientFactory } from '../providers/kubernetes-client.js';
import {
  SessionLimits,
  SessionRefusedError,
  authorizeSession,
  errorWords,
  positiveMs,
  refusalLine,
  sessionClient,
  sessionLine,
  type ContainerRouteParams,
  type ContainerSessionOptions,
  type SessionTarget,
} from './container-access.js';

/** Manager's route for a container's terminal. */
export const TERMINAL_PATH = /^\/api\/v1\/sites\/(?<siteId>[^/]+)\/containers\/(?<id>[^/]+)\/terminal$/;
export const DEFAULT_TERMINAL_IDLE_MS = 15 * 60_000;
/** Well under the 60 s after which Manager's nginx (proxy_read_timeout) cuts a silent connection. */
export const DEFAULT_BROWSER_PING_MS = 20_000;
/** Bound on one message from the browser (a paste): larger ones close the session. */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** What is kept of the browser's input while the terminal is still connecting. */
const MAX_PENDING_BYTES = 64 * 1024;
/** Output queued for a browser that reads more slowly than the command writes; past it the session ends. */
const MAX_BUFFERED_OUTPUT_BYTES = 8 * 1024 * 1024;

export interface ContainerTerminalOptions extends ContainerSessionOptions {
  /** The upgrade paths handled, with the named groups `siteId` and `id`; default Manager's `/api/v1/sites/:siteId/containers/:id/terminal`. */
  readonly path?: RegExp;
  /** Origins (`https://manager.example.org`) allowed besides the request's own Host. */
  readonly allowedOrigins?: readonly string[];
  /** When given, the only Host headers accepted (DNS rebinding); default: any Host, which the Origin must match. */
  readonly allowedHosts?: readonly string[];
  /** Close a session the browser sent nothing on for this long; default 15 minutes. */
  readonly idleTimeoutMs?: number;
  /** Interval of the pings to the browser; one unanswered for an interval ends the session. Default 20000. */
  readonly browserPingMs?: number;
}

export interface ContainerTerminalServer {
  /** Manager's server calls it on every 'upgrade'; false when the path is not a terminal's (another handler may take it). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Sessions open now. */
  readonly openSessions: number;
  /** Ends every session and refuses new ones; resolves once their terminals are closed. */
  close(): Promise<void>;
}

export function containerTerminal(options: ContainerTerminalOptions): ContainerTerminalServer {
  if (typeof options?.authorize !== 'function') {
    throw new TypeError('containerTerminal: authorize must be a function (Manager’s access rule: owner, collaborators, admins)');
  }
  const path = options.path ?? TERMINAL_PATH;
  const idleMs = positiveMs('idleTimeoutMs', options.idleTimeoutMs ?? DEFAULT_TERMINAL_IDLE_MS);
  const pingMs = positiveMs('browserPingMs', options.browserPingMs ?? DEFAULT_BROWSER_PING_MS);
  if (options.maxSessionMs !== undefined) positiveMs('maxSessionMs', options.maxSessionMs);
  const limits = new SessionLimits(options);
  const clientFor = options.clientFor ?? nodeClientFactory();
  const log = options.log ?? ((line: string) => console.log(line));
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const sessions = new Set<() => Promise<void>>();
  let closed = false;

  const handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    const match = path.exec(new URL(request.url ?? '/', 'http://upgrade').pathname);
    if (!match) return false;
    const params: ContainerRouteParams = { siteId: match.groups?.['siteId'] ?? '', id: match.groups?.['id'] ?? '' };
    void admit(request, socket, params).then(
      (admitted) => {
        if (!admitted) return;
        wss.handleUpgrade(request, socket, head, (browser) => runSession(browser, admitted.target, admitted.release, request));
      },
      (error: unknown) => {
        const refusal =
          error instanceof SessionRefusedError ? error : new SessionRefusedError(500, 'internal', 'The terminal could not be opened');
        log(refusalLine('terminal', params, refusal));
        refuse(socket, refusal);
      },
    );
    return true;
  };

  /** Everything checked before the upgrade is accepted; nothing here reaches the cluster. */
  async function admit(
    request: IncomingMessage,
    socket: Duplex,
    params: ContainerRouteParams,
  ): Promise<{ target: SessionTarget; release: () => void } | undefined> {
    if (closed) throw new SessionRefusedError(503, 'closing', 'The server is closing');
    checkHostAndOrigin(request, options);
    initialSize(request);
    const target = await authorizeSession(options.authorize, request, params);
    if (closed) throw new SessionRefusedError(503, 'closing', 'The server is closing');
    // The browser may have gone while Manager's hook ran: no session, no place taken.
    if (socket.destroyed) return undefined;
    const release = limits.take(target);
    return { target, release };
  }

  function runSession(browser: WebSocket, target: SessionTarget, release: () => void, request: IncomingMessage): void {
    const startedAt = Date.now();
    const abort = new AbortController();
    let terminal: Terminal | undefined;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let pendingSize: { columns: number; rows: number } | undefined;
    let outcome = 'closed by the browser';
    let finished = false;
    let answeredPing = true;
    let idleTimer: NodeJS.Timeout | undefined;
    let sessionTimer: NodeJS.Timeout | undefined;
    let settle: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (settle = resolve));

    const end = (why: string, message?: object, code = 1000): void => {
      if (finished) return;
      outcome = why;
      if (message && browser.readyState === browser.OPEN) browser.send(JSON.stringify(message));
      browser.close(code);
      finish();
    };
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearInterval(pinger);
      clearTimeout(idleTimer);
      clearTimeout(sessionTimer);
      abort.abort();
      release();
      const closing = terminal ? terminal.close().catch(() => undefined) : Promise.resolve();
      void closing.then(() => {
        log(sessionLine('terminal', target, startedAt, Date.now(), outcome));
        sessions.delete(stop);
        settle();
      });
    };
    const stop = (): Promise<void> => {
      end('closed by the server', { type: 'error', message: 'The server is closing' }, 1001);
      return done;
    };
    sessions.add(stop);

    const resetIdle = (): void => {
      // A message that arrives after the end starts no new bound.
      if (finished) return;
      clearTimeout(idleTimer);
      idleTimer = setTimeout(
        () =>
          end(`idle for ${Math.round(idleMs / 1000)} s`, {
            type: 'error',
            message: `Closed after ${Math.round(idleMs / 1000)} s without input`,
          }),
        idleMs,
      );
    };
    resetIdle();
    if (options.maxSessionMs !== undefined) {
      const limit = options.maxSessionMs;
      sessionTimer = setTimeout(
        () => end('session bound reached', { type: 'error', message: `Closed after ${Math.round(limit / 1000)} s (the session bound)` }),
        limit,
      );
    }
    const pinger = setInterval(() => {
      if (!answeredPing) {
        outcome = 'the browser answered no ping';
        browser.terminate();
        finish();
        return;
      }
      answeredPing = false;
      browser.ping();
    }, pingMs);
    browser.on('pong', () => (answeredPing = true));
    browser.on('close', () => finish());
    browser.on('error', () => finish());

    browser.on('message', (data: RawData, isBinary: boolean) => {
      resetIdle();
      const bytes = toBuffer(data);
      if (isBinary) {
        if (terminal) terminal.write(bytes);
        else if (pendingBytes + bytes.length <= MAX_PENDING_BYTES) {
          pending.push(bytes);
          pendingBytes += bytes.length;
        } else
          end(
            'input before the terminal opened was too long',
            { type: 'error', message: 'Too much input before the terminal opened' },
            1009,
          );
        return;
      }
      const size = resizeMessage(bytes.toString('utf8'));
      if (size === undefined) {
        end(
          'a message the protocol does not know',
          { type: 'error', message: 'Unknown message: expected binary input or {"type":"resize",...}' },
          1003,
        );
        return;
      }
      if (terminal) terminal.resize(size.columns, size.rows);
      else pendingSize = size;
    });

    const initial = initialSize(request);
    void (async () => {
      try {
        const client = await sessionClient(clientFor, target);
        const opened = await openTerminal(client, target.providerId, {
          ...(initial ?? {}),
          onStdout: (data) => {
            if (browser.readyState !== browser.OPEN) return;
            if (browser.bufferedAmount > MAX_BUFFERED_OUTPUT_BYTES) {
              end(
                'the browser read too slowly',
                { type: 'error', message: 'The browser reads the output more slowly than it comes' },
                1008,
              );
              return;
            }
            browser.send(data, { binary: true });
          },
          containerId: target.containerId,
          ...(options.instance ? { instance: options.instance } : {}),
          signal: abort.signal,
        });
        if (finished) {
          await opened.close();
          return;
        }
        terminal = opened;
        if (pendingSize) opened.resize(pendingSize.columns, pendingSize.rows);
        for (const chunk of pending) opened.write(chunk);
        pending = [];
        const exit = await opened.exit;
        end(`exit ${exit.exitCode ?? 'unknown'}`, { type: 'exit', exitCode: exit.exitCode });
      } catch (error) {
        if (finished) return;
        const words = errorWords(error);
        end(`failed: ${words}`, { type: 'error', message: words }, 1011);
      }
    })();
  }

  return {
    handleUpgrade,
    get openSessions() {
      return limits.open;
    },
    async close() {
      closed = true;
      await Promise.all([...sessions].map((stop) => stop()));
      wss.close();
    },
  };
}

/** The upgrade's Host must be one allowed (when a list is given); its Origin the same host, or one allowed. */
function checkHostAndOrigin(request: IncomingMessage, options: ContainerTerminalOptions): void {
  const host = request.headers.host;
  if (typeof host !== 'string' || host === '') throw new SessionRefusedError(400, 'bad_host', 'The upgrade has no Host header');
  if (options.allowedHosts && !options.allowedHosts.includes(host)) {
    throw new SessionRefusedError(403, 'bad_host', `Host ${host} is not one this server answers terminals for`);
  }
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || origin === '') throw new SessionRefusedError(403, 'bad_origin', 'The upgrade has no Origin header');
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new SessionRefusedError(403, 'bad_origin', `Origin ${origin} is not a URL`);
  }
  if (originHost !== host && !(options.allowedOrigins ?? []).includes(origin)) {
    throw new SessionRefusedError(403, 'bad_origin', `Origin ${origin} may not open a terminal on ${host}`);
  }
}

/** Answers a refused upgrade with its status and Manager's error body, then closes the socket. */
function refuse(socket: Duplex, refusal: SessionRefusedError): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: { code: refusal.code, message: refusal.message } });
  socket.end(
    `HTTP/1.1 ${refusal.status} ${refusal.status === 429 ? 'Too Many Requests' : 'Refused'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function resizeMessage(text: string): { columns: number; rows: number } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { type, columns, rows } = (message ?? {}) as { type?: unknown; columns?: unknown; rows?: unknown };
  if (type !== 'resize' || !isCells(columns) || !isCells(rows)) return undefined;
  return { columns, rows };
}

/** The size the page asks for in the URL (`?columns=&rows=`): both or neither, each 1 to 1000 cells. */
function initialSize(request: IncomingMessage): { columns: number; rows: number } | undefined {
  const query = new URL(request.url ?? '/', 'http://upgrade').searchParams;
  if (!query.has('columns') && !query.has('rows')) return undefined;
  const columns = Number(query.get('columns'));
  const rows = Number(query.get('rows'));
  if (!isCells(columns) || !isCells(rows)) {
    throw new SessionRefusedError(
      400,
      'invalid_request',
      `columns and rows must both be whole numbers from 1 to 1000, got columns=${query.get('columns')} rows=${query.get('rows')}`,
    );
  }
  return { columns, rows };
}

function isCells(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 1000;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
