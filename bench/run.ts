// npm run bench: the cluster benchmark. Starts its own local control plane and, for each
// N, runs side by side (one after another, same cluster, fresh namespace each):
//   a. our provisioner in a child process: N concurrent provision$() calls;
//   b. a Helm-3-style baseline in a child process: the same creates, then GET every 2 s;
//   c. (N = 1 only) `kubectl rollout status` for single provisionings, 5 repetitions;
// while an independent observer in this process watches the namespace's Deployments
// straight from the apiserver. Writes bench/results/cluster.md and cluster.json.
//
// Flags (or environment):
//   --sizes 1,10,100,500      BENCH_SIZES          the N to run
//   --pod-ready-ms 3000       BENCH_POD_READY_MS   KWOK's scheduling-to-Ready delay
//   --kinds provisioner,poller,kubectl  BENCH_KINDS
//   --kubectl-reps 5          BENCH_KUBECTL_REPS
//   --provisioner-reps 3      BENCH_PROVISIONER_REPS  runs of our provisioner per N (latency pooled)
//   --cluster-nice 10         BENCH_CLUSTER_NICE   niceness of the control-plane processes (0: as is)
//   --cluster-cpus 0          BENCH_CLUSTER_CPUS   pin the control plane to these CPUs (a taskset list, or none)
//   --client-cpus 1-N         BENCH_CLIENT_CPUS    pin this process and its children (observer, proxy, waiters)
//                                                  to these CPUs (default: all but the control plane's, or none)
//   --impl src|dist           BENCH_IMPL           the library the children load (default src, via tsx)
//   --poll-ms 2000            BENCH_POLL_MS        the baseline's interval
//   --timeout-ms 300000       BENCH_TIMEOUT_MS     per provisioning
//   --out bench/results       BENCH_OUT
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { startCluster, type LocalCluster } from '../scripts/control-plane/cluster.js';
import { faultImage } from '../scripts/control-plane/stages.js';
import {
  WAITER_LABELS,
  apiCounts,
  checkTargets,
  childFigures,
  clusterMarkdown,
  kubectlFigures,
  type ClusterReport,
  type RunFigures,
  type WaiterKind,
} from './lib/cluster-report.js';
import { machineInfo, type MachineInfo } from './lib/machine.js';
import { Namespaces } from './lib/namespaces.js';
import { DeploymentObserver } from './lib/observer.js';
import type { Implementation } from './lib/protocol.js';
import { killChildren, runChild, runKubectl, startProxy } from './lib/runners.js';
import { fmt } from './lib/stats.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const IMAGE = 'registry.example.com/manager:1.0';
/** KWOK starts these Pods but never marks them Ready (scripts/control-plane/stages.ts). */
const NEVER_READY_IMAGE = faultImage('never-ready');
/** Let trailing watch events reach the observer before the numbers are computed. */
const SETTLE_MS = 500;

const { values } = parseArgs({
  options: {
    sizes: { type: 'string' },
    'pod-ready-ms': { type: 'string' },
    kinds: { type: 'string' },
    'kubectl-reps': { type: 'string' },
    'provisioner-reps': { type: 'string' },
    'cluster-nice': { type: 'string' },
    'cluster-cpus': { type: 'string' },
    'client-cpus': { type: 'string' },
    impl: { type: 'string' },
    'poll-ms': { type: 'string' },
    'timeout-ms': { type: 'string' },
    out: { type: 'string' },
  },
  strict: true,
});

const env = process.env;
const sizes = (values.sizes ?? env.BENCH_SIZES ?? '1,10,100,500').split(',').map((size) => Number.parseInt(size.trim(), 10));
const podReadyDelayMs = Number(values['pod-ready-ms'] ?? env.BENCH_POD_READY_MS ?? 3000);
const kinds = (values.kinds ?? env.BENCH_KINDS ?? 'provisioner,poller,kubectl').split(',').map((kind) => kind.trim()) as WaiterKind[];
const kubectlReps = Number(values['kubectl-reps'] ?? env.BENCH_KUBECTL_REPS ?? 5);
/**
 * The control plane shares the machine's cores with the clients measured. Lowering its
 * priority lets the observer and the waiters run as soon as an event reaches them, as
 * they would on their own machine; the control plane is the environment, not the subject.
 */
