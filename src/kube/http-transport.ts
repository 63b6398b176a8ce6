// HTTP to the API server over node:http(s), with a kubeconfig (client-node's KubeConfig)
// supplying TLS material and credentials (tokens, client certificates, exec plugins) per
// request. client-node's own fetch transport (undici) is never used.
// We speak plain JSON instead of going through client-node's generated API because the
// informer needs the wire objects as they are, every request must be bounded in time
// (client-node sets no timeout), and a watch must be abortable at any moment, also before
// the server answers (client-node's Watch returns its AbortController only after that).
//
// The objects the server sends are handed on as they are. Every error leaving here is
// typed and masked (src/mask.ts): a credential echoed by the server, printed by an exec
// plugin or carried in a client error never gets out in one. A response that does not
// decode is a MalformedResponseError: a watch with a junk line ends with it (the reflector
// restarts the watch); nothing the server sends can throw out of a socket callback.
import http from 'node:http';
import https from 'node:https';
import pTimeout from 'p-timeout';
// pods/exec is a WebSocket; Node 20.19 has no WebSocket client without a flag, and ws is the standard one.
import { WebSocket } from 'ws';
import { ApiTimeoutError, MalformedResponseError, type RequestTarget } from '../errors/api.js';
import { ExecPluginError, KubeconfigInvalidError } from '../errors/kubeconfig.js';
import { setLongTimeout, type LongTimeout } from '../rx/long-timer.js';
import { oneLine } from '../text.js';
import type { TextStreamHandlers, WatchEventType, WatchHandle } from './client.js';
import { Masker, maskHighEntropyWords } from '../mask.js';
import { preparedCredentials } from './credential-values.js';
import { errorFromNetwork, errorFromResponse, parseStatus } from './translate-error.js';
import { WatchStreamReader } from './watch-stream.js';

/**
 * Fills a request's headers (Authorization) and TLS options. client-node's KubeConfig is
 * one (tokens, client certificates, exec plugins); a server URL and token is another.
 */
export interface RequestCredentials {
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
  /** The kubeconfig user, so that an error can name it and its exec plugin. */
  getCurrentUser?(): { readonly name: string; readonly exec?: unknown; readonly authProvider?: unknown } | null;
}

export interface RequestInfo {
  readonly method: string;
  readonly path: string;
  readonly watch: boolean;
}

export interface TransportOptions {
  /**
   * Bound on the server's answer to every request; for a watch, on the time until the server
   * answers. It also bounds the wait for a free connection of a request without a signal.
   */
  readonly requestTimeoutMs: number;
  /** Connections open at once for requests other than watches; more requests queue, in order. */
  readonly maxConnections?: number;
  /** Called once per request sent (benchmarks count API calls with it). */
  readonly onRequest?: (info: RequestInfo) => void;
  /** Masks credentials in every error; default: one that knows only credential shapes. */
  readonly masker?: Masker;
  /** The kubeconfig's path, for messages about its files. */
  readonly kubeconfigPath?: string;
}

/** A query; a list repeats its key (pods/exec's `command`). */
export type Query = Record<string, string | number | boolean | undefined | readonly string[]>;

export interface WebSocketOptions {
  /** Bound on the upgrade: from the request until the server accepted it. */
  readonly connectTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
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
  onEvent(type: WatchEventType, object: Record<string, unknown>): void;
  onClose(error: Error | undefined): void;
  /** The server answered 200: the watch is established. */
  onOpen?(): void;
}

// Lists of thousands of objects are far below this; anything larger is not an API answer.
const MAX_BODY_BYTES = 256 * 1024 * 1024;
/**
 * Over HTTP/1.1 each request in flight needs a connection, and a TLS handshake, of its
 * own: enough connections to keep an API server busy at hundreds of provisionings at once,
 * few enough that requests reuse them (bench/results/cluster.md).
 */
export const DEFAULT_MAX_CONNECTIONS = 64;
/** An idle kept-alive connection closes after this long (as with Node's global agent). */
const IDLE_CONNECTION_MS = 5_000;
/** How much of an exec plugin's output goes into its error. */
const MAX_PLUGIN_OUTPUT = 300;

