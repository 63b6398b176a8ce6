// loadKubeconfig(): path resolution, validation, context/namespace resolution and the
// TLS default, with a focus on secrets never reaching an error. Real kubeconfig files are
// written to a temp dir, holding a random bearer token and a client certificate + key
// made with openssl (no fakes; no server is contacted in this file).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { KubeconfigInvalidError, KubeconfigNotFoundError, UnknownContextError } from '../../../src/errors/kubeconfig.js';
import { KubeProvisionerError } from '../../../src/errors/base.js';
import { loadKubeconfig, resolveKubeconfigPath, type KubeconfigOptions } from '../../../src/kube/kubeconfig.js';
import { KubernetesApi } from '../../../src/kube/kubernetes-api.js';

let dir: string;
let token: string;
let certPem: string;
let keyPem: string;
let secretFragments: string[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kp-kubeconfig-'));
  token = `kp-secret-token-${randomBytes(16).toString('hex')}`;
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'client.key'),
      '-out',
      join(dir, 'client.crt'),
      '-days',
      '2',
      '-subj',
      '/O=system:masters/CN=kp-test-user',
    ],
    { stdio: 'ignore' },
  );
  certPem = readFileSync(join(dir, 'client.crt'), 'utf8');
  keyPem = readFileSync(join(dir, 'client.key'), 'utf8');
  secretFragments = fragmentsOf(token, certPem, keyPem);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The token, every body line of both PEMs, and 48-character slices of their base64. */
function fragmentsOf(secret: string, ...pems: string[]): string[] {
  const out = [secret];
  for (const pem of pems) {
    for (const line of pem.split('\n')) {
      if (line.length >= 16 && !line.startsWith('-----')) out.push(line);
    }
    const b64 = Buffer.from(pem).toString('base64');
    for (let i = 0; i + 48 <= b64.length; i += 48) out.push(b64.slice(i, i + 48));
  }
  return out;
}

/** Asserts no secret appears in message, String(), stack or the JSON of own enumerable fields. */
function expectNoSecrets(error: unknown, extra: readonly string[] = []): void {
  expect(error).toBeInstanceOf(Error);
  const e = error as Error;
  const places: Record<string, string> = {
    message: e.message,
    string: String(e),
    stack: e.stack ?? '',
    json: JSON.stringify(e),
  };
  for (const [where, text] of Object.entries(places)) {
    const leaked = [...secretFragments, ...extra].filter((fragment) => text.includes(fragment));
    // Report where, never the secret itself.
    expect(leaked.length, `secret material found in the error's ${where}`).toBe(0);
  }
}

function b64(text: string): string {
  return Buffer.from(text).toString('base64');
}

interface ConfigShape {
  readonly server?: string | null;
  readonly insecure?: boolean;
  readonly currentContext?: string | null;
  readonly contextNamespace?: string | null;
}

function kubeconfigText(shape: ConfigShape = {}): string {
  const server = shape.server === undefined ? 'https://127.0.0.1:6443' : shape.server;
  const current = shape.currentContext === undefined ? 'dev' : shape.currentContext;
  const namespace = shape.contextNamespace === undefined ? 'team-a' : shape.contextNamespace;
  return [
    'apiVersion: v1',
    'kind: Config',
    'preferences: {}',
    'clusters:',
    '- name: dev',
    '  cluster:',
    ...(server === null ? [] : [`    server: ${server}`]),
    ...(shape.insecure ? ['    insecure-skip-tls-verify: true'] : [`    certificate-authority-data: ${b64(certPem)}`]),
    '- name: prod',
    '  cluster:',
    '    server: https://10.20.0.1:6443',
    `    certificate-authority-data: ${b64(certPem)}`,
    'users:',
    '- name: dev-admin',
    '  user:',
    `    token: ${token}`,
    `    client-certificate-data: ${b64(certPem)}`,
    `    client-key-data: ${b64(keyPem)}`,
    'contexts:',
    '- name: dev',
    '  context:',
    '    cluster: dev',
    '    user: dev-admin',
    ...(namespace === null ? [] : [`    namespace: ${namespace}`]),
    '- name: prod',
    '  context:',
    '    cluster: prod',
    '    user: dev-admin',
    ...(current === null ? [] : [`current-context: ${current}`]),
    '',
  ].join('\n');
}

