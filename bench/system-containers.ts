// `npm run bench:system-containers`: how long until a user can log in to a system container
// (Debian with systemd as PID 1 and sshd, like Manager's templates) on the real node, for N
// created at once (default N = 1, 10, 20), against the same root filesystem started directly
// by the runtime. Root only; the real node's lock makes it one per machine.
//   - ours: `provision()` for each (the library's Pod for a system container, the node's
//     cgroup-writable RuntimeClass, port 22), all at once; per workload the time from its
//     call to provision resolving (Ready: sshd accepts), and to the first SSH login that runs
//     a command at the address it returned (tried from a process of its own, bench/lib/
//     ssh-login.py: a spawn from this one blocks the event loop being measured); and
//     detection: its `ready` minus the later of what it waits for, as an independent
//     observer (its own process and watches) saw them: the Deployment complete, the
//     Service's EndpointSlice listing the Pod ready on 22;
//   - floor: `ctr run` of the same image with the same runtime (our cgroup-writable wrapper
//     around runc), tmpfs at /run, /run/lock and /tmp, in a network namespace of its own
//     with no interface but lo: no Kubernetes, no Pod network, no Service. Its time is from
//     `ctr run` to sshd listening on port 22 in the container's network namespace (read from
//     /proc/<pid>/net/tcp), the closest a login can get without a network.
// Each container, ours and the floor's, is limited to the same CPU share and memory.
// Writes bench/results/system-containers.md and system-containers.json.
//
//   npm run bench:system-containers -- --sizes 1,10,20 [--diagnose]
// --diagnose lays each detection against what this process did meanwhile (bench/lib/
// loop-probe.ts): our receipt of the same event versions, event-loop stalls, GC pauses, and
// the synchronous handling of each watch event; into bench/results/unpinned/.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';

import { startCluster } from '../scripts/control-plane/cluster.js';
import { REAL_NODE_IMAGES } from '../scripts/control-plane/real-node/images.js';
import { REAL_NODE_NAMESPACE_ANNOTATIONS } from '../scripts/control-plane/real-node/node.js';
import type { RealNode } from '../scripts/control-plane/real-node/node.js';
import { KubernetesApi } from '../src/kube/kubernetes-api.js';
import { provision$ } from '../src/workload/operations/provision.js';
import { remove } from '../src/workload/operations/remove.js';
import { EndpointSliceObserver } from './lib/endpoint-observer.js';
import { machineInfo, machineMarkdown } from './lib/machine.js';
import { DeploymentObserver } from './lib/observer.js';
import { LoopProbe } from './lib/loop-probe.js';
import { fmt, hrNow, markdownTable, summarize } from './lib/stats.js';
import type { Summary } from './lib/stats.js';

const RESULTS = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'bench', 'results');
const run = promisify(execFile);

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '1,10,20' }, diagnose: { type: 'boolean', default: false } },
});
/** With --diagnose: what blocked this process around each detection (bench/lib/loop-probe.ts), on stderr and in a JSON file. */
const probe = values.diagnose ? new LoopProbe() : undefined;
const sizes = (values.sizes ?? '').split(',').map(Number);
if (sizes.some((size) => !Number.isSafeInteger(size) || size < 1))
  throw new Error(`--sizes must list whole numbers >= 1, got ${values.sizes}`);

const TIMEOUT_MS = 300_000;
/** Each container's share, the same for ours and the floor: 20 of them fit the node's 2 CPUs (requests equal limits). */
const CPUS = 0.08;
const MEMORY_MB = 128;
const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);

interface Row {
  readonly n: number;
  readonly ready: Summary;
  readonly login: Summary;
  /** Our `ready` minus the later of the observer's complete Deployment and ready EndpointSlice events (ms). */
  readonly detection: Summary;
  readonly floor: Summary;
  readonly load: string;
}

