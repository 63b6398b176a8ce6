// npm run bench:network: what a Service per container costs and how fast "reachable" is
// seen. Starts its own local control plane (a service IP range wide enough for every N)
// and, for each N, runs side by side in the same cluster, each in a fresh namespace:
//   a. N concurrent provision$() calls without ports (a Deployment only);
//   b. the same N with two ports each (a Deployment and a Service; ready means the
//      Service's EndpointSlice lists the new Pod as ready on both ports);
// while independent observers in this process watch the namespace's Deployments and
// EndpointSlices straight from the API server. Writes network.md and network.json in bench/results/.
//
// Figures per N:
//   - endpoint-ready detection p50/p99/max: our `ready` minus the later of the observer's
//     first complete Deployment event and its first EndpointSlice event listing the Pod
//     ready on every port (the two things ready waits for); which one came last, counted;
//   - EndpointSlice (and Service) watches open at once, and watch requests, from the proxy;
//   - requests and create-to-ready time with ports, beside the same N without: the extra
//     requests per provisioning and the extra milliseconds (p50 and p99).
//
// Flags (or environment): --sizes 1,10,100,500 (BENCH_SIZES), --pod-ready-ms 3000
// (BENCH_POD_READY_MS), --impl src|dist (BENCH_IMPL), --timeout-ms 300000, --out bench/results,
// --cluster-nice 10, --cluster-cpus 0, --client-cpus 1 (as bench/run.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startCluster } from '../scripts/control-plane/cluster.js';
import { EndpointSliceObserver } from './lib/endpoint-observer.js';
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
const PORTS = [
  { port: 22, protocol: 'tcp' },
  { port: 8080, protocol: 'tcp' },
] as const;
const SLICE_PORTS = PORTS.map((port) => `${port.port}/${port.protocol.toUpperCase()}`);

const { sizes, podReadyDelayMs, impl, timeoutMs, outDir, clusterNice, clusterCpus, clientCpus } = provisioningBenchOptions('1,10,100,500');

const log = (line: string): void => void process.stderr.write(`[bench:network] ${line}\n`);
const notes: string[] = [];

interface Side {
  readonly ports: boolean;
  readonly succeeded: number;
  readonly failed: number;
  readonly errors: readonly string[];
  readonly requests: number;
  readonly requestsPerProvisioning: number;
  readonly endToEndMs: { readonly p50: number; readonly p99: number };
  readonly wallMs: number;
  readonly peakOpenWatches: Readonly<Record<string, number>>;
  readonly watchRequests: Readonly<Record<string, number>>;
}

interface NetworkRun {
  readonly n: number;
  readonly without: Side;
  readonly with: Side;
  readonly detectionMs: { readonly p50: number; readonly p99: number; readonly max: number; readonly samples: number };
  /**
   * Detection split where the completing change reached our watch: its arrival after the
   * observer's (the API server's fan-out, the counting proxy, our transport's decoding),
   * and our `ready` after that arrival (the library's judging and reporting).
   */
  readonly arrivalMs: { readonly p50: number; readonly p99: number };
  readonly readyAfterArrivalMs: { readonly p50: number; readonly p99: number };
  /** Of the matched provisionings: how many had the EndpointSlice as the last of the two events ready waits for. */
  readonly sliceWasLast: number;
  readonly unmatched: number;
  readonly addresses: number;
  readonly extraRequestsPerProvisioning: number;
  readonly extraMs: { readonly p50: number; readonly p99: number };
}

function resourceOf(path: string): string {
  const segments = path.split('?')[0]?.split('/') ?? [];
  return segments[segments.length - 1] ?? '';
}

function side(withPorts: boolean, run: ChildRun, counts: RequestCounts, requestLog: readonly ProxyRequestSummary[]): Side {
  const records = run.result.records;
  const ok = records.filter((record) => !record.error && record.readyAt !== undefined);
  const endToEnd = ok.map((record) => (record.readyAt as number) - record.startedAt);
  const watchRequests: Record<string, number> = {};
  for (const request of requestLog)
    if (request.watch) watchRequests[resourceOf(request.path)] = (watchRequests[resourceOf(request.path)] ?? 0) + 1;
  return {
    ports: withPorts,
    succeeded: ok.length,
    failed: records.length - ok.length,
    errors: records.flatMap((record) => (record.error ? [`${record.name}: ${record.error}`] : [])).slice(0, 5),
    requests: counts.requests,
    requestsPerProvisioning: counts.requests / Math.max(1, records.length),
    endToEndMs: { p50: percentile(endToEnd, 50), p99: percentile(endToEnd, 99) },
    wallMs: run.result.wallMs,
    peakOpenWatches: counts.peakOpenWatches,
    watchRequests,
  };
}

