// The credential matrix: kubeconfigs holding a bearer token, basic auth, a client key, and
// an exec credential plugin with secret `env` values and a secret argument (plus arguments
// that are not secrets: a cluster name, a region), against a local HTTPS server that
// echoes each request (its headers, Authorization included), every secret value of the
// kubeconfig in every encoding an echo can take (split by a line break or a space, base64
// and base64url, percent-encoded in lower case and twice, JSON with \/ and \uXXXX
// escapes, JSON inside JSON, hex, cut short) and a forged second log line back, in every
// status code, in a non-JSON answer, in a watch ERROR event, and in the condition, kubelet
// and Status messages a rollout relays. Through the CLI (text and -o json) and the library
// (events, error message, stack, cause chain, JSON), no credential may appear in any
// output, in any of those forms, and every line stays one line. Exec plugin failures end
// as ExecPluginError, exit 5, with the plugin's output masked, also what it printed in a
// credential's shape (a JWT, token=, client_secret=, AWS keys, a PEM body, ...), through
// create, get, status, check and the live page. Names are never masked: with an EKS-style
// plugin (`--cluster-name team`), team-a/team-web2 is created, awaited and listed as such.
// Unit test: local loopback server standing in for the API.
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
import { provision$ } from '../../src/workload/operations/provision.js';
import { list } from '../../src/workload/reads/list.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL, NODE_ID_LABEL } from '../../src/input/labels.js';
import { LiveHub } from '../../src/ui/live-hub.js';
import { libraryBackend } from '../../src/ui/library-backend.js';
import { deployment as completeDeployment, readyPod } from '../support/fixtures.js';
import { makeTestCertificates, type TestCertificates } from '../support/tls.js';

const hex = () => randomBytes(12).toString('hex');
/**
 * Twenty-four different letters and digits in random order, both cases and digits among
 * them: a token generator's output whose entropy a random draw cannot leave low.
 */
function distinctAlphanumerics(): string {
  const pools = ['abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', '0123456789'];
  const shuffled = (chars: string) =>
    [...chars]
      .map((char) => ({ char, key: randomBytes(4).readUInt32BE() }))
      .sort((a, b) => a.key - b.key)
      .map(({ char }) => char);
  return shuffled(pools.flatMap((pool) => shuffled(pool).slice(0, 8)).join('')).join('');
}
const SECRETS = {
  token: `kp-bearer-${hex()}`,
  password: `kp-pass-${hex()}`,
  execEnv: `kp-exec-env-${hex()}`,
  execArg: `kp-exec-arg-${hex()}`,
  execToken: `kp-exec-token-${hex()}`,
};
/** Values of the kubeconfigs that are not secrets: they must come out as they went in. */
const NOT_SECRETS = { username: `kp-user-${hex()}`, cluster: 'team', region: 'us-east-1' };
const FORGED_LINE = '12:00:00.000 default/web ready in 0.1s';

