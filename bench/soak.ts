// npm run bench:soak: ten thousand containers and a long churn in one process, on the real
// local control plane (kube-apiserver, controller manager, scheduler, KWOK). One long-lived
// child (bench/lib/soak-child.ts, --expose-gc) holds statuses$() throughout, as Manager's
// server would, and runs the provisionings; the parent creates objects, stamps events with
// an independent observer, and reads the API server's view for comparison. Phases, in order:
//   namespaces  10 namespaces x M workloads: watches per kind per namespace, sync, heap, CPU
//   peers       at M workloads (namespace 0): statuses$ against a Helm-style poller (one
//               LIST per 2 s) and `kubectl get -w` per kind: requests, bytes, CPU, staleness
//   snapshot    1 namespace x N workloads: watches, first complete snapshot, heap per
//               workload, detection p99 after the observer, CPU per event
//   relist      the API server restarted under N watched workloads: time until whole, peak
//               memory, duplicate or missing status events
//   soak        waves of provisionings (create, stop, start, reconfigure, delete; a wave is
//               W at once) for the churn time, statuses$ open throughout; a checkpoint after
//               each wave: heap after GC, RSS, handles, fds, timers, abort listeners,
//               informer caches against the objects that exist, unsettled waiters
// Every workload is the full set of a container's objects: Deployment (and its Pod), a
// Service with one port, and a claim bound to a pre-created local PersistentVolume of a
// no-provisioner WaitForFirstConsumer class (pre-bound both ways, so binding needs no
// search over thousands of volumes). Writes bench/results/soak.md and soak.json; asserts
// nothing. See bench/README.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AppsV1Api, CoreV1Api, KubeConfig, StorageV1Api, type V1PersistentVolume } from '@kubernetes/client-node';
import { startCluster, type LocalCluster } from '../scripts/control-plane/cluster.js';
import { KubernetesApi } from '../src/kube/kubernetes-api.js';
import type { WatchedKind } from '../src/kube/kinds.js';
import { buildDeployment, workloadLabels } from '../src/members/deployment/manifest.js';
import { buildService, deploymentOwner } from '../src/members/service/manifest.js';
import { buildClaim } from '../src/members/claim/manifest.js';
import { machineInfo, machineMarkdown, type MachineInfo } from './lib/machine.js';
import { SOAK_IMAGE, soakWorkloadSpec } from './lib/soak-workload.js';
import { Namespaces } from './lib/namespaces.js';
import { DeploymentObserver } from './lib/observer.js';
import { observersOn } from './lib/observer-process.js';
import { pinProcesses, renice } from './lib/pinning.js';
import type { Implementation } from './lib/protocol.js';
import type { ProxyRequestSummary } from './lib/proxy-protocol.js';
import { killChildren, startProxy, type ProxyProcess } from './lib/runners.js';
import type {
  ChildMessage,
  InformerFigure,
  ParentMessage,
  Recorded,
  Sample,
  SoakChildInput,
  WaveItem,
  WaveOp,
  WaveResult,
} from './lib/soak-protocol.js';
import type { StatusPollerResult } from './lib/status-poller-child.js';
import { fmt, hrNow, markdownTable, summarize, type Summary } from './lib/stats.js';
import type { RequestCounts } from '../test/support/api-proxy.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOAK_CHILD = join(REPO_ROOT, 'bench', 'lib', 'soak-child.ts');
const POLLER_CHILD = join(REPO_ROOT, 'bench', 'lib', 'status-poller-child.ts');
const IMAGE = SOAK_IMAGE;
const CREATE_CONCURRENCY = 24;
const PHASE_TIMEOUT_MS = 1_800_000;
const KiB = 1024;
const MiB = KiB * KiB;
const PHASES = ['namespaces', 'peers', 'snapshot', 'relist', 'soak'] as const;
type Phase = (typeof PHASES)[number];
const WAVE_OPS: readonly WaveOp[] = ['create', 'stop', 'start', 'reconfigure', 'delete'];
/** What statuses$ watches in a namespace: one informer (and one consumer of it) per kind. */
const STATUS_KINDS: readonly WatchedKind[] = ['deployments', 'pods', 'services', 'endpointslices', 'persistentvolumeclaims'];

const MODES = {
  short: { workloads: 1000, namespaces: 10, perNamespace: 100, wave: 50, churnMinutes: 3, provisionings: 0, sample: 200 },
  full: { workloads: 10_000, namespaces: 10, perNamespace: 1000, wave: 300, churnMinutes: 60, provisionings: 10_000, sample: 1000 },
} as const;

const { values } = parseArgs({
  options: {
    mode: { type: 'string' },
    workloads: { type: 'string' },
    namespaces: { type: 'string' },
    'per-namespace': { type: 'string' },
    wave: { type: 'string' },
    'churn-minutes': { type: 'string' },
    provisionings: { type: 'string' },
    sample: { type: 'string' },
    phases: { type: 'string' },
    'pod-ready-ms': { type: 'string' },
    impl: { type: 'string' },
    'cluster-cpus': { type: 'string' },
    'client-cpus': { type: 'string' },
    'cluster-nice': { type: 'string' },
    out: { type: 'string' },
    'from-json': { type: 'string' },
  },
  strict: true,
});
const env = process.env;
const mode = (values.mode ?? env.BENCH_SOAK_MODE ?? 'short') as keyof typeof MODES;
if (!(mode in MODES)) throw new Error(`--mode must be short or full, got ${String(mode)}`);
const defaults = MODES[mode];
const integer = (flag: string, value: string | undefined, fallback: number, min = 1): number => {
  const parsed = value === undefined ? fallback : Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < min) throw new Error(`--${flag}: must be an integer >= ${min}, got ${String(value)}`);
  return parsed;
};
const workloads = integer('workloads', values.workloads ?? env.BENCH_SOAK_WORKLOADS, defaults.workloads);
const namespaceCount = integer('namespaces', values.namespaces, defaults.namespaces);
const perNamespace = integer('per-namespace', values['per-namespace'], defaults.perNamespace);
const waveSize = integer('wave', values.wave ?? env.BENCH_SOAK_WAVE, defaults.wave);
const churnMinutes = Number(values['churn-minutes'] ?? env.BENCH_SOAK_CHURN_MINUTES ?? defaults.churnMinutes);
if (!Number.isFinite(churnMinutes) || churnMinutes < 0) throw new Error(`--churn-minutes: must be a number >= 0`);
const minProvisionings = integer('provisionings', values.provisionings, defaults.provisionings, 0);
const sampleSize = Math.min(workloads, integer('sample', values.sample, defaults.sample));
const phaseList = (values.phases ?? env.BENCH_SOAK_PHASES ?? PHASES.join(',')).split(',').filter(Boolean) as Phase[];
for (const phase of phaseList)
  if (!PHASES.includes(phase)) throw new Error(`--phases: unknown phase ${phase} (known: ${PHASES.join(', ')})`);
const phases = new Set(phaseList);
const podReadyDelayMs = integer('pod-ready-ms', values['pod-ready-ms'] ?? env.BENCH_POD_READY_MS, 1000);
const impl = (values.impl ?? env.BENCH_IMPL ?? 'src') as Implementation;
if (impl !== 'dist' && impl !== 'src') throw new Error(`--impl must be dist or src, got ${String(impl)}`);
const cpuCount = availableParallelism();
const cpuList = (value: string | undefined, fallback: string): string => (value === undefined ? fallback : value === 'none' ? '' : value);
const clusterCpus = cpuList(values['cluster-cpus'] ?? env.BENCH_CLUSTER_CPUS, cpuCount >= 2 ? '0' : '');
const clientCpus = cpuList(
  values['client-cpus'] ?? env.BENCH_CLIENT_CPUS,
  clusterCpus === '0' ? (cpuCount === 2 ? '1' : `1-${cpuCount - 1}`) : '',
);
const clusterNice = Number(values['cluster-nice'] ?? env.BENCH_CLUSTER_NICE ?? 10);
const outDir = resolve(REPO_ROOT, values.out ?? env.BENCH_OUT ?? 'bench/results');

