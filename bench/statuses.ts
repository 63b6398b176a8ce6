// npm run bench:statuses: a live status list of N managed workloads (default 1,000) on a
// real local control plane, measured the way `npm run bench` measures provisioning:
//   1. the parent creates N workloads (our manifests) and waits until all are available;
//   2. a child process subscribes statuses$() through a counting proxy (its own process)
//      and reports when every workload has been seen; it samples the heap then;
//   3. the parent scales every workload to 0, then back to 1 (the Scale subresource, 32
//      requests at once), and waits until the child has seen all offline, then all running;
//   4. an independent observer in the parent (client-node's Watch, straight to the API
//      server) stamps every Deployment event; each status event the child emitted because
//      of a Deployment event is matched to the observer's stamp of the same resourceVersion.
// Writes bench/results/statuses.md and statuses.json. Asserts nothing.
//
// Flags (or environment):
//   --workloads 1000     BENCH_STATUSES_WORKLOADS
//   --pod-ready-ms 1000  BENCH_POD_READY_MS   KWOK's scheduling-to-Ready delay
//   --impl src|dist      BENCH_IMPL           what the child loads (npm run bench:statuses builds and passes dist)
//   --cluster-cpus 0     BENCH_CLUSTER_CPUS   pin the control plane (a taskset list, or none)
//   --client-cpus 1      BENCH_CLIENT_CPUS    pin this process and its children
//   --cluster-nice 10    BENCH_CLUSTER_NICE
//   --out bench/results  BENCH_OUT
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AppsV1Api, KubeConfig } from '@kubernetes/client-node';
import { startCluster } from '../scripts/control-plane/cluster.js';
import { KubernetesApi } from '../src/kube/kubernetes-api.js';
import { parseWorkloadSpec } from '../src/input/workload-spec.js';
import { buildDeployment } from '../src/members/deployment/manifest.js';
import { apiCounts, type ApiCounts } from './lib/cluster-report.js';
import { deploymentName } from './lib/child-harness.js';
import { machineInfo, machineMarkdown, type MachineInfo } from './lib/machine.js';
import { Namespaces } from './lib/namespaces.js';
import { DeploymentObserver } from './lib/observer.js';
import { observersOn } from './lib/observer-process.js';
import { pinProcesses, renice } from './lib/pinning.js';
import type { Implementation } from './lib/protocol.js';
import { killChildren, startProxy } from './lib/runners.js';
import { fmt, hrNow, markdownTable, summarize, type Summary } from './lib/stats.js';
import type { ChildMessage, ParentMessage, StatusesChildInput, StatusesChildResult } from './lib/statuses-protocol.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CHILD = join(REPO_ROOT, 'bench', 'lib', 'statuses-child.ts');
const IMAGE = 'registry.example.com/manager:1.0';
const CONCURRENCY = 32;
const PHASE_TIMEOUT_MS = 300_000;

const { values } = parseArgs({
  options: {
    workloads: { type: 'string' },
    'pod-ready-ms': { type: 'string' },
    impl: { type: 'string' },
    'cluster-cpus': { type: 'string' },
    'client-cpus': { type: 'string' },
    'cluster-nice': { type: 'string' },
    out: { type: 'string' },
  },
  strict: true,
});
const env = process.env;
const count = Number(values.workloads ?? env.BENCH_STATUSES_WORKLOADS ?? 1000);
const podReadyDelayMs = Number(values['pod-ready-ms'] ?? env.BENCH_POD_READY_MS ?? 1000);
const impl = (values.impl ?? env.BENCH_IMPL ?? 'src') as Implementation;
const cpuCount = availableParallelism();
const cpuList = (value: string | undefined, fallback: string): string => (value === undefined ? fallback : value === 'none' ? '' : value);
const clusterCpus = cpuList(values['cluster-cpus'] ?? env.BENCH_CLUSTER_CPUS, cpuCount >= 2 ? '0' : '');
const clientCpus = cpuList(
  values['client-cpus'] ?? env.BENCH_CLIENT_CPUS,
  clusterCpus === '0' ? (cpuCount === 2 ? '1' : `1-${cpuCount - 1}`) : '',
);
const clusterNice = Number(values['cluster-nice'] ?? env.BENCH_CLUSTER_NICE ?? 10);
const outDir = resolve(REPO_ROOT, values.out ?? env.BENCH_OUT ?? 'bench/results');
if (!Number.isSafeInteger(count) || count < 1) throw new Error(`--workloads: not a positive integer: ${count}`);
if (impl !== 'dist' && impl !== 'src') throw new Error(`--impl must be dist or src, got ${String(impl)}`);

