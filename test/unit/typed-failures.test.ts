// Every failure path ends in a typed error with its documented exit code, never exit 1:
// kubeconfig values of the wrong type, files it names that cannot be read, TLS material Node
// would refuse, exec plugins (in credential-matrix.test.ts). And the command line names the
// flag the user typed, never the API field. Real kubeconfig files in a temp folder; no
// server is contacted in this file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCreateArgs } from '../../src/cli/args.js';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/run.js';
import * as api from '../../src/index.js';
import { KubeconfigInvalidError } from '../../src/errors/kubeconfig.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import { makeTestCertificates, type TestCertificates } from '../support/tls.js';

let certs: TestCertificates;
let other: TestCertificates;
let dir: string;
const b64 = (text: string) => Buffer.from(text).toString('base64');

beforeAll(() => {
  certs = makeTestCertificates('kp-typed-');
  other = makeTestCertificates('kp-typed-other-');
  dir = mkdtempSync(join(tmpdir(), 'kp-typed-configs-'));
});

afterAll(() => {
  for (const folder of [certs.dir, other.dir, dir]) rmSync(folder, { recursive: true, force: true });
});

interface Parts {
  readonly cluster?: readonly string[];
  readonly user?: readonly string[];
  readonly context?: readonly string[];
  readonly top?: readonly string[];
}

let counter = 0;
function config(parts: Parts): string {
  const path = join(dir, `config-${++counter}`);
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: c',
      ...(parts.top ?? [
        'clusters:',
        '- name: c',
        '  cluster:',
        ...(parts.cluster ?? ['    server: https://127.0.0.1:6443']),
        'users:',
        '- name: u',
        '  user:',
        ...(parts.user ?? ['    token: a-token-value']),
        'contexts:',
        '- name: c',
        '  context:',
        '    cluster: c',
        '    user: u',
        ...(parts.context ?? []),
      ]),
      '',
    ].join('\n'),
  );
  return path;
}

/** BASE_FLAGS with these flags in place of its own (a flag given twice is refused). */
function withOverrides(overrides: readonly string[]): string[] {
  const names = new Set(overrides.filter((arg) => arg.startsWith('-')).map((arg) => arg.split('=')[0]!));
  const kept: string[] = [];
  for (let index = 0; index < BASE_FLAGS.length; index += 1) {
    const arg = BASE_FLAGS[index]!;
    if (names.has(arg)) index += 1;
    else kept.push(arg);
  }
  return [...kept, ...overrides];
}

const BASE_FLAGS = [
  'create',
  '--container-id',
  '1',
  '--node-id',
  '1',
  '--hostname',
  'web',
  '--image',
  'nginx',
  '--cpus',
  '1',
  '--memory-mb',
  '64',
];

async function cli(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { stdout: (line) => out.push(line), stderr: (line) => err.push(line) });
  return { code, out, err };
}

