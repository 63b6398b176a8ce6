// containerLogs(): the Server-Sent Events handler Manager mounts for a container's log
// (`router.get('/:id/logs', containerLogs({ authorize }))`). Manager's authorization hook,
// the rows and the caps come first; only then does logs$ reach the cluster. Query: `follow`,
// `tail` (lines), `previous` (the crashed run), `timestamps`, `since` (seconds). Events:
// `line` (JSON: text, time, pod, truncated), `end` when a log without follow is read, and
// `error` (JSON: message) before the stream ends. A heartbeat comment keeps proxies from
// cutting a quiet follow; the browser going away unsubscribes at once. One line per
// session goes to the log.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { logs$, type LogsOptions } from '../../index.js';
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

export const DEFAULT_LOG_HEARTBEAT_MS = 15_000;
/** Lines held for a browser that reads slower than the log is written; past it the stream ends. */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

export interface ContainerLogsOptions extends ContainerSessionOptions {
  /** Interval of the heartbeat comment; default 15000. */
  readonly heartbeatMs?: number;
}

/** A request as Express hands it (its `params` from the route), or a plain one. */
export type LogsRequest = IncomingMessage & { readonly params?: Partial<ContainerRouteParams> };

export function containerLogs(options: ContainerLogsOptions): (request: LogsRequest, response: ServerResponse) => void {
  if (typeof options?.authorize !== 'function') {
    throw new TypeError('containerLogs: authorize must be a function (Manager’s access rule: owner, collaborators, admins)');
  }
  const heartbeatMs = positiveMs('heartbeatMs', options.heartbeatMs ?? DEFAULT_LOG_HEARTBEAT_MS);
  if (options.maxSessionMs !== undefined) positiveMs('maxSessionMs', options.maxSessionMs);
  const limits = new SessionLimits(options);
  const clientFor = options.clientFor ?? nodeClientFactory();
  const log = options.log ?? ((line: string) => console.log(line));

  return (request, response) => {
    const params: ContainerRouteParams = { siteId: String(request.params?.siteId ?? ''), id: String(request.params?.id ?? '') };
    void (async () => {
      let target: SessionTarget;
      let release: () => void;
      let query: LogsOptions;
      try {
        target = await authorizeSession(options.authorize, request, params);
        query = logsQuery(request);
        if (response.destroyed || request.destroyed) return;
        release = limits.take(target);
      } catch (error) {
        const refusal =
          error instanceof SessionRefusedError ? error : new SessionRefusedError(500, 'internal', 'The log could not be opened');
        log(refusalLine('logs', params, refusal));
        if (!response.headersSent) {
          response.writeHead(refusal.status, { 'Content-Type': 'application/json' });
          response.end(JSON.stringify({ error: { code: refusal.code, message: refusal.message } }));
        }
        return;
      }
      stream(target, release, query, response);
    })();
  };

  function stream(target: SessionTarget, release: () => void, query: LogsOptions, response: ServerResponse): void {
    const startedAt = Date.now();
    let lines = 0;
    let queuedBytes = 0;
    let finished = false;
    let subscription: { unsubscribe(): void } | undefined;
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // Reverse proxies (nginx) must not buffer the stream.
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders();
    const send = (event: string, data: unknown): void => {
      if (finished) return;
      const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      if (!response.write(text)) {
        queuedBytes += Buffer.byteLength(text);
        if (queuedBytes > MAX_QUEUED_BYTES)
          finish('the browser read too slowly', 'The browser reads the log more slowly than it is written');
      }
    };
    response.on('drain', () => (queuedBytes = 0));
    const finish = (outcome: string, errorMessage?: string): void => {
      if (finished) return;
      if (errorMessage !== undefined) send('error', { message: errorMessage });
      finished = true;
      clearInterval(heartbeat);
      clearTimeout(sessionTimer);
      subscription?.unsubscribe();
      release();
      response.end();
      log(sessionLine('logs', target, startedAt, Date.now(), `${lines} lines, ${outcome}`));
    };
    const heartbeat = setInterval(() => {
      if (!finished) response.write(': heartbeat\n\n');
    }, heartbeatMs);
    const sessionTimer =
      options.maxSessionMs === undefined
        ? undefined
        : setTimeout(() => finish('session bound reached', 'Closed after the session bound'), options.maxSessionMs);
    response.on('close', () => finish('closed by the browser'));

    void sessionClient(clientFor, target).then(
      (client) => {
        if (finished) return;
        subscription = logs$(client, target.providerId, {
          ...query,
          containerId: target.containerId,
          ...(options.instance ? { instance: options.instance } : {}),
        }).subscribe({
          next: (line) => {
            lines += 1;
            send('line', { text: line.text, time: line.time, pod: line.pod, truncated: line.truncated });
          },
          error: (error: unknown) => finish(`failed: ${errorWords(error)}`, errorWords(error)),
          complete: () => {
            send('end', {});
            finish('read to its end');
          },
        });
      },
      (error: unknown) => finish(`failed: ${errorWords(error)}`, errorWords(error)),
    );
  }
}

/** The query as logs$ options; a value out of its rule is a 400 naming the parameter. */
function logsQuery(request: IncomingMessage): LogsOptions {
  const query = new URL(request.url ?? '/', 'http://logs').searchParams;
  for (const name of query.keys()) {
    if (!['follow', 'tail', 'previous', 'timestamps', 'since'].includes(name)) {
      throw new SessionRefusedError(
        400,
        'invalid_request',
        `Unknown query parameter ${name}: expected follow, tail, previous, timestamps or since`,
      );
    }
  }
  const flag = (name: string): boolean | undefined => {
    const value = query.get(name);
    if (value === null) return undefined;
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    throw new SessionRefusedError(400, 'invalid_request', `${name} must be true or false, got ${JSON.stringify(value)}`);
  };
  const count = (name: string, min: number): number | undefined => {
    const value = query.get(name);
    if (value === null) return undefined;
    if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
      throw new SessionRefusedError(
        400,
        'invalid_request',
        `${name} must be a whole number of at least ${min}, got ${JSON.stringify(value)}`,
      );
    }
    return Number(value);
  };
  const follow = flag('follow');
  const previous = flag('previous');
  if (follow && previous)
    throw new SessionRefusedError(400, 'invalid_request', 'previous is the log of a run that ended: it cannot be followed (follow=true)');
  const timestamps = flag('timestamps');
  const tailLines = count('tail', 0);
  const sinceSeconds = count('since', 1);
  return {
    ...(follow !== undefined ? { follow } : {}),
    ...(previous !== undefined ? { previous } : {}),
    ...(timestamps !== undefined ? { timestamps } : {}),
    ...(tailLines !== undefined ? { tailLines } : {}),
    ...(sinceSeconds !== undefined ? { sinceSeconds } : {}),
  };
}
