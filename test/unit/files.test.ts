// Paths a user can name (a kubeconfig, the files it names, a spec file, stdin) never hang,
// flood or freeze the process: a named pipe, /dev/zero, /dev/urandom or a huge file is a
// typed error naming the field and the rule, at once; signals keep working while stdin is
// read. The built CLI and package run as child processes (a blocking read would freeze the
// test runner itself); they are killed if they do not end on their own.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_FILE_BYTES, readRegularFile } from '../../src/kube/read-file.js';
import { REPOSITORY_ROOT, runNode, type ProcessRun } from '../support/run-process.js';

const CLI = join(REPOSITORY_ROOT, 'dist/cli/main.js');
/** Well past "at once": a process still running then is hung (and killed; the test gives it longer). */
const HUNG_AFTER_MS = 10_000;
const TEST_TIMEOUT_MS = 30_000;
const RULE = 'must be a regular file of at most 4194304 bytes (4 MiB)';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

let dir: string;
let fifo: string;
let huge: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kp-files-'));
  fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  huge = join(dir, 'huge');
  writeFileSync(huge, '');
  truncateSync(huge, 100 * 1024 * 1024); // sparse: 100 MB to read, nothing on disk
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Parts {
  readonly user?: readonly string[];
  readonly cluster?: readonly string[];
  readonly unusedUser?: readonly string[];
}

/** A kubeconfig with one context; `user` lines and `cluster` lines added, and an unused user. */
function kubeconfig(name: string, parts: Parts = {}): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: c',
      'clusters:',
      '- name: c',
      '  cluster:',
      '    server: https://127.0.0.1:1',
      ...(parts.cluster ?? []),
      'users:',
      '- name: u',
      '  user:',
      ...(parts.user ?? ['    token: abc']),
      '- name: unused',
      '  user:',
      ...(parts.unusedUser ?? ['    token: def']),
      'contexts:',
      '- name: c',
      '  context: {cluster: c, user: u}',
      '',
    ].join('\n'),
  );
  return path;
}

/** For the README's hostile-input table: the built CLI runs on hostile paths, the slowest, and how many hung. */
const figures = { cliRuns: 0, slowestMs: 0, hung: 0 };
afterAll(() => console.log(`[reliability] files: ${JSON.stringify(figures)}`));

async function cli(args: readonly string[]): Promise<ProcessRun> {
  const run = await runNode([CLI, ...args], { killAfterMs: HUNG_AFTER_MS });
  figures.cliRuns += 1;
  figures.slowestMs = Math.max(figures.slowestMs, Math.round(run.ms));
  if (run.code === null) figures.hung += 1;
  expect(run.code, `kube-provision ${args.join(' ')} did not end on its own (killed after ${HUNG_AFTER_MS} ms)`).not.toBeNull();
  return run;
}

describe('the kubeconfig itself', () => {
  it.each([
    ['a named pipe', () => fifo, 'is a named pipe (FIFO), not a regular file'],
    ['/dev/zero', () => '/dev/zero', 'is a character device, not a regular file'],
    ['/dev/urandom', () => '/dev/urandom', 'is a character device, not a regular file'],
    ['a directory', () => dir, 'is a directory, not a regular file'],
    ['a 100 MB file', () => huge, 'is larger than 4194304 bytes'],
  ])('%s: exit 5 at once, naming the file and the rule', async (_what, path, problem) => {
    const run = await cli(['get', '--kubeconfig', path()]);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(
      `error: KubeconfigInvalidError: Kubeconfig at ${path()} is invalid: the file ${problem}: a kubeconfig ${RULE}`,
    );
  });
});