const log = (line: string): void => {
  process.stderr.write(`[bench:soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};
const notes: string[] = [];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function pool<T>(items: readonly T[], limit: number, job: (item: T, index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await job(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = PHASE_TIMEOUT_MS, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** The HTTP status of a failed request: our ApiError's statusCode, client-node's ApiException's code. */
function statusOf(error: unknown): number | undefined {
  const { statusCode, code } = error as { statusCode?: unknown; code?: unknown };
  return typeof statusCode === 'number' ? statusCode : typeof code === 'number' ? code : undefined;
}

/**
 * Retries a request the API server did not answer in time or refused while busy (a loaded
 * machine); a create that answers 409 was stored by an earlier attempt: `onExists` says
 * what that is worth.
 */
async function retried<T>(what: string, request: () => Promise<T>, onExists?: () => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await request();
    } catch (error) {
      const status = statusOf(error);
      if (status === 409 && onExists) return onExists();
      if (attempt >= attempts || status === 409 || status === 422 || status === 400)
        throw new Error(`${what}: ${(error as Error).message}`, { cause: error });
      await sleep(500 * attempt);
    }
  }
}

// ---- the long-lived child ----------------------------------------------------------------------

class SoakChild {
  private readonly messages: ChildMessage[] = [];
  private nextId = 1;
  private exited = false;
  private readonly exit: Promise<number | null>;
  readonly failures: string[] = [];

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'failed') {
        this.failures.push(message.message);
        log(`child: ${message.message}`);
      } else this.messages.push(message);
    });
    this.exit = new Promise((resolve) => child.once('exit', (code) => ((this.exited = true), resolve(code))));
  }

  static async start(input: SoakChildInput, dir: string): Promise<SoakChild> {
    const inputPath = join(dir, `soak-child-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(inputPath, JSON.stringify(input));
    const extraFlags = (env.BENCH_CHILD_NODE_FLAGS ?? '').split(/\s+/).filter((flag) => flag.length > 0);
    const child = spawn(process.execPath, ['--expose-gc', ...extraFlags, '--import', 'tsx', SOAK_CHILD, inputPath], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    const soak = new SoakChild(child);
    await soak.next((message) => message.type === 'ready', 'the child to start', 120_000);
    return soak;
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  send(message: ParentMessage): void {
    this.child.send(message);
  }

  async next<M extends ChildMessage>(predicate: (message: ChildMessage) => message is M, what: string, timeoutMs?: number): Promise<M>;
  async next(predicate: (message: ChildMessage) => boolean, what: string, timeoutMs?: number): Promise<ChildMessage>;
  async next(predicate: (message: ChildMessage) => boolean, what: string, timeoutMs = PHASE_TIMEOUT_MS): Promise<ChildMessage> {
    await until(what, () => this.messages.some(predicate) || this.exited, timeoutMs, 20);
    const found = this.messages.find(predicate);
    if (!found) throw new Error(`the soak child exited before ${what}`);
    this.messages.splice(this.messages.indexOf(found), 1);
    return found;
  }

  async watch(namespace: string, expect: number): Promise<{ ms: number; cpuMs: number }> {
    this.send({ type: 'watch', namespace, expect });
    const synced = await this.next(
      (message): message is Extract<ChildMessage, { type: 'synced' }> => message.type === 'synced' && message.namespace === namespace,
      `statuses$ over ${namespace} to report ${expect} workloads`,
    );
    return { ms: synced.ms, cpuMs: synced.cpuMs };
  }

  /** The child's figures, after a forced full GC unless `gc` is false (a cheap look). */
  async sample(gc = true): Promise<Sample> {
    const id = this.nextId++;
    this.send({ type: 'sample', id, gc });
    const message = await this.next(
      (candidate): candidate is Extract<ChildMessage, { type: 'sample' }> => candidate.type === 'sample' && candidate.id === id,
      'a sample',
      120_000,
    );
    return message.sample;
  }

  /** Resolves once exactly `count` workloads of `namespace` are in `state`. */
  async reach(namespace: string, state: string, count: number, timeoutMs = PHASE_TIMEOUT_MS): Promise<void> {
    const id = this.nextId++;
    this.send({ type: 'await', id, namespace, state, count });
    await this.next((message) => message.type === 'reached' && message.id === id, `${count} ${state} in ${namespace}`, timeoutMs);
  }

  async wave(op: WaveOp, items: readonly WaveItem[], cpus?: number): Promise<WaveResult> {
    const id = this.nextId++;
    this.send({ type: 'wave', id, op, items, ...(cpus !== undefined ? { cpus } : {}) });
    const done = await this.next(
      (message): message is Extract<ChildMessage, { type: 'waveDone' }> => message.type === 'waveDone' && message.id === id,
      `the ${op} wave`,
    );
    return done.result;
  }

  record(): void {
    this.send({ type: 'record', on: true });
  }

  async recorded(): Promise<readonly Recorded[]> {
    this.send({ type: 'record', on: false });
    const message = await this.next(
      (candidate): candidate is Extract<ChildMessage, { type: 'recorded' }> => candidate.type === 'recorded',
      'the recorded events',
    );
    return message.events;
  }

  /** Unsubscribes everything; resolves with the handles left and whether it exited on its own. */
  async finish(): Promise<{ exitedOnItsOwn: boolean; activeHandlesAfter: readonly string[] }> {
    this.send({ type: 'finish' });
    const done = await this.next(
      (message): message is Extract<ChildMessage, { type: 'done' }> => message.type === 'done',
      'the child to finish',
      60_000,
    );
    const deadline = Date.now() + 10_000;
    while (!this.exited && Date.now() < deadline) await sleep(50);
    const exitedOnItsOwn = this.exited;
    this.kill();
    await this.exit;
    return { exitedOnItsOwn, activeHandlesAfter: done.activeHandlesAfter };
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }
}

// ---- the cluster's side: objects, counts --------------------------------------------------------

interface Cluster {
  readonly local: LocalCluster;
  readonly admin: KubernetesApi;
  readonly apps: AppsV1Api;
  readonly core: CoreV1Api;
  readonly storage: StorageV1Api;
  readonly storageClass: string;
  readonly nodeName: string;
}

function workloadName(prefix: string, index: number): string {
  return `${prefix}-${String(index).padStart(5, '0')}`;
}

/** A local volume pre-bound (claimRef) to the claim of `name`, on the KWOK node. */
function preBoundVolume(cluster: Cluster, namespace: string, name: string): V1PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `pv-${namespace}-${name}`.slice(0, 253), labels: { 'kube-provisioner.bench/soak': namespace } },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: cluster.storageClass,
      claimRef: { namespace, name },
      local: { path: `/mnt/${namespace}/${name}` },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [cluster.nodeName] }] }],
        },
      },
    },
  };
}

/**
 * Our claim, pre-bound to its volume (spec.volumeName) as the volume is to it: a claim left
 * for the binder to match is searched for among every volume of the class, and with
 * thousands the scheduler's bind wait ran out with most Pods pending (bench/README.md).
 */
function preBoundClaim(
  cluster: Cluster,
  item: WaveItem,
  spec: ReturnType<typeof soakWorkloadSpec>,
  storage: NonNullable<ReturnType<typeof soakWorkloadSpec>['storage']>,
) {
  const claim = buildClaim({ ...spec, storage }, { namespace: item.namespace, labels: workloadLabels(spec) });
  return { ...claim, spec: { ...claim.spec, volumeName: preBoundVolume(cluster, item.namespace, item.name).metadata!.name! } };
}

async function createVolume(cluster: Cluster, item: WaveItem): Promise<void> {
  await retried(
    `volume ${item.name}`,
    async () => void (await cluster.core.createPersistentVolume({ body: preBoundVolume(cluster, item.namespace, item.name) })),
    async () => undefined,
  );
}

async function createVolumes(cluster: Cluster, items: readonly WaveItem[]): Promise<void> {
  await pool(items, CREATE_CONCURRENCY, (item) => createVolume(cluster, item));
}

async function deleteVolumes(cluster: Cluster, items: readonly WaveItem[]): Promise<void> {
  await pool(items, CREATE_CONCURRENCY, (item) =>
    cluster.core
      .deletePersistentVolume({ name: preBoundVolume(cluster, item.namespace, item.name).metadata!.name! })
      .catch(() => undefined),
  );
}

/**
 * Runs `setUp` with the control plane allowed on every CPU, then pins it back. Creating
 * thousands of workloads measures nothing, and on its one pinned core the controllers set a
 * pace that made a full run's set-up the longest part of it.
 */
async function onEveryCpu(pids: readonly number[], setUp: () => Promise<void>): Promise<void> {
  if (!unpin(pids, 'the set-up')) return setUp();
  try {
    await setUp();
  } finally {
    if (!pinProcesses(clusterCpus, pids)) notes.push(`control plane not pinned back to CPU(s) ${clusterCpus}: taskset failed`);
  }
}

/** Lets the pinned control plane use every CPU; false if it was not pinned (nothing to do). */
function unpin(pids: readonly number[], what: string): boolean {
  if (clusterCpus === '' || cpuCount < 2) return false;
  const every = `0-${cpuCount - 1}`;
  if (!pinProcesses(every, pids)) notes.push(`control plane not moved to CPU(s) ${every} for ${what}: taskset failed`);
  return true;
}