describe('kubeconfig problems are KubeconfigInvalidError naming the field (exit 5), before any request', () => {
  it.each([
    [
      'a number where the namespace belongs',
      { context: ['    namespace: 123'] },
      /contexts\[0\]\.context\.namespace must be a string \(got a number\)/,
    ],
    [
      'namespace 0 (which client-node would quietly drop)',
      { context: ['    namespace: 0'] },
      /contexts\[0\]\.context\.namespace must be a string/,
    ],
    ['a namespace that is not a DNS label', { context: ['    namespace: Team_A'] }, /context "c" namespace must be a DNS-1123 label/],
    [
      'a number where the server belongs',
      { cluster: ['    server: 6443'] },
      /clusters\[0\]\.cluster\.server must be a string \(got a number\)/,
    ],
    ['a number where the token belongs', { user: ['    token: 12345'] }, /users\[0\]\.user\.token must be a string \(got a number\)/],
    [
      'insecure-skip-tls-verify as text',
      { cluster: ['    server: https://x', '    insecure-skip-tls-verify: "yes"'] },
      /insecure-skip-tls-verify must be a boolean/,
    ],
    [
      'exec args that are not a list',
      { user: ['    exec: {command: /bin/true, args: "--token"}'] },
      /users\[0\]\.user\.exec\.args must be a list/,
    ],
    [
      'an exec env value that is a number',
      { user: ['    exec: {command: /bin/true, env: [{name: A, value: 1}]}'] },
      /exec\.env\[0\]\.value must be a string/,
    ],
    ['an exec plugin without a command', { user: ['    exec: {args: [x]}'] }, /users\[0\]\.user\.exec\.command must be a non-empty string/],
    ['clusters that are not a list', { top: ['clusters: {c: 1}', 'users: []', 'contexts: []'] }, /clusters must be a list/],
    [
      'a missing certificate-authority file',
      { cluster: ['    server: https://x', '    certificate-authority: /nonexistent/ca.crt'] },
      /cluster "c" certificate-authority file \/nonexistent\/ca\.crt cannot be read \(ENOENT\)/,
    ],
    [
      'certificate-authority-data that is not PEM',
      { cluster: ['    server: https://x', `    certificate-authority-data: ${b64('not a certificate')}`] },
      /certificate-authority-data is not a PEM certificate/,
    ],
    [
      'a missing token-file',
      { user: ['    token-file: /nonexistent/token'] },
      /users\[0\]\.user\.token-file \/nonexistent\/token cannot be read \(ENOENT\)/,
    ],
  ] as const)('%s', async (_label, parts, message) => {
    const path = config(parts);
    const attempt = () => KubernetesApi.fromConfig({ kubeconfigPath: path });
    expect(attempt).toThrow(KubeconfigInvalidError);
    expect(attempt).toThrow(message);
    const { code, err } = await cli([...BASE_FLAGS, '--kubeconfig', path]);
    expect(code).toBe(EXIT.apiError);
    expect(err[0]).toMatch(message);
  });

  it('client key material Node would refuse: invalid client-key-data, a key of another certificate, a certificate without a key', async () => {
    const cases: [string[], RegExp][] = [
      [
        [`    client-certificate-data: ${b64(certs.clientCertPem)}`, `    client-key-data: ${b64('garbage that is not a key')}`],
        /client-key-data is not a PEM private key/,
      ],
      [
        [`    client-certificate-data: ${b64(certs.clientCertPem)}`, `    client-key-data: ${b64(other.clientKeyPem)}`],
        /client-certificate-data and client-key-data do not belong together/,
      ],
      [[`    client-certificate-data: ${b64(certs.clientCertPem)}`], /has a client-certificate-data but no client-key/],
      [
        [`    client-certificate: ${join(certs.dir, 'client.crt')}`, '    client-key: /nonexistent/client.key'],
        /client-key file \/nonexistent\/client\.key cannot be read \(ENOENT\)/,
      ],
    ];
    for (const [user, message] of cases) {
      const path = config({ user });
      expect(() => KubernetesApi.fromConfig({ kubeconfigPath: path })).toThrow(message);
      const { code, err } = await cli([...BASE_FLAGS, '--kubeconfig', path]);
      expect(code).toBe(EXIT.apiError);
      expect(err.join('\n')).not.toContain('garbage that is not a key');
      expect(err.join('\n')).not.toContain(other.clientKeyPem.split('\n')[1]);
    }
  });

  it('a YAML error names the line only, never the text around it (it may hold a secret)', () => {
    const path = config({ user: ['    token: "hunter2-secret', '    oops: [unclosed'] });
    expect(() => KubernetesApi.fromConfig({ kubeconfigPath: path })).toThrow(/not valid YAML at line \d+/);
    try {
      KubernetesApi.fromConfig({ kubeconfigPath: path });
    } catch (error) {
      expect(String(error)).not.toContain('hunter2');
    }
  });
});

