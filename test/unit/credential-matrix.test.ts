// The credential matrix: kubeconfigs holding a bearer token, basic auth, a client key, and
// an exec credential plugin with secret `env` values and arguments, against a local HTTPS
// server that echoes each request (its headers, Authorization included), every secret
// value of the kubeconfig and a forged second log line back, in every status code, in a
// non-JSON answer, in a watch ERROR event, and in the condition, kubelet and Status
// messages a rollout relays. Through the CLI (text and -o json) and the library (events,
// error message, stack, cause chain, JSON), no credential may appear in any output, and
// every line stays one line. Exec plugin failures end as ExecPluginError, exit 5, with
// the plugin's output scrubbed. Unit test: local loopback server standing in for the API.
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { lastValueFrom, tap } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { ExecPluginError } from '../../src/errors/kubeconfig.js';
import { KubeProvisionerError } from '../../src/errors/base.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../src/informers/reflector.js';
import { provision$ } from '../../src/workload/provision.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL } from '../../src/input/labels.js';
import { makeTestCertificates, type TestCertificates } from '../support/tls.js';

const hex = () => randomBytes(12).toString('hex');
const SECRETS = {
  token: `kp-bearer-${hex()}`,
  username: `kp-user-${hex()}`,
  password: `kp-pass-${hex()}`,
  execEnv: `kp-exec-env-${hex()}`,
  execArg: `kp-exec-arg-${hex()}`,
  execToken: `kp-exec-token-${hex()}`,
};
const FORGED_LINE = '12:00:00.000 default/web ready in 0.1s';

let certs: TestCertificates;
let keyLines: string[];
let server: https.Server;
let serverUrl: string;
const sockets = new Set<Socket>();
let scenario = 'status-500';
let echoesWithSecrets = 0;

type Credential = 'bearer' | 'basic' | 'client-key' | 'exec';
const CREDENTIALS: readonly Credential[] = ['bearer', 'basic', 'client-key', 'exec'];

/** The kubeconfig in use: the echo relays its secrets (the scrubber can only know those). */
let current: Credential = 'bearer';

/** The secrets of a kubeconfig, in the forms an echo could show. */
function secretsOf(credential: Credential): string[] {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  switch (credential) {
    case 'bearer':
      return [SECRETS.token];
    case 'basic':
      return [SECRETS.username, SECRETS.password, b64(`${SECRETS.username}:${SECRETS.password}`)];
    case 'client-key':
      return [b64(certs.clientKeyPem), certs.clientKeyPem, ...keyLines];
    case 'exec':
      return [SECRETS.execEnv, SECRETS.execArg, SECRETS.execToken];
  }
}

/** Every secret of every kubeconfig: none may appear in any output. */
function secretForms(): string[] {
  return CREDENTIALS.flatMap(secretsOf);
}

// ---- the echoing server ------------------------------------------------------------------

function echoOf(req: http.IncomingMessage, body: string): string {
  // What a careless proxy or a hostile server could relay: the request, every secret value,
  // and a forged line for the job log.
  return `${req.method} ${req.url} headers=${JSON.stringify(req.headers)} body=${body.slice(0, 200)} known=${secretsOf(current).join(',')}\n${FORGED_LINE}`;
}

function status(res: http.ServerResponse, code: number, reason: string, echo: string): void {
  res.writeHead(code, { 'Content-Type': 'application/json', 'Retry-After': '0' });
  res.end(
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code,
      reason,
      message: echo,
      details: { name: echo, kind: 'deployments', causes: [{ field: `spec.${echo}`, reason: echo, message: echo }] },
    }),
  );
}

function deployment(echo: string, conditions: object[], labels: Record<string, string> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'default',
      uid: 'uid-matrix',
      resourceVersion: '10',
      generation: 1,
      labels: { [MANAGED_LABEL]: 'true', [CONTAINER_ID_LABEL]: '42', ...labels },
      annotations: { echo },
    },
    spec: { replicas: 1, progressDeadlineSeconds: 600, selector: {}, template: {} },
    status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, conditions },
  };
}