/** Creates every object of each workload directly (not through provision): volume, claim, Deployment, Service. */
async function createWorkloads(cluster: Cluster, items: readonly WaveItem[]): Promise<void> {
  let done = 0;
  let lastLog = hrNow();
  await pool(items, CREATE_CONCURRENCY, async (item) => {
    const spec = soakWorkloadSpec(item.namespace, item.name, item.containerId, cluster.storageClass);
    const storage = spec.storage!;
    await createVolume(cluster, item);
    await retried(
      `claim ${item.name}`,
      async () => void (await cluster.admin.create('persistentvolumeclaims', item.namespace, preBoundClaim(cluster, item, spec, storage))),
      async () => undefined,
    );
    const deployment = await retried(
      `deployment ${item.name}`,
      () => cluster.admin.create('deployments', item.namespace, buildDeployment(spec, { namespace: item.namespace })),
      () => cluster.admin.read('deployments', item.namespace, item.name),
    );
    await retried(
      `service ${item.name}`,
      async () =>
        void (await cluster.admin.create(
          'services',
          item.namespace,
          buildService(spec, { namespace: item.namespace, owner: deploymentOwner(deployment) }),
        )),
      async () => undefined,
    );
    done += 1;
    if (hrNow() - lastLog > 30_000) {
      lastLog = hrNow();
      log(`created ${done}/${items.length} workloads' objects`);
    }
  });
}

/** How many Deployments of `namespace` have their one replica available (a LIST, read in pages). */
async function availableCount(cluster: Cluster, namespace: string): Promise<number> {
  let available = 0;
  let token: string | undefined;
  do {
    const page = await cluster.apps.listNamespacedDeployment({ namespace, limit: 2000, ...(token ? { _continue: token } : {}) });
    for (const item of page.items) if ((item.status?.availableReplicas ?? 0) >= 1 && (item.spec?.replicas ?? 1) >= 1) available += 1;
    token = page.metadata?._continue || undefined;
  } while (token);
  return available;
}

async function waitAvailable(cluster: Cluster, namespaces: readonly string[], perNamespace: number, what: string): Promise<void> {
  const started = hrNow();
  let lastLog = 0;
  await until(
    what,
    async () => {
      const counts = await Promise.all(namespaces.map((namespace) => availableCount(cluster, namespace).catch(() => 0)));
      const total = counts.reduce((sum, count) => sum + count, 0);
      if (hrNow() - lastLog > 30_000) {
        lastLog = hrNow();
        log(`${what}: ${total}/${namespaces.length * perNamespace} available after ${fmt((hrNow() - started) / 1000, 0)} s`);
      }
      return counts.every((count) => count >= perNamespace);
    },
    PHASE_TIMEOUT_MS,
    3000,
  );
}

/** For each informer of `namespace`: the objects it caches, and those its LIST finds now. */
async function cacheAgainstServer(cluster: Cluster, namespace: string, informers: readonly InformerFigure[]) {
  const existing: Record<string, number> = {};
  const cached: Record<string, number> = {};
  for (const informer of informers.filter((each) => each.namespace === namespace)) {
    const list = await cluster.admin.list(informer.kind as WatchedKind, namespace, informer.labelSelector || undefined, {
      ...(informer.fieldSelector ? { fieldSelector: informer.fieldSelector } : {}),
    });
    existing[informer.kind] = (existing[informer.kind] ?? 0) + list.items.length;
    cached[informer.kind] = (cached[informer.kind] ?? 0) + informer.objects;
  }
  return { existing, cached };
}

async function scale(cluster: Cluster, items: readonly WaveItem[], replicas: number): Promise<void> {
  await pool(items, 32, (item) =>
    retried(`scale ${item.name}`, () =>
      cluster.apps.replaceNamespacedDeploymentScale({
        name: item.name,
        namespace: item.namespace,
        body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: item.name, namespace: item.namespace }, spec: { replicas } },
      }),
    ),
  );
}

function items(namespace: string, prefix: string, count: number, firstId: number): WaveItem[] {
  return Array.from({ length: count }, (_, index) => ({
    namespace,
    name: workloadName(prefix, index),
    containerId: String(firstId + index),
  }));
}

// ---- figures ---------------------------------------------------------------------------------------

interface WatchFigure {
  /** Most watches open at once on one path (namespace and kind), per kind. */
  readonly peakOpenPerKind: Readonly<Record<string, number>>;
  readonly watchRequests: number;
  readonly lists: number;
}

function watchFigure(counts: RequestCounts, log: readonly ProxyRequestSummary[], namespace: string): WatchFigure {
  const prefix = [
    `/api/v1/namespaces/${namespace}/`,
    `/apis/apps/v1/namespaces/${namespace}/`,
    `/apis/discovery.k8s.io/v1/namespaces/${namespace}/`,
  ];
  const peakOpenPerKind: Record<string, number> = {};
  for (const [path, peak] of Object.entries(counts.peakOpenWatchesByPath)) {
    const base = prefix.find((candidate) => path.startsWith(candidate));
    if (base) peakOpenPerKind[path.slice(base.length)] = peak;
  }
  const inNamespace = log.filter((request) => prefix.some((candidate) => request.path.startsWith(candidate)));
  return {
    peakOpenPerKind,
    watchRequests: inNamespace.filter((request) => request.watch).length,
    lists: inNamespace.filter((request) => !request.watch && request.method === 'GET').length,
  };
}

/** Least-squares slope of y over x, and the standard deviation of the residuals. */
function fit(points: readonly { x: number; y: number }[]): { slope: number; residualSd: number } {
  const n = points.length;
  if (n < 2) return { slope: Number.NaN, residualSd: Number.NaN };
  const mx = points.reduce((sum, p) => sum + p.x, 0) / n;
  const my = points.reduce((sum, p) => sum + p.y, 0) / n;
  const sxx = points.reduce((sum, p) => sum + (p.x - mx) ** 2, 0);
  const slope = sxx === 0 ? 0 : points.reduce((sum, p) => sum + (p.x - mx) * (p.y - my), 0) / sxx;
  const residuals = points.map((p) => p.y - (my + slope * (p.x - mx)));
  const residualSd = Math.sqrt(residuals.reduce((sum, r) => sum + r * r, 0) / Math.max(1, n - 2));
  return { slope, residualSd };
}