// What an exec plugin that fails prints in a credential's shape: no kubeconfig holds these,
// only the masking of shapes can catch them.
const MINTED = {
  jwt: `eyJhbGciOiJSUzI1NiIsImtpZCI6ImtwIn0.${Buffer.from(JSON.stringify({ sub: hex() })).toString('base64url')}.${hex()}`,
  token: `tk${hex()}`,
  clientSecret: `cs${hex()}`,
  awsSecret: `${hex()}/${hex().toUpperCase()}`,
  awsKeyId: `AKIA${hex().slice(0, 16).toUpperCase()}`,
  jsonSecret: `js${hex()}`,
  bearer: `br${hex()}`,
  openshift: `sha256~${hex()}${hex()}`,
  github: `ghp_${hex()}${hex()}`,
  pemLine: `MIIEvQIBADANBgkqhkiG9w0BAQEFAASC${hex().toUpperCase()}${hex()}`,
  keyData: Buffer.from(`-----BEGIN PRIVATE KEY-----\n${hex()}`).toString('base64'),
  password: `Pw${hex()}`,
  // In no shape: after a plain word and a space, as a plugin's log line may print it.
  spaced: `Sp${distinctAlphanumerics()}`,
};
const STDERR_SHAPES = [
  // First: the error keeps only the start of the plugin's output.
  `token ${MINTED.spaced}`,
  `minted ${MINTED.jwt}`,
  `token=${MINTED.token}`,
  `client_secret=${MINTED.clientSecret}`,
  `AWS_SECRET_ACCESS_KEY=${MINTED.awsSecret} AWS_ACCESS_KEY_ID=${MINTED.awsKeyId}`,
  `{"clientSecret":"${MINTED.jsonSecret}"}`,
  `Authorization: Bearer ${MINTED.bearer}`,
  MINTED.openshift,
  MINTED.github,
  `-----BEGIN RSA PRIVATE KEY-----\n${MINTED.pemLine}\n-----END RSA PRIVATE KEY-----`,
  `client-key-data: ${MINTED.keyData}`,
  `password: ${MINTED.password}`,
];

let certs: TestCertificates;
let keyLines: string[];
let server: https.Server;
let serverUrl: string;
const sockets = new Set<Socket>();
let scenario = 'status-500';
let echoesWithSecrets = 0;
const deletes: string[] = [];

type Credential = 'bearer' | 'basic' | 'client-key' | 'exec';
const CREDENTIALS: readonly Credential[] = ['bearer', 'basic', 'client-key', 'exec'];

/** The kubeconfig in use: the echo relays its secrets (the masker can only know those). */
let current: Credential = 'bearer';

/** The secrets of a kubeconfig, as values. */
function secretsOf(credential: Credential): string[] {
  switch (credential) {
    case 'bearer':
      return [SECRETS.token];
    case 'basic':
      return [SECRETS.password, `${NOT_SECRETS.username}:${SECRETS.password}`];
    case 'client-key':
      return [Buffer.from(certs.clientKeyPem).toString('base64'), ...keyLines];
    case 'exec':
      return [SECRETS.execEnv, SECRETS.execArg, SECRETS.execToken];
  }
}

