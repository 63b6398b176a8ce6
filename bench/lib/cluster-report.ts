// Turns what one (waiter kind, N) run recorded into figures, and the figures into
// bench/results/cluster.md and cluster.json.
import type { RequestCounts } from '../../test/support/api-proxy.js';
import type { ProxyRequestSummary } from './proxy-protocol.js';
import { machineMarkdown, type MachineInfo } from './machine.js';
import type { DeploymentObserver } from './observer.js';
import type { ChildRun, KubectlRep } from './runners.js';
import { fmt, markdownTable, summarize, type Summary } from './stats.js';

export type WaiterKind = 'provisioner' | 'poller' | 'kubectl';

export const WAITER_LABELS: Record<WaiterKind, string> = {
  provisioner: 'kube-provisioner (shared informers)',
  poller: 'baseline: Helm-3-style GET every 2 s',
  kubectl: 'kubectl rollout status',
};

export interface ApiCounts extends RequestCounts {
  /** Watch requests, first ones and resumes alike. */
  readonly deploymentWatches: number;
  readonly podWatches: number;
  /** Watches resumed from a resourceVersion after the server ended the previous one. */
  readonly resumedWatches: number;
  /** Watches that began with a streaming list (sendInitialEvents). */
  readonly streamingLists: number;
  /** The most watches open at once in the namespace, per resource. */
  readonly peakOpenDeploymentWatches: number;
  readonly peakOpenPodWatches: number;
  /** Requests that were not about Deployments or Pods (discovery, kubectl's lookups). */
  readonly otherRequests: number;
}

export interface RunFigures {
  readonly kind: WaiterKind;
  readonly n: number;
  /** Which repetition of (kind, N) this is, 1-based, and how many there were. */
  readonly rep?: number;
  readonly reps?: number;
  readonly namespace: string;
  readonly succeeded: number;
  readonly failed: number;
  readonly errors: readonly string[];
  /** Waiter resolution minus the observer's arrival of the completing event. */
  readonly detectionMs: Summary;
  /** Waiters whose completing version the observer never saw. */
  readonly unmatched: number;
  /** Create sent to waiter resolved. */
  readonly endToEndMs: Summary;
  /** Create sent to create answered (all N are sent at once: growth with N means queueing). */
  readonly createMs: Summary;
  readonly api: ApiCounts;
  readonly requestsPerProvisioning: number;
  /** Requests other than the creates: what waiting for the rollouts cost. */
  readonly waitRequests: number;
  /** TLS connections the client opened (child's own count; n/a for kubectl). */
  readonly connectionsOpened?: number;
  readonly cpuMs: number;
  readonly cpuMsPerProvisioning: number;
  readonly processCpuMs?: number;
  readonly peakRssMiB: number;
  readonly startRssMiB?: number;
  readonly heapBytesPerWaiter?: number;
  readonly gcPauseMs?: number;
  readonly settledBeforeHeapSample?: number;
  readonly eventLoopDelayMaxMs?: number;
  /** Event-loop stalls of 10 ms or more in the waiting process, and how many it spent mostly busy (CPU >= half the stall). */
  readonly stallsOver10Ms?: number;
  readonly busyStalls?: number;
  /** Detections over 10 ms, and how many of them overlapped such a stall of the waiter's own process. */
  readonly slowDetections?: number;
  readonly slowDetectionsDuringStall?: number;
  readonly wallMs: number;
  readonly exitedOnItsOwn?: boolean;
  readonly activeHandlesAfter?: readonly string[];
  readonly informerRetries?: readonly string[];
  readonly observerEvents: number;
  readonly observerReconnects: number;
  readonly namespaceDeleted: boolean;
  readonly detectionRawMs: readonly number[];
}

