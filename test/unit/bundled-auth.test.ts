// The BUILT package (dist/, client-node bundled in, its fetch transport left out) still
// authenticates the ways a kubeconfig can: a static token, an exec credential plugin and an
// OIDC auth-provider. A local HTTPS server (openssl self-signed certificate for 127.0.0.1)
// stands in for kube-apiserver and records the Authorization header it receives. The exec
// plugin is a real child process (this Node running a small script); the OIDC id-token is
// unexpired, so no identity provider is contacted. `npm test` builds first.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as PublicApi from '../../src/index.js';
import { selfSigned } from '../support/tls.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

let dir: string;
let server: https.Server;
let serverUrl: string;
let caData: string;
const seenAuthorization: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kp-bundled-auth-'));
  selfSigned(dir, 'server');
  const cert = readFileSync(join(dir, 'server.crt'), 'utf8');
  caData = Buffer.from(cert).toString('base64');
  server = https.createServer({ cert, key: readFileSync(join(dir, 'server.key')) }, (req, res) => {
    seenAuthorization.push(req.headers.authorization ?? '');
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function builtPackage(): typeof PublicApi {
  expect(existsSync(join(root, 'dist', 'bundle.js')), 'dist/ is missing: run `npm run build` (npm test does)').toBe(true);
  return createRequire(import.meta.url)(join(root, 'dist', 'index.js')) as typeof PublicApi;
}

function kubeconfig(name: string, user: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
current-context: test
clusters:
- name: test
  cluster:
    server: ${serverUrl}
    certificate-authority-data: ${caData}
contexts:
- name: test
  context: { cluster: test, user: test }
users:
- name: test
  user:
${user}
`,
  );
  return path;
}

async function authorizationSent(kubeconfigPath: string): Promise<string> {
  const { KubernetesApi } = builtPackage();
  const before = seenAuthorization.length;
  const api = KubernetesApi.fromConfig({ kubeconfigPath });
  await api.read('deployments', 'default', 'web');
  expect(seenAuthorization.length).toBe(before + 1);
  return seenAuthorization.at(-1)!;
}

describe('authentication through the bundled client-node', () => {
  it('sends a static token', async () => {
    expect(await authorizationSent(kubeconfig('token', '    token: static-token-1'))).toBe('Bearer static-token-1');
  });

  it('runs an exec credential plugin and sends the token it prints', async () => {
    const runs = join(dir, 'exec-runs');
    const plugin = join(dir, 'exec-plugin.cjs');
    writeFileSync(
      plugin,
      `require('node:fs').appendFileSync(${JSON.stringify(runs)}, 'run\\n');
process.stdout.write(JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  status: { token: process.env.EXEC_TOKEN },
}));
`,
    );
    const user = `    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(plugin)}]
      env: [{ name: EXEC_TOKEN, value: exec-token-2 }]
      interactiveMode: Never`;
    expect(await authorizationSent(kubeconfig('exec', user))).toBe('Bearer exec-token-2');
    expect(readFileSync(runs, 'utf8')).toBe('run\n');
  });

  it('sends an unexpired OIDC id-token', async () => {
    const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const expires = Math.floor(Date.now() / 1000) + 3600;
    const idToken = `${base64url({ alg: 'RS256', typ: 'JWT' })}.${base64url({ iss: 'https://idp.invalid', exp: expires })}.c2lnbmF0dXJl`;
    const user = `    auth-provider:
      name: oidc
      config:
        client-id: kube-provisioner
        idp-issuer-url: https://idp.invalid
        id-token: ${idToken}
        refresh-token: never-used`;
    expect(await authorizationSent(kubeconfig('oidc', user))).toBe(`Bearer ${idToken}`);
  });
});
