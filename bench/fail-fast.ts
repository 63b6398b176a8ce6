// `npm run bench:fail-fast`: for each failure mode, the time until our provisioning names the
// failure, versus the time `kubectl rollout status` takes on the SAME Deployment (it waits for
// the Deployment's progress deadline). Runs on its own local control plane; every mode runs
// at once, so the whole comparison takes about one progress deadline.
//
//   npm run bench:fail-fast                          # Kubernetes' default deadline, 600 s
//   npm run bench:fail-fast -- --progress-deadline 120
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startCluster } from '../scripts/control-plane/cluster.js';
import { faultImage, type FaultMode } from '../scripts/control-plane/stages.js';
import { KubernetesApi } from '../src/kube/kubernetes-api.js';
import { provision$ } from '../src/workload/operations/provision.js';

const { values } = parseArgs({ options: { 'progress-deadline': { type: 'string', default: '600' } } });
const progressDeadlineSeconds = Number(values['progress-deadline']);

interface Mode {
  readonly label: string;
  readonly spec: Record<string, unknown>;
}

const fault = (mode: FaultMode): Record<string, unknown> => ({ image: faultImage(mode) });
const MODES: readonly Mode[] = [
  { label: 'image does not exist', spec: fault('image-not-found') },
  { label: 'registry keeps failing (ImagePullBackOff)', spec: fault('image-pull-backoff') },
  { label: 'crash loop', spec: fault('crash-loop') },
  { label: 'missing secret (CreateContainerConfigError)', spec: fault('create-container-config-error') },
  { label: 'over-large request (Unschedulable)', spec: { cpus: 1024 } },
];

interface Row {
  readonly mode: string;
  readonly ourReason: string;
  readonly ourSeconds: number;
  readonly kubectlSeconds: number;
  readonly kubectlExit: number | null;
  readonly kubectlSaid: string;
}

function kubectlRolloutStatus(
  kubeconfig: string,
  namespace: string,
  name: string,
): Promise<{ seconds: number; code: number | null; said: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('kubectl', [
      '--kubeconfig',
      kubeconfig,
      'rollout',
      'status',
      `deployment/${name}`,
      '-n',
      namespace,
      `--timeout=${progressDeadlineSeconds + 120}s`,
    ]);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) =>
      resolve({ seconds: (performance.now() - started) / 1000, code, said: output.trim().split('\n').at(-1) ?? '' }),
    );
  });
}

function runMode(api: KubernetesApi, kubeconfig: string, namespace: string, mode: Mode, index: number): Promise<Row> {
  const name = `ff-${index}`;
  const spec = {
    containerId: 900 + index,
    nodeId: 1,
    hostname: name,
    image: 'nginx:1.27',
    cpus: 0.1,
    memoryMb: 64,
    namespace,
    ...mode.spec,
  };
  return new Promise((resolve) => {
    let started = 0;
    let kubectl: ReturnType<typeof kubectlRolloutStatus> | undefined;
    const finish = async (reason: string): Promise<void> => {
      const ourSeconds = (performance.now() - started) / 1000;
      const result = await kubectl!;
      resolve({
        mode: mode.label,
        ourReason: reason,
        ourSeconds,
        kubectlSeconds: result.seconds,
        kubectlExit: result.code,
        kubectlSaid: result.said,
      });
    };
    started = performance.now();
    // kubectl keeps waiting on the failed Deployment: keep it rather than clean it up.
    provision$(api, spec, { timeoutMs: (progressDeadlineSeconds + 120) * 1000, progressDeadlineSeconds, keepOnFailure: true }).subscribe({
      next: (event) => {
        // kubectl starts watching the same Deployment the moment it exists.
        if (event.type === 'created') kubectl = kubectlRolloutStatus(kubeconfig, namespace, name);
      },
      error: (error: { reason?: string; name: string }) => void finish(error.reason ?? error.name),
      complete: () => void finish('(succeeded)'),
    });
  });
}

async function main(): Promise<void> {
  const cluster = await startCluster({ log: () => {} });
  try {
    const namespace = 'fail-fast';
    const api = KubernetesApi.fromConfig({ kubeconfigPath: cluster.kubeconfigPath });
    await new Promise<void>((resolve, reject) =>
      spawn('kubectl', ['--kubeconfig', cluster.kubeconfigPath, 'create', 'namespace', namespace]).on('close', (code) =>
        code === 0 ? resolve() : reject(new Error('kubectl create namespace failed')),
      ),
    );
    process.stdout.write(`Progress deadline ${progressDeadlineSeconds} s; running ${MODES.length} failure modes at once...\n`);
    const rows = await Promise.all(MODES.map((mode, index) => runMode(api, cluster.kubeconfigPath, namespace, mode, index)));
    const table = [
      `Failure modes on the local control plane (Kubernetes ${cluster.versions.kubernetes}, KWOK ${cluster.versions.kwok}), progressDeadlineSeconds ${progressDeadlineSeconds}, ${new Date().toISOString().slice(0, 10)}.`,
      '',
      '| failure | our error | ours | `kubectl rollout status` | kubectl exit | kubectl said |',
      '|---|---|---:|---:|---:|---|',
      ...rows.map(
        (r) =>
          `| ${r.mode} | ${r.ourReason} | ${r.ourSeconds.toFixed(1)} s | ${r.kubectlSeconds.toFixed(1)} s | ${r.kubectlExit} | ${r.kubectlSaid.replace(/\|/g, '\\|')} |`,
      ),
    ].join('\n');
    process.stdout.write(`${table}\n`);
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    writeFileSync(new URL('./results/fail-fast.md', import.meta.url), `${table}\n`);
    writeFileSync(
      new URL('./results/fail-fast.json', import.meta.url),
      `${JSON.stringify({ progressDeadlineSeconds, versions: cluster.versions, rows }, null, 2)}\n`,
    );
  } finally {
    await cluster.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:fail-fast failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