export function apiCounts(counts: RequestCounts, log: readonly ProxyRequestSummary[], namespace: string): ApiCounts {
  const inNamespace =
    (resource: string) =>
    (request: ProxyRequestSummary): boolean =>
      request.path.startsWith(`/api/v1/namespaces/${namespace}/${resource}`) ||
      request.path.startsWith(`/apis/apps/v1/namespaces/${namespace}/${resource}`);
  const deployments = inNamespace('deployments');
  const pods = inNamespace('pods');
  return {
    ...counts,
    deploymentWatches: log.filter((request) => request.watch && deployments(request)).length,
    podWatches: log.filter((request) => request.watch && pods(request)).length,
    resumedWatches: log.filter((request) => request.watch && request.resourceVersion !== undefined).length,
    streamingLists: log.filter((request) => request.streamingList).length,
    // One proxy per run, and each run has a namespace of its own.
    peakOpenDeploymentWatches: counts.peakOpenWatches.deployments ?? 0,
    peakOpenPodWatches: counts.peakOpenWatches.pods ?? 0,
    otherRequests: log.filter((request) => !deployments(request) && !pods(request)).length,
  };
}

export function childFigures(
  kind: 'provisioner' | 'poller',
  run: ChildRun,
  observer: DeploymentObserver,
  api: ApiCounts,
  namespace: string,
  namespaceDeleted: boolean,
): RunFigures {
  const { result } = run;
  const detection: number[] = [];
  const endToEnd: number[] = [];
  let unmatched = 0;
  let slowDetections = 0;
  let slowDuringStall = 0;
  const errors: string[] = [];
  const creates = result.records.flatMap((record) => (record.createdAt === undefined ? [] : [record.createdAt - record.startedAt]));
  for (const record of result.records) {
    if (record.error) {
      errors.push(`${record.name}: ${record.error}`);
      continue;
    }
    if (record.readyAt === undefined) continue;
    endToEnd.push(record.readyAt - record.startedAt);
    const seen = record.completeResourceVersion ? observer.at(record.name, record.completeResourceVersion) : undefined;
    if (!seen) {
      unmatched += 1;
      continue;
    }
    const detectionMs = record.readyAt - seen.at;
    detection.push(detectionMs);
    if (detectionMs > 10) {
      slowDetections += 1;
      const readyAt = record.readyAt;
      if (result.stalls.some((stall) => stall.endedAt >= seen.at && stall.endedAt - stall.ms <= readyAt)) slowDuringStall += 1;
    }
  }
  const succeeded = result.records.filter((record) => !record.error && record.readyAt !== undefined).length;
  return {
    kind,
    n: result.count,
    namespace,
    succeeded,
    failed: result.records.length - succeeded,
    errors: errors.slice(0, 10),
    detectionMs: summarize(detection),
    unmatched,
    endToEndMs: summarize(endToEnd),
    createMs: summarize(creates),
    api,
    requestsPerProvisioning: api.requests / result.count,
    waitRequests: api.requests - api.creates,
    connectionsOpened: result.connectionsOpened,
    cpuMs: result.cpuMs,
    cpuMsPerProvisioning: result.cpuMs / result.count,
    processCpuMs: result.processCpuMs,
    peakRssMiB: result.peakRssMiB,
    startRssMiB: result.startRssMiB,
    // Heap per waiter comes from the separate memory run (bench/run.ts), never from this one.
    eventLoopDelayMaxMs: result.eventLoopDelayMaxMs,
    stallsOver10Ms: result.stalls.length,
    busyStalls: result.stalls.filter((stall) => stall.cpuMs >= stall.ms / 2).length,
    slowDetections,
    slowDetectionsDuringStall: slowDuringStall,
    wallMs: result.wallMs,
    exitedOnItsOwn: run.exitedOnItsOwn,
    activeHandlesAfter: result.activeHandlesAfter,
    ...(result.informerRetries.length > 0 ? { informerRetries: result.informerRetries } : {}),
    observerEvents: observer.events.length,
    observerReconnects: observer.reconnects,
    namespaceDeleted,
    detectionRawMs: detection.map((value) => Math.round(value * 1000) / 1000),
  };
}

