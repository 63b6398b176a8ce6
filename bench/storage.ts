// npm run bench:storage: what a volume per container costs, and whether readiness is still
// seen at once. Starts its own local control plane and, for each N, runs side by side in
// the same cluster, each in a fresh namespace:
//   a. N concurrent provision$() calls without storage (a Deployment only);
//   b. the same N with storage (a claim and a Deployment mounting it), on a StorageClass
//      without a provisioner that binds when the Pod is scheduled, with N static local
//      PersistentVolumes made by the bench (so the real PV controller binds each claim and
//      the real scheduler's volume binding places each Pod);
// while independent observers in this process watch the namespace's Deployments and claims
// straight from the API server. Writes storage.md and storage.json in bench/results/.
//
// Figures per N:
//   - readiness detection p50/p99/max, without and with storage: our `ready` minus the later
//     of the observer's first complete Deployment event and (with storage) its first event
//     showing the claim Bound;
//   - claim watches open at once, and watch requests, from the proxy;
//   - requests and create-to-ready time with storage, beside the same N without: the extra
//     requests per provisioning and the extra milliseconds (p50 and p99).
//
// Flags (or environment): --sizes 1,10,100 (BENCH_SIZES), --pod-ready-ms 3000
// (BENCH_POD_READY_MS), --impl src|dist (BENCH_IMPL), --timeout-ms 300000, --out bench/results,
// --cluster-nice 10, --cluster-cpus 0, --client-cpus 1 (as bench/run.ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCluster } from '../scripts/control-plane/cluster.js';
import { ClaimObserver } from './lib/claim-observer.js';
import { machineInfo, machineMarkdown } from './lib/machine.js';
import { Namespaces } from './lib/namespaces.js';
import { DeploymentObserver } from './lib/observer.js';
import { observersOn } from './lib/observer-process.js';
import { pinProcesses, renice } from './lib/pinning.js';
import { provisioningBenchOptions } from './lib/provisioning-options.js';
import { runProvisioningSide } from './lib/provisioning-side.js';
import { killChildren, type ChildRun } from './lib/runners.js';
import { fmt, markdownTable, percentile } from './lib/stats.js';
import type { ProxyRequestSummary } from './lib/proxy-protocol.js';
import type { RequestCounts } from '../test/support/api-proxy.js';

const IMAGE = 'registry.example.com/manager:1.0';
const CLASS = 'bench-local-wffc';
const SIZE_GB = 1;
const PATHS = ['/srv', '/var'];

const { sizes, podReadyDelayMs, impl, timeoutMs, outDir, clusterNice, clusterCpus, clientCpus } = provisioningBenchOptions('1,10,100');

const log = (line: string): void => void process.stderr.write(`[bench:storage] ${line}\n`);
const notes: string[] = [];

interface Detection {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly samples: number;
}

interface Side {
  readonly storage: boolean;
  readonly succeeded: number;
  readonly failed: number;
  readonly errors: readonly string[];
  readonly requests: number;
  readonly requestsPerProvisioning: number;
  readonly endToEndMs: { readonly p50: number; readonly p99: number };
  readonly wallMs: number;
  readonly peakOpenWatches: Readonly<Record<string, number>>;
  readonly watchRequests: Readonly<Record<string, number>>;
  readonly detectionMs: Detection;
  /** With storage: of the matched provisionings, how many had the claim's Bound as the later of the two events. */
  readonly claimWasLast: number;
  readonly unmatched: number;
}

interface StorageRun {
  readonly n: number;
  readonly without: Side;
  readonly with: Side;
  readonly extraRequestsPerProvisioning: number;
  readonly extraMs: { readonly p50: number; readonly p99: number };
}

function resourceOf(path: string): string {
  const segments = path.split('?')[0]?.split('/') ?? [];
  return segments[segments.length - 1] ?? '';
}

