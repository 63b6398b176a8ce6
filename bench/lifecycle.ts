// npm run bench:lifecycle: N concurrent stop-then-start cycles on a local control plane,
// our library against kubectl. For each waiter kind, in a fresh namespace:
//   1. N workloads are provisioned and rolled out (not measured);
//   2. an independent observer in this process watches the namespace's Deployments and
//      Pods straight from the apiserver (client-node's Watch);
//   3. the measured client talks through its own counting proxy (a child process):
//      a. ours: a child process runs stop$() then start$() for every workload, all at once;
//      b. kubectl: for every workload at once, `kubectl scale --replicas=0`, `kubectl
//         rollout status`, `kubectl scale --replicas=1`, `kubectl rollout status`;
//      c. kubectl-paced: the same, at most --kubectl-paced cycles at once (a hundred
//         kubectl processes at once overload one client core: this shows kubectl's own
//         latency without that);
//   4. afterwards, each workload's ready Pod is compared with the one before: a cycle
//      that left the old Pod in place did not restart anything.
// Writes bench/results/lifecycle.md and lifecycle.json. Asserts nothing.
//
// Flags (or environment):
//   --n 100                  BENCH_LIFECYCLE_N       workloads cycled at once
//   --pod-ready-ms 1000      BENCH_POD_READY_MS      KWOK's scheduling-to-Ready delay
//   --kinds ours,kubectl,kubectl-paced  BENCH_LIFECYCLE_KINDS
//   --kubectl-paced 10       BENCH_KUBECTL_PACED     kubectl-paced: at most this many cycles at once
//   --impl dist|src          BENCH_IMPL              what our child loads (npm script: dist)
//   --cluster-cpus 0         BENCH_CLUSTER_CPUS      pin the control plane (a taskset list, or none)
//   --client-cpus 1          BENCH_CLIENT_CPUS       pin this process and its children
//   --timeout-ms 180000      BENCH_TIMEOUT_MS        per operation
//   --out bench/results      BENCH_OUT
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import { startCluster, type LocalCluster } from '../scripts/control-plane/cluster.js';
import { KubernetesApi } from '../src/kube/kubernetes-api.js';
import { CONTAINER_ID_LABEL } from '../src/input/labels.js';
import { provision } from '../src/workload/operations/provision.js';
import type { CycleRecord, LifecycleChildInput, LifecycleChildResult } from './lib/lifecycle-protocol.js';
import { LifecycleObserver, type DeploymentSeen } from './lib/lifecycle-observer.js';
import { machineInfo, type MachineInfo } from './lib/machine.js';
import { Namespaces } from './lib/namespaces.js';
import type { Implementation } from './lib/protocol.js';
import { killChildren, startProxy } from './lib/runners.js';
import { fmt, hrNow, markdownTable, summarize, type Summary } from './lib/stats.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CHILD = join(REPO_ROOT, 'bench', 'lib', 'lifecycle-child.ts');
const IMAGE = 'registry.example.com/manager:1.0';

const { values } = parseArgs({
  options: {
    n: { type: 'string' },
    'pod-ready-ms': { type: 'string' },
    kinds: { type: 'string' },
    'kubectl-paced': { type: 'string' },
    impl: { type: 'string' },
    'cluster-cpus': { type: 'string' },
    'client-cpus': { type: 'string' },
    'timeout-ms': { type: 'string' },
    out: { type: 'string' },
  },
  strict: true,
});
const env = process.env;
const n = Number(values.n ?? env.BENCH_LIFECYCLE_N ?? 100);
const podReadyDelayMs = Number(values['pod-ready-ms'] ?? env.BENCH_POD_READY_MS ?? 1000);
const kinds = (values.kinds ?? env.BENCH_LIFECYCLE_KINDS ?? 'ours,kubectl,kubectl-paced').split(',').map((kind) => kind.trim()) as Kind[];
const kubectlPaced = Number(values['kubectl-paced'] ?? env.BENCH_KUBECTL_PACED ?? 10);
const impl = (values.impl ?? env.BENCH_IMPL ?? 'src') as Implementation;
const timeoutMs = Number(values['timeout-ms'] ?? env.BENCH_TIMEOUT_MS ?? 180_000);
const outDir = resolve(REPO_ROOT, values.out ?? env.BENCH_OUT ?? 'bench/results');
const cpuCount = availableParallelism();
const cpuList = (value: string | undefined, fallback: string): string => (value === undefined ? fallback : value === 'none' ? '' : value);
const clusterCpus = cpuList(values['cluster-cpus'] ?? env.BENCH_CLUSTER_CPUS, cpuCount >= 2 ? '0' : '');
const clientCpus = cpuList(
  values['client-cpus'] ?? env.BENCH_CLIENT_CPUS,
  clusterCpus === '0' ? (cpuCount === 2 ? '1' : `1-${cpuCount - 1}`) : '',
);

