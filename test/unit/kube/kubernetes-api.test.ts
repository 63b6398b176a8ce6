// KubernetesApi.fromConfig(...) against LOCAL servers started in each test: node:https
// with an openssl self-signed certificate for 127.0.0.1 (it also asks for the client
// certificate) and node:http. The servers stand in for kube-apiserver: they answer with
// metav1.Status bodies and newline-delimited watch events as kube-apiserver writes them,
// and record what they received, so the bearer token and client certificate are proven
// to be sent. Every error produced is checked for secret material (token, client key
// and certificate, in PEM lines or base64).
import { createHash, randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  ApiTimeoutError,
  ApiUnreachableError,
  ConflictError,
  ForbiddenError,
  InvalidObjectError,
  NotFoundError,
  ResourceExpiredError,
  TlsError,
  UnauthorizedError,
} from '../../../src/errors/api.js';
import { InvalidOptionError } from '../../../src/errors/input.js';
import { KubeconfigInvalidError } from '../../../src/errors/kubeconfig.js';
import { ALL_NAMESPACES, type WatchEventType } from '../../../src/kube/client.js';
import { KubernetesApi, type KubernetesApiOptions } from '../../../src/kube/kubernetes-api.js';
import { deployment } from '../../support/fixtures.js';
import { makeTestCertificates } from '../../support/tls.js';

// ---- certificates, token, secret fragments -------------------------------------------

let dir: string;
let token: string;
let serverCertPem: string;
let serverKeyPem: string;
let otherCertPem: string;
let clientCertPem: string;
let clientKeyPem: string;
let clientCertFingerprint: string;
let secretFragments: string[];

let otherDir: string;

beforeAll(() => {
  const certs = makeTestCertificates('kp-api-');
  // A second self-signed certificate for 127.0.0.1: a server the kubeconfig's CA did not sign.
  const other = makeTestCertificates('kp-api-other-');
  dir = certs.dir;
  otherDir = other.dir;
  token = `kp-secret-token-${randomBytes(16).toString('hex')}`;
  ({ serverCertPem, serverKeyPem, clientCertPem, clientKeyPem } = certs);
  otherCertPem = other.serverCertPem;
  clientCertFingerprint = fingerprint(clientCertPem);

  secretFragments = [token];
  for (const pem of [clientKeyPem, clientCertPem]) {
    for (const line of pem.split('\n')) if (line.length >= 16 && !line.startsWith('-----')) secretFragments.push(line);
    const b64 = Buffer.from(pem).toString('base64');
    for (let i = 0; i + 48 <= b64.length; i += 48) secretFragments.push(b64.slice(i, i + 48));
  }
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(otherDir, { recursive: true, force: true });
  // Every server, client socket and TLS connection of this file is closed by now.
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(process.getActiveResourcesInfo().filter((resource) => /TCP|TLS/.test(resource))).toEqual([]);
});

function fingerprint(pem: string): string {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return createHash('sha256').update(der).digest('hex');
}

/**
 * No secret in message, String(), stack, the JSON of the error's own enumerable fields,
 * nor in util.inspect of the whole error (which prints the `cause` chain).
 */
function expectNoSecrets(error: unknown): void {
  expect(error).toBeInstanceOf(Error);
  const e = error as Error;
  const places: Record<string, string> = {
    message: e.message,
    string: String(e),
    stack: e.stack ?? '',
    json: JSON.stringify(e),
    inspect: inspect(e, { depth: 10 }),
  };
  for (const [where, text] of Object.entries(places)) {
    const leaked = secretFragments.filter((fragment) => text.includes(fragment));
    expect(leaked.length, `secret material found in the error's ${where}`).toBe(0);
  }
}

// ---- local servers -------------------------------------------------------------------

interface Received {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly clientCert: string | undefined;
  readonly body: string;
}

interface LocalServer {
  readonly url: string;
  readonly received: Received[];
  /** TCP connections accepted so far, and the most open at once. */
  readonly connections: { accepted: number; peak: number };
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

const openServers: LocalServer[] = [];

afterEach(async () => {
  await Promise.all(openServers.splice(0).map((server) => server.close()));
});

async function startServer(kind: 'https' | 'http', handler: Handler): Promise<LocalServer> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const connections = { accepted: 0, peak: 0 };
  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const peer = kind === 'https' ? (req.socket as TLSSocket).getPeerCertificate() : undefined;
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        clientCert: peer?.raw ? createHash('sha256').update(peer.raw).digest('hex') : undefined,
        body,
      });
      handler(req, res, body);
    });
  };
  const server =
    kind === 'https'
      ? https.createServer({ key: serverKeyPem, cert: serverCertPem, requestCert: true, rejectUnauthorized: false }, listener)
      : http.createServer(listener);
  server.on(kind === 'https' ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    connections.accepted += 1;
    connections.peak = Math.max(connections.peak, sockets.size);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const local: LocalServer = {
    url: `${kind}://127.0.0.1:${port}`,
    received,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }),
  };
  openServers.push(local);
  return local;
}

function sendStatus(res: http.ServerResponse, code: number, reason: string, message: string, details?: object): void {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      ...(details ? { details } : {}),
      code,
    }),
  );
}

function sendJson(res: http.ServerResponse, object: unknown): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(object));
}

// ---- kubeconfigs ---------------------------------------------------------------------