function compareVersions(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

interface Checkpoint {
  readonly wave: number;
  readonly operations: number;
  readonly elapsedS: number;
  readonly sample: Sample;
  /** Objects that exist in the churn namespace, and what the informers of that namespace cache. */
  readonly existing: Readonly<Record<string, number>>;
  readonly cached: Readonly<Record<string, number>>;
  /** Informer consumers beyond statuses$'s own one per kind: waiters left subscribed. */
  readonly extraConsumers: number;
  readonly waveErrors: readonly string[];
  readonly waveFailures: number;
  readonly waveMs: Readonly<Record<string, number>>;
}

interface PeerFigure {
  readonly name: string;
  readonly requests: number;
  readonly watches: number;
  readonly lists: number;
  readonly bytesReceived: number;
  readonly cpuMs: number;
  readonly stalenessMs: Summary;
  readonly unseen: number;
}

interface Figures {
  readonly mode: string;
  readonly machine: MachineInfo;
  readonly options: Record<string, unknown>;
  readonly loadAverage: { before: readonly number[]; after: readonly number[] };
  readonly startedAt: string;
  wallS: number;
  namespaces?: {
    readonly namespaces: number;
    readonly perNamespace: number;
    readonly createMs: number;
    readonly syncMs: number;
    readonly syncCpuMs: number;
    readonly heapBytesPerWorkload: number;
    readonly watches: Readonly<Record<string, WatchFigure>>;
    readonly changeCpuMsPerEvent: number;
    readonly changeEvents: number;
    readonly heapAfterUnwatchBytes: number;
    readonly informersAfterUnwatch: number;
  };
  peers?: { readonly workloads: number; readonly changes: number; readonly peers: readonly PeerFigure[] };
  snapshot?: {
    readonly workloads: number;
    readonly createMs: number;
    readonly syncMs: number;
    readonly syncCpuMs: number;
    readonly heapBytesPerWorkload: number;
    readonly rssBytes: number;
    readonly watches: WatchFigure;
    readonly sampleSize: number;
    readonly detectionMs: Summary;
    readonly unmatched: number;
    readonly cpuMsPerEvent: number;
    readonly informerChanges: number;
    readonly evaluations: number;
    readonly repeats: number;
  };
  relist?: {
    readonly workloads: number;
    readonly apiserverDownMs: number;
    readonly compactedAt: number | null;
    readonly wholeAfterReadyMs: number;
    readonly wholeAfterReconnectMs: number | null;
    readonly lists: number;
    readonly streamingLists: number;
    readonly resumedWatches: number;
    readonly watchRequests: number;
    readonly disconnects: number;
    readonly peakHeapUsed: number;
    readonly peakRss: number;
    readonly heapBefore: number;
    readonly heapAfter: number;
    readonly events: number;
    readonly duplicates: number;
    readonly missing: number;
    readonly eventsPerWorkload: Readonly<Record<string, number>>;
  };
  soak?: {
    readonly waveSize: number;
    readonly churnMinutes: number;
    readonly waves: number;
    readonly operations: number;
    readonly failures: number;
    readonly checkpoints: readonly Checkpoint[];
    readonly heapSlopeBytesPer1000Ops: number;
    readonly heapResidualSdBytes: number;
    readonly heapGrowthOverSpanBytes: number;
    readonly rssSlopeBytesPer1000Ops: number;
  };
  child?: { readonly exitedOnItsOwn: boolean; readonly activeHandlesAfter: readonly string[]; readonly failures: readonly string[] };
  readonly notes: string[];
}

// ---- the run --------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const runStarted = hrNow();
  const machine = machineInfo();
  const loadBefore = loadavg().map((load) => Number(load.toFixed(2)));
  process.on('exit', killChildren);
  const others = otherTestRuns();
  if (others > 0 || loadBefore[0]! > cpuCount)
    notes.push(
      `not a quiet machine: ${others} test-runner process(es) not started by this run were running at the start, load average ${loadBefore.join(', ')} on ${cpuCount} CPU(s); latencies and CPU figures include waiting for a core`,
    );
  const totalWorkloads =
    (phases.has('namespaces') || phases.has('peers') ? namespaceCount * perNamespace : 0) +
    (phases.has('snapshot') || phases.has('relist') ? workloads : 0) +
    (phases.has('soak') ? waveSize : 0);
  log(
    `mode ${mode}: phases ${[...phases].join(', ')}; ${namespaceCount} x ${perNamespace}, 1 x ${workloads}, waves of ${waveSize} for ${churnMinutes} min and at least ${minProvisionings} provisionings; child loads ${impl}`,
  );
  const local = await startCluster({
    podReadyDelayMs,
    nodeCapacity: { pods: String(totalWorkloads + 1000) },
    // A Service per workload: thousands of ClusterIPs.
    serviceClusterIpRange: '10.96.0.0/16',
    log: (line) => log(`[cluster] ${line}`),
  });
  const tmp = mkdtempSync(join(tmpdir(), 'kp-bench-soak-'));
  const namespaces = new Namespaces(local.kubeconfigPath);
  const created: string[] = [];
  let child: SoakChild | undefined;
  let proxy: ProxyProcess | undefined;
  const figures: Figures = {
    mode,
    machine,
    options: {
      mode,
      workloads,
      namespaces: namespaceCount,
      perNamespace,
      waveSize,
      churnMinutes,
      minProvisionings,
      sampleSize,
      phases: [...phases],
      podReadyDelayMs,
      impl,
      clusterCpus: clusterCpus || 'any',
      clientCpus: clientCpus || 'any',
      clusterNice,
    },
    loadAverage: { before: loadBefore, after: [] },
    startedAt: new Date().toISOString(),
    wallS: 0,
    notes,
  };
  try {
    // Its processes as they are now: the relist starts a new kube-apiserver, placed the same way.
    const placeControlPlane = (): void => {
      const pids = Object.values(local.pids);
      if (clusterNice > 0) renice(clusterNice, pids);
      if (clusterCpus !== '' && !pinProcesses(clusterCpus, pids))
        notes.push(`control plane not pinned to CPU(s) ${clusterCpus}: taskset failed`);
    };
    placeControlPlane();
    if (clusterCpus !== '') observersOn(clusterCpus);
    if (clientCpus !== '' && !pinProcesses(clientCpus, [process.pid])) notes.push(`clients not pinned to CPU(s) ${clientCpus}`);
    const config = new KubeConfig();
    config.loadFromFile(local.kubeconfigPath);
    const storageClass = 'bench-soak-local';
    const cluster: Cluster = {
      local,
      admin: KubernetesApi.fromConfig({ kubeconfigPath: local.kubeconfigPath }),
      apps: config.makeApiClient(AppsV1Api),
      core: config.makeApiClient(CoreV1Api),
      storage: config.makeApiClient(StorageV1Api),
      storageClass,
      nodeName: local.nodeName,
    };
    await cluster.storage.createStorageClass({
      body: {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: storageClass },
        provisioner: 'kubernetes.io/no-provisioner',
        volumeBindingMode: 'WaitForFirstConsumer',
        reclaimPolicy: 'Retain',
      },
    });

    proxy = await startProxy(local.kubeconfigPath);
    const childInput: SoakChildInput = { impl, kubeconfigPath: proxy.kubeconfigPath, image: IMAGE, storageClass, timeoutMs: 600_000 };
    child = await SoakChild.start(childInput, tmp);
    const soakChild = child;
    log(`soak child ${soakChild.pid} up`);
    const idle = await soakChild.sample();
    let nextContainerId = 1;

    // ---- 4 and 5: namespaces, then peers in namespace 0 --------------------------------------
    const manyNamespaces: string[] = [];
    if (phases.has('namespaces') || phases.has('peers')) {
      for (let index = 0; index < namespaceCount; index += 1) manyNamespaces.push(await namespaces.create(`soak-ns${index}`));
      created.push(...manyNamespaces);
      const layout = manyNamespaces.map((namespace) => {
        const list = items(namespace, 'ct', perNamespace, nextContainerId);
        nextContainerId += perNamespace;
        return list;
      });
      const createStarted = hrNow();
      await onEveryCpu(Object.values(local.pids), async () => {
        await createWorkloads(cluster, layout.flat());
        await waitAvailable(cluster, manyNamespaces, perNamespace, `${namespaceCount} x ${perNamespace} workloads available`);
      });
      const createMs = hrNow() - createStarted;
      log(`${namespaceCount} x ${perNamespace} workloads created and available in ${fmt(createMs / 1000, 0)} s`);

      if (phases.has('namespaces')) {
        const before = await soakChild.sample();
        const syncStarted = hrNow();
        const cpuBefore = before.cpuMs;
        await Promise.all(manyNamespaces.map((namespace) => soakChild.watch(namespace, perNamespace)));
        const syncMs = hrNow() - syncStarted;
        const synced = await soakChild.sample();
        const syncCpuMs = synced.cpuMs - cpuBefore;
        const heapBytesPerWorkload = (synced.heapUsed - before.heapUsed) / (namespaceCount * perNamespace);
        log(
          `statuses$ over ${namespaceCount} namespaces whole in ${fmt(syncMs, 0)} ms; heap ${fmt(heapBytesPerWorkload / KiB, 2)} KiB per workload`,
        );
        // The same change as in the snapshot phase: `sample` workloads in all, scaled to 0 and back.
        const changed = layout.flatMap((list) => list.slice(0, Math.max(1, Math.round(sampleSize / namespaceCount))));
        const changeBefore = await soakChild.sample();
        await scale(cluster, changed, 0);
        await Promise.all(
          manyNamespaces.map((namespace) =>
            soakChild.reach(namespace, 'offline', changed.filter((item) => item.namespace === namespace).length),
          ),
        );
        await scale(cluster, changed, 1);
        await Promise.all(manyNamespaces.map((namespace) => soakChild.reach(namespace, 'running', perNamespace)));
        const changeAfter = await soakChild.sample();
        const changeEvents = changeAfter.informerChanges - changeBefore.informerChanges;
        const changeCpu = changeAfter.cpuMs - changeBefore.cpuMs;
        for (const namespace of manyNamespaces) soakChild.send({ type: 'unwatch', namespace });
        await sleep(2000);
        const after = await soakChild.sample();
        const report = await proxy.peek();
        figures.namespaces = {
          namespaces: namespaceCount,
          perNamespace,
          createMs,
          syncMs,
          syncCpuMs,
          heapBytesPerWorkload,
          watches: Object.fromEntries(manyNamespaces.map((namespace) => [namespace, watchFigure(report.counts, report.log, namespace)])),
          changeCpuMsPerEvent: changeCpu / Math.max(1, changeEvents),
          changeEvents,
          heapAfterUnwatchBytes: after.heapUsed - idle.heapUsed,
          informersAfterUnwatch: after.informers.length,
        };
      }

      if (phases.has('peers')) figures.peers = await peers(cluster, manyNamespaces[0]!, layout[0]!, tmp);

      // Gone before the next phase: their Pods would otherwise stay on the one simulated node, and
      // KWOK and the scheduler, sharing the control plane's cores, slowed the next creation with them.
      if (phases.has('snapshot') || phases.has('relist') || phases.has('soak')) {
        const deleteStarted = hrNow();
        let gone = 0;
        await onEveryCpu(Object.values(local.pids), async () => {
          const results = await Promise.all(manyNamespaces.map((namespace) => namespaces.delete(namespace, PHASE_TIMEOUT_MS)));
          gone = results.filter(Boolean).length;
          await deleteVolumes(cluster, layout.flat());
        });
        log(`${gone} of ${namespaceCount} namespaces deleted in ${fmt((hrNow() - deleteStarted) / 1000, 0)} s`);
        if (gone < namespaceCount)
          notes.push(
            `${namespaceCount - gone} of the ${namespaceCount} namespaces of section 4 were still being deleted when the next phase began`,
          );
      }
    }

    // ---- 1: one namespace, N workloads -----------------------------------------------------------
    const bigNamespace = phases.has('snapshot') || phases.has('relist') ? await namespaces.create('soak-big') : undefined;
    let bigItems: WaveItem[] = [];
    if (bigNamespace) {
      created.push(bigNamespace);
      bigItems = items(bigNamespace, 'ct', workloads, nextContainerId);
      nextContainerId += workloads;
      const createStarted = hrNow();
      await onEveryCpu(Object.values(local.pids), async () => {
        await createWorkloads(cluster, bigItems);
        await waitAvailable(cluster, [bigNamespace], workloads, `${workloads} workloads available`);
      });
      const createMs = hrNow() - createStarted;
      log(`${workloads} workloads created and available in ${fmt(createMs / 1000, 0)} s`);
      const before = await soakChild.sample();
      const synced = await soakChild.watch(bigNamespace, workloads);
      const after = await soakChild.sample();
      const heapBytesPerWorkload = (after.heapUsed - before.heapUsed) / workloads;
      log(`statuses$ over ${workloads} whole in ${fmt(synced.ms, 0)} ms; heap ${fmt(heapBytesPerWorkload / KiB, 2)} KiB per workload`);

      const observer = await DeploymentObserver.start(local.kubeconfigPath, bigNamespace);
      const changed = bigItems.slice(0, sampleSize);
      soakChild.record();
      const changeBefore = await soakChild.sample();
      await scale(cluster, changed, 0);
      await soakChild.reach(bigNamespace, 'offline', changed.length);
      await scale(cluster, changed, 1);
      await soakChild.reach(bigNamespace, 'running', workloads);
      await sleep(1000);
      const changeAfter = await soakChild.sample();
      const recorded = await soakChild.recorded();
      await observer.stop();
      if (observer.reconnects > 0 || observer.failures.length > 0) {
        notes.push(
          `section 1: the observer re-opened its watch ${observer.reconnects} time(s); failures: ${observer.failures.join('; ') || 'none'}`,
        );
      }
      const detection: number[] = [];
      let unmatched = 0;
      for (const event of recorded) {
        if (event.trigger !== 'deployments') continue;
        const seen = observer.at(event.key.slice(bigNamespace.length + 1), event.resourceVersion);
        if (seen) detection.push(event.at - seen.at);
        else unmatched += 1;
      }
      const informerChanges = changeAfter.informerChanges - changeBefore.informerChanges;
      const report = await proxy.peek();
      figures.snapshot = {
        workloads,
        createMs,
        syncMs: synced.ms,
        syncCpuMs: synced.cpuMs,
        heapBytesPerWorkload,
        rssBytes: after.rss,
        watches: watchFigure(report.counts, report.log, bigNamespace),
        sampleSize: changed.length,
        detectionMs: summarize(detection),
        unmatched,
        cpuMsPerEvent: (changeAfter.cpuMs - changeBefore.cpuMs) / Math.max(1, informerChanges),
        informerChanges,
        evaluations: changeAfter.evaluations - changeBefore.evaluations,
        repeats: changeAfter.repeats - changeBefore.repeats,
      };
      log(`detection p99 ${fmt(figures.snapshot.detectionMs.p99, 2)} ms over ${detection.length} events (${unmatched} unmatched)`);
    }

    // ---- 2: a forced relist at N --------------------------------------------------------------------
    if (bigNamespace && phases.has('relist')) {
      const before = await soakChild.sample();
      soakChild.send({ type: 'watchMemory', everyMs: 50 });
      soakChild.record();
      const stopped = hrNow();
      await local.stopApiserver();
      // Compacted while the server is away: every watch resumed from an older version gets 410 Gone.
      const compactedAt = await compactEtcd(local).catch((error: unknown) => {
        notes.push(`relist: etcd compaction failed (${(error as Error).message}); the restart alone forced what it forced`);
        return undefined;
      });
      await local.startApiserver();
      const ready = hrNow();
      placeControlPlane();
      log(`kube-apiserver restarted (${fmt((ready - stopped) / 1000, 1)} s down; etcd compacted at revision ${compactedAt ?? 'none'})`);
      // Whole again: every workload running, and every informer connected after its last disconnection.
      await soakChild.reach(bigNamespace, 'running', workloads);
      await until('every informer to be connected again', async () => {
        const state = await soakChild.sample(false);
        return (
          state.connection.connects > before.connection.connects && state.connection.lastConnectedAt >= state.connection.lastDisconnectedAt
        );
      });
      await sleep(3000);
      const recorded = await soakChild.recorded();
      soakChild.send({ type: 'watchMemory', everyMs: 0 });
      const after = await soakChild.sample();
      const workloadEvents = recorded.filter((event) => event.trigger !== 'connection');
      const connectionEvents = recorded.filter((event) => event.trigger === 'connection');
      const sequences = new Map<string, string[]>();
      for (const event of workloadEvents) {
        const list = sequences.get(event.key) ?? [];
        list.push(event.state);
        sequences.set(event.key, list);
      }
      let missing = 0;
      const eventsPerWorkload: Record<string, number> = {};
      for (const item of bigItems) {
        const states = sequences.get(`${item.namespace}/${item.name}`) ?? [];
        eventsPerWorkload[String(states.length)] = (eventsPerWorkload[String(states.length)] ?? 0) + 1;
        // A workload that went `unknown` and was never reported again, or did not end running.
        if (states.length > 0 && states.at(-1) !== 'running') missing += 1;
      }
      const firstDisconnect = connectionEvents.find((event) => event.state === 'disconnected')?.at;
      const firstReconnect = connectionEvents.find((event) => event.state === 'connected' && event.at > (firstDisconnect ?? stopped))?.at;
      const lastConnect = connectionEvents
        .filter((event) => event.state === 'connected')
        .reduce((latest, event) => Math.max(latest, event.at), 0);
      const wholeAt = workloadEvents
        .filter((event) => event.state === 'running')
        .reduce((latest, event) => Math.max(latest, event.at), lastConnect);
      const report = await proxy.peek();
      const afterRestart = report.log.filter((request) => request.at >= stopped && request.path.includes(`/namespaces/${bigNamespace}/`));
      figures.relist = {
        workloads,
        apiserverDownMs: ready - stopped,
        compactedAt: compactedAt ?? null,
        wholeAfterReadyMs: wholeAt - ready,
        wholeAfterReconnectMs: firstReconnect === undefined ? null : wholeAt - firstReconnect,
        lists: afterRestart.filter((request) => !request.watch && request.method === 'GET').length,
        streamingLists: afterRestart.filter((request) => request.streamingList).length,
        resumedWatches: afterRestart.filter((request) => request.watch && request.resourceVersion !== undefined).length,
        watchRequests: afterRestart.filter((request) => request.watch).length,
        disconnects: after.connection.disconnects - before.connection.disconnects,
        peakHeapUsed: after.peakHeapUsed,
        peakRss: after.peakRss,
        heapBefore: before.heapUsed,
        heapAfter: after.heapUsed,
        events: workloadEvents.length,
        duplicates: after.repeats - before.repeats,
        missing,
        eventsPerWorkload,
      };
      log(
        `relist: whole ${fmt(figures.relist.wholeAfterReconnectMs ?? Number.NaN, 0)} ms after the first reconnect; ${figures.relist.lists} lists + ${figures.relist.streamingLists} streaming lists, ` +
          `${figures.relist.duplicates} duplicates, ${missing} missing; events per workload ${JSON.stringify(eventsPerWorkload)}`,
      );
    }

    // ---- 3: the soak ----------------------------------------------------------------------------------
    if (phases.has('soak')) {
      const churn = await namespaces.create('soak-churn');
      created.push(churn);
      await soakChild.watch(churn, 0);
      const checkpoints: Checkpoint[] = [];
      const soakStarted = hrNow();
      let operations = 0;
      let failures = 0;
      let wave = 0;
      const deadline = soakStarted + churnMinutes * 60_000;
      // The soak measures what the process holds, not how fast: the control plane may use every CPU.
      // It is the last phase: nothing pins it back.
      unpin(Object.values(local.pids), 'the soak');
      // At least three waves, the churn time, and the provisionings asked for.
      while (wave < 3 || hrNow() < deadline || wave * waveSize < minProvisionings) {
        wave += 1;
        const waveItems = items(churn, `w${wave}`, waveSize, nextContainerId);
        nextContainerId += waveSize;
        await createVolumes(cluster, waveItems);
        const waveMs: Record<string, number> = {};
        const waveErrors: string[] = [];
        let waveFailures = 0;
        for (const op of WAVE_OPS) {
          const result = await soakChild.wave(op, waveItems, op === 'reconfigure' ? 0.02 : 0.01);
          operations += waveItems.length;
          waveFailures += result.failed;
          waveErrors.push(...result.errors);
          waveMs[op] = result.ms;
        }
        failures += waveFailures;
        await deleteVolumes(cluster, waveItems);
        // What exists and what the churn namespace's informers hold, after the wave settled.
        await sleep(1000);
        const sample = await soakChild.sample();
        const { existing: exists, cached } = await cacheAgainstServer(cluster, churn, sample.informers);
        let extraConsumers = 0;
        for (const informer of sample.informers) {
          extraConsumers += Math.max(0, informer.consumers - (STATUS_KINDS.includes(informer.kind as WatchedKind) ? 1 : 0));
        }
        const checkpoint: Checkpoint = {
          wave,
          operations,
          elapsedS: (hrNow() - soakStarted) / 1000,
          sample,
          existing: exists,
          cached,
          extraConsumers,
          waveErrors: waveErrors.slice(0, 5),
          waveFailures,
          waveMs,
        };
        checkpoints.push(checkpoint);
        log(
          `wave ${wave}: ${operations} ops, ${waveFailures} failed; heap ${fmt(sample.heapUsed / MiB, 2)} MiB, rss ${fmt(sample.rss / MiB, 0)} MiB, ` +
            `fds ${sample.fds}, timers ${sample.activeResources.Timeout ?? 0}, abort listeners ${sample.abortListeners}, informers ${sample.informers.length}, extra consumers ${extraConsumers}`,
        );
        if (waveErrors.length > 0) log(`  errors: ${waveErrors.slice(0, 3).join(' | ')}`);
      }
      const span = checkpoints.slice(1);
      const heapFit = fit(span.map((checkpoint) => ({ x: checkpoint.operations, y: checkpoint.sample.heapUsed })));
      const rssFit = fit(span.map((checkpoint) => ({ x: checkpoint.operations, y: checkpoint.sample.rss })));
      const spanOps = (span.at(-1)?.operations ?? 0) - (span[0]?.operations ?? 0);
      figures.soak = {
        waveSize,
        churnMinutes,
        waves: wave,
        operations,
        failures,
        checkpoints,
        heapSlopeBytesPer1000Ops: heapFit.slope * 1000,
        heapResidualSdBytes: heapFit.residualSd,
        heapGrowthOverSpanBytes: heapFit.slope * spanOps,
        rssSlopeBytesPer1000Ops: rssFit.slope * 1000,
      };
    }

    const finished = await soakChild.finish();
    figures.child = { ...finished, failures: soakChild.failures };
  } finally {
    child?.kill();
    proxy?.kill();
    killChildren();
    figures.wallS = (hrNow() - runStarted) / 1000;
    figures.loadAverage.after = loadavg().map((load) => Number(load.toFixed(2)));
    if (figures.namespaces || figures.snapshot || figures.soak || figures.peers) {
      mkdirSync(outDir, { recursive: true });
      writeFileSync(join(outDir, 'soak.json'), `${JSON.stringify(figures, null, 2)}\n`);
      writeFileSync(join(outDir, 'soak.md'), `${markdown(figures)}\n`);
      log(`wrote ${join(outDir, 'soak.md')} and soak.json`);
    }
    rmSync(tmp, { recursive: true, force: true });
    // The cluster goes with its namespaces: no need to delete thousands of objects first.
    void created;
    await local.stop();
  }
}