const b64 = (text: string, url = false): string => Buffer.from(text).toString(url ? 'base64url' : 'base64');
const percentAll = (text: string): string => [...Buffer.from(text)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
const jsonEscapeAll = (text: string): string => [...text].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/** Every encoding an echo gives a secret (the server sends each of them). */
const ENCODINGS: Readonly<Record<string, (secret: string) => string>> = {
  'as is': (s) => s,
  'split by a newline': (s) => `${s.slice(0, s.length >> 1)}\n${s.slice(s.length >> 1)}`,
  'split by a space': (s) => `${s.slice(0, (s.length >> 1) + 1)} ${s.slice((s.length >> 1) + 1)}`,
  base64: (s) => b64(s),
  'base64, misaligned': (s) => b64(`x:${s}`),
  base64url: (s) => b64(`?>${s}`, true),
  'percent-encoded, lower case': (s) => percentAll(s),
  'percent-encoded twice': (s) => percentAll(s).replace(/%/g, '%25'),
  'JSON with \\/': (s) => JSON.stringify({ url: `/${s}/` }).replace(/\//g, '\\/'),
  'JSON with \\uXXXX': (s) => `{"s":"${jsonEscapeAll(s)}"}`,
  'JSON inside JSON': (s) => JSON.stringify(JSON.stringify({ password: `"${s}\\` })),
  hex: (s) => Buffer.from(s).toString('hex'),
  'cut short': (s) => `${s.slice(0, Math.max(12, s.length - 6))}...`,
};

/**
 * What must never appear in an output: each secret as it is, each half of it (a split or
 * cut one), and its encodings that stay recognizable after the output is decoded once.
 */
function leakFormsOf(secret: string): string[] {
  const half = secret.length >> 1;
  // The halves of the basic-auth pair are the user name (no secret) and the password (one).
  const halves = secret.includes(NOT_SECRETS.username) ? [] : [secret.slice(0, half), secret.slice(half)];
  return [
    secret,
    ...halves,
    b64(secret),
    b64(secret, true),
    Buffer.from(secret).toString('hex'),
    percentAll(secret),
    jsonEscapeAll(secret),
  ].filter((form) => form.length >= 8);
}

/** Every leak form of every secret of every kubeconfig: none may appear in any output. */
function secretForms(): string[] {
  return CREDENTIALS.flatMap(secretsOf).flatMap(leakFormsOf);
}

// ---- the echoing server ------------------------------------------------------------------

function echoOf(req: http.IncomingMessage, body: string): string {
  // What a careless proxy or a hostile server could relay: the request, every secret value
  // in every encoding, the values that are not secrets, and a forged line for the job log.
  const encoded = secretsOf(current).flatMap((secret) => Object.values(ENCODINGS).map((encode) => encode(secret)));
  return (
    `${req.method} ${req.url} headers=${JSON.stringify(req.headers)} body=${body.slice(0, 200)} ` +
    `known=${encoded.join(',')} names=${Object.values(NOT_SECRETS).join(',')}\n${FORGED_LINE}`
  );
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

// ---- scenario `complete`: an API server that works, for names that hold a non-secret -------

/** The Deployments created in scenario `complete`, by namespace/name, as the server stores them. */
const stored = new Map<string, Record<string, unknown>>();

function storedObjects(kind: 'deployments' | 'pods'): object[] {
  return [...stored.values()].map((created) => {
    const metadata = created.metadata as { name: string; namespace: string; uid: string; labels: Record<string, string> };
    const ready = { name: metadata.name, namespace: metadata.namespace, uid: metadata.uid, labels: metadata.labels };
    return kind === 'deployments'
      ? { ...completeDeployment(ready), spec: created.spec }
      : readyPod({ namespace: metadata.namespace, deployment: metadata.name, labels: metadata.labels });
  });
}

function handleComplete(req: http.IncomingMessage, res: http.ServerResponse, body: string, url: URL): void {
  const kind = url.pathname.endsWith('/pods') ? 'pods' : 'deployments';
  if (req.method === 'POST') {
    const created = JSON.parse(body) as Record<string, unknown> & { metadata: Record<string, unknown> };
    created.metadata = { ...created.metadata, uid: `uid-${hex()}`, resourceVersion: '15', generation: 1 };
    stored.set(`${String(created.metadata.namespace)}/${String(created.metadata.name)}`, created);
    res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify(created));
    return;
  }
  if (req.method === 'DELETE') {
    deletes.push(url.pathname);
    status(res, 404, 'NotFound', 'gone');
    return;
  }
  if (url.searchParams.get('watch') === 'true') {
    watchBody(res, storedObjects(kind));
    return;
  }
  res
    .writeHead(200, { 'Content-Type': 'application/json' })
    .end(JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '20' }, items: storedObjects(kind) }));
}

const STATUS_CODES = [400, 401, 403, 404, 408, 409, 410, 422, 429, 500, 503] as const;

function handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const url = new URL(req.url ?? '/', 'https://x');
  if (scenario === 'complete') {
    handleComplete(req, res, body, url);
    return;
  }
  const echo = echoOf(req, body);
  if (secretForms().some((secret) => echo.includes(secret))) echoesWithSecrets += 1;
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

type PluginMode = 'ok' | 'fails' | 'missing' | 'not-json' | 'no-status' | 'leaks';