function kubectl(kubeconfigPath: string, args: readonly string[], input?: string): string {
  return execFileSync('kubectl', ['--kubeconfig', kubeconfigPath, ...args], { encoding: 'utf8', input, timeout: 120_000 });
}

/** The class, once: no provisioner, binds when the Pod is scheduled. */
function createClass(kubeconfigPath: string): void {
  kubectl(
    kubeconfigPath,
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: CLASS },
      provisioner: 'kubernetes.io/no-provisioner',
      volumeBindingMode: 'WaitForFirstConsumer',
      reclaimPolicy: 'Retain',
    }),
  );
}

/** N static local volumes on the KWOK node, one per claim of this run. */
function createVolumes(kubeconfigPath: string, nodeName: string, run: string, n: number): void {
  const items = Array.from({ length: n }, (_, index) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `${run}-pv-${index}`, labels: { 'bench.kube-provisioner/run': run } },
    spec: {
      capacity: { storage: `${SIZE_GB}Gi` },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: CLASS,
      local: { path: `/mnt/${run}-${index}` },
      nodeAffinity: {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [nodeName] }] }] },
      },
    },
  }));
  kubectl(kubeconfigPath, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
}

function detection(samples: readonly number[]): Detection {
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: samples.length > 0 ? Math.max(...samples) : Number.NaN,
    samples: samples.length,
  };
}

async function runSide(namespaces: Namespaces, kubeconfigPath: string, nodeName: string, n: number, withStorage: boolean): Promise<Side> {
  const namespace = await namespaces.create(`bench-sto-${withStorage ? 'claim' : 'plain'}-${n}`);
  const run = `${namespace}`;
  try {
    if (withStorage) createVolumes(kubeconfigPath, nodeName, run, n);
    const {
      run: child,
      counts,
      requestLog,
      observers,
    } = await runProvisioningSide({
      adminKubeconfig: kubeconfigPath,
      namespace,
      label: `N=${n} storage=${withStorage}`,
      notes,
      child: {
        impl,
        count: n,
        image: IMAGE,
        timeoutMs,
        ...(withStorage ? { storage: { sizeGb: SIZE_GB, storageClass: CLASS, paths: PATHS } } : {}),
      },
      observe: async () => ({
        deployments: await DeploymentObserver.start(kubeconfigPath, namespace),
        claims: await ClaimObserver.start(kubeconfigPath, namespace),
      }),
    });
    return side(withStorage, child, counts, requestLog, observers.deployments, observers.claims);
  } finally {
    if (!(await namespaces.delete(namespace))) notes.push(`namespace ${namespace} was not gone 300 s after its deletion`);
    if (withStorage) kubectl(kubeconfigPath, ['delete', 'pv', '-l', `bench.kube-provisioner/run=${run}`, '--wait=false']);
  }
}

function side(
  withStorage: boolean,
  run: ChildRun,
  counts: RequestCounts,
  requestLog: readonly ProxyRequestSummary[],
  deployments: DeploymentObserver,
  claims: ClaimObserver,
): Side {
  const records = run.result.records;
  const ok = records.filter((record) => !record.error && record.readyAt !== undefined);
  const endToEnd = ok.map((record) => (record.readyAt as number) - record.startedAt);
  const watchRequests: Record<string, number> = {};
  for (const request of requestLog)
    if (request.watch) watchRequests[resourceOf(request.path)] = (watchRequests[resourceOf(request.path)] ?? 0) + 1;
  const samples: number[] = [];
  let claimWasLast = 0;
  let unmatched = 0;
  for (const record of ok) {
    const complete = record.completeResourceVersion ? deployments.at(record.name, record.completeResourceVersion) : undefined;
    // The claim is named after the container (its Deployment's name).
    const bound = withStorage ? claims.bound(record.name) : undefined;
    if (!complete || (withStorage && bound === undefined)) {
      unmatched += 1;
      continue;
    }
    const last = Math.max(complete.at, bound ?? Number.NEGATIVE_INFINITY);
    if (bound !== undefined && bound >= complete.at) claimWasLast += 1;
    samples.push((record.readyAt as number) - last);
  }
  return {
    storage: withStorage,
    succeeded: ok.length,
    failed: records.length - ok.length,
    errors: records.flatMap((record) => (record.error ? [`${record.name}: ${record.error}`] : [])).slice(0, 5),
    requests: counts.requests,
    requestsPerProvisioning: counts.requests / Math.max(1, records.length),
    endToEndMs: { p50: percentile(endToEnd, 50), p99: percentile(endToEnd, 99) },
    wallMs: run.result.wallMs,
    peakOpenWatches: counts.peakOpenWatches,
    watchRequests,
    detectionMs: detection(samples),
    claimWasLast,
    unmatched,
  };
}

