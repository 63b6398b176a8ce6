// Just enough HTTP to bring the cluster up: health checks and a few JSON calls. The
// library under test is not used here, so a bug in it cannot hide a broken cluster.
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpResponse {
  readonly status: number;
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

export interface ApiTarget {
  readonly server: string;
  readonly caPem: string;
  readonly token: string;
}

const REQUEST_TIMEOUT_MS = 5_000;

export function httpGet(url: string): Promise<HttpResponse> {
  return send(url, { method: 'GET' });
}

export function apiCall(
  target: ApiTarget,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<HttpResponse> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return send(new URL(path, target.server).toString(), {
    method,
    ca: target.caPem,
    headers: {
      Authorization: `Bearer ${target.token}`,
      Accept: 'application/json',
      ...(payload === undefined ? {} : { 'Content-Type': contentType }),
    },
    payload,
  });
}

/** JSON body of a 2xx response, or an error naming the call and the status. */
export async function apiJson<T>(target: ApiTarget, method: string, path: string, body?: unknown): Promise<T> {
  const response = await apiCall(target, method, path, body);
  if (response.status < 200 || response.status >= 300) {
    throw new Error(`${method} ${path} answered ${response.status}: ${response.body.slice(0, 500)}`);
  }
  return JSON.parse(response.body) as T;
}

export interface SendOptions {
  readonly method: string;
  readonly ca?: string;
  readonly headers?: Record<string, string>;
  readonly payload?: string | Buffer;
}

/** One request, bounded in time, on a connection of its own. */
export function send(url: string, options: SendOptions): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const makeRequest = url.startsWith('https:') ? httpsRequest : httpRequest;
    // agent: false: one connection per call, closed with it; no pooled socket outlives us.
    const req = makeRequest(
      url,
      { method: options.method, headers: options.headers, ca: options.ca, timeout: REQUEST_TIMEOUT_MS, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${options.method} ${url} timed out after ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(options.payload);
  });
}

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  /** Named in the timeout error, e.g. "kube-apiserver /readyz". */
  readonly what: string;
  /** Fails the wait at once, e.g. because the component being waited on has exited. */
  readonly abortIf?: () => string | undefined;
}

/**
 * Polls `check` until it returns true. Only infrastructure start-up polls: the library
 * itself is event-driven. The last failure reason is kept for the timeout message.
 */
export async function waitUntil(check: () => Promise<boolean | string>, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastReason = 'not checked yet';
  for (;;) {
    const abortReason = options.abortIf?.();
    if (abortReason !== undefined) throw new Error(`gave up waiting for ${options.what}: ${abortReason}`);
    try {
      const result = await check();
      if (result === true) return;
      lastReason = result === false ? 'not yet' : result;
    } catch (error) {
      lastReason = (error as Error).message;
    }
    if (Date.now() >= deadline)
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what} (last: ${lastReason})`);
    await sleep(options.intervalMs ?? 200);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
