// `kube-provision check` and `kube-provision nodes` in-process (no cluster): flags, the
// table and JSON output, exit codes. test/integration/check.test.ts runs them as child
// processes against the real control plane.
import { describe, expect, it } from 'vitest';
import { formatCheckReport, parseCheckArgs } from '../../../src/cli/commands/check.js';
import { formatNodes, parseNodesArgs } from '../../../src/cli/commands/nodes.js';
import { runCli } from '../../../src/cli/run.js';
import type { CheckReport } from '../../../src/cluster/check-report.js';
import { fitsOnNodes } from '../../../src/cluster/fits.js';
import { nodeInfo, requestedBy } from '../../../src/cluster/node-info.js';
import { UsageError } from '../../../src/errors/input.js';
import { node, pod } from '../cluster/fixtures.js';

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { stdout: (line) => out.push(line), stderr: (line) => err.push(line) });
  return { code, out, err };
}

describe('kube-provision check: flags', () => {
  it('maps kubectl-style flags, the spec flags and the check options', () => {
    expect(
      parseCheckArgs([
        '--kubeconfig',
        '/k',
        '--context',
        'prod',
        '-n',
        'team-a',
        '--insecure-skip-tls-verify',
        '--cpus',
        '0.5',
        '--memory-mb',
        '256',
        '--needs',
        'create',
        '--timeout',
        '5s',
        '-o',
        'json',
      ]),
    ).toEqual({
      api: { kubeconfigPath: '/k', context: 'prod', namespace: 'team-a', tlsVerify: false },
      spec: { cpus: 0.5, memoryMb: 256 },
      needs: 'create',
      timeoutMs: 5000,
      bootTimeoutMs: 180_000,
      output: 'json',
    });
    expect(parseCheckArgs([])).toMatchObject({ spec: undefined, needs: 'lifecycle', timeoutMs: 10_000, output: 'text', api: {} });
  });

  it.each([
    [['--cpus', '1'], '--cpus and --memory-mb go together'],
    [['--needs', 'all'], '--needs must be one of create, lifecycle'],
    [['--timeout', 'soon'], '--timeout must be a duration'],
    [['-o', 'yaml'], '--output must be "text" or "json"'],
    [['--bogus'], "Unknown option '--bogus'"],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseCheckArgs(argv)).toThrow(UsageError);
    expect(() => parseCheckArgs(argv)).toThrow(message);
  });

  it('a bad spec flag names the flag and exits 2 before reading a kubeconfig', async () => {
    const { code, err } = await run(['check', '--kubeconfig', '/nonexistent', '--cpus', '0', '--memory-mb', '64']);
    expect(code).toBe(2);
    expect(err[0]).toBe('error: UsageError: --cpus must be greater than 0 (got 0)');
  });

  it('a bad --namespace or --gpu-resource names the value given, and the rule', async () => {
    const namespace = await run(['check', '--kubeconfig', '/nonexistent', '-n', 'Team_A']);
    expect(namespace.code).toBe(2);
    expect(namespace.err[0]).toMatch(/^error: UsageError: --namespace must be a DNS-1123 label: .* \(got "Team_A"\)$/);
    const resource = await run([
      'check',
      '--kubeconfig',
      '/nonexistent',
      '--cpus',
      '1',
      '--memory-mb',
      '64',
      '--gpus',
      '1',
      '--gpu-resource',
      'gpu',
    ]);
    expect(resource.code).toBe(2);
    expect(resource.err[0]).toMatch(/^error: UsageError: --gpu-resource must be an extended resource name.* \(got "gpu"\)$/);
  });
});