export function kubectlFigures(
  reps: readonly KubectlRep[],
  observer: DeploymentObserver,
  api: ApiCounts,
  namespace: string,
  namespaceDeleted: boolean,
): RunFigures {
  const detection: number[] = [];
  const endToEnd: number[] = [];
  const errors: string[] = [];
  let unmatched = 0;
  for (const rep of reps) {
    if (rep.exitCode !== 0) {
      errors.push(`${rep.name}: kubectl exit ${rep.exitCode}: ${rep.stderr.trim().slice(0, 300)}`);
      continue;
    }
    endToEnd.push(rep.exitedAt - rep.startedAt);
    // kubectl decides with its own predicate: measure from the first event that satisfies it.
    const seen = observer.first(rep.name, (observation) => observation.kubectlComplete);
    if (seen) detection.push(rep.exitedAt - seen.at);
    else unmatched += 1;
  }
  const cpuMs = reps.reduce((sum, rep) => sum + rep.cpuMs, 0);
  const succeeded = reps.filter((rep) => rep.exitCode === 0).length;
  return {
    kind: 'kubectl',
    n: 1,
    namespace,
    succeeded,
    failed: reps.length - succeeded,
    errors,
    detectionMs: summarize(detection),
    unmatched,
    endToEndMs: summarize(endToEnd),
    createMs: summarize(reps.map((rep) => rep.createdAt - rep.startedAt)),
    api,
    requestsPerProvisioning: api.requests / Math.max(1, reps.length),
    waitRequests: api.requests - api.creates,
    cpuMs: cpuMs / Math.max(1, reps.length),
    cpuMsPerProvisioning: cpuMs / Math.max(1, reps.length),
    peakRssMiB: Math.max(0, ...reps.map((rep) => rep.peakRssMiB)),
    wallMs: reps.reduce((sum, rep) => sum + (rep.exitedAt - rep.startedAt), 0) / Math.max(1, reps.length),
    observerEvents: observer.events.length,
    observerReconnects: observer.reconnects,
    namespaceDeleted,
    detectionRawMs: detection.map((value) => Math.round(value * 1000) / 1000),
  };
}

export interface ClusterReport {
  readonly machine: MachineInfo;
  readonly options: Readonly<Record<string, unknown>>;
  readonly clusterVersions: Readonly<Record<string, string>>;
  readonly clusterStartMs: number;
  readonly runs: readonly RunFigures[];
  readonly targets: readonly TargetCheck[];
  readonly notes: readonly string[];
}

export interface TargetCheck {
  readonly target: string;
  readonly n: number;
  readonly met: boolean;
  readonly evidence: string;
}