const clusterNice = Number(values['cluster-nice'] ?? env.BENCH_CLUSTER_NICE ?? 10);
/**
 * In production the control plane runs on other machines. Here it shares them, and a
 * waiter woken by an event would otherwise wait for a core the apiserver, etcd or KWOK
 * holds (side by side on 2 cores this doubled the detection p99). By default the control
 * plane gets CPU 0 and the clients the others, so the figures are the clients' own;
 * `--cluster-cpus none` shares every core.
 */
const cpuCount = availableParallelism();
const cpuList = (value: string | undefined, fallback: string): string => (value === undefined ? fallback : value === 'none' ? '' : value);
const cpusAsked = [values['cluster-cpus'], env.BENCH_CLUSTER_CPUS, values['client-cpus'], env.BENCH_CLIENT_CPUS].some(
  (value) => value !== undefined,
);
const clusterCpus = cpuList(values['cluster-cpus'] ?? env.BENCH_CLUSTER_CPUS, cpuCount >= 2 ? '0' : '');
const clientCpus = cpuList(
  values['client-cpus'] ?? env.BENCH_CLIENT_CPUS,
  clusterCpus === '0' ? (cpuCount === 2 ? '1' : `1-${cpuCount - 1}`) : '',
);
/** Latency on 2 shared cores varies from run to run: our provisioner runs this often per N. */
const provisionerReps = Number(values['provisioner-reps'] ?? env.BENCH_PROVISIONER_REPS ?? 3);
const impl = (values.impl ?? env.BENCH_IMPL ?? 'src') as Implementation;
const pollIntervalMs = Number(values['poll-ms'] ?? env.BENCH_POLL_MS ?? 2000);
const timeoutMs = Number(values['timeout-ms'] ?? env.BENCH_TIMEOUT_MS ?? 300_000);
const outDir = resolve(REPO_ROOT, values.out ?? env.BENCH_OUT ?? 'bench/results');

for (const size of sizes) if (!Number.isSafeInteger(size) || size < 1) throw new Error(`--sizes: not a positive integer: ${size}`);
for (const kind of kinds) if (!(kind in WAITER_LABELS)) throw new Error(`--kinds: unknown kind ${kind}`);
if (!Number.isSafeInteger(clusterNice) || clusterNice < 0 || clusterNice > 19)
  throw new Error(`--cluster-nice: not a niceness from 0 to 19: ${clusterNice}`);
for (const [flag, cpus] of [
  ['--cluster-cpus', clusterCpus],
  ['--client-cpus', clientCpus],
] as const) {
  if (cpus !== '' && !/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(cpus)) throw new Error(`${flag}: not a CPU list like 0 or 0-1,3: ${cpus}`);
}
if (!Number.isSafeInteger(provisionerReps) || provisionerReps < 1)
  throw new Error(`--provisioner-reps: not a positive integer: ${provisionerReps}`);
if (impl !== 'dist' && impl !== 'src') throw new Error(`--impl must be dist or src, got ${String(impl)}`);

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};
const notes: string[] = [];

/** The children import dist/ by default: warn when it is older than the sources. */
function checkDistFreshness(): void {
  if (impl !== 'dist') return;
  let distTime: number;
  try {
    distTime = statSync(join(REPO_ROOT, 'dist', 'index.js')).mtimeMs;
  } catch {
    throw new Error('dist/index.js is missing: run `npm run build` first, or pass --impl src');
  }
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
      const path = join(dir, entry.name);
      return Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
    }, 0);
  if (newest(join(REPO_ROOT, 'src')) > distTime) {
    const warning =
      'dist/ is older than src/: the children measured the last build, not the current sources (run `npm run build`, or --impl src)';
    log(`WARNING: ${warning}`);
    notes.push(warning);
  }
}

/**
 * Pins processes to CPUs with taskset. Without taskset (or its permission), a pinning asked
 * for fails the run; the default one is skipped, and the report says so.
 */