describe('the files a kubeconfig names', () => {
  it.each<readonly [string, () => Parts, () => string]>([
    [
      "the user's token-file is a named pipe",
      () => ({ user: [`    token-file: ${fifo}`] }),
      () => `users[0].user.token-file ${fifo} is a named pipe (FIFO), not a regular file`,
    ],
    [
      'the certificate-authority is /dev/urandom',
      () => ({ cluster: ['    certificate-authority: /dev/urandom'] }),
      () => 'cluster "c" certificate-authority file /dev/urandom is a character device, not a regular file',
    ],
    [
      'the client-key is /dev/zero',
      () => ({ user: ['    client-certificate-data: eA==', '    client-key: /dev/zero'] }),
      () => 'user "u" client-key file /dev/zero is a character device, not a regular file',
    ],
    [
      'the client-certificate is 100 MB',
      () => ({ user: [`    client-certificate: ${huge}`, '    client-key-data: eA=='] }),
      () => `user "u" client-certificate file ${huge} is larger than 4194304 bytes`,
    ],
  ])('%s: exit 5 at once, naming the field and the rule', async (_what, parts, problem) => {
    const path = kubeconfig(`config-${Math.random().toString(36).slice(2)}`, parts());
    const run = await cli(['get', '--kubeconfig', path]);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(`${problem()}: every file a kubeconfig names ${RULE}`);
  });

  it("an unused user's token-file is never read (a named pipe there does not hang the current context)", async () => {
    const path = kubeconfig('config-unused-fifo', { unusedUser: [`    token-file: ${fifo}`] });
    // The current context loads and is used: the API server at 127.0.0.1:1 is simply unreachable.
    const run = await cli(['get', '--kubeconfig', path, '--request-timeout', '2s']);
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/ApiUnreachableError|ApiTimeoutError/);
  });

  it('a relative file is read relative to the kubeconfig, as kubectl does', async () => {
    writeFileSync(join(dir, 'token.txt'), 'from-the-file\n');
    const path = kubeconfig('config-relative', { user: ['    token-file: token.txt'] });
    const run = await runNode(
      [
        '--input-type=module',
        '-e',
        `import { KubernetesApi } from ${JSON.stringify(join(REPOSITORY_ROOT, 'dist/index.js'))};
         const api = KubernetesApi.fromConfig({ kubeconfigPath: ${JSON.stringify(path)} });
         console.log(api.scrub('Bearer from-the-file'));`,
      ],
      { killAfterMs: HUNG_AFTER_MS },
    );
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('Bearer ***');
  });
});

describe('Manager: checkKubernetesNode', () => {
  it('a node whose kubeconfigPath is a named pipe: a failing kubeconfig item at once, the process never frozen', async () => {
    const run = await runNode(
      [
        '--input-type=module',
        '-e',
        `import { checkKubernetesNode } from ${JSON.stringify(join(REPOSITORY_ROOT, 'dist/manager/index.js'))};
         const { ok, report } = await checkKubernetesNode({ kubeconfigPath: ${JSON.stringify(fifo)} });
         console.log(JSON.stringify({ ok, item: report.items.find((item) => item.id === 'kubeconfig') }));`,
      ],
      { killAfterMs: HUNG_AFTER_MS },
    );
    expect(run.code, 'checkKubernetesNode did not return').toBe(0);
    const { ok, item } = JSON.parse(run.stdout) as { ok: boolean; item: { status: string; message: string } };
    expect(ok).toBe(false);
    expect(item.status).toBe('fail');
    expect(item.message).toContain('is a named pipe (FIFO), not a regular file');
  });
});

describe('the spec file', () => {
  it('--spec-file of a named pipe or a device: exit 2 at once, naming the flag and the rule', async () => {
    for (const [path, problem] of [
      [fifo, 'is a named pipe (FIFO), not a regular file'],
      ['/dev/zero', 'is a character device, not a regular file'],
      [huge, 'is larger than 4194304 bytes'],
    ] as const) {
      const run = await cli(['create', '--spec-file', path]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`error: UsageError: --spec-file ${path} ${problem}: a spec file ${RULE}`);
    }
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('-f - with nothing on stdin: %s still ends it (exit 130)', async (signal) => {
    const child = spawn(process.execPath, [CLI, 'create', '-f', '-'], { cwd: REPOSITORY_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), HUNG_AFTER_MS);
    // Let it start and wait on stdin (which stays open: nobody writes, nobody closes it).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    child.kill(signal);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    expect(code, `${signal} did not end it (killed)`).toBe(130);
    expect(stderr).toContain('ProvisionAbortedError');
  });

  it('-f - reads a spec from stdin', async () => {
    const child = spawn(process.execPath, [CLI, 'create', '-f', '-', '--kubeconfig', fifo], { cwd: REPOSITORY_ROOT });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), HUNG_AFTER_MS);
    child.stdin.end(JSON.stringify({ containerId: 1, nodeId: 1, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 64 }));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    // The spec was read and is valid: the kubeconfig (a pipe) is what fails.
    expect(stderr).toContain('is a named pipe (FIFO), not a regular file');
    expect(code).toBe(5);
  });
});

describe('readRegularFile', () => {
  it('reads a regular file whole, and refuses one past the bound without reading it', () => {
    const path = join(dir, 'small');
    writeFileSync(path, 'hello');
    const small = readRegularFile(path);
    expect(small.ok && small.bytes.toString()).toBe('hello');
    expect(readRegularFile(path, 4)).toEqual({ ok: false, code: undefined, problem: 'is larger than 4 bytes' });
    expect(readRegularFile(join(dir, 'missing'))).toEqual({ ok: false, code: 'ENOENT', problem: 'cannot be read (ENOENT)' });
    expect(MAX_FILE_BYTES).toBe(4 * 1024 * 1024);
  });
});
