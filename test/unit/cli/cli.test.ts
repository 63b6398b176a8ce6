// Unit tests for the CLI's flag parsing, durations, exit codes and output lines. Runs
// runCli in-process with captured output; paths that reach a cluster are covered by the
// integration suite (test/integration/cli.test.ts) against the real control plane.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCreateArgs } from '../../../src/cli/args.js';
import { parseDuration } from '../../../src/cli/duration.js';
import { UsageError } from '../../../src/errors/input.js';
import { EXIT, exitCodeFor } from '../../../src/cli/exit-codes.js';
import { formatEventLine } from '../../../src/cli/format.js';
import { runCli } from '../../../src/cli/run.js';
import { ApiUnreachableError, ConflictError, ForbiddenError } from '../../../src/errors/api.js';
import { InvalidSpecError } from '../../../src/errors/input.js';
import { KubeconfigNotFoundError } from '../../../src/errors/kubeconfig.js';
import { ProvisionAbortedError, RolloutFailedError, RolloutTimeoutError } from '../../../src/errors/rollout.js';

const base = [
  '--container-id',
  '42',
  '--node-id',
  '7',
  '--hostname',
  'web',
  '--image',
  'nginx:1.27',
  '--cpus',
  '0.5',
  '--memory-mb',
  '512',
];

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { stdout: (l) => out.push(l), stderr: (l) => err.push(l) });
  return { code, out, err };
}

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['5m', 300_000],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['250ms', 250],
    ['45', 45_000],
    ['1.5s', 1500],
    ['1.1s', 1100],
    ['0.001s', 1],
    ['0s', 0],
    ['-1s', -1000],
    ['1.5ms', 1.5],
    ['infinity', Infinity],
    ['Infinity', Infinity],
    ['2147483648ms', 2 ** 31],
    ['9007199254740992ms', 2 ** 53],
  ])("%s -> %d ms (exactly; the range is the duration rule's call)", (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(['', 'abc', '5x', '5m garbage', 'NaN', '1e3s', '0x10s', '--1s'])('rejects %j', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );
});

describe('parseCreateArgs', () => {
  it('maps kubectl-style flags and spec flags', () => {
    const command = parseCreateArgs([
      ...base,
      '--env',
      'A=1',
      '--env',
      'B=x=y',
      '--env',
      'EMPTY=',
      '--entrypoint',
      'nginx -g "daemon off;"',
      '--arg=--verbose',
      '--instance',
      'manager-dev',
      '--kubeconfig',
      '/tmp/kc',
      '--context',
      'ctx',
      '-n',
      'apps',
      '--timeout',
      '2m',
      '-o',
      'json',
      '--progress-deadline',
      '90s',
      '--keep-on-failure',
    ]);
    expect(command).toEqual({
      api: { kubeconfigPath: '/tmp/kc', context: 'ctx', namespace: 'apps' },
      spec: {
        containerId: '42',
        nodeId: '7',
        hostname: 'web',
        image: 'nginx:1.27',
        cpus: 0.5,
        memoryMb: 512,
        env: { A: '1', B: 'x=y', EMPTY: '' },
        entrypoint: 'nginx -g "daemon off;"',
        args: ['--verbose'],
        instance: 'manager-dev',
      },
      sources: {
        fromFlags: new Set(['containerId', 'nodeId', 'hostname', 'image', 'cpus', 'memoryMb', 'entrypoint', 'instance', 'args']),
        envFromFlags: new Set(['A', 'B', 'EMPTY']),
      },
      timeoutMs: 120_000,
      progressDeadlineSeconds: 90,
      keepOnFailure: true,
      output: 'json',
    });
  });

  it('defaults: 5 minute timeout, text output, TLS verification on', () => {
    const command = parseCreateArgs(base);
    expect(command).toMatchObject({ timeoutMs: 300_000, output: 'text', api: {}, keepOnFailure: false });
    expect(parseCreateArgs([...base, '--insecure-skip-tls-verify'])).toMatchObject({ api: { tlsVerify: false } });
  });

  it('reads a JSON spec file (or stdin) and lets flags override it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kp-cli-'));
    const file = join(dir, 'spec.json');
    writeFileSync(
      file,
      JSON.stringify({ containerId: 1, nodeId: 2, hostname: 'a', image: 'nginx', cpus: 1, memoryMb: 64, env: { X: '1' } }),
    );
    expect(parseCreateArgs(['-f', file, '--hostname', 'b', '--env', 'Y=2'])).toMatchObject({
      spec: { containerId: 1, hostname: 'b', env: { X: '1', Y: '2' } },
    });
    expect(parseCreateArgs(['--spec-file', '-'], () => '{"hostname":"c"}')).toMatchObject({ spec: { hostname: 'c' } });
  });

  it.each([
    [['--env', 'NOEQUALS'], /--env must be KEY=VALUE/],
    [['--timeout', 'soon'], /--timeout must be a duration/],
    [['--output', 'yaml'], /--output must be "text" or "json"/],
    [['--unknown'], /Unknown option '--unknown'/],
    [['--spec-file', '/nonexistent/spec.json'], /cannot be read \(ENOENT\)/],
  ])('usage error for %j', (argv, message) => {
    expect(() => parseCreateArgs(argv)).toThrow(UsageError);
    expect(() => parseCreateArgs(argv)).toThrow(message);
  });
});