type Kind = 'ours' | 'kubectl' | 'kubectl-paced';
const KIND_LABELS: Record<Kind, string> = {
  ours: 'kube-provisioner stop() then start()',
  kubectl: 'kubectl scale + rollout status, all at once',
  'kubectl-paced': `kubectl, at most ${kubectlPaced} cycles at once`,
};
if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--n: not a positive integer: ${n}`);
if (!Number.isSafeInteger(kubectlPaced) || kubectlPaced < 1) throw new Error(`--kubectl-paced: not a positive integer: ${kubectlPaced}`);
for (const kind of kinds) if (!(kind in KIND_LABELS)) throw new Error(`--kinds: unknown kind ${kind}`);
if (impl !== 'dist' && impl !== 'src') throw new Error(`--impl must be dist or src, got ${String(impl)}`);

const log = (line: string): void => {
  process.stderr.write(`[bench:lifecycle] ${line}\n`);
};
const notes: string[] = [];
/** Other work on the machine shows up in every figure: say how busy it was. */
const loadAtStart = loadavg()
  .map((load) => load.toFixed(1))
  .join(' / ');

interface CycleTimes {
  readonly providerId: string;
  readonly name: string;
  readonly containerId: string;
  readonly stopStartedAt?: number;
  readonly stopEndedAt?: number;
  readonly startStartedAt?: number;
  readonly startEndedAt?: number;
  /** ours: the resourceVersion our start completed on. */
  readonly startResourceVersion?: string;
  readonly error?: string;
}

interface KindFigures {
  readonly kind: Kind;
  readonly label: string;
  readonly n: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly errors: readonly string[];
  /** First stop sent to last start done. */
  readonly wallMs: number;
  readonly cycleMs: Summary;
  /** When the waiter said "stopped" minus when the observer saw the workload's last Pod deleted (ours) or the scale-down observed (kubectl). */
  readonly stopDetectionMs: Summary;
  /** When the waiter said "running" minus when the observer saw the completing Deployment event. */
  readonly startDetectionMs: Summary;
  readonly unmatched: number;
  /** Stops that ended more than 100 ms before the observer saw the workload's last Pod deleted. */
  readonly stopsBeforePodsGone: number;
  /** Cycles after which the ready Pod is a new one (by UID). */
  readonly newPods: number;
  readonly requests: RequestFigures;
  readonly cpuMs: number;
  readonly peakRssMiB: number;
  readonly exitedOnItsOwn: boolean;
  readonly activeHandlesAfter: readonly string[];
}

interface RequestFigures {
  readonly total: number;
  readonly perCycle: number;
  readonly writes: number;
  readonly reads: number;
  readonly watches: number;
  /** kubectl's API discovery (/api, /apis, /openapi). */
  readonly discovery: number;
}

function pin(cpus: string, pids: readonly number[]): boolean {
  try {
    for (const pid of pids) execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch (error) {
    const warning = `not pinned to CPU(s) ${cpus}: taskset failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
    log(`WARNING: ${warning}`);
    notes.push(warning);
    return false;
  }
}

