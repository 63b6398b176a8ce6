// `npm run bench:check`: how long check() takes to answer, for a good configuration and for
// each way one can be wrong, and how long the same questions take asked one after another
// with kubectl (`kubectl version`, `kubectl auth whoami`, `kubectl get namespace`, and
// `kubectl auth can-i` once per permission), as an admin would check by hand. Runs on its
// own local control plane; prints a table and writes bench/results/check.md and check.json.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster } from '../scripts/control-plane/cluster.js';
import { check } from '../src/cluster/check.js';
import { OPERATION_PERMISSIONS } from '../src/cluster/permissions.js';
import { machineInfo } from './lib/machine.js';
import { selfSigned } from '../test/support/tls.js';

const RUNS = 7;

interface Scenario {
  readonly label: string;
  readonly kubeconfigPath: string;
  readonly context?: string;
  readonly namespace: string;
}

interface Row {
  readonly scenario: string;
  readonly failing: string;
  readonly medianMs: number;
  readonly maxMs: number;
  readonly kubectlMs?: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The same questions, asked one kubectl process after another. */
function kubectlByHand(kubeconfig: string, namespace: string): number {
  const started = performance.now();
  const run = (args: string[]) => spawnSync('kubectl', ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8', timeout: 60_000 });
  run(['version', '-o', 'json']);
  run(['auth', 'whoami']);
  run(['get', 'namespace', namespace]);
  for (const permission of OPERATION_PERMISSIONS.lifecycle) {
    run([
      'auth',
      'can-i',
      permission.verb,
      permission.group ? `${permission.resource}.${permission.group}` : permission.resource,
      '-n',
      namespace,
    ]);
  }
  return performance.now() - started;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function main(): Promise<void> {
  const cluster = await startCluster({ log: () => {} });
  try {
    const dir = mkdtempSync(join(tmpdir(), 'kp-bench-check-'));
    const admin = readFileSync(cluster.kubeconfigPath, 'utf8');
    const variant = (name: string, text: string): string => {
      const path = join(dir, name);
      writeFileSync(path, text, { mode: 0o600 });
      return path;
    };
    const port = await closedPort();
    const scenarios: Scenario[] = [
      { label: 'admin, everything fine', kubeconfigPath: cluster.kubeconfigPath, namespace: 'default' },
      { label: 'viewer (verbs missing)', kubeconfigPath: cluster.kubeconfigFor('viewer'), namespace: 'default' },
      { label: 'restricted (nothing granted)', kubeconfigPath: cluster.kubeconfigFor('restricted'), namespace: 'default' },
      { label: 'missing namespace', kubeconfigPath: cluster.kubeconfigPath, namespace: 'no-such-namespace' },
      { label: 'unknown context', kubeconfigPath: cluster.kubeconfigPath, context: 'no-such-context', namespace: 'default' },
      {
        label: 'closed port',
        kubeconfigPath: variant('closed', admin.replace(/server: "?https:\/\/127\.0\.0\.1:\d+"?/, `server: https://127.0.0.1:${port}`)),
        namespace: 'default',
      },
      {
        label: 'wrong CA',
        kubeconfigPath: variant(
          'wrong-ca',
          admin.replace(/certificate-authority-data: \S+/, `certificate-authority-data: ${selfSignedCa()}`),
        ),
        namespace: 'default',
      },
      {
        label: 'bad token',
        kubeconfigPath: variant('bad-token', admin.replace(/token: \S+/, 'token: not-a-valid-token')),
        namespace: 'default',
      },
    ];

    const rows: Row[] = [];
    for (const scenario of scenarios) {
      const durations: number[] = [];
      let failing = '';
      for (let run = 0; run < RUNS; run += 1) {
        const started = performance.now();
        const report = await check(
          {
            kubeconfigPath: scenario.kubeconfigPath,
            namespace: scenario.namespace,
            ...(scenario.context ? { context: scenario.context } : {}),
          },
          { spec: { cpus: 0.5, memoryMb: 256 } },
        );
        durations.push(performance.now() - started);
        failing =
          report.items
            .filter((item) => item.status === 'fail')
            .map((item) => `${item.id}${item.error ? ` (${item.error})` : ''}`)
            .join(', ') || '(none)';
      }
      const kubectlMs = scenario.label.startsWith('admin') ? kubectlByHand(scenario.kubeconfigPath, scenario.namespace) : undefined;
      rows.push({
        scenario: scenario.label,
        failing,
        medianMs: median(durations),
        maxMs: Math.max(...durations),
        ...(kubectlMs ? { kubectlMs } : {}),
      });
    }

    const machine = machineInfo();
    const table = [
      `check() on the local control plane (Kubernetes ${cluster.versions.kubernetes}), ${RUNS} runs each, a new client per run, ${machine.date}, ${machine.cpuCount} CPUs (${machine.cpuModel}), Node ${machine.node}.`,
      '',
      '| configuration | failing item(s) | check() median | check() max |',
      '|---|---|---:|---:|',
      ...rows.map((row) => `| ${row.scenario} | ${row.failing} | ${row.medianMs.toFixed(0)} ms | ${row.maxMs.toFixed(0)} ms |`),
      '',
      `The same questions asked one after another with kubectl (version, whoami, get namespace, ${OPERATION_PERMISSIONS.lifecycle.length} × auth can-i), admin: ${rows[0]?.kubectlMs?.toFixed(0)} ms.`,
    ].join('\n');
    process.stdout.write(`${table}\n`);
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    writeFileSync(new URL('./results/check.md', import.meta.url), `${table}\n`);
    writeFileSync(
      new URL('./results/check.json', import.meta.url),
      `${JSON.stringify({ machine, versions: cluster.versions, runs: RUNS, rows }, null, 2)}\n`,
    );
  } finally {
    await cluster.stop();
  }
}

/** A CA the API server's certificate does not chain to (openssl, as the test proxy makes one). */
function selfSignedCa(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kp-bench-ca-'));
  return Buffer.from(selfSigned(dir, 'ca', { subject: '/CN=not-the-cluster', san: null }).certPem).toString('base64');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:check failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