function pin(cpus: string, pids: readonly number[]): boolean {
  try {
    for (const pid of pids) execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch (error) {
    if (cpusAsked)
      throw new Error(`could not pin to CPU(s) ${cpus} with taskset: ${error instanceof Error ? error.message : String(error)}`);
    const warning = `not pinned to CPU(s) ${cpus}: taskset failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); the control plane shares every CPU with the clients`;
    log(`WARNING: ${warning}`);
    notes.push(warning);
    return false;
  }
}

async function runOne(
  cluster: LocalCluster,
  namespaces: Namespaces,
  kind: WaiterKind,
  n: number,
  withMemoryRun: boolean,
): Promise<RunFigures> {
  const namespace = await namespaces.create(`bench-${kind.slice(0, 4)}-${n}`);
  let figures: RunFigures | undefined;
  try {
    const observer = await DeploymentObserver.start(cluster.kubeconfigPath, namespace);
    try {
      const proxy = await startProxy(cluster.kubeconfigPath);
      try {
        const { kubeconfigPath } = proxy;
        if (kind === 'kubectl') {
          const reps = await runKubectl({ kubeconfigPath, namespace, image: IMAGE, repetitions: kubectlReps, timeoutMs });
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
          await observer.stop();
          const { counts, log: requests } = await proxy.report();
          figures = kubectlFigures(reps, observer, apiCounts(counts, requests, namespace), namespace, false);
        } else {
          const run = await runChild({
            kind,
            impl,
            kubeconfigPath,
            namespace,
            count: n,
            image: IMAGE,
            timeoutMs,
            pollIntervalMs,
            mode: 'latency',
          });
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
          await observer.stop();
          const { counts, log: requests } = await proxy.report();
          figures = childFigures(kind, run, observer, apiCounts(counts, requests, namespace), namespace, false);
          if (run.exitCode !== 0 && run.exitedOnItsOwn) {
            notes.push(`${kind} N=${n}: child exited with code ${run.exitCode}: ${run.stderrTail.trim().slice(-500)}`);
          }
        }
      } finally {
        proxy.kill();
      }
    } finally {
      await observer.stop();
    }
  } finally {
    const deleted = await namespaces.delete(namespace);
    if (!deleted) notes.push(`namespace ${namespace} was not gone 300 s after its deletion`);
    if (figures) figures = { ...figures, namespaceDeleted: deleted };
  }
  if (kind === 'kubectl' || !withMemoryRun) return figures;
  const memory = await memoryRun(cluster, namespaces, kind, n);
  return { ...figures, ...memory };
}

/**
 * Heap per waiting provisioning, from a run of its own: N provisionings whose Pods never
 * become Ready, a forced full GC and heap sample once all N wait, then every waiter
 * stopped. Taken apart from the latency run, where the GC pause would delay completions.
 */
async function memoryRun(
  cluster: LocalCluster,
  namespaces: Namespaces,
  kind: 'provisioner' | 'poller',
  n: number,
): Promise<Pick<RunFigures, 'heapBytesPerWaiter' | 'gcPauseMs' | 'settledBeforeHeapSample'>> {
  const namespace = await namespaces.create(`bench-${kind.slice(0, 4)}-mem-${n}`);
  try {
    const proxy = await startProxy(cluster.kubeconfigPath);
    try {
      const run = await runChild({
        kind,
        impl,
        kubeconfigPath: proxy.kubeconfigPath,
        namespace,
        count: n,
        image: NEVER_READY_IMAGE,
        timeoutMs,
        pollIntervalMs,
        mode: 'memory',
      });
      if (run.exitCode !== 0 && run.exitedOnItsOwn)
        notes.push(`${kind} N=${n} (memory run): child exited with code ${run.exitCode}: ${run.stderrTail.trim().slice(-500)}`);
      const { result } = run;
      log(
        `${kind} N=${n} memory run: heap/waiter ${fmt(result.heapBytesPerWaiter / 1024, 1)} KiB (forced GC ${fmt(result.gcPauseMs, 0)} ms)`,
      );
      return {
        heapBytesPerWaiter: result.heapBytesPerWaiter,
        gcPauseMs: result.gcPauseMs,
        settledBeforeHeapSample: result.settledBeforeHeapSample,
      };
    } finally {
      proxy.kill();
    }
  } finally {
    const deleted = await namespaces.delete(namespace);
    if (!deleted) notes.push(`namespace ${namespace} was not gone 300 s after its deletion`);
  }
}

function printRun(run: RunFigures): void {
  log(
    `${run.kind} N=${run.n}: ok ${run.succeeded}/${run.succeeded + run.failed}; detection p50/p95/p99 ` +
      `${fmt(run.detectionMs.p50, 2)}/${fmt(run.detectionMs.p95, 2)}/${fmt(run.detectionMs.p99, 2)} ms (unmatched ${run.unmatched}); ` +
      `requests ${run.api.requests} (watches ${run.api.deploymentWatches} deploy + ${run.api.podWatches} pod); ` +
      `CPU ${fmt(run.cpuMs, 0)} ms; peak RSS ${fmt(run.peakRssMiB, 0)} MiB; heap/waiter ${fmt((run.heapBytesPerWaiter ?? Number.NaN) / 1024, 1)} KiB; ` +
      `wall ${fmt(run.wallMs / 1000, 2)} s`,
  );
  for (const error of run.errors.slice(0, 3)) log(`  error: ${error}`);
}

function writeReport(machine: MachineInfo, cluster: LocalCluster, runs: readonly RunFigures[]): ClusterReport {
  const report: ClusterReport = {
    machine,
    options: {
      sizes,
      kinds,
      podReadyDelayMs,
      kubectlReps,
      provisionerReps,
      clusterNice,
      clusterCpus: clusterCpus || 'any',
      clientCpus: clientCpus || 'any',
      impl,
      pollIntervalMs,
      timeoutMs,
    },
    clusterVersions: { ...cluster.versions },
    clusterStartMs: cluster.startedInMs,
    runs,
    targets: checkTargets(runs),
    notes,
  };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'cluster.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outDir, 'cluster.md'), `${clusterMarkdown(report)}\n`);
  return report;
}

async function main(): Promise<void> {
  checkDistFreshness();
  const machine = machineInfo();
  const maxN = Math.max(...sizes);
  log(`sizes ${sizes.join(',')}; kinds ${kinds.join(',')}; pod ready delay ${podReadyDelayMs} ms; children load ${impl}`);
  // Children are ours: whatever happens to this process, they go too.
  process.on('exit', killChildren);
  let interrupted = false;
  const interrupt = (): void => {
    interrupted = true;
    process.exitCode = 130;
    killChildren();
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const cluster = await startCluster({
    podReadyDelayMs,
    // Diagnosis: BENCH_KEEP_CLUSTER=1 keeps the work dir (component logs) after the run.
    keepWorkDir: env.BENCH_KEEP_CLUSTER === '1',
    nodeCapacity: { pods: String(Math.max(3000, maxN * 2 + 100)) },
    log: (line) => log(`[cluster] ${line}`),
  });
  const runs: RunFigures[] = [];
  let report: ClusterReport | undefined;
  try {
    if (clusterNice > 0) {
      const pids = Object.values(cluster.pids).map(String);
      execFileSync('renice', ['-n', String(clusterNice), '-p', ...pids], { stdio: 'ignore' });
      log(`control plane (${pids.length} processes) reniced to ${clusterNice}`);
    }
    // -a: every thread of each process (the Go runtime's threads already exist). Children
    // started from now on inherit the client CPUs. With the control plane left unpinned,
    // the clients are left too: confining them alone would only take CPUs from them.
    const clusterPinned = clusterCpus === '' || pin(clusterCpus, Object.values(cluster.pids));
    if (clusterCpus !== '' && clusterPinned) log(`control plane pinned to CPU(s) ${clusterCpus}`);
    if (clientCpus !== '' && clusterPinned && pin(clientCpus, [process.pid]))
      log(`this process and its children pinned to CPU(s) ${clientCpus}`);
    const namespaces = new Namespaces(cluster.kubeconfigPath);
    for (const n of sizes) {
      for (const kind of kinds) {
        if (interrupted) break;
        if (kind === 'kubectl' && n !== 1) continue;
        const reps = kind === 'provisioner' ? provisionerReps : 1;
        for (let rep = 1; rep <= reps && !interrupted; rep += 1) {
          log(`running ${kind} N=${n}${reps > 1 ? ` (run ${rep}/${reps})` : ''}...`);
          try {
            // Heap per waiter is measured once per (kind, N), after the first run.
            const figures = await runOne(cluster, namespaces, kind, n, rep === 1);
            printRun(figures);
            runs.push(reps > 1 ? { ...figures, rep, reps } : figures);
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            log(`${kind} N=${n} FAILED: ${message}`);
            notes.push(`${kind} N=${n} failed, no figures: ${message.slice(0, 1000)}`);
          }
          // Written after every run, so a late failure keeps the earlier figures.
          report = writeReport(machine, cluster, runs);
        }
      }
    }
  } finally {
    killChildren();
    await cluster.stop();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
  for (const check of report?.targets ?? [])
    log(`target N=${check.n}: ${check.met ? 'met' : 'MISSED'}: ${check.target}: ${check.evidence}`);
  log(`wrote ${join(outDir, 'cluster.md')} and cluster.json`);
}

main().catch((error: unknown) => {
  killChildren();
  process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