describe('kube-provision check: output and exit codes', () => {
  it('a kubeconfig that does not load: the table, the failing item, exit 5', async () => {
    const { code, out } = await run(['check', '--kubeconfig', '/nonexistent/config', '-n', 'team-a']);
    expect(code).toBe(5);
    expect(out[0]).toBe('Checked no server, namespace team-a in 0 ms: NOT READY: 1 needed item failed');
    expect(out[1]).toMatch(/^ITEM +STATUS +DETAIL$/);
    expect(out[2]).toMatch(/^kubeconfig +FAIL +Kubeconfig not found at \/nonexistent\/config$/);
    expect(out).toHaveLength(2 + 13);
  });

  it('-o json prints the report as one JSON object', async () => {
    const { code, out } = await run(['check', '--kubeconfig', '/nonexistent/config', '-o', 'json']);
    expect(code).toBe(5);
    expect(out).toHaveLength(1);
    const report = JSON.parse(out[0]!) as CheckReport;
    expect(report).toMatchObject({ ok: false, needs: 'lifecycle', items: expect.any(Array) });
    expect(report.items.map((item) => item.status)).toEqual(['fail', ...Array(12).fill('skip')]);
  });

  it('formats a ready report with warnings as ready, and each status as a word', () => {
    const report: CheckReport = {
      ok: true,
      namespace: 'default',
      server: 'https://k:6443',
      context: 'prod',
      kubeconfigPath: '/k',
      tlsVerify: false,
      needs: 'lifecycle',
      checkedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 42,
      items: [
        { id: 'tls', status: 'warn', needed: true, message: 'OFF', durationMs: 0 },
        { id: 'api', status: 'pass', needed: true, message: 'Kubernetes v1.36.3', durationMs: 3 },
        { id: 'resources', status: 'skip', needed: true, message: 'no spec given', durationMs: 0 },
      ],
    };
    expect(formatCheckReport(report)).toEqual([
      'Checked https://k:6443, context prod, namespace default in 42 ms: ready (1 warning)',
      'ITEM       STATUS  DETAIL',
      'tls        WARN    OFF',
      'api        ok      Kubernetes v1.36.3',
      'resources  skip    no spec given',
    ]);
  });

  it('--help prints the usage and exits 0; the top usage lists the commands', async () => {
    const help = await run(['check', '--help']);
    expect(help.code).toBe(0);
    expect(help.out[0]).toMatch(/^Usage: kube-provision check/);
    const top = await run(['help']);
    expect(top.out[0]).toMatch(/check +check that the cluster/);
    expect(top.out[0]).toMatch(/nodes +list the cluster's nodes/);
  });
});

describe('kube-provision nodes', () => {
  it('parses its flags; --watch and --timeout do not go together', () => {
    expect(parseNodesArgs(['-w', '--cpus', '1', '--memory-mb', '512', '-o', 'json'])).toEqual({
      api: {},
      request: { cpuMillicores: 1000, memoryBytes: 512 * 1024 ** 2 },
      watch: true,
      timeoutMs: 30_000,
      output: 'json',
    });
    expect(() => parseNodesArgs(['--watch', '--timeout', '5s'])).toThrow('--timeout bounds a single listing');
    expect(() => parseNodesArgs(['--cpus', 'x', '--memory-mb', '1'])).toThrow('--cpus must be a finite number');
  });

  it('prints one row per node and the fit verdict', () => {
    const infos = [
      nodeInfo(node('n1', { unschedulable: true }), requestedBy([pod('a', 'n1', '1500m', '1Gi')])),
      nodeInfo(node('n2'), requestedBy([])),
    ];
    const lines = formatNodes(infos, fitsOnNodes(infos, { cpuMillicores: 1000, memoryBytes: 1024 ** 3 }));
    expect(lines[0]).toMatch(
      /^NAME +STATUS +SINCE +SCHEDULABLE +INTERNAL-IP +EXTERNAL-IP +CPU REQ\/ALLOC +MEMORY REQ\/ALLOC +PODS +GPUS REQ\/ALLOC +TAINTS$/,
    );
    expect(lines[1]?.split(/ +/)).toEqual([
      'n1',
      'Ready',
      '2026-01-01T00:00:00.000Z',
      'cordoned',
      '10.0.0.5',
      '-',
      '1500m/4',
      '1Gi/8Gi',
      '1/110',
      '-',
      '-',
    ]);
    expect(lines[2]?.split(/ +/).slice(0, 4)).toEqual(['n2', 'Ready', '2026-01-01T00:00:00.000Z', 'yes']);
    expect(lines[3]).toBe('fits: 1 CPU and 1Gi memory fits on 1 of 2 node(s): n2 (a hint, not the scheduler)');
    expect(formatNodes([], undefined)).toEqual([expect.stringMatching(/^NAME/), '(no nodes)']);
  });

  it('a kubeconfig that does not load: one error line, exit 5', async () => {
    const { code, out, err } = await run(['nodes', '--kubeconfig', '/nonexistent/config']);
    expect(code).toBe(5);
    expect(out).toEqual([]);
    expect(err).toEqual(['error: KubeconfigNotFoundError: Kubeconfig not found at /nonexistent/config']);
  });
});