let counter = 0;
function kubeconfig(credential: Credential, plugin: PluginMode = 'ok'): string {
  const user =
    credential === 'bearer'
      ? [`    token: ${SECRETS.token}`]
      : credential === 'basic'
        ? [`    username: ${NOT_SECRETS.username}`, `    password: ${SECRETS.password}`]
        : credential === 'client-key'
          ? [`    client-certificate-data: ${b64(certs.clientCertPem)}`, `    client-key-data: ${b64(certs.clientKeyPem)}`]
          : [
              '    exec:',
              '      apiVersion: client.authentication.k8s.io/v1',
              `      command: ${JSON.stringify(plugin === 'missing' ? join(certs.dir, 'no-such-plugin') : process.execPath)}`,
              `      args: ${JSON.stringify([
                join(certs.dir, 'plugin.mjs'),
                plugin,
                `--secret=${SECRETS.execArg}`,
                '--cluster-name',
                NOT_SECRETS.cluster,
                '--region',
                NOT_SECRETS.region,
              ])}`,
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
if (mode === 'leaks') {
  // It prints credentials no kubeconfig holds, in the shapes credentials have.
  process.stderr.write(${JSON.stringify(STDERR_SHAPES.join('\n'))} + '\\n');
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

const figures = {
  runs: 0,
  outputsChecked: 0,
  linesChecked: 0,
  secretValues: {} as Record<string, number>,
  encodings: Object.keys(ENCODINGS).length,
  stderrShapes: STDERR_SHAPES.length,
  stderrShapeOutputs: 0,
  namesKept: 0,
  leaks: 0,
};

function expectClean(texts: readonly string[], where: string, forms: readonly string[] = secretForms()): void {
  for (const text of texts) {
    figures.outputsChecked += 1;
    const leaked = forms.filter((secret) => text.includes(secret));
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
  return [e.name, e.message, String(e), e.stack ?? '', JSON.stringify(e), inspect(e, { depth: 10 })];
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

async function run(argv: readonly string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runCli(argv, { stdout: (line) => lines.push(line), stderr: (line) => lines.push(line) });
  return { code, lines };
}

function cli(kubeconfigPath: string, json: boolean): Promise<{ code: number; lines: string[] }> {
  return run([...CLI_ARGS, '--kubeconfig', kubeconfigPath, ...(json ? ['-o', 'json'] : [])]);
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
    '%s: no credential, in any encoding, in the CLI output (text and -o json) or in the library error and events',
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
        // What is not a secret is not masked: the echoed names come out as they went in.
        if (name === 'status-500') {
          const text = lines.join('\n');
          for (const value of Object.values(NOT_SECRETS)) expect(text, `${value} is no secret`).toContain(value);
          figures.namesKept += 1;
        }
      }
      const { events, error } = await library(kubeconfig(credential));
      figures.runs += 1;
      expect(error).toBeInstanceOf(KubeProvisionerError);
      expectClean([...events, ...errorTexts(error)], 'library');
      expectOneLineEach([(error as Error).message], 'library error message');
    },
    // Two CLI runs and a provisioning, each spawning what the kubeconfig names.
    60_000,
  );
});

describe('exec credential plugin failures: ExecPluginError, exit 5, output masked', () => {
  it.each([
    [
      'fails',
      /it exited with an error: cannot mint a token: .*\*\*\*.* args=.* --secret=\*\*\* --cluster-name team --region us-east-1 second line/,
    ],
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

  describe('a plugin that prints credentials in their shapes to stderr (values no kubeconfig holds)', () => {
    const minted = Object.values(MINTED).flatMap((value) => [value, value.slice(0, 12), value.slice(-12)]);
    const commands: readonly (readonly [string, readonly string[], number])[] = [
      ['create', [...CLI_ARGS], 5],
      ['create -o json', [...CLI_ARGS, '-o', 'json'], 5],
      ['get', ['get'], 5],
      ['get -o json', ['get', '-o', 'json'], 5],
      ['get PROVIDER_ID', ['get', 'default/web'], 5],
      ['status', ['status', 'default/web'], 5],
      ['status -o json', ['status', 'default/web', '-o', 'json'], 5],
      ['check', ['check'], 5],
      ['check -o json', ['check', '-o', 'json'], 5],
      ['stop', ['stop', 'default/web'], 5],
    ];
    it.each(commands)(
      '%s',
      async (_name, argv, exitCode) => {
        scenario = 'deadline';
        current = 'exec';
        const { code, lines } = await run([...argv, '--kubeconfig', kubeconfig('exec', 'leaks')]);
        figures.runs += 1;
        figures.stderrShapeOutputs += lines.length;
        expect(code).toBe(exitCode);
        expect(lines.join('\n')).toMatch(/ExecPluginError|exec credential plugin/);
        expectClean(lines, argv.join(' '), [...secretForms(), ...minted]);
        expectOneLineEach(lines, argv.join(' '));
        if (argv.join(' ') === 'check') {
          // No request was sent: nothing is said of the server, identity fails with the plugin's error.
          expect(lines.join('\n')).not.toContain('answers, but not its version');
          expect(lines.find((line) => line.startsWith('api '))).toMatch(
            /^api +skip +not checked: no credentials to send, so no request was sent/,
          );
          expect(lines.find((line) => line.startsWith('identity '))).toMatch(/^identity +FAIL +The kubeconfig's exec credential plugin/);
        }
      },
      30_000,
    );

    it('the live page: the status feed error event and the snapshot', async () => {
      scenario = 'deadline';
      current = 'exec';
      const api = KubernetesApi.fromConfig({ kubeconfigPath: kubeconfig('exec', 'leaks') });
      const hub = new LiveHub({ api, namespace: 'default', backend: libraryBackend() });
      try {
        const frames = (): string[] => {
          const texts: string[] = [];
          for (let sequence = hub.channel.oldest; sequence < hub.channel.end; sequence += 1)
            texts.push(hub.channel.frameAt(sequence)!.text);
          return texts;
        };
        for (let waited = 0; !frames().some((text) => text.includes('statuses-error')); waited += 20) {
          if (waited > 10_000) throw new Error('no statuses-error event within 10 s');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const texts = [...frames(), JSON.stringify(hub.snapshot())];
        figures.runs += 1;
        figures.stderrShapeOutputs += texts.length;
        expect(texts.join('\n')).toContain('ExecPluginError');
        expectClean(texts, 'live page', [...secretForms(), ...minted]);
      } finally {
        hub.close();
      }
    }, 30_000);
  });
});

describe('names are never masked: an EKS-style kubeconfig (--cluster-name team --region us-east-1)', () => {
  it('create --hostname team-web2 -n team-a: created, awaited and listed as team-a/team-web2; nothing deleted', async () => {
    scenario = 'complete';
    current = 'exec';
    stored.clear();
    deletes.length = 0;
    const path = kubeconfig('exec', 'ok');
    const argv = CLI_ARGS.map((arg) => (arg === 'web' ? 'team-web2' : arg));
    const { code, lines } = await run([...argv, '--kubeconfig', path, '-n', 'team-a']);
    figures.runs += 1;
    expect(lines.join('\n')).not.toContain('***');
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/ team-a\/team-web2 created Deployment$/);
    expect(lines.at(-1)).toBe('team-a/team-web2');
    expect(deletes).toEqual([]);

    const got = await run(['get', '--kubeconfig', path, '-n', 'team-a', '-o', 'json']);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.lines[0]!)).toMatchObject({ providerId: 'team-a/team-web2', name: 'team-web2', namespace: 'team-a' });

    const api = KubernetesApi.fromConfig({ kubeconfigPath: path, namespace: 'team-a' });
    const listed = await list(api);
    expect(listed.map((snapshot) => snapshot.providerId)).toEqual(['team-a/team-web2']);
    expect(stored.get('team-a/team-web2')?.metadata).toMatchObject({ labels: { [NODE_ID_LABEL]: '7' } });
  });
});

it('the server really did echo credentials (so the checks above could fail)', () => {
  expect(echoesWithSecrets).toBeGreaterThan(0);
  expect(figures.leaks).toBe(0);
});