async function main(): Promise<void> {
  const cluster = await startCluster({ realNode: true, log: (line) => log(line) });
  const node = cluster.realNode;
  if (node === undefined) throw new Error('the cluster started without its real node');
  const rows: Row[] = [];
  try {
    const api = KubernetesApi.fromConfig({ kubeconfigPath: cluster.kubeconfigPath });
    await run('kubectl', ['--kubeconfig', cluster.kubeconfigPath, 'create', 'namespace', 'bench-system']);
    await run('kubectl', [
      '--kubeconfig',
      cluster.kubeconfigPath,
      'annotate',
      'namespace',
      'bench-system',
      ...Object.entries(REAL_NODE_NAMESPACE_ANNOTATIONS).map(([key, value]) => `${key}=${value}`),
    ]);
    const observers = {
      deployments: await DeploymentObserver.start(cluster.kubeconfigPath, 'bench-system'),
      slices: await EndpointSliceObserver.start(cluster.kubeconfigPath, 'bench-system'),
    };
    try {
      // One untimed container first: the image is pulled once, as on a node that ran one before.
      await ours(api, node, observers, 1, 900);
      for (const n of sizes) {
        probe?.start();
        const measured = await ours(api, node, observers, n, 1000 * n);
        probe?.stop();
        if (probe) diagnosis.push({ n, handling: probe.handlingByKind() });
        const floor = await floorRun(node, n);
        const row = {
          n,
          ready: summarize(measured.ready),
          login: summarize(measured.login),
          detection: summarize(measured.detection),
          floor: summarize(floor),
          load: loadavg()[0]!.toFixed(1),
        };
        log(
          `N=${n}: ready p50 ${fmt(row.ready.p50 / 1000)} s, login p50 ${fmt(row.login.p50 / 1000)} s, floor p50 ${fmt(row.floor.p50 / 1000)} s`,
        );
        rows.push(row);
      }
    } finally {
      await Promise.all([observers.deployments.stop(), observers.slices.stop()]);
    }
  } finally {
    await cluster.stop();
  }
  if (probe) writeFileSync(join(RESULTS, 'unpinned', 'system-containers-diagnosis.json'), `${JSON.stringify(diagnosis, null, 2)}\n`);
  report(rows);
}

/** N provisions at once; per workload: call to resolved, call to the first SSH login, and ready after the observer's events. */
async function ours(
  api: KubernetesApi,
  node: RealNode,
  observers: { readonly deployments: DeploymentObserver; readonly slices: EndpointSliceObserver },
  n: number,
  firstId: number,
): Promise<{ ready: number[]; login: number[]; detection: number[] }> {
  const ready: number[] = [];
  const login: number[] = [];
  const readyTimes: { name: string; startedAt: number; readyAt: number }[] = [];
  const ids = Array.from({ length: n }, (_, index) => firstId + index);
  const created = new Map<number, string>();
  const logins = new SshLogins(node.sshKeyFile);
  try {
    await Promise.all(
      ids.map(async (containerId) => {
        const started = performance.now();
        const startedAt = hrNow();
        const spec = {
          namespace: 'bench-system',
          containerId,
          nodeId: 1,
          hostname: `sys-${containerId}`,
          image: REAL_NODE_IMAGES.systemBookworm,
          entrypoint: '/sbin/init',
          cpus: CPUS,
          memoryMb: MEMORY_MB,
          ports: [{ port: 22 }],
          runtimeClass: node.systemContainerRuntimeClass,
        };
        const result = await new Promise<{ providerId: string; address: string; name: string; readyAt: number }>((resolve, reject) => {
          provision$(api, spec, { timeoutMs: TIMEOUT_MS }).subscribe({
            next: (event) => {
              if (event.type === 'ready')
                resolve({ providerId: event.providerId, address: event.address ?? '', name: event.name, readyAt: hrNow() });
            },
            error: reject,
          });
        });
        ready.push(performance.now() - started);
        created.set(containerId, result.providerId);
        readyTimes.push({ name: result.name, startedAt, readyAt: result.readyAt });
        log(`${result.name} ready after ${fmt((result.readyAt - startedAt) / 1000)} s`);
        const loggedInAt = await logins.login(result.name, result.address);
        login.push(loggedInAt - startedAt);
      }),
    );
  } finally {
    logins.stop();
  }
  await Promise.all([...created].map(([containerId, providerId]) => remove(api, providerId, { containerId, timeoutMs: TIMEOUT_MS })));
  // Matched once all are done: an observation is stamped in the observer's process and reaches this one later.
  const detection = readyTimes.map(({ name, startedAt, readyAt }) => {
    const routed = observers.slices.routedAt(name, ['22/TCP'], startedAt);
    const complete = observers.deployments.first(name, (seen) => seen.state === 'Complete' && seen.at >= startedAt);
    if (routed === undefined || complete === undefined)
      throw new Error(`${name}: ready, but the observer did not see it routed and complete`);
    if (probe) diagnose(name, n, routed, complete, readyAt);
    return readyAt - Math.max(routed.at, complete.at);
  });
  return { ready, login, detection };
}

/**
 * SSH logins from a process of their own (bench/lib/ssh-login.py), started before the
 * containers: a spawn per attempt from this process would block the event loop whose
 * detection is measured (a fork of this process takes tens of ms on the loaded machine).
 */
class SshLogins {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<string, { resolve: (at: number) => void; reject: (error: Error) => void }>();