describe('exit codes', () => {
  const where = { namespace: 'default', name: 'web' };
  it.each([
    [new UsageError('x'), EXIT.invalidInput],
    [new InvalidSpecError([{ path: 'image', message: 'bad' }]), EXIT.invalidInput],
    [new RolloutFailedError(where, 'ImagePullBackOff', 'x'), EXIT.rolloutFailed],
    [new RolloutTimeoutError(where, 1000, undefined), EXIT.timeout],
    [new ConflictError('taken'), EXIT.conflict],
    [new ForbiddenError({ verb: 'create', resource: 'deployments' }), EXIT.apiError],
    [new ApiUnreachableError('https://x', 'ECONNREFUSED'), EXIT.apiError],
    [new KubeconfigNotFoundError('/x'), EXIT.apiError],
    [new ProvisionAbortedError(where, 'SIGINT'), EXIT.aborted],
    [new Error('bug'), EXIT.unexpected],
  ])('%s -> %d', (error, code) => expect(exitCodeFor(error)).toBe(code));
  it('are all distinct', () => expect(new Set(Object.values(EXIT)).size).toBe(Object.values(EXIT).length));
});

describe('runCli', () => {
  it('invalid input exits 2 before reading any kubeconfig, listing every problem', async () => {
    const result = await run([
      'create',
      '--container-id',
      '42',
      '--node-id',
      '7',
      '--hostname',
      'Bad_Name',
      '--image',
      'nginx',
      '--cpus',
      '0',
      '--memory-mb',
      '512',
      '--kubeconfig',
      '/nonexistent/kubeconfig',
    ]);
    expect(result.code).toBe(EXIT.invalidInput);
    expect(result.err.join('\n')).toMatch(/InvalidSpecError: .*hostname: .*cpus: /);
    expect(result.out).toEqual([]);
  });

  it('a missing kubeconfig exits 5 and names the path', async () => {
    const result = await run(['create', ...base, '--kubeconfig', '/nonexistent/kubeconfig']);
    expect(result.code).toBe(EXIT.apiError);
    expect(result.err[0]).toBe('error: KubeconfigNotFoundError: Kubeconfig not found at /nonexistent/kubeconfig');
  });

  it('-o json prints errors as one JSON line on stdout', async () => {
    const withoutCpus = base.filter((arg, index) => arg !== '--cpus' && base[index - 1] !== '--cpus');
    const result = await run(['create', ...withoutCpus, '--cpus', 'many', '-o', 'json']);
    expect(result.code).toBe(EXIT.invalidInput);
    const record = JSON.parse(result.out[0]!);
    expect(record).toMatchObject({ type: 'error', name: 'InvalidSpecError', issues: [{ path: 'cpus' }] });
  });

  it('help and unknown commands', async () => {
    expect((await run(['create', '--help'])).out[0]).toMatch(/Usage: kube-provision create/);
    expect((await run(['delete'])).code).toBe(EXIT.invalidInput);
    expect((await run([])).code).toBe(EXIT.invalidInput);
  });
});

describe('formatEventLine', () => {
  it('one line per event, with time and provider ID', () => {
    const common = { at: '2026-11-29T15:04:05.678Z', namespace: 'default', name: 'web', providerId: 'default/web' };
    expect(formatEventLine({ type: 'created', uid: 'u', ...common })).toBe('15:04:05.678 default/web created Deployment');
    expect(formatEventLine({ type: 'ready', adopted: false, durationMs: 3210, ...common })).toBe('15:04:05.678 default/web ready in 3.2s');
  });
});