function pod(echo: string, waitingReason: string) {
  return {
    metadata: {
      name: 'web-5d8f7c9b4-x1',
      namespace: 'default',
      uid: 'pod-1',
      resourceVersion: '11',
      labels: { [MANAGED_LABEL]: 'true', [CONTAINER_ID_LABEL]: '42', 'pod-template-hash': '5d8f7c9b4' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d8f7c9b4', uid: 'rs', controller: true }],
    },
    spec: { nodeName: 'node-0', containers: [{ name: 'web' }] },
    status: {
      phase: 'Pending',
      message: echo,
      containerStatuses: [
        {
          name: 'web',
          ready: false,
          restartCount: 0,
          image: 'nginx',
          imageID: '',
          state: { waiting: { reason: waitingReason, message: echo } },
        },
      ],
    },
  };
}

function condition(type: string, statusValue: string, reason: string, message: string) {
  return { type, status: statusValue, reason, message };
}

function watchBody(res: http.ServerResponse, objects: object[]): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  for (const object of objects) res.write(`${JSON.stringify({ type: 'ADDED', object })}\n`);
  const end = { metadata: { resourceVersion: '20', annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } };
  res.write(`${JSON.stringify({ type: 'BOOKMARK', object: end })}\n`);
  // The watch stays open until the client leaves.
}

const STATUS_CODES = [400, 401, 403, 404, 408, 409, 410, 422, 429, 500, 503] as const;

function handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const echo = echoOf(req, body);
  if (secretForms().some((secret) => echo.includes(secret))) echoesWithSecrets += 1;
  const url = new URL(req.url ?? '/', 'https://x');
  const watching = url.searchParams.get('watch') === 'true';
  const pods = url.pathname.endsWith('/pods');
  if (scenario.startsWith('status-')) {
    status(res, Number(scenario.slice(7)), 'Echo', echo);
    return;
  }
  if (req.method === 'DELETE') {
    // The cleanup after a failed provisioning: the server's refusal echoes the request too.
    status(res, 404, 'NotFound', echo);
    return;
  }
  if (req.method === 'POST') {
    if (scenario === 'not-json') {
      res.writeHead(201, { 'Content-Type': 'application/json' }).end(echo);
      return;
    }
    if (scenario === 'already-exists') {
      status(res, 409, 'AlreadyExists', echo);
      return;
    }
    res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify(deployment(echo, [])));
    return;
  }
  if (scenario === 'already-exists' && !watching) {
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify(deployment(echo, [], { [CONTAINER_ID_LABEL]: echo.slice(0, 40) })));
    return;
  }
  if (scenario === 'watch-error') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 403, reason: echo, message: echo } })}\n`);
    return;
  }
  const rs = 'ReplicaSet "web-5d8f7c9b4"';
  if (pods) {
    watchBody(res, [pod(echo, scenario === 'pod-failure' ? 'InvalidImageName' : 'ImagePullBackOff')]);
    return;
  }
  const conditions =
    scenario === 'deadline'
      ? [
          condition('Available', 'False', echo, echo),
          condition('Progressing', 'False', 'ProgressDeadlineExceeded', `${rs} has timed out: ${echo}`),
        ]
      : scenario === 'create-failure'
        ? [condition('ReplicaFailure', 'True', 'FailedCreate', `pods is forbidden: exceeded quota: ${echo}`)]
        : [condition('Progressing', 'True', 'ReplicaSetUpdated', `${rs} is progressing. ${echo}`)];
  watchBody(res, [deployment(echo, conditions)]);
}

// ---- kubeconfigs -----------------------------------------------------------------------

let counter = 0;
function kubeconfig(credential: Credential, plugin: 'ok' | 'fails' | 'missing' | 'not-json' | 'no-status' = 'ok'): string {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const user =
    credential === 'bearer'
      ? [`    token: ${SECRETS.token}`]
      : credential === 'basic'
        ? [`    username: ${SECRETS.username}`, `    password: ${SECRETS.password}`]
        : credential === 'client-key'
          ? [`    client-certificate-data: ${b64(certs.clientCertPem)}`, `    client-key-data: ${b64(certs.clientKeyPem)}`]
          : [
              '    exec:',
              '      apiVersion: client.authentication.k8s.io/v1',
              `      command: ${JSON.stringify(plugin === 'missing' ? join(certs.dir, 'no-such-plugin') : process.execPath)}`,
              `      args: [${JSON.stringify(join(certs.dir, 'plugin.mjs'))}, ${JSON.stringify(plugin)}, ${JSON.stringify(`--secret=${SECRETS.execArg}`)}]`,
              `      env: [{name: KP_EXEC_SECRET, value: ${JSON.stringify(SECRETS.execEnv)}}]`,
              '      interactiveMode: Never',
            ];
  const path = join(certs.dir, `config-${++counter}`);
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: matrix',
      'clusters:',
      '- name: matrix',
      '  cluster:',
      `    server: ${serverUrl}`,
      `    certificate-authority-data: ${b64(certs.serverCertPem)}`,
      'users:',
      '- name: matrix-user',
      '  user:',
      ...user,
      'contexts:',
      '- name: matrix',
      '  context: {cluster: matrix, user: matrix-user, namespace: default}',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return path;
}

const PLUGIN = `
const [mode] = process.argv.slice(2);
const token = ${JSON.stringify(SECRETS.execToken)};
const env = process.env.KP_EXEC_SECRET;
if (mode === 'fails') {
  // It never got a token: it can only give away what it was given.
  process.stderr.write('cannot mint a token: env=' + env + ' args=' + process.argv.join(' ') + '\\nsecond line\\n');
  process.exit(1);
}
if (mode === 'not-json') { process.stdout.write('not json: ' + token + ' ' + env); process.exit(0); }
if (mode === 'no-status') { process.stdout.write('{"kind":"ExecCredential"}'); process.exit(0); }
process.stdout.write(JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential',
  status: { token, expirationTimestamp: new Date(Date.now() + 3600e3).toISOString() },
}));
`;

// ---- collecting output -------------------------------------------------------------------

const figures = { runs: 0, outputsChecked: 0, linesChecked: 0, secretValues: {} as Record<string, number>, leaks: 0 };

function expectClean(texts: readonly string[], where: string): void {
  for (const text of texts) {
    figures.outputsChecked += 1;
    const leaked = secretForms().filter((secret) => text.includes(secret));
    figures.leaks += leaked.length;
    expect(leaked, `${where} leaked a credential`).toEqual([]);
  }
}

function expectOneLineEach(lines: readonly string[], where: string): void {
  for (const line of lines) {
    figures.linesChecked += 1;
    expect(line, `${where}: one event is one line`).not.toMatch(/[\n\r\u2028\u2029\u0085]/);
    expect(line.startsWith(FORGED_LINE), `${where}: a forged line got out`).toBe(false);
  }
}

function errorTexts(error: unknown): string[] {
  const e = error as Error;
  return [e.message, String(e), e.stack ?? '', JSON.stringify(e), inspect(e, { depth: 10 })];
}

const SPEC = { containerId: 42, nodeId: 7, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 64 };
const CLI_ARGS = [
  'create',
  '--container-id',
  '42',
  '--node-id',
  '7',
  '--hostname',
  'web',
  '--image',
  'nginx:1.27',
  '--cpus',
  '1',
  '--memory-mb',
  '64',
  '--timeout',
  '20s',
];

async function cli(kubeconfigPath: string, json: boolean): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runCli([...CLI_ARGS, '--kubeconfig', kubeconfigPath, ...(json ? ['-o', 'json'] : [])], {
    stdout: (line) => lines.push(line),
    stderr: (line) => lines.push(line),
  });
  return { code, lines };
}

async function library(kubeconfigPath: string): Promise<{ events: string[]; error: unknown }> {
  const api = KubernetesApi.fromConfig({ kubeconfigPath, requestTimeoutMs: 5_000 });
  const events: string[] = [];
  try {
    await lastValueFrom(
      provision$(api, SPEC, { timeoutMs: 20_000, informers: new InformerRegistry() }).pipe(
        tap((event) => events.push(JSON.stringify(event))),
      ),
    );
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

beforeAll(async () => {
  certs = makeTestCertificates('kp-matrix-');
  keyLines = certs.clientKeyPem.split('\n').filter((line) => line.length >= 16 && !line.startsWith('-----'));
  writeFileSync(join(certs.dir, 'plugin.mjs'), PLUGIN);
  server = https.createServer(
    { key: certs.serverKeyPem, cert: certs.serverCertPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
    },
  );
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  figures.secretValues = Object.fromEntries(CREDENTIALS.map((credential) => [credential, secretsOf(credential).length]));
});

afterAll(async () => {
  server.closeAllConnections();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  rmSync(certs.dir, { recursive: true, force: true });
  console.log(`[reliability] credentials: ${JSON.stringify({ ...figures, echoesWithSecrets })}`);
});

// ---- the matrix --------------------------------------------------------------------------

const SCENARIOS = [
  ...STATUS_CODES.map((code) => [`status-${code}`, code === 409 ? 6 : 5] as const),
  ['not-json', 5],
  ['already-exists', 6],
  ['watch-error', 5],
  ['deadline', 3],
  ['pod-failure', 3],
  ['create-failure', 3],
] as const;

describe.each(CREDENTIALS)('credential: %s', (credential) => {
  it.each(SCENARIOS)(
    '%s: no credential in the CLI output (text and -o json) or in the library error and events',
    async (name, exitCode) => {
      scenario = name;
      current = credential;
      for (const json of [false, true]) {
        const { code, lines } = await cli(kubeconfig(credential), json);
        figures.runs += 1;
        expect(code).toBe(exitCode);
        expectClean(lines, `CLI ${json ? '-o json' : 'text'}`);
        expectOneLineEach(lines, `CLI ${json ? '-o json' : 'text'}`);
        if (json) for (const line of lines.filter((l) => l.startsWith('{'))) JSON.parse(line);
      }
      const { events, error } = await library(kubeconfig(credential));
      figures.runs += 1;
      expect(error).toBeInstanceOf(KubeProvisionerError);
      expectClean([...events, ...errorTexts(error)], 'library');
      expectOneLineEach([(error as Error).message], 'library error message');
    },
  );
});

describe('exec credential plugin failures: ExecPluginError, exit 5, output scrubbed', () => {
  it.each([
    ['fails', /it exited with an error: cannot mint a token: env=\*\*\* args=.*\*\*\* second line/],
    ['missing', /it cannot be started \(ENOENT\)/],
    ['not-json', /did not print an ExecCredential \(its output is not JSON\)/],
    ['no-status', /did not print a valid ExecCredential/],
  ] as const)('plugin %s', async (plugin, detail) => {
    scenario = 'deadline';
    current = 'exec';
    const path = kubeconfig('exec', plugin);
    const { code, lines } = await cli(path, false);
    figures.runs += 1;
    expect(code).toBe(5);
    expect(lines[0]).toMatch(/^error: ExecPluginError: The kubeconfig's exec credential plugin ".*" failed: /);
    expect(lines[0]).toMatch(detail);
    expectClean(lines, 'CLI');
    expectOneLineEach(lines, 'CLI');
    const { error } = await library(path);
    figures.runs += 1;
    expect(error).toBeInstanceOf(ExecPluginError);
    expectClean(errorTexts(error), 'library');
  });
});

it('the server really did echo credentials (so the checks above could fail)', () => {
  expect(echoesWithSecrets).toBeGreaterThan(0);
  expect(figures.leaks).toBe(0);
});