  constructor(keyFile: string) {
    this.child = spawn('python3', [
      join(dirname(fileURLToPath(import.meta.url)), 'lib', 'ssh-login.py'),
      keyFile,
      String(TIMEOUT_MS / 1000),
    ]);
    this.child.stderr.pipe(process.stderr);
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const [key = '', outcome, ...rest] = line.split(' ');
      const waiter = this.waiting.get(key);
      if (!waiter) return;
      this.waiting.delete(key);
      if (outcome === 'ok') waiter.resolve(Number(rest[0]));
      else waiter.reject(new Error(`no SSH login for ${key}: ${rest.join(' ')}`));
    });
    // A login process gone before every login was reported would leave its waiters hanging.
    this.child.on('exit', (code, signal) => this.failAll(`bench/lib/ssh-login.py exited (${signal ?? `code ${code}`})`));
    this.child.on('error', (error) => this.failAll(`bench/lib/ssh-login.py: ${error.message}`));
  }

  /** Resolves with the login's time on the machine's monotonic clock (hrNow). */
  login(key: string, address: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.waiting.set(key, { resolve, reject });
      this.child.stdin.write(`${key} ${address}\n`);
    });
  }

  private failAll(why: string): void {
    for (const [key, waiter] of this.waiting) waiter.reject(new Error(`no SSH login for ${key}: ${why}`));
    this.waiting.clear();
  }

  stop(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}

/** One detection laid against what this process did meanwhile: our receipt of each event, and what blocked the loop. */
function diagnose(
  name: string,
  n: number,
  routed: { resourceVersion: string; at: number },
  complete: { resourceVersion: string; at: number },
  readyAt: number,
): void {
  const ourSlice = probe!.delivered('EndpointSlice', routed.resourceVersion);
  const ourDeployment = probe!.delivered('Deployment', complete.resourceVersion);
  const last = Math.max(routed.at, complete.at);
  // From the later of the two observations, or our receipt of that version if it came first.
  const ourLast = routed.at >= complete.at ? ourSlice : ourDeployment;
  const from = Math.min(last, ourLast?.at ?? last);
  const blocked = probe!.within(from, readyAt);
  const entry = {
    n,
    name,
    detectionMs: readyAt - last,
    lastObserved: routed.at >= complete.at ? 'EndpointSlice' : 'Deployment',
    // Ours minus the observer's receipt of the same object version (negative: ours first).
    sliceReceiptMs: ourSlice === undefined ? null : ourSlice.at - routed.at,
    deploymentReceiptMs: ourDeployment === undefined ? null : ourDeployment.at - complete.at,
    sliceHandlingMs: ourSlice?.handlingMs ?? null,
    deploymentHandlingMs: ourDeployment?.handlingMs ?? null,
    readyAfterOurReceiptMs: readyAt - Math.max(ourSlice?.at ?? 0, ourDeployment?.at ?? 0),
    deliveriesInWindow: probe!.deliveries.filter((entry) => entry.at >= from && entry.at <= readyAt).length,
    handlingInWindowMs: probe!.deliveries
      .filter((entry) => entry.at >= from && entry.at <= readyAt)
      .reduce((sum, entry) => sum + entry.handlingMs, 0),
    blocked: blocked.map((span) => ({ what: span.what, startMs: span.start - from, ms: span.end - span.start })),
  };
  diagnosis.push(entry);
  log(`diagnose ${JSON.stringify(entry)}`);
}
const diagnosis: unknown[] = [];