async function runN(namespaces: Namespaces, kubeconfigPath: string, nodeName: string, n: number): Promise<StorageRun> {
  const plain = await runSide(namespaces, kubeconfigPath, nodeName, n, false);
  const claimed = await runSide(namespaces, kubeconfigPath, nodeName, n, true);
  return {
    n,
    without: plain,
    with: claimed,
    extraRequestsPerProvisioning: claimed.requestsPerProvisioning - plain.requestsPerProvisioning,
    extraMs: { p50: claimed.endToEndMs.p50 - plain.endToEndMs.p50, p99: claimed.endToEndMs.p99 - plain.endToEndMs.p99 },
  };
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${fmt(value, 0)}`;
}

function markdown(runs: readonly StorageRun[], machine: ReturnType<typeof machineInfo>, busy: string): string {
  const triple = (d: Detection): string => `${fmt(d.p50, 2)} / ${fmt(d.p99, 2)} / ${fmt(d.max, 2)}`;
  const rows = runs.map((run) => [
    String(run.n),
    `${run.without.succeeded}/${run.n} → ${run.with.succeeded}/${run.n}`,
    triple(run.without.detectionMs),
    triple(run.with.detectionMs),
    `${run.with.claimWasLast}/${run.with.detectionMs.samples}`,
    String(run.with.peakOpenWatches.persistentvolumeclaims ?? 0),
    String(run.with.watchRequests.persistentvolumeclaims ?? 0),
    `${fmt(run.without.requestsPerProvisioning, 2)} → ${fmt(run.with.requestsPerProvisioning, 2)} (+${fmt(run.extraRequestsPerProvisioning, 2)})`,
    `${fmt(run.without.endToEndMs.p50, 0)} → ${fmt(run.with.endToEndMs.p50, 0)} (${signed(run.extraMs.p50)})`,
    `${fmt(run.without.endToEndMs.p99, 0)} → ${fmt(run.with.endToEndMs.p99, 0)} (${signed(run.extraMs.p99)})`,
  ]);
  const targets = runs.map((run) => {
    const met = run.with.detectionMs.p99 < 10;
    const watches = (run.with.peakOpenWatches.persistentvolumeclaims ?? 0) === 1;
    return (
      `- N=${run.n}: readiness detection p99 with storage < 10 ms: ${met ? 'met' : 'MISSED'} (${fmt(run.with.detectionMs.p99, 2)} ms; ` +
      `without storage ${fmt(run.without.detectionMs.p99, 2)} ms); one claim watch in the namespace: ${watches ? 'met' : 'MISSED'} ` +
      `(${run.with.peakOpenWatches.persistentvolumeclaims ?? 0} at most)`
    );
  });
  return [
    '# Storage benchmark: a volume per container',
    '',
    `Generated by \`npm run bench:storage\` on ${new Date().toISOString()}. ${busy}`,
    '',
    machineMarkdown(machine, {
      'pod ready delay': `${podReadyDelayMs} ms`,
      'library loaded by the children': impl,
      storage: `${SIZE_GB} GiB on a no-provisioner WaitForFirstConsumer class, static local volumes, paths ${PATHS.join(' ')}`,
    }),
    '',
    'Each N runs twice in the same cluster, each time in a fresh namespace: N provisionings without storage, then N with a claim each.',
    'Detection is our `ready` minus the later of the events it waits for, as an independent observer received them on its own',
    'watches (client-node, straight to the API server): the Deployment complete and, with storage, the claim Bound. Times are ms;',
    '"→" reads "without storage → with storage".',
    '',
    markdownTable(
      [
        'N',
        'ready',
        'detection p50 / p99 / max without',
        'detection p50 / p99 / max with',
        'claim was last',
        'claim watches open at once',
        'claim watch requests',
        'requests per provisioning',
        'create → ready p50',
        'create → ready p99',
      ],
      rows,
    ),
    '',
    '## Targets',
    '',
    ...targets,
    '',
    ...(notes.length > 0 ? ['## Notes', '', ...notes.map((note) => `- ${note}`), ''] : []),
  ].join('\n');
}