/** N workloads, provisioned and rolled out; their ready Pods' UIDs by container-id. */
async function prepare(admin: KubernetesApi, namespace: string): Promise<{ ids: string[]; pods: Map<string, string> }> {
  const specs = Array.from({ length: n }, (_, index) => ({
    containerId: `${index + 1}`,
    nodeId: 1,
    hostname: `life-${String(index).padStart(4, '0')}`,
    image: IMAGE,
    cpus: 0.01,
    memoryMb: 16,
    namespace,
  }));
  const results = await Promise.all(specs.map((spec) => provision(admin, spec, { timeoutMs })));
  return { ids: results.map((result) => result.providerId), pods: await readyPods(admin, namespace) };
}

async function readyPods(admin: KubernetesApi, namespace: string): Promise<Map<string, string>> {
  const { items } = await admin.list('pods', namespace, undefined);
  const pods = new Map<string, string>();
  for (const pod of items as V1Pod[]) {
    const ready = pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True');
    const containerId = pod.metadata?.labels?.[CONTAINER_ID_LABEL];
    if (ready && !pod.metadata?.deletionTimestamp && containerId) pods.set(containerId, pod.metadata?.uid ?? '');
  }
  return pods;
}

function nameOf(providerId: string): string {
  return providerId.slice(providerId.indexOf('/') + 1);
}

async function runOurs(
  kubeconfigPath: string,
  namespace: string,
  ids: readonly string[],
): Promise<{ result: LifecycleChildResult; exitedOnItsOwn: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'kp-bench-life-'));
  try {
    const resultPath = join(dir, 'result.json');
    const input: LifecycleChildInput = { impl, resultPath, kubeconfigPath, namespace, providerIds: ids, timeoutMs };
    writeFileSync(join(dir, 'input.json'), JSON.stringify(input));
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, join(dir, 'input.json')], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let exited = false;
    const exit = new Promise<void>((resolveExit) => child.once('exit', () => ((exited = true), resolveExit())));
    const deadline = Date.now() + timeoutMs * 2 + 60_000;
    while (!existsSync(resultPath) && !exited) {
      if (Date.now() > deadline) throw new Error('lifecycle child produced no result in time');
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
    const graceUntil = Date.now() + 10_000;
    while (!exited && Date.now() < graceUntil) await new Promise((resolveWait) => setTimeout(resolveWait, 50));
    const exitedOnItsOwn = exited;
    if (!exited) child.kill('SIGKILL');
    await exit;
    if (!existsSync(resultPath)) throw new Error('lifecycle child exited without a result');
    return { result: JSON.parse(readFileSync(resultPath, 'utf8')) as LifecycleChildResult, exitedOnItsOwn };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface KubectlStep {
  readonly endedAt: number;
  readonly code: number | null;
  readonly cpuMs: number;
  readonly rssMiB: number;
  readonly stderr: string;
}

/** One kubectl command under /usr/bin/time (its CPU time and peak RSS). */
function kubectlStep(
  args: readonly string[],
  kubeconfigPath: string,
  namespace: string,
  cacheDir: string,
  dir: string,
): Promise<KubectlStep> {
  const timeFile = join(dir, `time-${Math.random().toString(36).slice(2)}`);
  return new Promise((resolveStep, reject) => {
    const child = spawn(
      '/usr/bin/time',
      ['-f', '%U %S %M', '-o', timeFile, 'kubectl', ...args, '-n', namespace, '--kubeconfig', kubeconfigPath, '--cache-dir', cacheDir],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2000)));
    child.on('error', reject);
    child.on('exit', (code) => {
      const endedAt = hrNow();
      const [user = 0, system = 0, rssKb = 0] = existsSync(timeFile)
        ? readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(/\s+/).map(Number)
        : [];
      resolveStep({ endedAt, code, cpuMs: (user + system) * 1000, rssMiB: rssKb / 1024, stderr });
    });
  });
}