let fileCounter = 0;
function writeConfig(text: string, name = `config-${++fileCounter}`): string {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

/** Runs `action`, expecting it to throw; every error thrown is checked for secrets. */
function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

function load(path: string, options: Omit<KubeconfigOptions, 'kubeconfigPath'> = {}) {
  return loadKubeconfig({ kubeconfigPath: path, ...options });
}

describe('finding the kubeconfig', () => {
  it('throws KubeconfigNotFoundError naming an explicit path that does not exist', () => {
    const path = join(dir, 'nope', 'config');
    const error = thrown(() => load(path));
    expect(error).toBeInstanceOf(KubeconfigNotFoundError);
    expect(error).toBeInstanceOf(KubeProvisionerError);
    expect((error as KubeconfigNotFoundError).path).toBe(path);
    expect((error as Error).message).toBe(`Kubeconfig not found at ${path}`);
  });

  it('uses $KUBECONFIG when no path is given, and reports it when missing', () => {
    const missing = join(dir, 'missing-from-env');
    vi.stubEnv('KUBECONFIG', missing);
    const error = thrown(() => loadKubeconfig());
    expect(error).toBeInstanceOf(KubeconfigNotFoundError);
    expect((error as KubeconfigNotFoundError).path).toBe(missing);
  });

  it('takes the first existing file of a $KUBECONFIG list', () => {
    const existing = writeConfig(kubeconfigText({ server: 'https://192.0.2.10:6443' }));
    vi.stubEnv('KUBECONFIG', [join(dir, 'absent-1'), existing].join(':'));
    expect(resolveKubeconfigPath(undefined)).toBe(existing);
    expect(loadKubeconfig().server).toBe('https://192.0.2.10:6443');
  });

  it('prefers an explicit path over $KUBECONFIG', () => {
    const fromEnv = writeConfig(kubeconfigText({ server: 'https://192.0.2.1:6443' }));
    const explicit = writeConfig(kubeconfigText({ server: 'https://192.0.2.2:6443' }));
    vi.stubEnv('KUBECONFIG', fromEnv);
    expect(load(explicit).server).toBe('https://192.0.2.2:6443');
  });

  it('falls back to ~/.kube/config and reports it missing there, never a localhost:8080 default', () => {
    const home = join(dir, 'home-empty');
    mkdirSync(home, { recursive: true });
    vi.stubEnv('KUBECONFIG', undefined);
    vi.stubEnv('HOME', home);
    const error = thrown(() => loadKubeconfig());
    expect(error).toBeInstanceOf(KubeconfigNotFoundError);
    expect((error as KubeconfigNotFoundError).path).toBe(join(home, '.kube', 'config'));
    expect((error as Error).message).not.toContain('localhost');

    // KubernetesApi.fromConfig does the same and sends nothing.
    const requests: unknown[] = [];
    const apiError = thrown(() => KubernetesApi.fromConfig({ onRequest: (info) => requests.push(info) }));
    expect(apiError).toBeInstanceOf(KubeconfigNotFoundError);
    expect(requests).toEqual([]);
  });

  it('loads ~/.kube/config when $KUBECONFIG is unset', () => {
    const home = join(dir, 'home-with-config');
    mkdirSync(join(home, '.kube'), { recursive: true });
    writeFileSync(join(home, '.kube', 'config'), kubeconfigText({ server: 'https://198.51.100.7:6443' }));
    vi.stubEnv('KUBECONFIG', '');
    vi.stubEnv('HOME', home);
    const loaded = loadKubeconfig();
    expect(loaded.path).toBe(join(home, '.kube', 'config'));
    expect(loaded.server).toBe('https://198.51.100.7:6443');
  });
});

describe('invalid kubeconfigs', () => {
  it.each([
    ['an empty file', ''],
    ['a whitespace-only file', '\n  \n'],
  ])('rejects %s with KubeconfigInvalidError', (_what, text) => {
    const path = writeConfig(text);
    const error = thrown(() => load(path));
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
    expect((error as Error).message).toBe(`Kubeconfig at ${path} is invalid: the file is empty`);
  });

  // Each variant breaks the YAML on the very line that holds the bearer token.
  it.each([
    ['an unclosed quote', (t: string) => t.replace(`token: ${token}`, `token: "${token}`), 'unexpected end of the stream'],
    ['a mis-indented line', (t: string) => t.replace(`    token: ${token}`, `     token: ${token}`), 'bad indentation'],
    ['a tab in the indentation', (t: string) => t.replace(`    token: ${token}`, `\ttoken: ${token}`), 'tab characters'],
    [
      'a duplicated key',
      (t: string) => t.replace(`    token: ${token}`, `    token: ${token}\n    token: ${token}`),
      'duplicated mapping key',
    ],
  ])('rejects broken YAML (%s on the token line) without quoting the token', (_what, breakIt, reason) => {
    const path = writeConfig(breakIt(kubeconfigText()));
    const error = thrown(() => load(path));
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
    // Only the position: js-yaml's reason (${reason}...) can quote the file's text.
    expect((error as Error).message).toMatch(/^Kubeconfig at .* is invalid: not valid YAML at line \d+$/);
    expect((error as Error).cause).toBeUndefined();
    expect(reason.length).toBeGreaterThan(0);
  });

  it('rejects broken YAML without quoting a password that YAML reads as a tag (!...)', () => {
    const password = `!kp-secret-password-${randomBytes(8).toString('hex')}`;
    const text = kubeconfigText().replace(`    token: ${token}\n`, `    username: admin\n    password: ${password}\n`);
    const error = thrown(() => load(writeConfig(text)));
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
    expectNoSecrets(error, [password.slice(1)]);
  });

  it('rejects a file that holds only a token (not a kubeconfig) without echoing it', () => {
    const error = thrown(() => load(writeConfig(`${token}\n`)));
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
  });

  it('rejects YAML that is only a comment as not a kubeconfig', () => {
    const error = thrown(() => load(writeConfig('# nothing here\n')));
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
    expect((error as Error).message).toMatch(/not a valid kubeconfig/);
  });

  it('rejects a cluster without a server URL, naming the field', () => {
    const error = thrown(() => load(writeConfig(kubeconfigText({ server: null }))));
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
    expect((error as Error).message).toContain('clusters[0].cluster.server is missing');
  });

  it('rejects a context that names an undefined cluster', () => {
    const text = kubeconfigText().replace('    cluster: prod\n', '    cluster: staging\n');
    const error = thrown(() => load(writeConfig(text), { context: 'prod' }));
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
    expect((error as Error).message).toContain('names cluster "staging", which is not defined');
  });

  it('rejects a context that names an undefined user', () => {
    const text = kubeconfigText().replace(
      '- name: prod\n  context:\n    cluster: prod\n    user: dev-admin',
      '- name: prod\n  context:\n    cluster: prod\n    user: ghost',
    );
    const error = thrown(() => load(writeConfig(text), { context: 'prod' }));
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
    expect((error as Error).message).toContain('names user "ghost", which is not defined');
  });

  it('rejects a kubeconfig with no current-context when no context is given', () => {
    const error = thrown(() => load(writeConfig(kubeconfigText({ currentContext: null }))));
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
    expect((error as Error).message).toContain('no current-context');
  });

  it('rejects a server URL with embedded credentials without repeating them', () => {
    const password = `kp-secret-pw-${randomBytes(8).toString('hex')}`;
    const error = thrown(() => load(writeConfig(kubeconfigText({ server: `https://admin:${password}@127.0.0.1:6443` }))));
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
    expect((error as Error).message).toContain('must not embed credentials');
    expectNoSecrets(error, [password]);
  });

  it('rejects an unparsable server URL', () => {
    const error = thrown(() => load(writeConfig(kubeconfigText({ server: 'not a url' }))));
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
    expect((error as Error).message).toContain('invalid server URL');
  });
});

describe('contexts and namespaces', () => {
  it('throws UnknownContextError listing the available contexts', () => {
    const error = thrown(() => load(writeConfig(kubeconfigText()), { context: 'staging' }));
    expect(error).toBeInstanceOf(UnknownContextError);
    expect((error as UnknownContextError).context).toBe('staging');
    expect((error as UnknownContextError).available).toEqual(['dev', 'prod']);
    expect((error as Error).message).toBe('Context "staging" is not in the kubeconfig (available: dev, prod)');
  });

  it('throws UnknownContextError when current-context names a context that does not exist', () => {
    const error = thrown(() => load(writeConfig(kubeconfigText({ currentContext: 'gone' }))));
    expect(error).toBeInstanceOf(UnknownContextError);
    expect((error as UnknownContextError).context).toBe('gone');
  });

  it('uses current-context by default and the given context when named', () => {
    const path = writeConfig(kubeconfigText());
    expect(load(path)).toMatchObject({ context: 'dev', server: 'https://127.0.0.1:6443' });
    const prod = load(path, { context: 'prod' });
    expect(prod).toMatchObject({ context: 'prod', server: 'https://10.20.0.1:6443' });
    expect(prod.config.getCurrentContext()).toBe('prod');
  });

  it("resolves the namespace: the option first, then the context's namespace, then default", () => {
    const path = writeConfig(kubeconfigText());
    expect(load(path, { namespace: 'override' }).namespace).toBe('override');
    expect(load(path).namespace).toBe('team-a');
    expect(load(path, { context: 'prod' }).namespace).toBe('default');
  });

  it('exposes the same namespace and context on KubernetesApi.fromConfig', () => {
    const path = writeConfig(kubeconfigText({ server: 'https://127.0.0.1:6443/' }));
    const api = KubernetesApi.fromConfig({ kubeconfigPath: path });
    expect(api.namespace).toBe('team-a');
    expect(api.context).toBe('dev');
    expect(api.server).toBe('https://127.0.0.1:6443');
  });
});

describe('TLS verification default', () => {
  it('keeps verification on for a kubeconfig with insecure-skip-tls-verify unless tlsVerify is false', () => {
    const path = writeConfig(kubeconfigText({ insecure: true }));
    expect(load(path).config.getCurrentCluster()?.skipTLSVerify).toBe(false);
    expect(load(path, { tlsVerify: true }).config.getCurrentCluster()?.skipTLSVerify).toBe(false);
    expect(load(path, { tlsVerify: false }).config.getCurrentCluster()?.skipTLSVerify).toBe(true);
  });

  it('turns verification off for a kubeconfig without insecure-skip-tls-verify only when tlsVerify is false', () => {
    const path = writeConfig(kubeconfigText());
    expect(load(path).config.getCurrentCluster()?.skipTLSVerify).toBe(false);
    expect(load(path, { tlsVerify: false }).config.getCurrentCluster()?.skipTLSVerify).toBe(true);
  });

  it('refuses a plain http:// server unless tlsVerify is false', () => {
    const path = writeConfig(kubeconfigText({ server: 'http://127.0.0.1:8080' }));
    const error = thrown(() => load(path));
    expect(error).toBeInstanceOf(KubeconfigInvalidError);
    expect((error as Error).message).toContain('uses plain http');
    expect(load(path, { tlsVerify: false }).server).toBe('http://127.0.0.1:8080');
  });

  it('refuses a plain http:// server even when the kubeconfig says insecure-skip-tls-verify', () => {
    const path = writeConfig(kubeconfigText({ server: 'http://127.0.0.1:8080', insecure: true }));
    expect(thrown(() => load(path))).toBeInstanceOf(KubeconfigInvalidError);
  });
});

describe('file references', () => {
  it('resolves relative client-certificate and client-key paths against the kubeconfig folder, and reads them once, as data', () => {
    const sub = join(dir, 'relative');
    mkdirSync(sub, { recursive: true });
    const text = kubeconfigText()
      .replace(`    client-certificate-data: ${b64(certPem)}`, '    client-certificate: ../client.crt')
      .replace(`    client-key-data: ${b64(keyPem)}`, '    client-key: ../client.key');
    const path = writeConfig(text, 'relative/config');
    const user = load(path).config.getCurrentUser();
    // client-node gets the files' contents: it never reads a file itself.
    expect(user?.certFile).toBeUndefined();
    expect(user?.keyFile).toBeUndefined();
    expect(Buffer.from(user?.certData ?? '', 'base64').toString()).toBe(readFileSync(join(dir, 'client.crt'), 'utf8'));
    expect(Buffer.from(user?.keyData ?? '', 'base64').toString()).toBe(readFileSync(join(dir, 'client.key'), 'utf8'));
  });
});