// ---- 5: peers side by side ---------------------------------------------------------------------------

async function peers(cluster: Cluster, namespace: string, list: readonly WaveItem[], tmp: string): Promise<NonNullable<Figures['peers']>> {
  const kinds = ['deployments', 'pods', 'services', 'endpointslices'] as const;
  const ourProxy = await startProxy(cluster.local.kubeconfigPath);
  const pollerProxy = await startProxy(cluster.local.kubeconfigPath);
  const kubectlProxy = await startProxy(cluster.local.kubeconfigPath);
  const ours = await SoakChild.start(
    { impl, kubeconfigPath: ourProxy.kubeconfigPath, image: IMAGE, storageClass: cluster.storageClass, timeoutMs: 600_000 },
    tmp,
  );
  const pollerResult = join(tmp, 'poller.json');
  const poller = spawn(process.execPath, ['--import', 'tsx', POLLER_CHILD, pollerProxy.kubeconfigPath, namespace, '2000', pollerResult], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const kubectlSightings: { name: string; resourceVersion: string; at: number }[] = [];
  const kubectls = kinds.map((kind) => {
    const process_ = spawn(
      'kubectl',
      [
        '--kubeconfig',
        kubectlProxy.kubeconfigPath,
        'get',
        kind,
        '-n',
        namespace,
        '-w',
        '-o',
        'jsonpath={.metadata.name} {.metadata.resourceVersion}{"\\n"}',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let buffer = '';
    process_.stdout.on('data', (chunk: Buffer) => {
      const at = hrNow();
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      if (kind !== 'deployments') return;
      for (const line of lines) {
        const [name, resourceVersion] = line.trim().split(' ');
        if (name && resourceVersion) kubectlSightings.push({ name, resourceVersion, at });
      }
    });
    return process_;
  });
  const observer = await DeploymentObserver.start(cluster.local.kubeconfigPath, namespace);
  try {
    await ours.watch(namespace, list.length);
    // Let kubectl and the poller list once before the measured changes.
    await sleep(5000);
    const oursBefore = await ours.sample();
    const kubectlCpuBefore = kubectls.map((each) => processCpuMs(each.pid));
    const measuredFrom = hrNow();
    ours.record();
    await scale(cluster, list, 0);
    await ours.reach(namespace, 'offline', list.length);
    await scale(cluster, list, 1);
    await ours.reach(namespace, 'running', list.length);
    // The poller's next list, and kubectl's last events.
    await sleep(4000);
    const recorded = await ours.recorded();
    const oursAfter = await ours.sample();
    const kubectlCpu = kubectls.reduce((sum, each, index) => sum + processCpuMs(each.pid) - kubectlCpuBefore[index]!, 0);
    for (const each of kubectls) each.kill('SIGTERM');
    poller.send({ type: 'finish' });
    await until(
      'the poller result',
      () => {
        try {
          readFileSync(pollerResult, 'utf8');
          return true;
        } catch {
          return false;
        }
      },
      30_000,
    );
    const pollerFigures = JSON.parse(readFileSync(pollerResult, 'utf8')) as StatusPollerResult;
    await ours.finish();
    await observer.stop();
    const [ourReport, pollerReport, kubectlReport] = await Promise.all([ourProxy.report(), pollerProxy.report(), kubectlProxy.report()]);

    // Staleness of each status change ours reported: when each client first held that
    // Deployment version (or a newer one), after the observer received it.
    const changes = recorded
      .map((event) => ({ event, name: event.key.slice(namespace.length + 1) }))
      .map(({ event, name }) => ({ name, event, seen: observer.at(name, event.resourceVersion) }))
      .filter((change) => change.event.trigger === 'deployments' && change.seen !== undefined && change.event.at >= measuredFrom);
    const firstHolding = (sightings: readonly { name: string; resourceVersion: string; at: number }[]) => {
      const byName = new Map<string, { resourceVersion: string; at: number }[]>();
      for (const sighting of sightings) {
        const entries = byName.get(sighting.name) ?? [];
        entries.push(sighting);
        byName.set(sighting.name, entries);
      }
      return (name: string, resourceVersion: string): number | undefined =>
        byName.get(name)?.find((sighting) => compareVersions(sighting.resourceVersion, resourceVersion) >= 0)?.at;
    };
    const staleness = (holding: (name: string, resourceVersion: string) => number | undefined) => {
      const values: number[] = [];
      let unseen = 0;
      for (const change of changes) {
        const at = holding(change.name, change.event.resourceVersion);
        if (at === undefined) unseen += 1;
        else values.push(Math.max(0, at - change.seen!.at));
      }
      return { stalenessMs: summarize(values), unseen };
    };
    const fromLog = (report: { counts: RequestCounts; log: readonly ProxyRequestSummary[] }, from: number) => {
      const window = report.log.filter((request) => request.at >= from);
      return {
        requests: window.length,
        watches: window.filter((request) => request.watch).length,
        lists: window.filter((request) => !request.watch && request.method === 'GET').length,
      };
    };
    // Bytes are the whole life of each client (from its first list); the requests, the measured window.
    const result = [
      {
        name: 'kube-provisioner statuses$',
        ...fromLog(ourReport, measuredFrom),
        bytesReceived: ourReport.counts.bytesReceived,
        cpuMs: oursAfter.cpuMs - oursBefore.cpuMs,
        ...staleness(
          (name, resourceVersion) =>
            recorded.find((event) => event.key === `${namespace}/${name}` && compareVersions(event.resourceVersion, resourceVersion) >= 0)
              ?.at,
        ),
      },
      {
        name: 'Helm-style poller (LIST every 2 s)',
        ...fromLog(pollerReport, measuredFrom),
        bytesReceived: pollerReport.counts.bytesReceived,
        cpuMs: pollerFigures.cpuMs,
        ...staleness(firstHolding(pollerFigures.sightings)),
      },
      {
        name: `kubectl get -w (${kinds.length} processes, one per kind)`,
        ...fromLog(kubectlReport, measuredFrom),
        bytesReceived: kubectlReport.counts.bytesReceived,
        cpuMs: kubectlCpu,
        ...staleness(firstHolding(kubectlSightings)),
      },
    ];
    notes.push(
      'peers: requests count the measured window (scale to 0 and back); bytes count each client from its first request; the poller CPU is its whole life, ours and kubectl the measured window',
    );
    log(`peers: staleness p99 ${result.map((peer) => `${peer.name} ${fmt(peer.stalenessMs.p99, 1)} ms`).join('; ')}`);
    return { workloads: list.length, changes: changes.length, peers: result };
  } finally {
    await observer.stop();
    ours.kill();
    for (const each of kubectls) if (each.exitCode === null) each.kill('SIGKILL');
    if (poller.exitCode === null) poller.kill('SIGKILL');
    ourProxy.kill();
    pollerProxy.kill();
    kubectlProxy.kill();
  }
}

/** Compacts etcd at its current revision (its JSON gateway; the URL from etcd's command line); returns the revision. */
async function compactEtcd(local: LocalCluster): Promise<number> {
  const pid = local.pids.etcd;
  if (pid === undefined) throw new Error('no etcd pid');
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const url = args
    .find((arg) => arg.startsWith('--listen-client-urls='))
    ?.slice('--listen-client-urls='.length)
    .split(',')[0];
  if (!url) throw new Error('etcd has no --listen-client-urls');
  const post = async (path: string, body: unknown): Promise<{ header?: { revision?: string } }> => {
    const response = await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`etcd ${path}: HTTP ${response.status} ${await response.text()}`);
    return (await response.json()) as { header?: { revision?: string } };
  };
  const range = await post('/v3/kv/range', { key: Buffer.from('/').toString('base64'), limit: 1 });
  const revision = Number(range.header?.revision);
  if (!Number.isSafeInteger(revision)) throw new Error('etcd reported no revision');
  await post('/v3/kv/compaction', { revision, physical: true });
  return revision;
}

/** Test runners (vitest) running on the machine, none of them ours: a sign it is not quiet. */
function otherTestRuns(): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (/vitest/.test(readFileSync(`/proc/${entry}/cmdline`, 'utf8'))) count += 1;
    } catch {
      // Gone meanwhile.
    }
  }
  return count;
}

