// HTTP to the API server over node:http(s), with a kubeconfig (client-node's KubeConfig)
// supplying TLS material and credentials (tokens, client certificates, exec plugins) per
// request. client-node's own fetch transport (undici) is never used.
// We speak plain JSON instead of going through client-node's generated API because the
// informer needs the wire objects as they are, every request must be bounded in time
// (client-node sets no timeout), and a watch must be abortable at any moment, also before
// the server answers (client-node's Watch returns its AbortController only after that).
import http from 'node:http';
import https from 'node:https';
import pTimeout from 'p-timeout';
import { ApiTimeoutError, type RequestTarget } from '../errors.js';
import type { WatchEventType, WatchHandle } from './client.js';
import { errorFromNetwork, errorFromResponse, errorFromWatchStatus, parseStatus, type KubeStatus } from './translate-error.js';

/**
 * Fills a request's TLS material, Authorization header and agent from the current context
 * (client-node's KubeConfig is one; running an exec plugin or refreshing OIDC happens here).
 */
export interface RequestCredentials {
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
}

export interface RequestInfo {
  readonly method: string;
  readonly path: string;
  readonly watch: boolean;
}

export interface TransportOptions {
  /** Bound on every request; for a watch, on the time until the server answers. */
  readonly requestTimeoutMs: number;
  /** Connections open at once for requests other than watches; more requests queue. */
  readonly maxConnections?: number;
  /** Called once per request sent (benchmarks count API calls with it). */
  readonly onRequest?: (info: RequestInfo) => void;
}

export interface JsonRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The body's media type; default application/json (a merge patch says so here). */
  readonly contentType?: string;
  readonly path: string;
  readonly query?: Record<string, string | number | boolean | undefined>;
  readonly body?: unknown;
  readonly target: RequestTarget;
  readonly signal?: AbortSignal;
}

export interface StreamHandlers {
  onEvent(type: WatchEventType, object: unknown): void;
  onClose(error: Error | undefined): void;
  /** The server answered 200: the watch is established. */
  onOpen?(): void;
}

// Lists of thousands of objects are a few MB; anything far larger is not an API answer.
const MAX_BODY_BYTES = 256 * 1024 * 1024;
/**
 * client-go sends up to 250 requests at once over one HTTP/2 connection. Over HTTP/1.1 each
 * request in flight needs a connection, and a TLS handshake, of its own: 64 is enough to
 * keep an API server busy (measured at N=500 in bench/) without a handshake per request.
 */
export const DEFAULT_MAX_CONNECTIONS = 64;
/** An idle kept-alive connection closes after this long (as with Node's global agent). */
const IDLE_CONNECTION_MS = 5_000;

export class HttpTransport {
  // Requests reuse kept-alive connections and TLS sessions instead of a handshake each.
  // Node unrefs idle pooled sockets, so they never keep the process alive.
  private readonly requestAgent: https.Agent;
  // A watch holds its connection for minutes: its own uncapped pool, so watches never queue
  // behind requests or starve them; new connections still resume TLS sessions.
  private readonly watchAgent = new https.Agent({ keepAlive: false });

  constructor(
    private readonly credentials: RequestCredentials,
    readonly server: string,
    private readonly options: TransportOptions,
  ) {
    this.requestAgent = new https.Agent({
      keepAlive: true,
      timeout: IDLE_CONNECTION_MS,
      maxSockets: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    });
  }

  async requestJson<T>(request: JsonRequest): Promise<T> {
    request.signal?.throwIfAborted();
    const { transportOptions, url } = await this.prepare(request.path, request.query, this.requestAgent);
    this.options.onRequest?.({ method: request.method, path: request.path, watch: false });
    const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
    const req = this.module(url).request(url, {
      ...transportOptions,
      method: request.method,
      headers: {
        ...transportOptions.headers,
        Accept: 'application/json',
        ...(payload !== undefined
          ? { 'Content-Type': request.contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(payload) }
          : {}),
      },
    });
    const answer = new Promise<T>((resolve, reject) => {
      req.on('error', (error) => reject(errorFromNetwork(this.server, error, request.target)));
      req.on('response', (res) => {
        readBody(res)
          .then((text) => {
            const statusCode = res.statusCode ?? 0;
            if (statusCode >= 200 && statusCode < 300) return resolve(JSON.parse(text) as T);
            reject(
              errorFromResponse({
                server: this.server,
                statusCode,
                status: parseStatus(text),
                retryAfterHeader: headerValue(res.headers['retry-after']),
                target: request.target,
              }),
            );
          })
          .catch((error: unknown) => reject(errorFromNetwork(this.server, error, request.target)));
      });
      req.end(payload);
    });
    // The p-timeout way: bounded in time, an abort rejects with the signal's reason, and the
    // timer and listener go away once settled. Either way out destroys the request.
    return pTimeout(answer, {
      milliseconds: this.options.requestTimeoutMs,
      message: new ApiTimeoutError(this.server, this.options.requestTimeoutMs, { target: request.target }),
      ...(request.signal ? { signal: request.signal } : {}),
    }).finally(() => req.destroy());
  }