async function runSide(
  namespaces: Namespaces,
  adminKubeconfig: string,
  n: number,
  withPorts: boolean,
): Promise<{ side: Side; run: ChildRun; deployments: DeploymentObserver; slices: EndpointSliceObserver }> {
  const namespace = await namespaces.create(`bench-net-${withPorts ? 'ports' : 'plain'}-${n}`);
  try {
    const label = `N=${n} ports=${withPorts}`;
    const { run, counts, requestLog, observers } = await runProvisioningSide({
      adminKubeconfig,
      namespace,
      label,
      notes,
      child: { impl, count: n, image: IMAGE, timeoutMs, traceArrivals: true, ...(withPorts ? { ports: PORTS } : {}) },
      observe: async () => ({
        deployments: await DeploymentObserver.start(adminKubeconfig, namespace),
        slices: await EndpointSliceObserver.start(adminKubeconfig, namespace),
      }),
    });
    const result = side(withPorts, run, counts, requestLog);
    // Failed provisionings are figures too: say which and why in the results, not only on stderr.
    if (result.failed > 0) {
      notes.push(`${label}: ${result.failed} of ${n} failed; the first: ${result.errors.slice(0, 2).join(' | ').slice(0, 600)}`);
      notes.push(`${label}: what reached the API server (through the proxy): ${createsReceived(requestLog)}`);
    }
    // A re-opened watch costs a relist or a resume: say why each one happened.
    const retries = run.result.informerRetries;
    if (retries.length > 0)
      notes.push(`${label}: ${retries.length} informer retries; the first: ${retries.slice(0, 3).join(' | ').slice(0, 600)}`);
    return { side: result, run, ...observers };
  } finally {
    if (!(await namespaces.delete(namespace))) notes.push(`namespace ${namespace} was not gone 300 s after its deletion`);
  }
}

async function runN(namespaces: Namespaces, adminKubeconfig: string, n: number): Promise<NetworkRun> {
  const plain = await runSide(namespaces, adminKubeconfig, n, false);
  const ported = await runSide(namespaces, adminKubeconfig, n, true);
  const detection: number[] = [];
  const arrival: number[] = [];
  const readyAfterArrival: number[] = [];
  let sliceWasLast = 0;
  let unmatched = 0;
  let addresses = 0;
  for (const record of ported.run.result.records) {
    if (record.error || record.readyAt === undefined) continue;
    if (record.address) addresses += 1;
    const complete = record.completeResourceVersion ? ported.deployments.at(record.name, record.completeResourceVersion) : undefined;
    const routed = ported.slices.routedAt(record.name, SLICE_PORTS, record.startedAt);
    if (!complete || !routed) {
      unmatched += 1;
      continue;
    }
    const last = Math.max(complete.at, routed.at);
    if (routed.at >= complete.at) sliceWasLast += 1;
    detection.push(record.readyAt - last);
    if (record.completeArrivedAt !== undefined) {
      arrival.push(record.completeArrivedAt - last);
      readyAfterArrival.push(record.readyAt - record.completeArrivedAt);
    }
  }
  const extra = (p: 50 | 99): number =>
    p === 50 ? ported.side.endToEndMs.p50 - plain.side.endToEndMs.p50 : ported.side.endToEndMs.p99 - plain.side.endToEndMs.p99;
  return {
    n,
    without: plain.side,
    with: ported.side,
    detectionMs: {
      p50: percentile(detection, 50),
      p99: percentile(detection, 99),
      max: detection.length > 0 ? Math.max(...detection) : Number.NaN,
      samples: detection.length,
    },
    arrivalMs: { p50: percentile(arrival, 50), p99: percentile(arrival, 99) },
    readyAfterArrivalMs: { p50: percentile(readyAfterArrival, 50), p99: percentile(readyAfterArrival, 99) },
    sliceWasLast,
    unmatched,
    addresses,
    extraRequestsPerProvisioning: ported.side.requestsPerProvisioning - plain.side.requestsPerProvisioning,
    extraMs: { p50: extra(50), p99: extra(99) },
  };
}