interface ConfigOptions {
  readonly caPem?: string | null;
  readonly insecure?: boolean;
  /** A context without a user (anonymous access). */
  readonly anonymous?: boolean;
}

let configCounter = 0;
function writeKubeconfig(server: string, options: ConfigOptions = {}): string {
  const ca = options.caPem === undefined ? serverCertPem : options.caPem;
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const text = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: local',
    '  cluster:',
    `    server: ${server}`,
    ...(ca ? [`    certificate-authority-data: ${b64(ca)}`] : []),
    ...(options.insecure ? ['    insecure-skip-tls-verify: true'] : []),
    ...(options.anonymous
      ? ['users: []']
      : [
          'users:',
          '- name: local-admin',
          '  user:',
          `    token: ${token}`,
          `    client-certificate-data: ${b64(clientCertPem)}`,
          `    client-key-data: ${b64(clientKeyPem)}`,
        ]),
    'contexts:',
    '- name: local',
    '  context:',
    '    cluster: local',
    ...(options.anonymous ? [] : ['    user: local-admin']),
    '    namespace: team-a',
    'current-context: local',
    '',
  ].join('\n');
  const path = join(dir, `config-${++configCounter}`);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

function api(server: LocalServer | string, options: ConfigOptions & Omit<KubernetesApiOptions, 'kubeconfigPath'> = {}): KubernetesApi {
  const { caPem, insecure, anonymous, ...apiOptions } = options;
  const url = typeof server === 'string' ? server : server.url;
  return KubernetesApi.fromConfig({
    kubeconfigPath: writeKubeconfig(url, {
      ...(caPem !== undefined ? { caPem } : {}),
      ...(insecure ? { insecure } : {}),
      ...(anonymous ? { anonymous } : {}),
    }),
    requestTimeoutMs: 5_000,
    ...apiOptions,
  });
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    expectNoSecrets(error);
    return error as Error;
  }
  throw new Error('expected the request to fail');
}

const body = deployment({ name: 'web', namespace: 'team-a', observedGeneration: null });

// ---- requests ------------------------------------------------------------------------