  /**
   * Opens a watch and streams its events. `onClose` runs once: with `undefined` when the
   * server ends the watch cleanly, with a project error otherwise; never after abort().
   */
  watch(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    target: RequestTarget,
    handlers: StreamHandlers,
  ): WatchHandle {
    let aborted = false;
    let closed = false;
    let req: http.ClientRequest | undefined;
    let connectTimer: NodeJS.Timeout | undefined;
    const close = (error: Error | undefined): void => {
      if (aborted || closed) return;
      closed = true;
      clearTimeout(connectTimer);
      req?.destroy();
      handlers.onClose(error);
    };

    this.prepare(path, { ...query, watch: true }, this.watchAgent)
      .then(({ transportOptions, url }) => {
        if (aborted) return;
        this.options.onRequest?.({ method: 'GET', path, watch: true });
        req = this.module(url).request(url, {
          ...transportOptions,
          method: 'GET',
          headers: { ...transportOptions.headers, Accept: 'application/json' },
        });
        connectTimer = setTimeout(
          () => close(new ApiTimeoutError(this.server, this.options.requestTimeoutMs, { target })),
          this.options.requestTimeoutMs,
        );
        req.on('error', (error) => close(errorFromNetwork(this.server, error, target)));
        req.on('response', (res) => {
          clearTimeout(connectTimer);
          const statusCode = res.statusCode ?? 0;
          if (statusCode !== 200) {
            readBody(res)
              .then((text) =>
                close(
                  errorFromResponse({
                    server: this.server,
                    statusCode,
                    status: parseStatus(text),
                    retryAfterHeader: headerValue(res.headers['retry-after']),
                    target,
                  }),
                ),
              )
              .catch((error: unknown) => close(errorFromNetwork(this.server, error, target)));
            return;
          }
          handlers.onOpen?.();
          streamEvents(res, (type, object) => {
            if (aborted || closed) return;
            if (type === 'ERROR') {
              // The server reports e.g. 410 Expired in-band and then ends the stream.
              close(errorFromWatchStatus(this.server, object as KubeStatus, target));
              return;
            }
            handlers.onEvent(type, object);
          });
          res.on('error', (error) => close(errorFromNetwork(this.server, error, target)));
          res.on('close', () => {
            if (res.complete) close(undefined);
            else close(errorFromNetwork(this.server, Object.assign(new Error('watch stream cut'), { code: 'ECONNRESET' }), target));
          });
        });
        req.end();
      })
      .catch((error: unknown) => close(error instanceof Error ? error : new Error(String(error))));

    return {
      abort: () => {
        if (aborted) return;
        aborted = true;
        clearTimeout(connectTimer);
        req?.destroy();
      },
    };
  }

  private async prepare(
    path: string,
    query: Record<string, string | number | boolean | undefined> | undefined,
    pool: https.Agent,
  ): Promise<{ transportOptions: https.RequestOptions & { headers: http.OutgoingHttpHeaders }; url: URL }> {
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const transportOptions: https.RequestOptions = {};
    // Fills headers (Authorization), TLS material and a fresh agent from the current context.
    await this.credentials.applyToHTTPSOptions(transportOptions);
    // The fresh agent is replaced by our pool unless it is a proxy agent (proxy-url). The TLS
    // material stays in the request options, where the pool keys its connections by it.
    if (url.protocol === 'https:' && transportOptions.agent?.constructor === https.Agent) transportOptions.agent = pool;
    const headers = (transportOptions.headers ?? {}) as http.OutgoingHttpHeaders;
    return { transportOptions: { ...transportOptions, headers: { ...headers } }, url };
  }

  private module(url: URL): typeof https | typeof http {
    return url.protocol === 'http:' ? http : https;
  }
}

function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        res.destroy(new Error(`response larger than ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

/** Splits the newline-delimited JSON of a watch response into events. */
function streamEvents(res: http.IncomingMessage, onEvent: (type: WatchEventType, object: unknown) => void): void {
  res.setEncoding('utf8');
  let pending = '';
  res.on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim()) {
        let event: { type: WatchEventType; object: unknown };
        try {
          event = JSON.parse(line) as { type: WatchEventType; object: unknown };
        } catch (error) {
          res.destroy(Object.assign(new Error('malformed watch event', { cause: error }), { code: 'EBADWATCHEVENT' }));
          return;
        }
        onEvent(event.type, event.object);
      }
      newline = pending.indexOf('\n');
    }
  });
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