/** user + system CPU of a process so far, from /proc (clock ticks of 10 ms). */
function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

// ---- the report ---------------------------------------------------------------------------------------

/** Whether these figures are those of a full run: every phase, the full sizes, an hour of churn and its provisionings. */
function fullRunDone(figures: Figures): boolean {
  const options = figures.options as { workloads?: number; perNamespace?: number; churnMinutes?: number; phases?: string[] };
  return (
    (options.workloads ?? 0) >= MODES.full.workloads &&
    (options.perNamespace ?? 0) >= MODES.full.perNamespace &&
    (options.churnMinutes ?? 0) >= MODES.full.churnMinutes &&
    (figures.soak ? figures.soak.waves * figures.soak.waveSize : 0) >= MODES.full.provisionings &&
    PHASES.every((phase) => options.phases?.includes(phase))
  );
}

function markdown(figures: Figures): string {
  const met = (ok: boolean): string => (ok ? 'met' : 'NOT MET');
  const targets: string[][] = [];
  const sections: string[] = [];
  const s = figures.snapshot;
  if (s) {
    const peaks = Object.values(s.watches.peakOpenPerKind);
    targets.push(
      [
        `one watch per kind for the namespace (${s.workloads} workloads)`,
        Object.entries(s.watches.peakOpenPerKind)
          .map(([kind, peak]) => `${kind} ${peak}`)
          .join(', '),
        met(peaks.length >= STATUS_KINDS.length && peaks.every((peak) => peak === 1)),
      ],
      ['heap per workload <= 5 KiB', `${fmt(s.heapBytesPerWorkload / KiB, 2)} KiB`, met(s.heapBytesPerWorkload <= 5 * KiB)],
      [
        'status-change detection p99 < 10 ms after the observer',
        `${fmt(s.detectionMs.p99, 2)} ms (p50 ${fmt(s.detectionMs.p50, 2)}, max ${fmt(s.detectionMs.max, 2)}; ${s.detectionMs.count} events, ${s.unmatched} unmatched)`,
        // No matched event is no figure: never met (a NaN p99 reads back from JSON as null, and null < 10).
        met(s.detectionMs.count > 0 && s.detectionMs.p99 < 10),
      ],
    );
    sections.push(
      `## 1. One namespace, ${s.workloads} workloads`,
      '',
      markdownTable(
        ['', ''],
        [
          ['create every object and wait until all are available (parent, direct API calls)', `${fmt(s.createMs / 1000, 0)} s`],
          ['statuses$ subscribe to the first status of every workload', `${fmt(s.syncMs, 0)} ms (CPU ${fmt(s.syncCpuMs, 0)} ms)`],
          ['heap per workload (after a full GC, minus before subscribing)', `${fmt(s.heapBytesPerWorkload / KiB, 2)} KiB`],
          ['child RSS with everything watched', `${fmt(s.rssBytes / MiB, 0)} MiB`],
          ['watch requests / lists on the namespace (whole run)', `${s.watches.watchRequests} / ${s.watches.lists}`],
          [
            `change measured: ${s.sampleSize} workloads scaled to 0 and back`,
            `${s.informerChanges} informer changes, ${s.evaluations} evaluations, ${s.repeats} repeated events`,
          ],
          ['CPU per informer change (child, minus forced GC)', `${fmt(s.cpuMsPerEvent * 1000, 1)} µs`],
        ],
      ),
      '',
    );
  }
  const r = figures.relist;
  if (r) {
    targets.push([
      `forced relist at ${r.workloads}: 0 duplicate or missing status events`,
      `${r.duplicates} duplicates, ${r.missing} missing (${r.events} events)`,
      met(r.duplicates === 0 && r.missing === 0),
    ]);
    sections.push(
      `## 2. A forced relist at ${r.workloads}`,
      '',
      'The kube-apiserver is stopped and started again (its watch cache starts afresh: every informer lists again).',
      '',
      markdownTable(
        ['', ''],
        [
          [
            'API server down (stop, etcd compaction, start, to /readyz ok)',
            `${fmt(r.apiserverDownMs / 1000, 1)} s (compacted at revision ${r.compactedAt ?? 'none'})`,
          ],
          [
            'every informer connected and every workload running again: after the first informer reconnected / after the parent saw /readyz ok (negative: before its readiness poll noticed)',
            `${r.wholeAfterReconnectMs === null ? 'n/a' : `${fmt(r.wholeAfterReconnectMs, 0)} ms`} / ${fmt(r.wholeAfterReadyMs, 0)} ms`,
          ],
          [
            'on the namespace after the restart: lists / streaming lists / watches resumed from a version / watch requests',
            `${r.lists} / ${r.streamingLists} / ${r.resumedWatches} / ${r.watchRequests}`,
          ],
          ['informer disconnections reported', String(r.disconnects)],
          ['peak heapUsed / RSS during it (50 ms samples)', `${fmt(r.peakHeapUsed / MiB, 0)} / ${fmt(r.peakRss / MiB, 0)} MiB`],
          ['heap after GC before / after', `${fmt(r.heapBefore / MiB, 1)} / ${fmt(r.heapAfter / MiB, 1)} MiB`],
          [
            'status events per workload during it (events: workloads)',
            Object.entries(r.eventsPerWorkload)
              .map(([events, count]) => `${events}: ${count}`)
              .join(', '),
          ],
        ],
      ),
      '',
      'Two events per workload is the contract: `unknown` while the server was unreachable, then its status again.',
      '',
    );
  }
  const k = figures.soak;
  if (k) {
    const last = k.checkpoints.at(-1);
    const noise = Math.max(2 * k.heapResidualSdBytes, MiB);
    const unsettled = last ? last.extraConsumers + last.sample.pendingOps : 0;
    const cacheMatches = last ? Object.entries(last.existing).every(([kind, count]) => (last.cached[kind] ?? 0) === count) : false;
    targets.push(
      [
        'soak: no heap growth from the 2nd to the last checkpoint beyond noise',
        `${fmt(k.heapSlopeBytesPer1000Ops / KiB, 1)} KiB per 1,000 operations; ${fmt(k.heapGrowthOverSpanBytes / KiB, 0)} KiB over the span, noise (2 sd of residuals, at least 1 MiB) ${fmt(noise / KiB, 0)} KiB`,
        met(k.heapGrowthOverSpanBytes <= noise),
      ],
      ['soak: waiters left unsettled', `${unsettled}`, met(unsettled === 0)],
      [
        'soak: informer caches hold what exists',
        last
          ? `${Object.entries(last.cached)
              .map(([kind, count]) => `${kind} ${count}/${last.existing[kind] ?? 0}`)
              .join(', ')}`
          : '',
        met(cacheMatches),
      ],
    );
    sections.push(
      `## 3. Soak: ${k.waves} waves of ${k.waveSize}, ${k.operations} operations, ${k.failures} failed`,
      '',
      `Each wave: ${k.waveSize} creates at once, then ${k.waveSize} stops, starts, reconfigures and deletes; statuses$ open on every namespace throughout; a checkpoint after each wave (forced full GC first). The control plane may use every CPU during the soak (its wave times are not targets).`,
      '',
      markdownTable(
        [
          'wave',
          'ops',
          'min',
          'heap MiB',
          'RSS MiB',
          'fds',
          'handles',
          'timers',
          'abort listeners',
          'informers',
          'extra consumers',
          'cached / existing (churn ns)',
          'wave s (c/s/s/r/d)',
        ],
        k.checkpoints.map((c) => [
          String(c.wave),
          String(c.operations),
          fmt(c.elapsedS / 60, 1),
          fmt(c.sample.heapUsed / MiB, 2),
          fmt(c.sample.rss / MiB, 0),
          String(c.sample.fds),
          String(Object.values(c.sample.activeResources).reduce((sum, n) => sum + n, 0)),
          String(c.sample.activeResources.Timeout ?? 0),
          String(c.sample.abortListeners),
          String(c.sample.informers.length),
          String(c.extraConsumers),
          Object.entries(c.existing)
            .map(([kind, count]) => `${c.cached[kind] ?? 0}/${count}`)
            .join(' '),
          WAVE_OPS.map((op) => fmt((c.waveMs[op] ?? 0) / 1000, 0)).join('/'),
        ]),
      ),
      '',
      `Heap slope ${fmt(k.heapSlopeBytesPer1000Ops / KiB, 1)} KiB and RSS slope ${fmt(k.rssSlopeBytesPer1000Ops / KiB, 1)} KiB per 1,000 operations (least squares, 2nd checkpoint to last). Kinds in the cache column: deployments, pods, services, endpointslices, claims; statuses$ watches each, so an extra consumer is one beyond its one per kind.`,
      ...(k.checkpoints.some((c) => c.waveErrors.length > 0)
        ? [
            '',
            'Wave errors (first of each):',
            '',
            ...k.checkpoints.filter((c) => c.waveErrors.length > 0).map((c) => `- wave ${c.wave}: ${c.waveErrors[0]}`),
          ]
        : []),
      '',
    );
  }
  const n = figures.namespaces;
  if (n) {
    const allOne = Object.values(n.watches).every((figure) => {
      const peaks = Object.values(figure.peakOpenPerKind);
      return peaks.length >= STATUS_KINDS.length && peaks.every((peak) => peak === 1);
    });
    targets.push([
      `one watch per kind per namespace (${n.namespaces} namespaces)`,
      Object.entries(n.watches)
        .map(([, figure]) => Object.values(figure.peakOpenPerKind).join('/'))
        .join(', '),
      met(allOne),
    ]);
    const rows = [
      ['workloads', `${n.namespaces} x ${n.perNamespace}`, ...(s ? [`1 x ${s.workloads}`] : [])],
      [
        'watches open',
        `${STATUS_KINDS.length * n.namespaces} (${STATUS_KINDS.length} per namespace)`,
        ...(s ? [String(STATUS_KINDS.length)] : []),
      ],
      [
        'first complete snapshot',
        `${fmt(n.syncMs, 0)} ms (CPU ${fmt(n.syncCpuMs, 0)} ms)`,
        ...(s ? [`${fmt(s.syncMs, 0)} ms (CPU ${fmt(s.syncCpuMs, 0)} ms)`] : []),
      ],
      ['heap per workload', `${fmt(n.heapBytesPerWorkload / KiB, 2)} KiB`, ...(s ? [`${fmt(s.heapBytesPerWorkload / KiB, 2)} KiB`] : [])],
      [
        'CPU per informer change',
        `${fmt(n.changeCpuMsPerEvent * 1000, 1)} µs (${n.changeEvents} changes)`,
        ...(s ? [`${fmt(s.cpuMsPerEvent * 1000, 1)} µs`] : []),
      ],
    ];
    sections.push(
      `## 4. Namespaces: ${n.namespaces} x ${n.perNamespace}${s ? ` against 1 x ${s.workloads}` : ''}`,
      '',
      markdownTable(['', 'many namespaces', ...(s ? ['one namespace'] : [])], rows),
      '',
      `After unsubscribing every namespace: ${n.informersAfterUnwatch} informers registered, heap ${fmt(n.heapAfterUnwatchBytes / KiB, 0)} KiB above the idle child.`,
      '',
    );
  }
  const p = figures.peers;
  if (p) {
    const ours = p.peers[0];
    const poller = p.peers[1];
    if (ours && poller)
      targets.push([
        'peers: staleness p99 below the poller',
        `${fmt(ours.stalenessMs.p99, 1)} ms against ${fmt(poller.stalenessMs.p99, 0)} ms`,
        met(ours.stalenessMs.p99 < poller.stalenessMs.p99),
      ]);
    sections.push(
      `## 5. Peers at ${p.workloads} workloads`,
      '',
      `Every workload scaled to 0 and back; staleness of each of the ${p.changes} status changes statuses$ reported: when the client first held that Deployment version (or newer) after the observer received it.`,
      '',
      markdownTable(
        ['client', 'requests', 'watches', 'lists', 'bytes received', 'CPU ms', 'staleness p50 / p99 / max ms', 'never seen'],
        p.peers.map((peer) => [
          peer.name,
          String(peer.requests),
          String(peer.watches),
          String(peer.lists),
          `${fmt(peer.bytesReceived / MiB, 1)} MiB`,
          fmt(peer.cpuMs, 0),
          `${fmt(peer.stalenessMs.p50, 1)} / ${fmt(peer.stalenessMs.p99, 1)} / ${fmt(peer.stalenessMs.max, 1)}`,
          String(peer.unseen),
        ]),
      ),
      '',
    );
  }
  const c = figures.child;
  return [
    '# Soak benchmark: many containers and a long churn in one process',
    '',
    `\`npm run bench:soak -- --mode ${figures.mode}\` (bench/soak.ts); method in bench/README.md. Started ${figures.startedAt}, ${fmt(figures.wallS / 60, 1)} min.`,
    '',
    machineMarkdown(figures.machine, {
      mode: figures.mode,
      phases: (figures.options.phases as string[]).join(', '),
      'pod ready delay': `${String(figures.options.podReadyDelayMs)} ms`,
      'child loads': String(figures.options.impl),
      'load average at start / end': `${figures.loadAverage.before.join(', ')} / ${figures.loadAverage.after.join(', ')}`,
    }),
    '',
    '## Targets',
    '',
    markdownTable(['target', 'figure', ''], targets),
    '',
    ...sections,
    ...(c
      ? [
          `The soak child ${c.exitedOnItsOwn ? 'exited on its own' : `did not exit on its own (open: ${c.activeHandlesAfter.join(', ') || 'none listed'})`} after unsubscribing everything.${c.failures.length ? ` Failures: ${c.failures.join('; ')}` : ''}`,
          '',
        ]
      : []),
    '## Notes',
    '',
    ...(fullRunDone(figures)
      ? []
      : [
          `- These figures come from \`--mode ${figures.mode}\` with the sizes above, not from the full run: the full run (\`--mode full\`: 10,000 workloads, 10 x 1,000, waves of 300 for an hour) has not been done on this machine yet; it is run by hand.`,
        ]),
    ...figures.notes.map((note) => `- ${note}`),
  ].join('\n');
}

/** `--from-json soak.json`: writes soak.md again from the figures of an earlier run (the report's wording changed, say). */
function rerender(path: string): void {
  const figures = JSON.parse(readFileSync(path, 'utf8')) as Figures;
  const target = join(dirname(resolve(path)), 'soak.md');
  writeFileSync(target, `${markdown(figures)}\n`);
  log(`wrote ${target} from ${path}`);
}

if (values['from-json'] !== undefined) rerender(values['from-json']);
else
  main().catch((error: unknown) => {
    killChildren();
    process.stderr.write(`[bench:soak] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