export function checkTargets(runs: readonly RunFigures[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const provisionerSizes = [...new Set(runs.filter((run) => run.kind === 'provisioner').map((run) => run.n))];
  for (const n of provisionerSizes) {
    // Every repetition counts: latencies are pooled, and each must have kept to one watch.
    const reps = runs.filter((run) => run.kind === 'provisioner' && run.n === n);
    const pooled = summarize(reps.flatMap((run) => run.detectionRawMs));
    const unmatched = reps.reduce((sum, run) => sum + run.unmatched, 0);
    const failed = reps.reduce((sum, run) => sum + run.failed, 0);
    const perRun = reps.length > 1 ? `; p99 per run: ${reps.map((run) => fmt(run.detectionMs.p99, 2)).join(', ')} ms` : '';
    checks.push({
      target: 'detection p99 < 10 ms after the observer saw the completing event',
      n,
      met: pooled.count > 0 && unmatched === 0 && failed === 0 && pooled.p99 < 10,
      evidence: `p99 ${fmt(pooled.p99, 2)} ms over ${pooled.count} waiters in ${reps.length} run(s) (${unmatched} unmatched, ${failed} failed)${perRun}`,
    });
    const watchesOf = (run: RunFigures): string =>
      `at most ${run.api.peakOpenDeploymentWatches} Deployment + ${run.api.peakOpenPodWatches} Pod watch open at once; ` +
      `${run.api.watches} watch request(s): ${run.api.deploymentWatches} Deployment + ${run.api.podWatches} Pod, ` +
      `${run.api.streamingLists} streaming list(s), ${run.api.resumedWatches} resumed after the server ended a watch`;
    checks.push({
      target: 'exactly 1 Deployment watch + 1 Pod watch in the namespace',
      n,
      met: reps.every((run) => run.api.peakOpenDeploymentWatches === 1 && run.api.peakOpenPodWatches === 1),
      evidence: reps.map((run, index) => `${reps.length > 1 ? `run ${index + 1}: ` : ''}${watchesOf(run)}`).join('; '),
    });
    const poller = runs.find((candidate) => candidate.kind === 'poller' && candidate.n === n);
    if (poller) {
      // The run that needed the most requests, against the poller's.
      const run = reps.reduce((most, candidate) => (candidate.api.requests > most.api.requests ? candidate : most));
      const ratio = poller.api.requests / run.api.requests;
      const waitRatio = poller.waitRequests / Math.max(1, run.waitRequests);
      // Both make the same N creates; what differs is what waiting for the rollouts costs.
      checks.push({
        target: '>= 10x fewer API requests than the 2 s poller (waiting for the same rollouts)',
        n,
        met: waitRatio >= 10,
        evidence:
          `waiting (creates excluded): ${run.waitRequests} vs ${poller.waitRequests} (${fmt(waitRatio, 1)}x); ` +
          `all requests, the N creates included: ${run.api.requests} vs ${poller.api.requests} (${fmt(ratio, 1)}x)`,
      });
    }
  }
  return checks;
}

export function clusterMarkdown(report: ClusterReport): string {
  const rows = report.runs.map((run) => [
    String(run.n),
    run.reps !== undefined && run.reps > 1 ? `${WAITER_LABELS[run.kind]}, run ${run.rep}/${run.reps}` : WAITER_LABELS[run.kind],
    `${run.succeeded}/${run.succeeded + run.failed}`,
    `${fmt(run.detectionMs.p50, 2)} / ${fmt(run.detectionMs.p95, 2)} / ${fmt(run.detectionMs.p99, 2)}`,
    fmt(run.detectionMs.max, 2),
    `${fmt(run.endToEndMs.p50, 0)} / ${fmt(run.endToEndMs.p99, 0)}`,
    `${fmt(run.createMs.p50, 0)} / ${fmt(run.createMs.max, 0)}`,
    `${run.api.requests} (${fmt(run.requestsPerProvisioning, 1)})`,
    String(run.waitRequests),
    `${run.api.peakOpenDeploymentWatches} / ${run.api.peakOpenPodWatches} (${run.api.deploymentWatches} / ${run.api.podWatches})`,
    run.connectionsOpened === undefined ? 'n/a' : String(run.connectionsOpened),
    `${fmt(run.cpuMs, 0)} (${fmt(run.cpuMsPerProvisioning, 2)})`,
    run.startRssMiB === undefined ? fmt(run.peakRssMiB, 0) : `${fmt(run.peakRssMiB, 0)} (start ${fmt(run.startRssMiB, 0)})`,
    run.heapBytesPerWaiter === undefined ? 'n/a' : fmt(run.heapBytesPerWaiter / 1024, 1),
    fmt(run.wallMs / 1000, 2),
  ]);
  const table = markdownTable(
    [
      'N',
      'waiter',
      'ok',
      'detection p50 / p95 / p99 ms',
      'max ms',
      'create→resolved p50 / p99 ms',
      'create answered p50 / max ms',
      'API requests (per prov.)',
      'of which waiting',
      'watches open at once deploy / pod (requests)',
      'TLS conns',
      'CPU ms (per prov.)',
      'peak RSS MiB',
      'heap KiB / waiter',
      'wall s',
    ],
    rows,
  );
  const targets = markdownTable(
    ['target', 'N', 'met', 'evidence'],
    report.targets.map((check) => [check.target, String(check.n), check.met ? 'yes' : '**NO**', check.evidence]),
  );
  const health = markdownTable(
    [
      'N',
      'waiter',
      'exited on its own',
      'handles left',
      'GC pause before heap sample ms (memory run)',
      'settled before heap sample',
      'max event-loop stall ms',
      'stalls >= 10 ms (busy)',
      'detections > 10 ms (during a stall of ours)',
      'observer events / reconnects',
      'namespace deleted',
    ],
    report.runs.map((run) => [
      String(run.n),
      run.reps !== undefined && run.reps > 1 ? `${run.kind} ${run.rep}/${run.reps}` : run.kind,
      run.exitedOnItsOwn === undefined ? 'n/a' : run.exitedOnItsOwn ? 'yes' : '**NO**',
      run.activeHandlesAfter === undefined ? 'n/a' : run.activeHandlesAfter.length === 0 ? 'none' : run.activeHandlesAfter.join(', '),
      fmt(run.gcPauseMs, 1),
      run.settledBeforeHeapSample === undefined ? 'n/a' : String(run.settledBeforeHeapSample),
      fmt(run.eventLoopDelayMaxMs, 1),
      run.stallsOver10Ms === undefined ? 'n/a' : `${run.stallsOver10Ms} (${run.busyStalls ?? 0})`,
      run.slowDetections === undefined ? 'n/a' : `${run.slowDetections} (${run.slowDetectionsDuringStall ?? 0})`,
      `${run.observerEvents} / ${run.observerReconnects}`,
      run.namespaceDeleted ? 'yes' : '**NO**',
    ]),
  );
  const errors = report.runs.flatMap((run) => run.errors.map((error) => `- ${run.kind} N=${run.n}: ${error}`));
  const retries = report.runs.flatMap((run) =>
    (run.informerRetries ?? []).map(
      (retry) => `- ${run.kind} N=${run.n}${run.reps !== undefined && run.reps > 1 ? ` run ${run.rep}` : ''}: ${retry}`,
    ),
  );
  return [
    '# Cluster benchmark: one watch for a thousand provisionings',
    '',
    'Generated by `npm run bench` (bench/run.ts). See bench/README.md for what is measured and how.',
    '',
    machineMarkdown(report.machine, {
      cluster: `kube-apiserver/controller-manager/scheduler ${report.clusterVersions.kubernetes ?? '?'}, etcd ${report.clusterVersions.etcd ?? '?'}, KWOK ${report.clusterVersions.kwok ?? '?'} on loopback (started in ${fmt(report.clusterStartMs / 1000, 1)} s)`,
      options: Object.entries(report.options)
        .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join(',') : String(value)}`)
        .join(' '),
    }),
    '',
    '## Results',
    '',
    table,
    '',
    "Detection = the waiter's resolution time minus the arrival, at the independent observer (its own watch straight to the apiserver), of the event carrying the resourceVersion the waiter completed on (kubectl: the first event satisfying kubectl's own predicate). API requests and watches are the counts of the run's own ApiProxy; \"watches open at once\" is the most watch connections it had open together per resource (a watch the server ends and the informer resumes is a new request, but still the same one watch). CPU, RSS and heap are the provisioning process's own (kubectl: per run, from /usr/bin/time).",
    '',
    '## Targets',
    '',
    targets,
    '',
    '## Process health',
    '',
    health,
    '',
    ...(errors.length > 0 ? ['## Errors', '', ...errors, ''] : []),
    ...(retries.length > 0 ? ['## Informer retries (failures the informers recovered from)', '', ...retries, ''] : []),
    ...(report.notes.length > 0 ? ['## Notes', '', ...report.notes.map((note) => `- ${note}`), ''] : []),
  ].join('\n');
}