describe('KubernetesApi requests over https', () => {
  it('sends the bearer token and the client certificate from the kubeconfig, and returns the object', async () => {
    const server = await startServer('https', (_req, res) => sendJson(res, deployment({ name: 'web', namespace: 'team-a' })));
    const result = await api(server).read('deployments', 'team-a', 'web');
    expect(result.metadata?.name).toBe('web');
    expect(server.received).toHaveLength(1);
    expect(server.received[0]).toMatchObject({
      method: 'GET',
      url: '/apis/apps/v1/namespaces/team-a/deployments/web',
      authorization: `Bearer ${token}`,
      clientCert: clientCertFingerprint,
    });
  });

  it('POSTs the Deployment as JSON with fieldManager on create', async () => {
    const server = await startServer('https', (_req, res, received) => sendJson(res, JSON.parse(received)));
    const created = await api(server).create('deployments', 'team-a', body);
    expect(created.metadata?.name).toBe('web');
    expect(server.received[0]?.method).toBe('POST');
    expect(server.received[0]?.url).toBe('/apis/apps/v1/namespaces/team-a/deployments?fieldManager=kube-provisioner');
    expect(JSON.parse(server.received[0]!.body)).toEqual(JSON.parse(JSON.stringify(body)));
  });

  it('401 -> UnauthorizedError', async () => {
    const server = await startServer('https', (_req, res) => sendStatus(res, 401, 'Unauthorized', 'Unauthorized'));
    const error = await rejection(api(server).read('deployments', 'team-a', 'web'));
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as UnauthorizedError).statusCode).toBe(401);
    expect(error.message).toContain(server.url);
    expect(server.received[0]?.authorization).toBe(`Bearer ${token}`);
  });

  it('403 -> ForbiddenError naming the verb and the resource', async () => {
    const server = await startServer('https', (_req, res) =>
      sendStatus(
        res,
        403,
        'Forbidden',
        'deployments.apps is forbidden: User "kp-test-user" cannot create resource "deployments" in API group "apps" in the namespace "team-a"',
        { group: 'apps', kind: 'deployments' },
      ),
    );
    const error = await rejection(api(server).create('deployments', 'team-a', body));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).verb).toBe('create');
    expect((error as ForbiddenError).resource).toBe('deployments');
    expect(error.message).toContain('may not create deployments in namespace team-a');
  });

  it('409 AlreadyExists -> ConflictError with reason AlreadyExists', async () => {
    const server = await startServer('https', (_req, res) =>
      sendStatus(res, 409, 'AlreadyExists', 'deployments.apps "web" already exists', { name: 'web', group: 'apps', kind: 'deployments' }),
    );
    const error = await rejection(api(server).create('deployments', 'team-a', body));
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).reason).toBe('AlreadyExists');
    expect(error.message).toContain('deployments.apps "web" already exists');
  });

  it('422 with causes -> InvalidObjectError listing each field message', async () => {
    const server = await startServer('https', (_req, res) =>
      sendStatus(
        res,
        422,
        'Invalid',
        'Deployment.apps "web" is invalid: [spec.template.spec.containers[0].image: Required value, spec.replicas: Invalid value: -1: must be greater than or equal to 0]',
        {
          name: 'web',
          group: 'apps',
          kind: 'Deployment',
          causes: [
            { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.template.spec.containers[0].image' },
            { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.replicas' },
          ],
        },
      ),
    );
    const error = await rejection(api(server).create('deployments', 'team-a', body));
    expect(error).toBeInstanceOf(InvalidObjectError);
    expect((error as InvalidObjectError).causes.map((c) => c.field)).toEqual(['spec.template.spec.containers[0].image', 'spec.replicas']);
    expect(error.message).toContain('spec.template.spec.containers[0].image: Required value');
    expect(error.message).toContain('spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  });

  it('500 -> ApiError with status code and reason', async () => {
    const server = await startServer('https', (_req, res) =>
      sendStatus(res, 500, 'InternalError', 'Internal error occurred: etcdserver: request timed out'),
    );
    const error = await rejection(api(server).read('deployments', 'team-a', 'web'));
    expect(error.constructor).toBe(ApiError);
    expect((error as ApiError).statusCode).toBe(500);
    expect((error as ApiError).reason).toBe('InternalError');
    expect(error.message).toContain('etcdserver: request timed out');
  });

  it('a server that never answers -> ApiTimeoutError within requestTimeoutMs', async () => {
    const server = await startServer('https', () => {
      // accept the request, never answer
    });
    const started = Date.now();
    const error = await rejection(api(server, { requestTimeoutMs: 300 }).read('deployments', 'team-a', 'web'));
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(ApiTimeoutError);
    expect(error.message).toContain('within 300 ms');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('the wait for a free connection is bounded apart from the answer: queued, then answered in time, is a success', async () => {
    // One connection: the second read waits 300 ms for it, then the server takes 200 ms.
    // 500 ms in all is past requestTimeoutMs, but neither wait is.
    const server = await startServer('https', (req, res) => {
      const delayMs = req.url?.endsWith('/first') ? 300 : 200;
      setTimeout(() => sendJson(res, deployment({ name: 'web', namespace: 'team-a' })), delayMs);
    });
    const client = api(server, { requestTimeoutMs: 400, maxConnections: 1 });
    const started = Date.now();
    const [first, second] = await Promise.all([
      client.read('deployments', 'team-a', 'first'),
      client.read('deployments', 'team-a', 'second'),
    ]);
    expect(first.metadata?.name).toBe('web');
    expect(second.metadata?.name).toBe('web');
    expect(Date.now() - started).toBeGreaterThanOrEqual(490);
    expect(server.received.map((received) => received.url.slice(received.url.lastIndexOf('/') + 1))).toEqual(['first', 'second']);
  });

  it('a request that never gets a connection -> ApiTimeoutError saying it was not sent (sent: false), and the server never sees it', async () => {
    const server = await startServer('https', () => {
      // accept the request, never answer: its connection stays busy
    });
    const client = api(server, { requestTimeoutMs: 300, maxConnections: 1 });
    const hung = rejection(client.read('deployments', 'team-a', 'hung'));
    const queued = await rejection(client.read('deployments', 'team-a', 'queued'));
    expect(queued).toBeInstanceOf(ApiTimeoutError);
    expect((queued as ApiTimeoutError).sent).toBe(false);
    expect(queued.message).toBe(
      `Kubernetes API at ${server.url}: get deployments (team-a/queued) was not sent within 300 ms: every connection (maxConnections 1) stayed busy`,
    );
    const unanswered = await hung;
    expect(unanswered).toBeInstanceOf(ApiTimeoutError);
    expect((unanswered as ApiTimeoutError).sent).toBe(true);
    expect(server.received.map((received) => received.url.slice(received.url.lastIndexOf('/') + 1))).toEqual(['hung']);
  });

  it('a request with a signal waits its turn past requestTimeoutMs while the queue moves, and succeeds', async () => {
    // One connection, each answer in 200 ms: the third read waits 400 ms for the connection,
    // past the 300 ms bound, which without a signal would fail it unsent.
    const server = await startServer('https', (_req, res) => {
      setTimeout(() => sendJson(res, deployment({ name: 'web', namespace: 'team-a' })), 200);
    });
    const client = api(server, { requestTimeoutMs: 300, maxConnections: 1 });
    const signal = new AbortController().signal;
    const reads = ['first', 'second', 'third'].map((name) => client.read('deployments', 'team-a', name, { signal }));
    const answers = await Promise.all(reads);
    expect(answers.map((answer) => answer.metadata?.name)).toEqual(['web', 'web', 'web']);
    expect(server.received.map((received) => received.url.slice(received.url.lastIndexOf('/') + 1))).toEqual(['first', 'second', 'third']);
  });

  it("a queued request whose signal aborts rejects with the signal's reason, and the server never sees it", async () => {
    const server = await startServer('https', () => {
      // accept the request, never answer: its connection stays busy
    });
    const client = api(server, { requestTimeoutMs: 300, maxConnections: 1 });
    const hung = rejection(client.read('deployments', 'team-a', 'hung'));
    const controller = new AbortController();
    const queued = rejection(client.read('deployments', 'team-a', 'queued', { signal: controller.signal }));
    const reason = new Error('the operation ran out of time');
    setTimeout(() => controller.abort(reason), 100);
    expect((await queued).message).toBe(reason.message);
    expect(await hung).toBeInstanceOf(ApiTimeoutError);
    expect(server.received.map((received) => received.url.slice(received.url.lastIndexOf('/') + 1))).toEqual(['hung']);
  });

  it('a closed port -> ApiUnreachableError', async () => {
    const server = await startServer('https', () => undefined);
    const url = server.url;
    await server.close();
    const error = await rejection(api(url).read('deployments', 'team-a', 'web'));
    expect(error).toBeInstanceOf(ApiUnreachableError);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('a certificate the kubeconfig CA does not match -> TlsError, and nothing reaches the handler', async () => {
    const server = await startServer('https', (_req, res) => sendJson(res, {}));
    const error = await rejection(api(server, { caPem: otherCertPem }).read('deployments', 'team-a', 'web'));
    expect(error).toBeInstanceOf(TlsError);
    expect(server.received).toHaveLength(0);
  });

  it('insecure-skip-tls-verify in the kubeconfig still verifies (TlsError) unless tlsVerify is false', async () => {
    const server = await startServer('https', (_req, res) => sendJson(res, deployment({ name: 'web', namespace: 'team-a' })));
    const error = await rejection(api(server, { caPem: null, insecure: true }).read('deployments', 'team-a', 'web'));
    expect(error).toBeInstanceOf(TlsError);
    expect(server.received).toHaveLength(0);

    const result = await api(server, { caPem: null, insecure: true, tlsVerify: false }).read('deployments', 'team-a', 'web');
    expect(result.metadata?.name).toBe('web');
    expect(server.received).toHaveLength(1);
  });

  it("trusts the kubeconfig's certificate-authority-data for a context without a user (anonymous access)", async () => {
    const server = await startServer('https', (_req, res) => sendJson(res, deployment({ name: 'web', namespace: 'team-a' })));
    const result = await api(server, { anonymous: true }).read('deployments', 'team-a', 'web');
    expect(result.metadata?.name).toBe('web');
    expect(server.received[0]?.authorization).toBeUndefined();
  });

  it('follows continue tokens when listing, keeping the first page resourceVersion', async () => {
    const server = await startServer('https', (req, res) => {
      const url = new URL(req.url ?? '', 'https://x');
      if (!url.searchParams.get('continue')) {
        sendJson(res, { kind: 'PodList', metadata: { resourceVersion: '500', continue: 'page-2' }, items: [{ metadata: { name: 'a' } }] });
      } else {
        sendJson(res, { kind: 'PodList', metadata: { resourceVersion: '501' }, items: [{ metadata: { name: 'b' } }] });
      }
    });
    const list = await api(server).list('pods', 'team-a', 'app=web');
    expect(list.items.map((p) => p.metadata?.name)).toEqual(['a', 'b']);
    expect(list.resourceVersion).toBe('500');
    expect(server.received.map((r) => new URL(r.url, 'https://x').searchParams.get('labelSelector'))).toEqual(['app=web', 'app=web']);
  });
});

describe('KubernetesApi connections', () => {
  it('reuses one kept-alive connection (one TLS handshake) for requests one after another', async () => {
    const server = await startServer('https', (_req, res) => sendJson(res, deployment({ name: 'web', namespace: 'team-a' })));
    const client = api(server);
    for (let i = 0; i < 4; i++) await client.read('deployments', 'team-a', 'web');
    expect(server.received).toHaveLength(4);
    expect(server.connections.accepted).toBe(1);
  });

  it('opens at most maxConnections at once; further requests wait for a free one and all succeed', async () => {
    const server = await startServer('https', (_req, res) =>
      setTimeout(() => sendJson(res, deployment({ name: 'web', namespace: 'team-a' })), 30),
    );
    const client = api(server, { maxConnections: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, () => client.read('deployments', 'team-a', 'web')));
    expect(results).toHaveLength(6);
    expect(server.connections.peak).toBe(2);
    expect(server.connections.accepted).toBe(2);
  });

  it('a watch holds its own connection: requests never queue behind watches', async () => {
    const server = await startServer('https', (req, res) => {
      if (req.url?.includes('watch=true')) {
        res.writeHead(200, { 'Content-Type': 'application/json' }); // stays open
        return;
      }
      sendJson(res, deployment({ name: 'web', namespace: 'team-a' }));
    });
    const client = api(server, { maxConnections: 1 });
    const watches = [0, 1].map(() =>
      client.watch('deployments', 'team-a', { resourceVersion: '1' }, { onEvent: () => {}, onClose: () => {} }),
    );
    await expect(client.read('deployments', 'team-a', 'web')).resolves.toMatchObject({ metadata: { name: 'web' } });
    for (const watch of watches) watch.abort();
  });

  it.each([
    ['maxConnections', 0, 'maxConnections must be a whole number >= 1 (got 0)'],
    ['maxConnections', 2.5, 'maxConnections must be a whole number >= 1 (got 2.5)'],
    ['requestTimeoutMs', -1, 'requestTimeoutMs must not be negative (got -1)'],
    ['requestTimeoutMs', Number.NaN, 'requestTimeoutMs must be a number of milliseconds (got NaN)'],
  ] as const)('rejects %s = %s with an InvalidOptionError naming the option', (option, value, message) => {
    const attempt = (): unknown => KubernetesApi.fromConfig({ kubeconfigPath: '/nonexistent/kubeconfig', [option]: value });
    expect(attempt).toThrow(message);
    expect(attempt).toThrow(expect.objectContaining({ name: 'InvalidOptionError', option }));
  });
});

describe('KubernetesApi over plain http', () => {
  it('is refused at load time unless tlsVerify is false', async () => {
    const server = await startServer('http', (_req, res) => sendJson(res, {}));
    const requests: unknown[] = [];
    let error: unknown;
    try {
      api(server, { caPem: null, onRequest: (info) => requests.push(info) });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
    expectNoSecrets(error);
    expect(requests).toEqual([]);
  });

  it('with tlsVerify false, sends the token and maps 500 to ApiError', async () => {
    const server = await startServer('http', (_req, res) => sendStatus(res, 500, 'InternalError', 'boom'));
    const error = await rejection(api(server, { caPem: null, tlsVerify: false }).read('deployments', 'team-a', 'web'));
    expect(error.constructor).toBe(ApiError);
    expect((error as ApiError).statusCode).toBe(500);
    expect(server.received[0]?.authorization).toBe(`Bearer ${token}`);
  });

  it('with tlsVerify false, a server that never answers -> ApiTimeoutError', async () => {
    const server = await startServer('http', () => undefined);
    const error = await rejection(
      api(server, { caPem: null, tlsVerify: false, requestTimeoutMs: 200 }).read('deployments', 'team-a', 'web'),
    );
    expect(error).toBeInstanceOf(ApiTimeoutError);
  });
});

// ---- watch ---------------------------------------------------------------------------

interface WatchOutcome {
  readonly events: [WatchEventType, unknown][];
  readonly closed: Promise<Error | undefined>;
  readonly closeCalls: () => number;
  readonly abort: () => void;
}

function startWatch(client: KubernetesApi, onEvent?: (type: WatchEventType) => void): WatchOutcome {
  const events: [WatchEventType, unknown][] = [];
  let calls = 0;
  let resolveClosed!: (error: Error | undefined) => void;
  const closed = new Promise<Error | undefined>((resolve) => (resolveClosed = resolve));
  const handle = client.watch(
    'deployments',
    'team-a',
    { resourceVersion: '1000', labelSelector: 'app=web' },
    {
      onEvent: (type, object) => {
        events.push([type, object]);
        onEvent?.(type);
      },
      onClose: (error) => {
        calls++;
        resolveClosed(error);
      },
    },
  );
  return { events, closed, closeCalls: () => calls, abort: () => handle.abort() };
}

function watchLine(type: string, object: unknown): string {
  return `${JSON.stringify({ type, object })}\n`;
}

describe('KubernetesApi.watch', () => {
  it('streams events through onEvent and closes with undefined when the server ends the watch', async () => {
    const server = await startServer('https', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      const added = deployment({ name: 'web', namespace: 'team-a', resourceVersion: '1001' });
      const modified = deployment({ name: 'web', namespace: 'team-a', resourceVersion: '1002' });
      // One event split across two writes, the next two in one write.
      const first = watchLine('ADDED', added);
      res.write(first.slice(0, 40));
      setTimeout(() => {
        res.write(
          first.slice(40) +
            watchLine('MODIFIED', modified) +
            watchLine('BOOKMARK', { kind: 'Deployment', metadata: { resourceVersion: '1003' } }),
        );
        res.end();
      }, 20);
    });
    const watch = startWatch(api(server));
    expect(await watch.closed).toBeUndefined();
    expect(watch.events.map(([type]) => type)).toEqual(['ADDED', 'MODIFIED', 'BOOKMARK']);
    expect((watch.events[1]?.[1] as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe('1002');
    const query = new URL(server.received[0]!.url, 'https://x').searchParams;
    expect(query.get('watch')).toBe('true');
    expect(query.get('resourceVersion')).toBe('1000');
    expect(query.get('labelSelector')).toBe('app=web');
    expect(server.received[0]?.authorization).toBe(`Bearer ${token}`);
    expect(watch.closeCalls()).toBe(1);
  });

  it('asks for a streaming list with sendInitialEvents, resourceVersionMatch=NotOlderThan and no resourceVersion', async () => {
    const server = await startServer('https', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        watchLine('BOOKMARK', {
          kind: 'Deployment',
          metadata: { resourceVersion: '7', annotations: { 'k8s.io/initial-events-end': 'true' } },
        }),
      );
    });
    const closed = new Promise<Error | undefined>((resolve) => {
      api(server).watch(
        'deployments',
        'team-a',
        { resourceVersion: '', allowWatchBookmarks: true, sendInitialEvents: true },
        { onEvent: () => {}, onClose: resolve },
      );
    });
    expect(await closed).toBeUndefined();
    const query = new URL(server.received[0]!.url, 'https://x').searchParams;
    expect(query.get('watch')).toBe('true');
    expect(query.get('sendInitialEvents')).toBe('true');
    expect(query.get('resourceVersionMatch')).toBe('NotOlderThan');
    expect(query.get('allowWatchBookmarks')).toBe('true');
    expect(query.has('resourceVersion')).toBe(false);
  });

  it('a non-200 answer -> onClose(ForbiddenError naming watch deployments)', async () => {
    const server = await startServer('https', (_req, res) =>
      sendStatus(res, 403, 'Forbidden', 'deployments.apps is forbidden: User "kp-test-user" cannot watch resource "deployments"'),
    );
    const watch = startWatch(api(server));
    const error = await watch.closed;
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).verb).toBe('watch');
    expect((error as ForbiddenError).resource).toBe('deployments');
    expectNoSecrets(error);
    expect(watch.events).toEqual([]);
  });

  it('a 401 answer -> onClose(UnauthorizedError)', async () => {
    const server = await startServer('https', (_req, res) => sendStatus(res, 401, 'Unauthorized', 'Unauthorized'));
    const error = await startWatch(api(server)).closed;
    expect(error).toBeInstanceOf(UnauthorizedError);
    expectNoSecrets(error);
  });

  it('an in-band ERROR event with a 410 Status -> onClose(ResourceExpiredError), after the earlier events', async () => {
    const server = await startServer('https', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(watchLine('ADDED', deployment({ name: 'web', namespace: 'team-a' })));
      res.write(
        watchLine('ERROR', {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'too old resource version: 1000 (1500)',
          reason: 'Expired',
          code: 410,
        }),
      );
      res.end();
    });
    const watch = startWatch(api(server));
    const error = await watch.closed;
    expect(error).toBeInstanceOf(ResourceExpiredError);
    expect((error as ResourceExpiredError).statusCode).toBe(410);
    expectNoSecrets(error);
    expect(watch.events.map(([type]) => type)).toEqual(['ADDED']);
    expect(watch.closeCalls()).toBe(1);
  });

  it('a stream cut mid-way -> onClose(ApiUnreachableError)', async () => {
    const server = await startServer('https', (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(watchLine('ADDED', deployment({ name: 'web', namespace: 'team-a' })));
      setTimeout(() => req.socket.destroy(), 20);
    });
    const watch = startWatch(api(server));
    const error = await watch.closed;
    expect(error).toBeInstanceOf(ApiUnreachableError);
    expectNoSecrets(error);
    expect(watch.events).toHaveLength(1);
  });

  it('a watch the server never answers -> onClose(ApiTimeoutError)', async () => {
    const server = await startServer('https', () => undefined);
    const error = await startWatch(api(server, { requestTimeoutMs: 200 })).closed;
    expect(error).toBeInstanceOf(ApiTimeoutError);
    expectNoSecrets(error);
  });

  it('a closed port -> onClose(ApiUnreachableError)', async () => {
    const server = await startServer('https', () => undefined);
    const url = server.url;
    await server.close();
    const error = await startWatch(api(url)).closed;
    expect(error).toBeInstanceOf(ApiUnreachableError);
    expectNoSecrets(error);
  });

  it('an untrusted certificate -> onClose(TlsError)', async () => {
    const server = await startServer('https', () => undefined);
    const error = await startWatch(api(server, { caPem: otherCertPem })).closed;
    expect(error).toBeInstanceOf(TlsError);
    expectNoSecrets(error);
  });

  it('abort() stops the stream and releases the connection without calling onClose', async () => {
    let serverSawClose!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (serverSawClose = resolve));
    let firstEvent!: () => void;
    const gotEvent = new Promise<void>((resolve) => (firstEvent = resolve));
    const server = await startServer('https', (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(watchLine('ADDED', deployment({ name: 'web', namespace: 'team-a' })));
      req.socket.on('close', () => serverSawClose());
      // Keep streaming: anything after abort() must not reach onEvent.
      const timer = setInterval(() => res.write(watchLine('MODIFIED', deployment({ name: 'web', namespace: 'team-a' }))), 30);
      res.on('close', () => clearInterval(timer));
    });
    const watch = startWatch(api(server), () => firstEvent());
    await gotEvent;
    watch.abort();
    const eventsAtAbort = watch.events.length;
    await connectionClosed;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(watch.closeCalls()).toBe(0);
    expect(watch.events.length).toBe(eventsAtAbort);
  });

  it('abort() before the server answers sends nothing further and never calls onClose', async () => {
    const server = await startServer('https', () => undefined);
    const watch = startWatch(api(server, { requestTimeoutMs: 150 }));
    watch.abort();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(watch.closeCalls()).toBe(0);
  });
});

// ---- cluster discovery and preflight (src/cluster/) ------------------------------------

describe('KubernetesApi discovery and preflight requests', () => {
  it('version() GETs /version; selfSubjectReview() POSTs a SelfSubjectReview; both send the token', async () => {
    const server = await startServer('https', (req, res) => {
      if (req.url === '/version') return sendJson(res, { major: '1', minor: '36', gitVersion: 'v1.36.3' });
      sendJson(res, { kind: 'SelfSubjectReview', status: { userInfo: { username: 'alice', groups: ['system:authenticated'] } } });
    });
    const client = api(server);
    expect((await client.version()).gitVersion).toBe('v1.36.3');
    expect((await client.selfSubjectReview()).status?.userInfo?.username).toBe('alice');
    expect(server.received.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'GET /version',
      'POST /apis/authentication.k8s.io/v1/selfsubjectreviews',
    ]);
    expect(JSON.parse(server.received[1]!.body)).toEqual({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(server.received.every((received) => received.authorization === `Bearer ${token}`)).toBe(true);
  });

  it('selfSubjectAccessReview() POSTs the resource attributes as kubectl auth can-i does', async () => {
    const server = await startServer('https', (_req, res, text) => {
      const review = JSON.parse(text) as { spec: unknown };
      sendJson(res, { ...review, status: { allowed: false, reason: 'no RBAC policy matched' } });
    });
    const answer = await api(server).selfSubjectAccessReview({
      namespace: 'team-a',
      verb: 'patch',
      group: 'apps',
      resource: 'deployments',
    });
    expect(answer.status).toEqual({ allowed: false, reason: 'no RBAC policy matched' });
    expect(server.received[0]?.url).toBe('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews');
    expect(JSON.parse(server.received[0]!.body)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace: 'team-a', verb: 'patch', group: 'apps', resource: 'deployments' } },
    });
  });

  it('readNamespace() 404 -> NotFoundError; LimitRanges and ResourceQuotas are listed per namespace', async () => {
    const server = await startServer('https', (req, res) => {
      if (req.url?.startsWith('/api/v1/namespaces/missing')) return sendStatus(res, 404, 'NotFound', 'namespaces "missing" not found');
      sendJson(res, {
        metadata: { resourceVersion: '7' },
        items: [{ metadata: { name: req.url?.includes('limitranges') ? 'lr' : 'rq' } }],
      });
    });
    const client = api(server);
    const error = await rejection(client.readNamespace('missing'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((await client.listLimitRanges('team-a')).map((item) => item.metadata?.name)).toEqual(['lr']);
    expect((await client.listResourceQuotas('team-a')).map((item) => item.metadata?.name)).toEqual(['rq']);
    expect(server.received.map(({ url }) => url.split('?')[0])).toEqual([
      '/api/v1/namespaces/missing',
      '/api/v1/namespaces/team-a/limitranges',
      '/api/v1/namespaces/team-a/resourcequotas',
    ]);
  });

  it('nodes are listed cluster-wide; pods in ALL_NAMESPACES with a field selector; a 403 names list nodes', async () => {
    const server = await startServer('https', (_req, res) => sendJson(res, { metadata: { resourceVersion: '9' }, items: [] }));
    const client = api(server);
    await client.list('nodes', ALL_NAMESPACES, undefined);
    await client.list('pods', ALL_NAMESPACES, undefined, { fieldSelector: 'spec.nodeName!=,status.phase!=Failed' });
    const urls = server.received.map(({ url }) => new URL(url, 'https://x'));
    expect(urls.map((url) => url.pathname)).toEqual(['/api/v1/nodes', '/api/v1/pods']);
    expect(urls[1]?.searchParams.get('fieldSelector')).toBe('spec.nodeName!=,status.phase!=Failed');

    const denying = await startServer('https', (_req, res) =>
      sendStatus(res, 403, 'Forbidden', 'nodes is forbidden: User "x" cannot list resource "nodes"'),
    );
    const forbidden = await rejection(api(denying).list('nodes', ALL_NAMESPACES, undefined));
    expect(forbidden).toBeInstanceOf(ForbiddenError);
    expect(forbidden.message).toContain('may not list nodes');
  });

  it('a watch passes its field selector; connection reports the settings without credentials', async () => {
    const server = await startServer('https', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end();
    });
    const client = api(server);
    const closed = new Promise<Error | undefined>((resolve) =>
      client.watch(
        'pods',
        ALL_NAMESPACES,
        { resourceVersion: '5', fieldSelector: 'spec.nodeName=n1' },
        { onEvent: () => {}, onClose: resolve },
      ),
    );
    expect(await closed).toBeUndefined();
    const url = new URL(server.received[0]!.url, 'https://x');
    expect([url.pathname, url.searchParams.get('fieldSelector'), url.searchParams.get('watch')]).toEqual([
      '/api/v1/pods',
      'spec.nodeName=n1',
      'true',
    ]);
    expect(client.connection).toEqual({
      kubeconfigPath: expect.any(String),
      context: 'local',
      server: server.url,
      tlsVerify: true,
      customCa: true,
    });
    expect(JSON.stringify(client.connection)).not.toContain(token);
  });
});

// ---- writes after creation (start, stop, restart, reconfigure, remove) ----------------

describe('KubernetesApi writes after creation', () => {
  it('patch sends a JSON merge patch with fieldManager and returns the stored object', async () => {
    const contentTypes: (string | undefined)[] = [];
    const server = await startServer('https', (req, res) => {
      contentTypes.push(req.headers['content-type']);
      sendJson(res, deployment({ name: 'web', namespace: 'team-a', generation: 2, replicas: 0 }));
    });
    const patch = { metadata: { uid: 'u1', resourceVersion: '41' }, spec: { replicas: 0 } };
    const stored = await api(server).patch('deployments', 'team-a', 'web', patch);
    expect(stored.metadata?.generation).toBe(2);
    expect(server.received[0]).toMatchObject({
      method: 'PATCH',
      url: '/apis/apps/v1/namespaces/team-a/deployments/web?fieldManager=kube-provisioner',
      authorization: `Bearer ${token}`,
    });
    expect(contentTypes).toEqual(['application/merge-patch+json']);
    expect(JSON.parse(server.received[0]!.body)).toEqual(patch);
  });

  it('a stale resourceVersion (409 Conflict) -> ConflictError with reason Conflict; no secret in it', async () => {
    const server = await startServer('https', (_req, res) =>
      sendStatus(
        res,
        409,
        'Conflict',
        'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
        { name: 'web', group: 'apps', kind: 'deployments' },
      ),
    );
    const error = await rejection(api(server).patch('deployments', 'team-a', 'web', { metadata: { resourceVersion: '1' } }));
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).reason).toBe('Conflict');
    expect(error.message).toMatch(/^Conflict \(409\) on patch deployments \(team-a\/web\): Operation cannot be fulfilled/);
  });

  it('a patch without the patch verb (403) -> ForbiddenError naming patch', async () => {
    const server = await startServer('https', (_req, res) =>
      sendStatus(res, 403, 'Forbidden', 'deployments.apps "web" is forbidden: User "kp-test-user" cannot patch resource "deployments"'),
    );
    const error = await rejection(api(server).patch('deployments', 'team-a', 'web', { spec: { replicas: 1 } }));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ verb: 'patch', resource: 'deployments' });
  });

  it('delete sends DeleteOptions with the UID precondition and the propagation policy', async () => {
    const server = await startServer('https', (_req, res) => sendJson(res, { kind: 'Status', status: 'Success' }));
    await api(server).delete('deployments', 'team-a', 'web', { preconditions: { uid: 'u1' }, propagationPolicy: 'Foreground' });
    expect(server.received[0]).toMatchObject({ method: 'DELETE', url: '/apis/apps/v1/namespaces/team-a/deployments/web' });
    expect(JSON.parse(server.received[0]!.body)).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      preconditions: { uid: 'u1' },
      propagationPolicy: 'Foreground',
    });
  });

  it('a delete whose UID precondition fails (409) -> ConflictError; a missing one (404) -> NotFoundError', async () => {
    const conflict = await startServer('https', (_req, res) =>
      sendStatus(res, 409, 'Conflict', 'Precondition failed: UID in precondition: u1, UID in object meta: u2'),
    );
    const refused = await rejection(api(conflict).delete('deployments', 'team-a', 'web', { preconditions: { uid: 'u1' } }));
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused.message).toContain('Precondition failed: UID in precondition: u1');
    const missing = await startServer('https', (_req, res) => sendStatus(res, 404, 'NotFound', 'deployments.apps "web" not found'));
    expect(await rejection(api(missing).delete('deployments', 'team-a', 'web'))).toBeInstanceOf(NotFoundError);
  });
});