/** N containers of the same image by containerd alone; per container: `ctr run` to sshd listening. */
async function floorRun(node: RealNode, n: number): Promise<number[]> {
  const socket = join(node.workDir, 'containerd', 'containerd.sock');
  const ctr = (args: readonly string[]) => run('ctr', ['--address', socket, '--namespace', 'k8s.io', ...args], { timeout: 60_000 });
  const ids = Array.from({ length: n }, (_, index) => `bench-floor-${n}-${index}`);
  const times: number[] = [];
  try {
    await Promise.all(
      ids.map(async (id) => {
        const started = performance.now();
        await ctr([
          'run',
          '-d',
          '--runtime',
          'io.containerd.runc.v2',
          '--runc-binary',
          join(node.workDir, 'cgroup-writable'),
          // The node's runc state dir: nothing of the floor's outside the node's work dir.
          '--runc-root',
          join(node.workDir, 'runc'),
          '--cgroup',
          `/kube-provisioner-real-node/bench-floor/${id}`,
          '--cpus',
          String(CPUS),
          '--memory-limit',
          String(MEMORY_MB * 2 ** 20),
          ...['/run', '/run/lock', '/tmp'].flatMap((path) => ['--mount', `type=tmpfs,src=tmpfs,dst=${path},options=nosuid:nodev`]),
          REAL_NODE_IMAGES.systemBookworm,
          id,
          '/sbin/init',
        ]);
        const task = (await ctr(['task', 'ls'])).stdout.split('\n').find((line) => line.startsWith(`${id} `));
        // TASK PID STATUS
        const pid = Number(task?.trim().split(/\s+/)[1]);
        while (!listensOn22(pid)) {
          if (performance.now() - started > TIMEOUT_MS) throw new Error(`${id}: sshd never listened`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        times.push(performance.now() - started);
      }),
    );
  } finally {
    for (const id of ids) {
      await ctr(['task', 'kill', '-s', 'SIGKILL', id]).catch(() => undefined);
      for (let tries = 0; tries < 50; tries += 1) {
        const gone = await ctr(['task', 'rm', '-f', id]).then(
          () => true,
          (error: Error) => /not found/.test(error.message),
        );
        if (gone) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await ctr(['container', 'rm', id]).catch(() => undefined);
    }
  }
  return times;
}

/** A TCP socket listening on port 22 in the network namespace of `pid` (state 0A is LISTEN). */
function listensOn22(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  for (const file of [`/proc/${pid}/net/tcp`, `/proc/${pid}/net/tcp6`]) {
    if (!existsSync(file)) continue;
    const lines = readFileSync(file, 'utf8').split('\n').slice(1);
    if (lines.some((line) => / [0-9A-F]+:0016 [0-9A-F]+:[0-9A-F]+ 0A /.test(line))) return true;
  }
  return false;
}

const NOTES = [
  `Each container: Debian 12 (systemd 252, sshd), ${CPUS} CPU and ${MEMORY_MB} MiB, ours and the floor alike; N created at once, after one`,
  'untimed container pulled the image. Ours: from the call to provision resolving (Ready: the TCP startup probe on 22 passed,',
  "then the Deployment's minReadySeconds), and to the first SSH login running a command at the returned ClusterIP (through",
  "kube-proxy). The floor: `ctr run` of the same image with the same runtime wrapper, to sshd listening in the container's own",
  'network namespace: no scheduling, Pod network, probe or Service. The last column is the 1-minute load average after each row:',
  "the N boots themselves load the 2 CPUs (and any other suite running: say so in the commit), so systemd's boot dominates.",
  'Detection: our `ready` minus the later of the two things it waits for, as an independent observer (its own process and',
  "watches, stamped on the machine's monotonic clock) saw them: the Deployment complete (available after minReadySeconds)",
  "and the Service's EndpointSlice listing the Pod ready on 22/TCP. Below zero: our watch had the event before the observer's.",
  'The SSH logins are tried from a process of their own (bench/lib/ssh-login.py): until 2026-12-05 they were spawned from the',
  'measured process, and each spawn (a fork of that large process, 30 to 55 ms on the loaded machine) blocked the event loop',
  'that reads the watch events: the slow detections were those spawns (bench/results/system-containers-detection.md).',
];

function report(rows: readonly Row[]): void {
  const seconds = (value: number): string => fmt(value / 1000, 1);
  const table = markdownTable(
    [
      'N at once',
      'ours: Ready p50 / p99 (s)',
      'ours: SSH login p50 / p99 (s)',
      "ready after the observer's events p50 / p99 (ms)",
      'floor (ctr run to sshd listening) p50 / p99 (s)',
      'load (1 min)',
    ],
    rows.map((row) => [
      String(row.n),
      `${seconds(row.ready.p50)} / ${seconds(row.ready.p99)}`,
      `${seconds(row.login.p50)} / ${seconds(row.login.p99)}`,
      `${fmt(row.detection.p50, 1)} / ${fmt(row.detection.p99, 1)}`,
      `${seconds(row.floor.p50)} / ${seconds(row.floor.p99)}`,
      row.load,
    ]),
  );
  const machine = machineInfo();
  const markdown = [
    '# System containers: create to SSH login (bench/system-containers.ts)',
    '',
    machineMarkdown(machine, {
      'load average at the end': loadavg()
        .map((value) => value.toFixed(1))
        .join(', '),
    }),
    '',
    table,
    '',
    ...NOTES,
    '',
  ].join('\n');
  writeFileSync(join(RESULTS, 'system-containers.md'), markdown);
  writeFileSync(join(RESULTS, 'system-containers.json'), `${JSON.stringify({ machine, rows }, null, 2)}\n`);
  process.stdout.write(markdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:system-containers failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