const log = (line: string): void => {
  process.stderr.write(`[bench:statuses] ${line}\n`);
};
const notes: string[] = [];

/** Runs `job` for 0..n-1, at most `limit` at once. */
async function pool(n: number, limit: number, job: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, n) }, worker));
}

async function until(what: string, check: () => boolean, timeoutMs = PHASE_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The child, with a typed IPC channel. */
function startChild(input: StatusesChildInput) {
  const dir = mkdtempSync(join(tmpdir(), 'kp-bench-statuses-'));
  const inputPath = join(dir, 'input.json');
  writeFileSync(inputPath, JSON.stringify(input));
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, inputPath], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const messages: ChildMessage[] = [];
  child.on('message', (message: ChildMessage) => messages.push(message));
  let exited = false;
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => ((exited = true), resolve(code))));
  return {
    send: (message: ParentMessage) => child.send(message),
    next: async (predicate: (message: ChildMessage) => boolean, what: string): Promise<ChildMessage> => {
      await until(what, () => messages.some(predicate) || exited);
      const found = messages.find(predicate);
      if (!found) throw new Error(`the child exited before ${what}`);
      messages.splice(messages.indexOf(found), 1);
      return found;
    },
    exit,
    exited: () => exited,
    kill: () => {
      if (!exited) child.kill('SIGKILL');
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

interface Figures {
  readonly machine: MachineInfo;
  readonly options: Record<string, unknown>;
  readonly workloads: number;
  readonly createAndRolloutMs: number;
  readonly initialSyncMs: number;
  readonly heapBytesPerWorkload: number;
  readonly stopPhaseMs: number;
  readonly startPhaseMs: number;
  readonly events: { readonly initial: number; readonly stop: number; readonly start: number };
  readonly repeats: number;
  /** Watch events the child received, the informer changes statuses$ got, and the statuses it computed. */
  readonly watchEvents: number;
  readonly notices: number;
  readonly evaluations: number;
  readonly fullPaths: number;
  readonly detectionMs: Summary;
  readonly inProcessMs: Summary;
  /** In-child delays of 1 ms or more, and how many of them used less CPU than half their length (waiting for a core). */
  readonly slowInProcess: number;
  readonly slowWaiting: number;
  /** The machine's 1/5/15-minute load averages when the run started and ended (other work on it shows here). */
  readonly loadAverage: { readonly before: readonly number[]; readonly after: readonly number[] };
  readonly matched: number;
  readonly unmatched: number;
  readonly podTriggered: number;
  readonly api: ApiCounts;
  readonly childCpuMs: number;
  readonly childExitedOnItsOwn: boolean;
  readonly activeHandlesAfter: readonly string[];
  readonly notes: readonly string[];
}

async function main(): Promise<void> {
  const machine = machineInfo();
  const loadBefore = loadavg().map((load) => Number(load.toFixed(2)));
  process.on('exit', killChildren);
  log(`${count} workloads; pod ready delay ${podReadyDelayMs} ms; child loads ${impl}`);
  const cluster = await startCluster({
    podReadyDelayMs,
    nodeCapacity: { pods: String(Math.max(3000, count * 2 + 100)) },
    log: (line) => log(`[cluster] ${line}`),
  });
  let child: ReturnType<typeof startChild> | undefined;
  const namespaces = new Namespaces(cluster.kubeconfigPath);
  let namespace: string | undefined;
  try {
    const pids = Object.values(cluster.pids);
    if (clusterNice > 0) renice(clusterNice, pids);
    const clusterPinned = clusterCpus === '' || pinProcesses(clusterCpus, pids);
    if (clusterCpus !== '' && clusterPinned) observersOn(clusterCpus);
    if (!clusterPinned) notes.push(`control plane not pinned to CPU(s) ${clusterCpus}: taskset failed`);
    if (clientCpus !== '' && clusterPinned && !pinProcesses(clientCpus, [process.pid]))
      notes.push(`clients not pinned to CPU(s) ${clientCpus}`);
    log(`control plane on CPU(s) ${clusterCpus || 'any'}, clients on ${clientCpus || 'any'}`);

    namespace = await namespaces.create('bench-statuses');
    const ns = namespace;
    const observer = await DeploymentObserver.start(cluster.kubeconfigPath, ns);
    const admin = KubernetesApi.fromConfig({ kubeconfigPath: cluster.kubeconfigPath, namespace: ns });
    const config = new KubeConfig();
    config.loadFromFile(cluster.kubeconfigPath);
    const apps = config.makeApiClient(AppsV1Api);
    const names = Array.from({ length: count }, (_, index) => deploymentName(index));

    /** Observed state of every workload, from the observer's events (read incrementally). */
    const latest = new Map<string, boolean>();
    let read = 0;
    const refresh = (): void => {
      for (; read < observer.events.length; read += 1) {
        const event = observer.events[read]!;
        latest.set(event.name, event.state === 'Complete');
      }
    };

    const createStarted = hrNow();
    await pool(count, CONCURRENCY, async (index) => {
      const spec = parseWorkloadSpec({
        containerId: String(index + 1),
        nodeId: 1,
        hostname: names[index],
        image: IMAGE,
        cpus: 0.01,
        memoryMb: 16,
      });
      await admin.create('deployments', ns, buildDeployment(spec, { namespace: ns }));
    });
    await until(`${count} rollouts complete`, () => {
      refresh();
      return names.every((name) => latest.get(name) === true);
    });
    const createAndRolloutMs = hrNow() - createStarted;
    log(`${count} workloads created and available in ${fmt(createAndRolloutMs / 1000, 1)} s`);

    const proxy = await startProxy(cluster.kubeconfigPath);
    const resultDir = mkdtempSync(join(tmpdir(), 'kp-bench-statuses-result-'));
    const resultPath = join(resultDir, 'result.json');
    try {
      child = startChild({ impl, kubeconfigPath: proxy.kubeconfigPath, namespace: ns, count, resultPath });
      const synced = await child.next((message) => message.type === 'synced', 'the first status of every workload');
      if (synced.type !== 'synced') throw new Error('unexpected message');
      log(
        `statuses$ reported all ${count} in ${fmt(synced.initialSyncMs, 0)} ms; heap ${fmt(synced.heapBytesPerWorkload / 1024, 2)} KiB per workload`,
      );
      // Let the sample's forced GC pass before the measured changes.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      // The scale requests below are load on the cluster, as other clients' would be: sent from
      // the control plane's CPUs, so that they never take the measured child's, the proxy's or
      // the observer's core (which they all inherited before this).
      if (clusterCpus !== '' && clusterPinned && !pinProcesses(clusterCpus, [process.pid]))
        notes.push(`the parent (the scale requests) not moved to CPU(s) ${clusterCpus}: it shared the child's`);

      const scaleAll = (replicas: number) =>
        pool(count, CONCURRENCY, (index) =>
          apps.replaceNamespacedDeploymentScale({
            name: names[index]!,
            namespace: ns,
            body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: names[index]!, namespace: ns }, spec: { replicas } },
          }),
        );
      const stopStarted = hrNow();
      child.send({ type: 'await', state: 'offline' });
      await scaleAll(0);
      await child.next((message) => message.type === 'reached' && message.state === 'offline', `all ${count} offline`);
      const stopPhaseMs = hrNow() - stopStarted;
      log(`all offline ${fmt(stopPhaseMs / 1000, 1)} s after the first scale request`);

      const startStarted = hrNow();
      child.send({ type: 'await', state: 'running' });
      await scaleAll(1);
      await child.next((message) => message.type === 'reached' && message.state === 'running', `all ${count} running`);
      const startPhaseMs = hrNow() - startStarted;
      log(`all running again ${fmt(startPhaseMs / 1000, 1)} s after the first scale request`);
      await new Promise((resolve) => setTimeout(resolve, 1000));

      child.send({ type: 'finish' });
      await child.next((message) => message.type === 'done', 'the child result');
      const exitDeadline = Date.now() + 10_000;
      while (!child.exited() && Date.now() < exitDeadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const childExitedOnItsOwn = child.exited();
      child.kill();
      await observer.stop();
      const { counts, log: requests } = await proxy.report();
      const result = JSON.parse(readFileSync(resultPath, 'utf8')) as StatusesChildResult;

      const detection: number[] = [];
      const inProcess: number[] = [];
      let unmatched = 0;
      let podTriggered = 0;
      let slowInProcess = 0;
      let slowWaiting = 0;
      const measured = result.emissions.filter((emission) => emission.at >= stopStarted);
      for (const emission of measured) {
        if (emission.trigger !== 'deployment') {
          podTriggered += 1;
          continue;
        }
        const seen = observer.at(emission.name, emission.resourceVersion);
        if (!seen) {
          unmatched += 1;
          continue;
        }
        detection.push(emission.at - seen.at);
        if (emission.receivedAt !== undefined) {
          const ms = emission.at - emission.receivedAt;
          inProcess.push(ms);
          if (ms >= 1) {
            slowInProcess += 1;
            if ((emission.cpuMsSinceReceived ?? 0) < ms / 2) slowWaiting += 1;
          }
        }
      }
      const paths = new Map<string, string[]>();
      for (const emission of result.emissions) {
        const path = paths.get(emission.name) ?? [];
        if (path.at(-1) !== emission.state) path.push(emission.state);
        paths.set(emission.name, path);
      }
      const fullPaths = [...paths.values()].filter((path) => path.join(',') === 'running,stopping,offline,starting,running').length;
      const figures: Figures = {
        machine,
        options: {
          count,
          podReadyDelayMs,
          impl,
          clusterCpus: clusterCpus || 'any',
          clientCpus: clientCpus || 'any',
          clusterNice,
          concurrency: CONCURRENCY,
        },
        workloads: count,
        createAndRolloutMs,
        initialSyncMs: result.initialSyncMs,
        heapBytesPerWorkload: result.heapBytesPerWorkload,
        stopPhaseMs,
        startPhaseMs,
        events: {
          initial: result.emissions.filter((emission) => emission.at < stopStarted).length,
          stop: result.emissions.filter((emission) => emission.at >= stopStarted && emission.at < startStarted).length,
          start: result.emissions.filter((emission) => emission.at >= startStarted).length,
        },
        repeats: result.repeats,
        watchEvents: result.watchEvents,
        notices: result.notices,
        evaluations: result.evaluations,
        fullPaths,
        detectionMs: summarize(detection),
        inProcessMs: summarize(inProcess),
        slowInProcess,
        slowWaiting,
        loadAverage: { before: loadBefore, after: loadavg().map((load) => Number(load.toFixed(2))) },
        matched: detection.length,
        unmatched,
        podTriggered,
        api: apiCounts(counts, requests, ns),
        childCpuMs: result.cpuMs,
        childExitedOnItsOwn,
        activeHandlesAfter: result.activeHandlesAfter,
        notes: [...notes, ...(result.gcAvailable ? [] : ['the child ran without --expose-gc: the heap figure includes garbage'])],
      };
      mkdirSync(outDir, { recursive: true });
      writeFileSync(join(outDir, 'statuses.json'), `${JSON.stringify(figures, null, 2)}\n`);
      writeFileSync(join(outDir, 'statuses.md'), `${markdown(figures)}\n`);
      log(
        `detection p50/p95/p99/max ${fmt(figures.detectionMs.p50, 2)}/${fmt(figures.detectionMs.p95, 2)}/${fmt(figures.detectionMs.p99, 2)}/${fmt(figures.detectionMs.max, 2)} ms ` +
          `over ${figures.matched} events (unmatched ${unmatched}); watches open at once ${figures.api.peakOpenDeploymentWatches} Deployment / ${figures.api.peakOpenPodWatches} Pod; ` +
          `heap ${fmt(figures.heapBytesPerWorkload / 1024, 2)} KiB per workload`,
      );
      log(`wrote ${join(outDir, 'statuses.md')} and statuses.json`);
    } finally {
      proxy.kill();
      child?.kill();
      child?.cleanup();
      rmSync(resultDir, { recursive: true, force: true });
    }
  } finally {
    killChildren();
    if (namespace) await namespaces.delete(namespace);
    await cluster.stop();
  }
}

function markdown(figures: Figures): string {
  const d = figures.detectionMs;
  const p = figures.inProcessMs;
  const target = (met: boolean): string => (met ? 'met' : 'MISSED');
  const watchesMet = figures.api.peakOpenDeploymentWatches === 1 && figures.api.peakOpenPodWatches === 1;
  return [
    '# statuses$ benchmark',
    '',
    `\`npm run bench:statuses\` (bench/statuses.ts): ${figures.workloads} managed workloads on a local control plane, one`,
    'statuses$() subscription in a child process, through a counting proxy; every workload scaled to 0 and back to 1;',
    "an independent observer's Deployment watch stamps each event. See bench/README.md for the method.",
    '',
    machineMarkdown(figures.machine, {
      'control plane CPUs': String(figures.options.clusterCpus),
      'client CPUs': String(figures.options.clientCpus),
      'pod ready delay': `${String(figures.options.podReadyDelayMs)} ms`,
      'child loads': String(figures.options.impl),
    }),
    '',
    '## Targets',
    '',
    markdownTable(
      ['target', 'figure', ''],
      [
        [
          'one Deployment watch and one Pod watch',
          `${figures.api.peakOpenDeploymentWatches} Deployment / ${figures.api.peakOpenPodWatches} Pod open at once (${figures.api.deploymentWatches} + ${figures.api.podWatches} watch requests, ${figures.api.lists} lists)`,
          target(watchesMet),
        ],
        [
          'status-change detection p99 < 10 ms after the observer',
          `${fmt(d.p99, 2)} ms (p50 ${fmt(d.p50, 2)}, p95 ${fmt(d.p95, 2)}, max ${fmt(d.max, 2)}; ${figures.matched} events)`,
          target(d.p99 < 10),
        ],
        ['heap per watched workload', `${fmt(figures.heapBytesPerWorkload / 1024, 2)} KiB`, ''],
        [
          'one status evaluation per event at most',
          `${fmt(figures.evaluations / Math.max(1, figures.watchEvents), 3)} per watch event (${figures.evaluations} evaluations, ${figures.watchEvents} watch events, ${figures.notices} informer changes)`,
          target(figures.evaluations <= figures.watchEvents),
        ],
        [
          'each change once',
          `${figures.repeats} repeated events; ${figures.fullPaths}/${figures.workloads} workloads went running, stopping, offline, starting, running`,
          target(figures.repeats === 0),
        ],
      ],
    ),
    '',
    '## Figures',
    '',
    markdownTable(
      ['', ''],
      [
        ['create and roll out (parent, before the child starts)', `${fmt(figures.createAndRolloutMs / 1000, 1)} s`],
        ['statuses$ subscribe to the first status of every workload', `${fmt(figures.initialSyncMs, 0)} ms`],
        ['scale all to 0 until the child saw all offline', `${fmt(figures.stopPhaseMs / 1000, 1)} s`],
        ['scale all to 1 until the child saw all running', `${fmt(figures.startPhaseMs / 1000, 1)} s`],
        ['status events: initial / stop / start', `${figures.events.initial} / ${figures.events.stop} / ${figures.events.start}`],
        [
          'events measured (caused by a Deployment event) / caused by a Pod event / not seen by the observer',
          `${figures.matched} / ${figures.podTriggered} / ${figures.unmatched}`,
        ],
        [
          'in the child: Deployment watch event in, status event out, p50 / p99 / max',
          `${fmt(p.p50, 3)} / ${fmt(p.p99, 3)} / ${fmt(p.max, 3)} ms`,
        ],
        [
          'in the child, 1 ms or more / of which the child used under half that in CPU (it waited for a core)',
          `${figures.slowInProcess} / ${figures.slowWaiting}`,
        ],
        [
          'load average (1, 5, 15 min) at start / end',
          `${figures.loadAverage.before.join(', ')} / ${figures.loadAverage.after.join(', ')}`,
        ],
        ['API requests by the child (proxy)', `${figures.api.requests} (${figures.api.watches} watches, ${figures.api.lists} lists)`],
        ['child CPU, subscribe to finish', `${fmt(figures.childCpuMs, 0)} ms`],
        [
          'child exited on its own after unsubscribing',
          figures.childExitedOnItsOwn ? 'yes' : `no (open: ${figures.activeHandlesAfter.join(', ') || 'none listed'})`,
        ],
      ],
    ),
    '',
    'Detection is when the child emitted a status event minus when the observer received the Deployment event of the',
    'same resourceVersion; it includes the proxy hop. Events caused by a Pod event have no observer stamp and are only',
    'counted. The in-child figure is the library alone: from the watch event reaching the client to the status event.',
    ...(figures.notes.length ? ['', '## Notes', '', ...figures.notes.map((note) => `- ${note}`)] : []),
  ].join('\n');
}

main().catch((error: unknown) => {
  killChildren();
  process.stderr.write(`[bench:statuses] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