async function main(): Promise<void> {
  process.on('exit', killChildren);
  const interrupt = (): void => {
    killChildren();
    process.exitCode = 130;
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const machine = machineInfo();
  // Other test suites on this machine: reported, since the figures depend on it.
  const busy = process.env.BENCH_MACHINE_NOTE ?? 'The machine was not known to be quiet.';
  const maxN = Math.max(...sizes);
  const cluster = await startCluster({
    podReadyDelayMs,
    keepWorkDir: process.env.BENCH_KEEP_CLUSTER === '1',
    nodeCapacity: { pods: String(Math.max(3000, maxN * 2 + 100)) },
    log: (line) => log(`[cluster] ${line}`),
  });
  const runs: StorageRun[] = [];
  try {
    renice(clusterNice, Object.values(cluster.pids));
    if (clusterCpus !== 'none' && pinProcesses(clusterCpus, Object.values(cluster.pids)) && clientCpus !== 'none') {
      observersOn(clusterCpus);
      if (!pinProcesses(clientCpus, [process.pid])) notes.push(`could not pin the clients to CPU(s) ${clientCpus}`);
    } else if (clusterCpus !== 'none') notes.push(`could not pin the control plane to CPU(s) ${clusterCpus}: taskset failed`);
    createClass(cluster.kubeconfigPath);
    const namespaces = new Namespaces(cluster.kubeconfigPath);
    for (const n of sizes) {
      log(`N=${n}...`);
      try {
        const run = await runN(namespaces, cluster.kubeconfigPath, cluster.nodeName, n);
        runs.push(run);
        log(
          `N=${n}: ready ${run.without.succeeded}/${n} → ${run.with.succeeded}/${n}; detection p99 ${fmt(run.without.detectionMs.p99, 2)} → ` +
            `${fmt(run.with.detectionMs.p99, 2)} ms; claim watches at once ${run.with.peakOpenWatches.persistentvolumeclaims ?? 0}; ` +
            `extra requests/provisioning ${fmt(run.extraRequestsPerProvisioning, 2)}; extra p50 ${signed(run.extraMs.p50)} ms`,
        );
        for (const error of [...run.with.errors, ...run.without.errors].slice(0, 3)) log(`  error: ${error}`);
      } catch (error) {
        notes.push(`N=${n} failed, no figures: ${error instanceof Error ? error.message.slice(0, 800) : String(error)}`);
        log(`N=${n} FAILED: ${error instanceof Error ? error.message : String(error)}`);
      }
      mkdirSync(outDir, { recursive: true });
      writeFileSync(join(outDir, 'storage.json'), `${JSON.stringify({ machine, busy, podReadyDelayMs, impl, runs, notes }, null, 2)}\n`);
      writeFileSync(join(outDir, 'storage.md'), `${markdown(runs, machine, busy)}\n`);
    }
  } finally {
    killChildren();
    await cluster.stop();
  }
  log(`wrote ${join(outDir, 'storage.md')} and storage.json`);
}

main().catch((error: unknown) => {
  killChildren();
  process.stderr.write(`[bench:storage] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