// ---- without a kubeconfig ----------------------------------------------------------------

describe('KubernetesApi.fromServer (a server URL and a bearer token, no kubeconfig)', () => {
  const fromServer = (server: LocalServer, options: Partial<Parameters<typeof KubernetesApi.fromServer>[0]> = {}) =>
    KubernetesApi.fromServer({ server: server.url, token, caData: serverCertPem, requestTimeoutMs: 5_000, ...options });

  it('sends the token as a bearer token, trusts the given CA, and takes the namespace it is given (else "default")', async () => {
    const server = await startServer('https', (_req, res) => sendJson(res, deployment({ name: 'web', namespace: 'team-a' })));
    const client = fromServer(server, { namespace: 'team-a' });
    expect(client.namespace).toBe('team-a');
    expect(client.server).toBe(server.url);
    expect(fromServer(server).namespace).toBe('default');
    expect((await client.read('deployments', 'team-a', 'web')).metadata?.name).toBe('web');
    expect(server.received[0]).toMatchObject({ method: 'GET', authorization: `Bearer ${token}`, clientCert: undefined });
  });

  it('accepts the CA as base64, as a kubeconfig holds it', async () => {
    const server = await startServer('https', (_req, res) => sendJson(res, deployment({ name: 'web', namespace: 'team-a' })));
    await fromServer(server, { caData: Buffer.from(serverCertPem).toString('base64') }).read('deployments', 'team-a', 'web');
    expect(server.received).toHaveLength(1);
  });

  it("verifies the server: another CA -> TlsError, no CA -> TlsError (a self-signed server is not in Node's store)", async () => {
    const server = await startServer('https', (_req, res) => sendJson(res, {}));
    expect(await rejection(fromServer(server, { caData: otherCertPem }).read('deployments', 'team-a', 'web'))).toBeInstanceOf(TlsError);
    expect(await rejection(KubernetesApi.fromServer({ server: server.url, token }).read('deployments', 'team-a', 'web'))).toBeInstanceOf(
      TlsError,
    );
    expect(server.received).toEqual([]);
  });

  it('tlsVerify false skips verification (and allows plain http)', async () => {
    const server = await startServer('https', (_req, res) => sendJson(res, {}));
    await fromServer(server, { caData: otherCertPem, tlsVerify: false }).read('deployments', 'team-a', 'web');
    const plain = await startServer('http', (_req, res) => sendJson(res, {}));
    await KubernetesApi.fromServer({ server: plain.url, token, tlsVerify: false }).read('deployments', 'team-a', 'web');
    expect(server.received).toHaveLength(1);
    expect(plain.received[0]?.authorization).toBe(`Bearer ${token}`);
  });

  it.each([
    ['server', { server: 'not a url' }],
    ['server', { server: 'http://127.0.0.1:6443' }],
    ['server', { server: 'https://user:pass@127.0.0.1:6443' }],
    ['server', { server: 'ftp://127.0.0.1' }],
    ['token', { token: '' }],
    ['token', { token: `${'x'.repeat(8)}\nInjected: header` }],
    ['caData', { caData: 'bm90IGEgY2VydGlmaWNhdGU=' }],
    ['requestTimeoutMs', { requestTimeoutMs: 0 }],
  ])('refuses a bad %s at once, naming the option and never the token', (option, bad) => {
    const requests: unknown[] = [];
    let error: unknown;
    try {
      KubernetesApi.fromServer({ server: 'https://127.0.0.1:6443', token, onRequest: (info) => requests.push(info), ...bad });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).option).toBe(option);
    expectNoSecrets(error);
    expect(requests).toEqual([]);
  });
});