async function runKubectl(
  kubeconfigPath: string,
  namespace: string,
  ids: readonly string[],
  concurrency: number,
): Promise<{ records: CycleTimes[]; cpuMs: number; peakRssMiB: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'kp-bench-life-kubectl-'));
  const cacheDir = join(dir, 'cache');
  let cpuMs = 0;
  let peakRssMiB = 0;
  const step = async (args: readonly string[]): Promise<KubectlStep> => {
    const result = await kubectlStep(args, kubeconfigPath, namespace, cacheDir, dir);
    cpuMs += result.cpuMs;
    peakRssMiB = Math.max(peakRssMiB, result.rssMiB);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr.trim().slice(-300)}`);
    return result;
  };
  const status = ['rollout', 'status', '--timeout', `${Math.ceil(timeoutMs / 1000)}s`];
  try {
    const cycle = async (providerId: string): Promise<CycleTimes> => {
      const name = nameOf(providerId);
      const times: { -readonly [K in keyof CycleTimes]: CycleTimes[K] } = { providerId, name, containerId: '' };
      try {
        times.stopStartedAt = hrNow();
        await step(['scale', `deployment/${name}`, '--replicas=0']);
        times.stopEndedAt = (await step([...status, `deployment/${name}`])).endedAt;
        times.startStartedAt = hrNow();
        await step(['scale', `deployment/${name}`, '--replicas=1']);
        times.startEndedAt = (await step([...status, `deployment/${name}`])).endedAt;
      } catch (error) {
        times.error = error instanceof Error ? error.message : String(error);
      }
      return times;
    };
    // `concurrency` workers, each taking the next workload when its cycle is done.
    const records: CycleTimes[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, ids.length) }, async () => {
        while (next < ids.length) {
          const index = next++;
          records[index] = await cycle(ids[index]!);
        }
      }),
    );
    return { records, cpuMs, peakRssMiB };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function requestFigures(log: readonly { method: string; path: string; watch: boolean }[], cycles: number): RequestFigures {
  const discovery = log.filter(
    (request) => /^\/(api|apis|openapi)(\/v\d+|\/[^/]+\/[^/]+)?\/?$/.test(request.path) || request.path.startsWith('/openapi'),
  ).length;
  return {
    total: log.length,
    perCycle: log.length / cycles,
    writes: log.filter(
      (request) => request.method === 'PATCH' || request.method === 'PUT' || request.method === 'DELETE' || request.method === 'POST',
    ).length,
    reads: log.filter((request) => request.method === 'GET' && !request.watch).length - discovery,
    watches: log.filter((request) => request.watch).length,
    discovery,
  };
}

function figures(
  kind: Kind,
  records: readonly CycleTimes[],
  observer: LifecycleObserver,
  before: Map<string, string>,
  after: Map<string, string>,
  requests: RequestFigures,
  cpuMs: number,
  peakRssMiB: number,
  exitedOnItsOwn: boolean,
  activeHandlesAfter: readonly string[],
): KindFigures {
  const ok = records.filter((record) => !record.error && record.startEndedAt !== undefined);
  const stopDetection: number[] = [];
  const startDetection: number[] = [];
  let unmatched = 0;
  let stopsBeforePodsGone = 0;
  for (const record of ok) {
    const podDeletions = observer.pods.filter(
      (pod) =>
        pod.containerId === record.containerId &&
        pod.type === 'DELETED' &&
        pod.at >= record.stopStartedAt! &&
        pod.at <= record.startStartedAt! + 2000,
    );
    const lastDeletion = podDeletions.reduce<number | undefined>(
      (latest, pod) => (latest === undefined ? pod.at : Math.max(latest, pod.at)),
      undefined,
    );
    if (lastDeletion !== undefined && lastDeletion > record.stopEndedAt! + 100) stopsBeforePodsGone += 1;
    const seenFrom = (from: number): DeploymentSeen[] =>
      observer.deployments.filter((seen) => seen.name === record.name && seen.at >= from - 5);
    if (kind === 'ours') {
      if (lastDeletion !== undefined) stopDetection.push(record.stopEndedAt! - lastDeletion);
      else unmatched += 1;
      const completing = record.startResourceVersion ? observer.deploymentAt(record.name, record.startResourceVersion) : undefined;
      if (completing) startDetection.push(record.startEndedAt! - completing.at);
      else unmatched += 1;
    } else {
      // kubectl rollout status's own predicate on the scaled-down, then scaled-up, generation.
      const stopped = seenFrom(record.stopStartedAt!).find(
        (seen) => seen.specReplicas === 0 && seen.observedGeneration >= seen.generation && seen.kubectlComplete,
      );
      if (stopped) stopDetection.push(record.stopEndedAt! - stopped.at);
      else unmatched += 1;
      const started = seenFrom(record.startStartedAt!).find(
        (seen) => seen.specReplicas === 1 && seen.observedGeneration >= seen.generation && seen.kubectlComplete,
      );
      if (started) startDetection.push(record.startEndedAt! - started.at);
      else unmatched += 1;
    }
  }
  const newPods = records.filter((record) => {
    const old = before.get(record.containerId);
    const now = after.get(record.containerId);
    return old !== undefined && now !== undefined && old !== now;
  }).length;
  const starts = records.map((record) => record.stopStartedAt).filter((at): at is number => at !== undefined);
  const ends = records.map((record) => record.startEndedAt).filter((at): at is number => at !== undefined);
  return {
    kind,
    label: KIND_LABELS[kind],
    n: records.length,
    succeeded: ok.length,
    failed: records.length - ok.length,
    errors: [...new Set(records.flatMap((record) => (record.error ? [record.error] : [])))].slice(0, 5),
    wallMs: ends.length > 0 ? Math.max(...ends) - Math.min(...starts) : Number.NaN,
    cycleMs: summarize(ok.map((record) => record.startEndedAt! - record.stopStartedAt!)),
    stopDetectionMs: summarize(stopDetection),
    startDetectionMs: summarize(startDetection),
    unmatched,
    stopsBeforePodsGone,
    newPods,
    requests,
    cpuMs,
    peakRssMiB,
    exitedOnItsOwn,
    activeHandlesAfter,
  };
}

async function runKind(cluster: LocalCluster, namespaces: Namespaces, admin: KubernetesApi, kind: Kind): Promise<KindFigures> {
  const namespace = await namespaces.create(`bench-life-${kind}`);
  try {
    log(`${kind}: provisioning ${n} workloads in ${namespace}...`);
    const { ids, pods: before } = await prepare(admin, namespace);
    const containerIds = new Map(ids.map((id, index) => [id, String(index + 1)]));
    const observer = await LifecycleObserver.start(cluster.kubeconfigPath, namespace);
    try {
      const proxy = await startProxy(cluster.kubeconfigPath);
      try {
        log(`${kind}: ${n} concurrent stop-then-start cycles...`);
        let records: CycleTimes[];
        let cpuMs: number;
        let peakRssMiB: number;
        let exitedOnItsOwn = true;
        let activeHandlesAfter: readonly string[] = [];
        if (kind === 'ours') {
          const run = await runOurs(proxy.kubeconfigPath, namespace, ids);
          records = run.result.records.map((record: CycleRecord) => ({
            ...record,
            name: nameOf(record.providerId),
            containerId: containerIds.get(record.providerId) ?? '',
            ...(record.error === undefined && (record.stopChanged !== true || record.startChanged !== true)
              ? {
                  error: `a cycle wrote nothing (stop changed ${String(record.stopChanged)}, start changed ${String(record.startChanged)})`,
                }
              : {}),
          }));
          cpuMs = run.result.cpuMs;
          peakRssMiB = run.result.peakRssMiB;
          exitedOnItsOwn = run.exitedOnItsOwn;
          activeHandlesAfter = run.result.activeHandlesAfter;
        } else {
          const run = await runKubectl(proxy.kubeconfigPath, namespace, ids, kind === 'kubectl' ? ids.length : kubectlPaced);
          records = run.records.map((record) => ({ ...record, containerId: containerIds.get(record.providerId) ?? '' }));
          cpuMs = run.cpuMs;
          peakRssMiB = run.peakRssMiB;
        }
        await new Promise((resolveSettle) => setTimeout(resolveSettle, 1000));
        const after = await readyPods(admin, namespace);
        const { log: requests } = await proxy.report();
        return figures(
          kind,
          records,
          observer,
          before,
          after,
          requestFigures(requests, ids.length),
          cpuMs,
          peakRssMiB,
          exitedOnItsOwn,
          activeHandlesAfter,
        );
      } finally {
        proxy.kill();
      }
    } finally {
      await observer.stop();
    }
  } finally {
    if (!(await namespaces.delete(namespace))) notes.push(`namespace ${namespace} was not gone 300 s after its deletion`);
  }
}

function markdown(machine: MachineInfo, runs: readonly KindFigures[], versions: Record<string, string>): string {
  const ms = (summary: Summary): string =>
    `${fmt(summary.p50, 1)} / ${fmt(summary.p95, 1)} / ${fmt(summary.p99, 1)} / ${fmt(summary.max, 1)}`;
  const lines = [
    '# Lifecycle benchmark: concurrent stop-then-start cycles',
    '',
    `Generated by \`npm run bench:lifecycle\` on ${new Date().toISOString().slice(0, 10)}. ${n} workloads, every one stopped and then`,
    `started again, all at once, on a local control plane (Kubernetes ${versions.kubernetes ?? '?'}, KWOK kubelets, Pods Ready ${podReadyDelayMs} ms`,
    `after scheduling). Machine: ${machine.cpuModel}, ${machine.cpuCount} CPUs, Node ${machine.node}, kubectl ${machine.kubectl ?? '?'}. Control plane on CPU(s) ${clusterCpus || 'any'},`,
    `clients on ${clientCpus || 'any'}. Load average when it started: ${loadAtStart}. Method: bench/README.md.`,
    '',
    markdownTable(
      ['', ...runs.map((run) => run.label)],
      [
        ['cycles ok', ...runs.map((run) => `${run.succeeded}/${run.n}`)],
        ['wall time, first stop to last start done', ...runs.map((run) => `${fmt(run.wallMs / 1000, 2)} s`)],
        ['one cycle p50 / p95 / p99 / max (ms)', ...runs.map((run) => ms(run.cycleMs))],
        ['a new Pod after the cycle', ...runs.map((run) => `${run.newPods}/${run.n}`)],
        ['stop ended > 100 ms before its last Pod was deleted', ...runs.map((run) => String(run.stopsBeforePodsGone))],
        ['stop detection p50 / p95 / p99 / max (ms)', ...runs.map((run) => ms(run.stopDetectionMs))],
        ['start detection p50 / p95 / p99 / max (ms)', ...runs.map((run) => ms(run.startDetectionMs))],
        ['API requests (per cycle)', ...runs.map((run) => `${run.requests.total} (${fmt(run.requests.perCycle, 1)})`)],
        [
          'of which writes / reads / watches / discovery',
          ...runs.map((run) => `${run.requests.writes} / ${run.requests.reads} / ${run.requests.watches} / ${run.requests.discovery}`),
        ],
        ['client CPU time', ...runs.map((run) => `${fmt(run.cpuMs / 1000, 2)} s`)],
        ['client peak RSS', ...runs.map((run) => `${fmt(run.peakRssMiB, 0)} MiB${run.kind === 'kubectl' ? ' (largest process)' : ''}`)],
        ['unmatched detections', ...runs.map((run) => String(run.unmatched))],
      ],
    ),
    '',
    'What the rows mean:',
    '',
    '- **stop detection**: when the waiter said "stopped" minus when the independent observer saw what that claim rests on. Ours',
    "  waits until no Pod of the workload is left, so it is measured against the observer's last Pod deletion for that",
    "  workload. `kubectl rollout status` returns once the Deployment's status counts 0 replicas, so it is measured against",
    '  the first Deployment event satisfying its own predicate on the scaled-down generation. A negative value means the',
    '  waiter saw the change before the observer did (separate watches, separate processes).',
    '- **start detection**: when the waiter said "running" minus when the observer saw the Deployment event it completed on (ours:',
    "  the resourceVersion of our last progress event; kubectl: the first event satisfying kubectl's predicate on the",
    '  scaled-up generation).',
    '- **a new Pod**: the ready Pod after the cycle has another UID than the one before it.',
    `- **kubectl, all at once** starts ${n * 4} kubectl processes over the run, ${n} at a time, on the client CPU(s) with the`,
    "  proxy and the observer; a command that cannot finish its TLS handshake in Go's fixed 10 s fails, and so does its",
    `  cycle. **kubectl, at most ${kubectlPaced} at once** is the same work paced, for kubectl's latency without that overload.`,
    '- **API requests**: counted by a proxy in front of each client. kubectl runs 4 processes per cycle, each with its own',
    '  connection and, on first use, API discovery (a fresh cache directory per run); its `rollout status` is a watch.',
    '  Ours shares one Deployment watch and one Pod watch (streaming lists) for all cycles; each operation reads the',
    '  Deployment once and writes once.',
    '- **client CPU time**: ours, the child process from the first stop to the last start; kubectl, the sum of the user and',
    '  system time of every kubectl process (`/usr/bin/time`).',
  ];
  for (const run of runs) {
    if (run.errors.length > 0) lines.push('', `Errors (${run.kind}): ${run.errors.join('; ')}`);
    if (!run.exitedOnItsOwn) lines.push('', `Our child did not exit on its own; handles left: ${run.activeHandlesAfter.join(', ')}`);
  }
  if (notes.length > 0) lines.push('', 'Notes:', '', ...notes.map((note) => `- ${note}`));
  return lines.join('\n');
}