function markdown(runs: readonly NetworkRun[], machine: ReturnType<typeof machineInfo>, busy: string): string {
  const rows = runs.map((run) => [
    String(run.n),
    `${run.with.succeeded}/${run.n}`,
    `${fmt(run.detectionMs.p50, 2)} / ${fmt(run.detectionMs.p99, 2)} / ${fmt(run.detectionMs.max, 2)}`,
    `${fmt(run.arrivalMs.p50, 2)} / ${fmt(run.arrivalMs.p99, 2)}`,
    `${fmt(run.readyAfterArrivalMs.p50, 2)} / ${fmt(run.readyAfterArrivalMs.p99, 2)}`,
    `${run.sliceWasLast}/${run.detectionMs.samples}`,
    String(run.with.peakOpenWatches.endpointslices ?? 0),
    String(run.with.watchRequests.endpointslices ?? 0),
    `${fmt(run.without.requestsPerProvisioning, 2)} → ${fmt(run.with.requestsPerProvisioning, 2)} (+${fmt(run.extraRequestsPerProvisioning, 2)})`,
    `${fmt(run.without.endToEndMs.p50, 0)} → ${fmt(run.with.endToEndMs.p50, 0)} (${signed(run.extraMs.p50)})`,
    `${fmt(run.without.endToEndMs.p99, 0)} → ${fmt(run.with.endToEndMs.p99, 0)} (${signed(run.extraMs.p99)})`,
  ]);
  const targets = runs.map((run) => {
    const detectionMet = run.detectionMs.p99 < 10;
    const watchesMet = (run.with.peakOpenWatches.endpointslices ?? 0) === 1;
    return `- N=${run.n}: endpoint-ready detection p99 < 10 ms: ${detectionMet ? 'met' : 'MISSED'} (${fmt(run.detectionMs.p99, 2)} ms); one EndpointSlice watch in the namespace: ${watchesMet ? 'met' : 'MISSED'} (${run.with.peakOpenWatches.endpointslices ?? 0} at most)`;
  });
  return [
    '# Network benchmark: a Service per container',
    '',
    `Generated by \`npm run bench:network\` on ${new Date().toISOString()}. ${busy}`,
    '',
    machineMarkdown(machine, {
      'pod ready delay': `${podReadyDelayMs} ms`,
      'library loaded by the children': impl,
      ports: SLICE_PORTS.join(', '),
    }),
    '',
    'Each N runs twice in the same cluster, each time in a fresh namespace: N provisionings without ports, then N with two ports.',
    'Detection is our `ready` minus the later of the two events it waits for, as an independent observer received them on its own',
    'watches (client-node, straight to the API server): the Deployment complete, and the EndpointSlice listing the new Pod as ready on',
    'both ports. It is split where the completing change reached our watch (the child stamps each event before the library sees it):',
    "its arrival after the observer's (the API server's fan-out, the counting proxy between, our transport), and our `ready` after",
    'that arrival (the library judging it and reporting). Times are ms; "→" reads "without ports → with ports".',
    '',
    markdownTable(
      [
        'N',
        'ready',
        'detection p50 / p99 / max',
        'of it: arrival on our watch after the observer p50 / p99',
        'of it: ready after that arrival p50 / p99',
        'slice was last',
        'EndpointSlice watches open at once',
        'EndpointSlice watch requests',
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

/** Build and test processes on the machine that are not this run's (its cluster, its children), as `command (worktree)`. */
function otherSuites(): string[] {
  let table: string;
  try {
    table = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  } catch {
    return ['(ps failed: unknown)'];
  }
  const rows = table
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), args: match[3] ?? '' }));
  const parent = new Map(rows.map((row) => [row.pid, row.ppid]));
  const ours = (pid: number): boolean => {
    for (let at: number | undefined = pid, hops = 0; at !== undefined && at > 1 && hops < 64; at = parent.get(at), hops += 1)
      if (at === process.pid) return true;
    return false;
  };
  const kinds = /\b(vitest|tsc|eslint|esbuild|kube-apiserver|kwok|kubelet|chromium|prettier)\b/;
  return rows
    .filter((row) => !ours(row.pid) && kinds.test(row.args))
    .map(
      (row) =>
        `${kinds.exec(row.args)?.[1] ?? ''}${/\/work\/wt\/([^/ ]+)/.exec(row.args)?.[1] ? ` (${/\/work\/wt\/([^/ ]+)/.exec(row.args)?.[1]})` : ''}`,
    );
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${fmt(value, 0)}`;
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
  const busyAtStart = otherSuites();
  const loadAtStart = loadavg().map((load) => load.toFixed(2));
  const maxN = Math.max(...sizes);
  const cluster = await startCluster({
    podReadyDelayMs,
    keepWorkDir: process.env.BENCH_KEEP_CLUSTER === '1',
    nodeCapacity: { pods: String(Math.max(3000, maxN * 2 + 100)) },
    // A /16: room for every N's Services at once (the default /24 holds about 250).
    serviceClusterIpRange: '10.96.0.0/16',
    log: (line) => log(`[cluster] ${line}`),
  });
  const runs: NetworkRun[] = [];
  const busyNote = (): string => {
    const now = otherSuites();
    const quiet = busyAtStart.length === 0 && now.length === 0 && Number(loadAtStart[0]) < 1.5;
    const seen = [...new Set([...busyAtStart, ...now])];
    return (
      `${quiet ? 'A quiet machine' : 'NOT a quiet machine'}: load average ${loadAtStart.join(' ')} at the start, ` +
      `${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')} at the last write; ` +
      `other processes of builds and test suites (not this run's): ${busyAtStart.length} at the start, ${now.length} at the last write` +
      (seen.length > 0 ? ` (${seen.slice(0, 8).join('; ')})` : '') +
      (process.env.BENCH_MACHINE_NOTE ? `. ${process.env.BENCH_MACHINE_NOTE}` : '.')
    );
  };
  try {
    renice(clusterNice, Object.values(cluster.pids));
    if (clusterCpus !== 'none' && pinProcesses(clusterCpus, Object.values(cluster.pids)) && clientCpus !== 'none') {
      observersOn(clusterCpus);
      if (!pinProcesses(clientCpus, [process.pid])) notes.push(`could not pin the clients to CPU(s) ${clientCpus}`);
    } else if (clusterCpus !== 'none') notes.push(`could not pin the control plane to CPU(s) ${clusterCpus}: taskset failed`);
    const namespaces = new Namespaces(cluster.kubeconfigPath);
    for (const n of sizes) {
      log(`N=${n}...`);
      try {
        const run = await runN(namespaces, cluster.kubeconfigPath, n);
        runs.push(run);
        log(
          `N=${n}: ready ${run.with.succeeded}/${n}; detection p99 ${fmt(run.detectionMs.p99, 2)} ms (slice last ${run.sliceWasLast}/${run.detectionMs.samples}); ` +
            `EndpointSlice watches at once ${run.with.peakOpenWatches.endpointslices ?? 0}; extra requests/provisioning ${fmt(run.extraRequestsPerProvisioning, 2)}; extra p50 ${signed(run.extraMs.p50)} ms`,
        );
        for (const error of [...run.with.errors, ...run.without.errors].slice(0, 3)) log(`  error: ${error}`);
      } catch (error) {
        notes.push(`N=${n} failed, no figures: ${error instanceof Error ? error.message.slice(0, 800) : String(error)}`);
        log(`N=${n} FAILED: ${error instanceof Error ? error.message : String(error)}`);
      }
      mkdirSync(outDir, { recursive: true });
      const busy = busyNote();
      writeFileSync(join(outDir, 'network.json'), `${JSON.stringify({ machine, busy, podReadyDelayMs, impl, runs, notes }, null, 2)}\n`);
      writeFileSync(join(outDir, 'network.md'), `${markdown(runs, machine, busy)}\n`);
    }
  } finally {
    killChildren();
    await cluster.stop();
  }
  log(`wrote ${join(outDir, 'network.md')} and network.json`);
}

main().catch((error: unknown) => {
  killChildren();
  process.stderr.write(`[bench:network] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

/** The creates the proxy forwarded, per resource, and over how long they arrived: a create never sent is not the API server's. */
function createsReceived(requestLog: readonly ProxyRequestSummary[]): string {
  const arrivals = new Map<string, number[]>();
  for (const request of requestLog) {
    if (request.method !== 'POST') continue;
    const resource = request.path.slice(request.path.lastIndexOf('/') + 1);
    arrivals.set(resource, [...(arrivals.get(resource) ?? []), request.at]);
  }
  const first = Math.min(...[...arrivals.values()].flat());
  return [...arrivals]
    .map(([resource, at]) => `${at.length} ${resource} creates, the last ${fmt((Math.max(...at) - first) / 1000)} s after the first`)
    .join('; ');
}