describe('the command line names the flag the user typed', () => {
  it.each([
    [['--memory-mb', 'abc'], '--memory-mb: must be a finite whole number of MB'],
    [['--cpus', 'abc'], '--cpus: must be a finite number of CPU cores'],
    [['--cpus', '0.0001'], '--cpus: must be at least 0.001'],
    [['--hostname', 'Web_1'], '--hostname: must be a DNS-1123 label'],
    [['--image', 'Nginx'], '--image: the repository path "Nginx" must be lowercase'],
    [['--env', 'A B=1'], '--env A B: must be an environment variable name'],
    [['--entrypoint', '"unterminated'], '--entrypoint: cannot be split into words'],
    [['--arg=ok', '--arg=\uD800'], '--arg #2: must be valid Unicode text'],
    [['--container-id=-1'], '--container-id: must be a Kubernetes label value'],
  ])('%j', async (flags, message) => {
    const { code, err } = await cli([...withOverrides(flags), '--kubeconfig', '/nonexistent']);
    expect(code).toBe(EXIT.invalidInput);
    expect(err[0]).toContain(message);
    expect(err[0]).not.toMatch(/memoryMb|containerId/);
  });

  it('names the spec file field when the value came from the file, and the flag when a flag overrode it', async () => {
    const file = join(dir, 'spec.json');
    writeFileSync(
      file,
      JSON.stringify({ containerId: 1, nodeId: 1, hostname: 'web', image: 'nginx', cpus: 1, memoryMb: 'lots', env: { 'BAD NAME': 'x' } }),
    );
    const { code, err, out } = await cli(['create', '-f', file, '--env', 'A-B=1', '-o', 'json']);
    expect(code).toBe(EXIT.invalidInput);
    expect(err[0]).toContain('--spec-file field memoryMb: must be a finite whole number of MB');
    expect(err[0]).toContain('--spec-file field env.BAD NAME:');
    expect(err[0]).toContain('--env A-B:');
    const record = JSON.parse(out[0] ?? '{}') as { issues: { path: string; flag: string }[] };
    expect(record.issues).toContainEqual(expect.objectContaining({ path: 'memoryMb', flag: '--spec-file field memoryMb' }));
  });

  it('accepts --cpus .5 (and 5e-1, +2) as the numbers they are', () => {
    for (const [text, cpus] of [
      ['.5', 0.5],
      ['5e-1', 0.5],
      ['+2', 2],
      [' 1.25 ', 1.25],
    ] as const) {
      const command = parseCreateArgs([...BASE_FLAGS.slice(1, -4), '--cpus', text, '--memory-mb', '64']);
      expect(command !== 'help' && parseWorkloadSpec(command.spec).cpus).toBe(cpus);
    }
  });

  it('keeps --env names like __proto__ and constructor, and refuses a variable given twice', () => {
    const command = parseCreateArgs([...BASE_FLAGS.slice(1), '--env', '__proto__=x', '--env', 'constructor=y', '--env', 'toString=z']);
    const env = command !== 'help' ? parseWorkloadSpec(command.spec).env : {};
    expect(Object.keys(env).sort()).toEqual(['__proto__', 'constructor', 'toString']);
    expect(() => parseCreateArgs([...BASE_FLAGS.slice(1), '--env', 'A=1', '--env', 'A=2'])).toThrow(/--env A is given twice/);
  });

  it('refuses --namespace that is not a DNS label, naming the flag', async () => {
    const { code, err } = await cli([...BASE_FLAGS, '-n', 'Team_A']);
    expect(code).toBe(EXIT.invalidInput);
    expect(err[0]).toMatch(/^error: UsageError: --namespace must be a DNS-1123 label/);
  });

  it('echoes control characters escaped: one error, one line', async () => {
    const { err } = await cli(withOverrides(['--hostname', 'we\nb', '--env', 'A\r\nB=1']));
    expect(err[0]).toContain('--hostname: ');
    for (const line of err) expect(line).not.toMatch(/[\n\r]/);
  });
});

describe('exit codes: every error class the library exports has its documented code, none 1', () => {
  const documented = new Set<number>([
    EXIT.invalidInput,
    EXIT.rolloutFailed,
    EXIT.timeout,
    EXIT.apiError,
    EXIT.conflict,
    EXIT.notFound,
    EXIT.superseded,
    EXIT.aborted,
  ]);
  const classes = Object.entries(api).filter(
    ([name, value]) => typeof value === 'function' && /Error$/.test(name) && value.prototype instanceof api.KubeProvisionerError,
  );

  it.each(classes.map(([name, value]) => [name, value] as const))('%s', (_name, ErrorClass) => {
    const instance = Object.create((ErrorClass as { prototype: object }).prototype) as Error;
    expect(documented.has(exitCodeFor(instance))).toBe(true);
  });
});