// p-timeout's timer, for any length of requestTimeoutMs.
const LONG_TIMERS = {
  setTimeout: (callback: () => void, ms: number) => setLongTimeout(callback, ms),
  clearTimeout: (timer: LongTimeout | undefined) => timer?.clear(),
} as unknown as { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout };

export class HttpTransport {
  // Requests reuse kept-alive connections and TLS sessions instead of a handshake each.
  // Node unrefs idle pooled sockets, so they never keep the process alive.
  private readonly requestAgent: https.Agent;
  // A watch holds its connection for minutes: its own uncapped pool, so watches never queue
  // behind requests or starve them; new connections still resume TLS sessions.
  private readonly watchAgent = new https.Agent({ keepAlive: false });
  readonly masker: Masker;
  private lastCredentials: unknown[] = [];
  // Requests that start together share one application of the credentials: one exec plugin
  // run for a burst (check's thirty reviews), never one per request; nothing is kept after it.
  private credentialsInFlight: Promise<https.RequestOptions> | undefined;

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
    this.masker = options.masker ?? new Masker();
  }

  /**
   * Sends one request and resolves with the decoded JSON of a 2xx answer, or rejects with a
   * typed, masked error; an abort rejects with the signal's reason.
   */
  async requestJson<T>(request: JsonRequest): Promise<T> {
    try {
      return await this.send(request, 'application/json', (text, statusCode) => {
        const decoded = decodeJson(text);
        if (decoded === undefined)
          throw new MalformedResponseError(this.server, `the ${statusCode} answer is not JSON`, { target: request.target });
        return decoded as T;
      });
    } catch (error) {
      throw this.masker.maskError(error);
    }
  }

  /** As requestJson, for an answer that is text (a container's log), masked: it is read only to be shown. */
  async requestText(request: JsonRequest): Promise<string> {
    try {
      return await this.send(request, 'text/plain, */*', (text) => this.masker.mask(text));
    } catch (error) {
      throw this.masker.maskError(error);
    }
  }

  private async send<T>(request: JsonRequest, accept: string, decode: (text: string, statusCode: number) => T): Promise<T> {
    request.signal?.throwIfAborted();
    const { transportOptions, url } = await this.prepare(request.path, request.query, this.requestAgent);
    this.options.onRequest?.({ method: request.method, path: request.path, watch: false });
    const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
    const req = this.openRequest(url, {
      ...transportOptions,
      method: request.method,
      headers: {
        ...transportOptions.headers,
        Accept: accept,
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
            if (statusCode >= 200 && statusCode < 300) {
              resolve(decode(text, statusCode));
              return;
            }
            reject(
              errorFromResponse({
                server: this.server,
                statusCode,
                status: parseStatus(text),
                retryAfterHeader: headerValue(res.headers['retry-after']),
                target: request.target,
                relay: this.relay,
              }),
            );
          })
          .catch((error: unknown) => reject(errorFromNetwork(this.server, error, request.target)));
      });
      req.end(payload);
    });
    // The p-timeout way: bounded in time, an abort rejects with the signal's reason, and the
    // timer and listener go away once settled. Either way out destroys the request. The
    // wait for a free connection and the wait for the answer are bounded apart, so a request
    // queued behind a busy server is not called unanswered before the server has it.
    const within = <V>(promise: Promise<V>, milliseconds: number, error: Error): Promise<V> =>
      pTimeout(promise, {
        milliseconds,
        message: error,
        customTimers: LONG_TIMERS,
        ...(request.signal ? { signal: request.signal } : {}),
      });
    const connected = new Promise<void>((resolve) => req.once('socket', () => resolve()));
    const connections = this.options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    // A queue that moves is no fault of the server's: a request with a signal (an
    // operation's, which carries its deadline) waits its turn for as long as the signal
    // allows; every request sent is bounded, so a connection always frees up.
    const queueBoundMs = request.signal ? Number.POSITIVE_INFINITY : this.options.requestTimeoutMs;
    return within(
      Promise.race([connected, answer.then(() => undefined)]),
      queueBoundMs,
      new ApiTimeoutError(this.server, this.options.requestTimeoutMs, { target: request.target, notSent: { connections } }),
    )
      .then(() =>
        within(
          answer,
          this.options.requestTimeoutMs,
          new ApiTimeoutError(this.server, this.options.requestTimeoutMs, { target: request.target }),
        ),
      )
      .finally(() => req.destroy());
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
    return this.openStream(path, { ...query, watch: true }, 'application/json', target, handlers, (res, live, close) => {
      const reader = new WatchStreamReader(this.server, target, {
        onEvent: (type, object) => {
          if (live()) handlers.onEvent(type, object);
        },
        onClose: close,
      });
      res.on('data', (chunk: string) => {
        if (live()) reader.push(chunk);
      });
      res.on('error', (error) => reader.fail(errorFromNetwork(this.server, error, target)));
      res.on('close', () => reader.end(res.complete));
    });
  }

  /**
   * A streamed text GET (a followed log): `onText` as the text arrives, `onClose` once. The
   * server must answer within requestTimeoutMs; after that the stream is unbounded, and
   * abort() ends it at once (the request destroyed, its socket released).
   */
  streamText(path: string, query: Query, target: RequestTarget, handlers: TextStreamHandlers): WatchHandle {
    return this.openStream(path, query, 'text/plain, */*', target, handlers, (res, live, close) => {
      res.on('data', (chunk: string) => {
        if (live()) handlers.onText(chunk);
      });
      res.on('error', (error) => close(errorFromNetwork(this.server, error, target)));
      res.on('close', () => close(res.complete ? undefined : errorFromNetwork(this.server, new Error('the stream was cut'), target)));
    });
  }

  /**
   * A long GET both streams share: the answer bounded by requestTimeoutMs, a refusal as a
   * typed error, a 200's body (as UTF-8) handed to `read`; `onClose` once, masked, never
   * after abort().
   */
  private openStream(
    path: string,
    query: Query,
    accept: string,
    target: RequestTarget,
    handlers: { readonly onOpen?: () => void; readonly onClose: (error: Error | undefined) => void },
    read: (res: http.IncomingMessage, live: () => boolean, close: (error: Error | undefined) => void) => void,
  ): WatchHandle {
    let aborted = false;
    let closed = false;
    let req: http.ClientRequest | undefined;
    let connectTimer: LongTimeout | undefined;
    const close = (error: Error | undefined): void => {
      if (aborted || closed) return;
      closed = true;
      connectTimer?.clear();
      req?.destroy();
      handlers.onClose(error === undefined ? undefined : this.masker.maskError(error));
    };
    this.prepare(path, query, this.watchAgent)
      .then(({ transportOptions, url }) => {
        if (aborted) return;
        this.options.onRequest?.({ method: 'GET', path, watch: query['watch'] === true });
        req = this.openRequest(url, {
          ...transportOptions,
          method: 'GET',
          headers: { ...transportOptions.headers, Accept: accept },
        });
        connectTimer = setLongTimeout(
          () => close(new ApiTimeoutError(this.server, this.options.requestTimeoutMs, { target })),
          this.options.requestTimeoutMs,
        );
        req.on('error', (error) => close(errorFromNetwork(this.server, error, target)));
        req.on('response', (res) => {
          connectTimer?.clear();
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
                    relay: this.relay,
                  }),
                ),
              )
              .catch((error: unknown) => close(errorFromNetwork(this.server, error, target)));
            return;
          }
          handlers.onOpen?.();
          res.setEncoding('utf8');
          read(res, () => !aborted && !closed, close);
        });
        req.end();
      })
      .catch((error: unknown) => close(error instanceof Error ? error : new Error(String(error))));
    return {
      abort: () => {
        if (aborted) return;
        aborted = true;
        connectTimer?.clear();
        req?.destroy();
      },
    };
  }

  /**
   * Opens a WebSocket to `path` (pods/exec) offering `protocols`, with the credentials, CA,
   * client certificate and proxy of every request. Resolves once the server accepted the
   * upgrade; rejects with a typed, masked error: the server's refusal (403, 404, 500 with its
   * message), a network or TLS failure, ApiTimeoutError past connectTimeoutMs, or the
   * signal's reason. Nothing is left open on a rejection.
   * @internal ws's types stay out of the published declarations: ws is bundled, not a dependency.
   */
  async openWebSocket<T>(
    path: string,
    query: Query,
    protocols: readonly string[],
    target: RequestTarget,
    options: WebSocketOptions,
    // Called as the upgrade is accepted, before any frame is read: what listens must be
    // attached there (frames sent with the answer are read at once).
    accept: (socket: WebSocket) => T,
  ): Promise<T> {
    options.signal?.throwIfAborted();
    let prepared: Awaited<ReturnType<HttpTransport['prepare']>>;
    try {
      prepared = await this.prepare(path, query, undefined);
    } catch (error) {
      throw this.masker.maskError(error);
    }
    const { transportOptions, url } = prepared;
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    this.options.onRequest?.({ method: 'GET', path, watch: false });
    const { signal } = options;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let socket: WebSocket;
      try {
        socket = new WebSocket(url, [...protocols], {
          ...(transportOptions as unknown as Record<string, unknown>),
          headers: transportOptions.headers as Record<string, string>,
          perMessageDeflate: false,
          followRedirects: false,
        });
      } catch (error) {
        reject(this.masker.maskError(errorFromNetwork(this.server, error, target)));
        return;
      }
      const finish = (error?: Error): void => {
        if (settled) return;
        settled = true;
        timer.clear();
        signal?.removeEventListener('abort', onAbort);
        socket.off('error', onError);
        if (error === undefined) {
          resolve(accept(socket));
          return;
        }
        // Closing before the upgrade makes ws report that too: heard, and dropped.
        socket.on('error', () => undefined);
        socket.terminate();
        reject(error === signal?.reason ? error : this.masker.maskError(error));
      };
      const onAbort = (): void => finish(signal?.reason instanceof Error ? signal.reason : new Error(String(signal?.reason)));
      const onError = (error: Error): void => finish(errorFromNetwork(this.server, error, target));
      const timer = setLongTimeout(
        () => finish(new ApiTimeoutError(this.server, options.connectTimeoutMs, { target })),
        options.connectTimeoutMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      socket.on('error', onError);
      socket.once('open', () => {
        if (!protocols.includes(socket.protocol)) {
          finish(new MalformedResponseError(this.server, `the upgrade chose no protocol of ${protocols.join(', ')}`, { target }));
          return;
        }
        finish();
      });
      socket.once('unexpected-response', (request, res) => {
        readBody(res)
          .then((text) =>
            finish(
              errorFromResponse({
                server: this.server,
                statusCode: res.statusCode ?? 0,
                status: parseStatus(text),
                retryAfterHeader: headerValue(res.headers['retry-after']),
                target,
              }),
            ),
          )
          .catch((error: unknown) => finish(errorFromNetwork(this.server, error, target)))
          .finally(() => request.destroy());
      });
    });
  }

  /** https.request, with TLS material Node refuses (an exec plugin's key, say) as a typed error. */
  private openRequest(url: URL, options: https.RequestOptions): http.ClientRequest {
    try {
      return this.module(url).request(url, options);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new KubeconfigInvalidError(
        this.options.kubeconfigPath ?? 'the kubeconfig',
        `the TLS material of user "${this.credentials.getCurrentUser?.()?.name ?? ''}" was refused (${typeof code === 'string' ? code : 'invalid'})`,
      );
    }
  }

  /**
   * A server's message as it is relayed: known values first (a long word masked first would
   * leave parts of a known value behind), then long high-entropy words.
   */
  private readonly relay = (text: string): string => maskHighEntropyWords(this.masker.mask(text));

  /** Why applying the credentials failed, as a typed error with the plugin's output masked. */
  private credentialError(error: unknown): Error {
    const user = this.credentials.getCurrentUser?.();
    const exec = (user?.exec ?? (user?.authProvider as { config?: { exec?: unknown } } | undefined)?.config?.exec) as
      { command?: unknown } | undefined;
    const code = (error as { code?: unknown } | undefined)?.code;
    if (exec) {
      const command = typeof exec.command === 'string' ? exec.command : '';
      let detail: string;
      if (typeof code === 'string' && (error as { syscall?: unknown }).syscall !== undefined) detail = `it cannot be started (${code})`;
      else if (error instanceof SyntaxError) detail = 'it did not print an ExecCredential (its output is not JSON)';
      else if (error instanceof TypeError) detail = 'it did not print a valid ExecCredential (no status)';
      else {
        const output = oneLine(maskHighEntropyWords(this.masker.mask(error instanceof Error ? error.message : String(error))));
        detail = `it exited with an error${output ? `: ${output.length > MAX_PLUGIN_OUTPUT ? `${output.slice(0, MAX_PLUGIN_OUTPUT)}...` : output}` : ''}`;
      }
      return new ExecPluginError(command, detail);
    }
    return new KubeconfigInvalidError(
      this.options.kubeconfigPath ?? 'the kubeconfig',
      `the credentials of user "${user?.name ?? ''}" cannot be applied (${typeof code === 'string' ? code : error instanceof Error ? error.name : 'error'})`,
    );
  }

  private async prepare(
    path: string,
    query: Query | undefined,
    pool: https.Agent | undefined,
  ): Promise<{ transportOptions: https.RequestOptions & { headers: http.OutgoingHttpHeaders }; url: URL }> {
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      // A list is the key repeated (pods/exec's command=bash&command=-c&...).
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, String(item));
      else if (value !== undefined) url.searchParams.set(key, String(value));
    }
    // Headers (Authorization), TLS material and, from a kubeconfig, a fresh agent.
    let applied: https.RequestOptions;
    try {
      applied = await this.appliedCredentials();
    } catch (error) {
      throw this.credentialError(error);
    }
    const transportOptions: https.RequestOptions = { ...applied, headers: { ...(applied.headers as http.OutgoingHttpHeaders) } };
    this.learnCredentials(transportOptions);
    // A fresh agent (or none) is replaced by our pool; a proxy agent (proxy-url) is kept. The
    // TLS material stays in the request options, where the pool keys its connections by it.
    const agent = transportOptions.agent;
    if (url.protocol === 'https:' && (agent === undefined || agent?.constructor === https.Agent)) {
      if (pool) transportOptions.agent = pool;
      else delete transportOptions.agent;
    }
    const headers = (transportOptions.headers ?? {}) as http.OutgoingHttpHeaders;
    return { transportOptions: { ...transportOptions, headers: { ...headers } }, url };
  }

  /** The credentials' request options; concurrent callers share one run (each gets its own error). */
  private appliedCredentials(): Promise<https.RequestOptions> {
    if (this.credentialsInFlight) return this.credentialsInFlight;
    const run = (async () => {
      const options: https.RequestOptions = {};
      await this.credentials.applyToHTTPSOptions(options);
      return options;
    })();
    const shared = run.finally(() => {
      if (this.credentialsInFlight === shared) this.credentialsInFlight = undefined;
    });
    this.credentialsInFlight = shared;
    return shared;
  }

  /** Credentials an exec plugin minted are known only now: the masker learns them. */
  private learnCredentials(options: https.RequestOptions): void {
    const headers = options.headers as http.OutgoingHttpHeaders | undefined;
    const authorization = headers?.Authorization;
    const current = [authorization, options.key, options.auth];
    if (current.every((value, index) => value === this.lastCredentials[index])) return;
    this.lastCredentials = current;
    this.masker.learn(preparedCredentials(options));
  }

  private module(url: URL): typeof https | typeof http {
    return url.protocol === 'http:' ? http : https;
  }
}

/** JSON.parse, or undefined when the text is not JSON. */
function decodeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
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

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