async function main(): Promise<void> {
  const machine = machineInfo();
  process.on('exit', killChildren);
  const interrupt = (): void => {
    process.exitCode = 130;
    killChildren();
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  log(`n ${n}; kinds ${kinds.join(',')}; pod ready delay ${podReadyDelayMs} ms; our child loads ${impl}`);
  const cluster = await startCluster({
    podReadyDelayMs,
    nodeCapacity: { pods: String(Math.max(3000, n * 3)) },
    log: (line) => log(`[cluster] ${line}`),
  });
  const runs: KindFigures[] = [];
  try {
    execFileSync('renice', ['-n', '10', '-p', ...Object.values(cluster.pids).map(String)], { stdio: 'ignore' });
    const pinned = clusterCpus === '' || pin(clusterCpus, Object.values(cluster.pids));
    if (clientCpus !== '' && pinned) pin(clientCpus, [process.pid]);
    const namespaces = new Namespaces(cluster.kubeconfigPath);
    const admin = KubernetesApi.fromConfig({ kubeconfigPath: cluster.kubeconfigPath, maxConnections: 16 });
    for (const kind of kinds) {
      const started = hrNow();
      const run = await runKind(cluster, namespaces, admin, kind);
      runs.push(run);
      log(
        `${kind}: ok ${run.succeeded}/${run.n}, wall ${fmt(run.wallMs / 1000, 2)} s, new Pods ${run.newPods}/${run.n}, ` +
          `requests ${run.requests.total}, stop detection p99 ${fmt(run.stopDetectionMs.p99, 1)} ms, start detection p99 ${fmt(run.startDetectionMs.p99, 1)} ms ` +
          `(${fmt((hrNow() - started) / 1000, 1)} s with setup)`,
      );
      for (const error of run.errors) log(`  error: ${error}`);
    }
  } finally {
    killChildren();
    await cluster.stop();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    join(outDir, 'lifecycle.json'),
    `${JSON.stringify({ machine, options: { n, podReadyDelayMs, kinds, impl, clusterCpus, clientCpus, timeoutMs }, runs, notes }, null, 2)}\n`,
  );
  writeFileSync(join(outDir, 'lifecycle.md'), `${markdown(machine, runs, { ...cluster.versions })}\n`);
  log(`wrote ${join(outDir, 'lifecycle.md')} and lifecycle.json`);
}

main().catch((error: unknown) => {
  killChildren();
  process.stderr.write(`[bench:lifecycle] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
