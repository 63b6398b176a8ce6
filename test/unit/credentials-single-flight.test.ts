// A real HTTP server on loopback and a fake credentials object that counts its runs: what the
// transport asks of the credentials when many requests start at once (an exec plugin's runs).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport, type RequestCredentials } from '../../src/kube/http-transport.js';
import { ExecPluginError } from '../../src/errors/kubeconfig.js';

let server: http.Server;
let url: string;
const seenAuthorization: (string | undefined)[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seenAuthorization.push(req.headers.authorization);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Credentials like an exec plugin's: each run takes a while, and may fail. */
function countingCredentials(fail: boolean): RequestCredentials & { runs: number } {
  const credentials = {
    runs: 0,
    async applyToHTTPSOptions(options: https.RequestOptions): Promise<void> {
      credentials.runs += 1;
      const run = credentials.runs;
      await new Promise((resolve) => setTimeout(resolve, 30));
      if (fail) throw new Error('cannot mint a token');
      options.headers = { ...options.headers, Authorization: `Bearer token-of-run-${run}` };
    },
    getCurrentUser: () => ({ name: 'eks', exec: { command: 'aws' } }),
  };
  return credentials;
}

const get = (transport: HttpTransport) =>
  transport.requestJson({ method: 'GET', path: '/api/v1/namespaces/default', target: { verb: 'get', resource: 'namespaces' } });

describe('credentials for requests that start together', () => {
  it('thirty requests at once run the credentials once, and each request carries them', async () => {
    const credentials = countingCredentials(false);
    const transport = new HttpTransport(credentials, url, { requestTimeoutMs: 5_000 });
    seenAuthorization.length = 0;
    await Promise.all(Array.from({ length: 30 }, () => get(transport)));
    expect(credentials.runs).toBe(1);
    expect(seenAuthorization).toEqual(Array.from({ length: 30 }, () => 'Bearer token-of-run-1'));
    // Nothing is kept once the burst is served: a later request asks the credentials again.
    await get(transport);
    expect(credentials.runs).toBe(2);
    expect(seenAuthorization.at(-1)).toBe('Bearer token-of-run-2');
  });

  it('a failing plugin runs once for the burst; every request gets its own ExecPluginError; a later one tries again', async () => {
    const credentials = countingCredentials(true);
    const transport = new HttpTransport(credentials, url, { requestTimeoutMs: 5_000 });
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, () => get(transport)));
    expect(credentials.runs).toBe(1);
    const errors = outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as unknown) : undefined));
    for (const error of errors) {
      expect(error).toBeInstanceOf(ExecPluginError);
      expect((error as ExecPluginError).message).toMatch(
        /exec credential plugin "aws" failed: it exited with an error: cannot mint a token/,
      );
    }
    expect(new Set(errors).size).toBe(30);
    await expect(get(transport)).rejects.toBeInstanceOf(ExecPluginError);
    expect(credentials.runs).toBe(2);
  });
});
