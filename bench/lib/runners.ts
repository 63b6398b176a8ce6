// Runs one waiter kind for one N and returns what it measured:
//   - runChild(): a child process (our provisioner, or the Helm-3-style poller) doing N
//     concurrent provisionings; its own CPU time, peak RSS and heap come back in a file;
//   - runKubectl(): `kubectl rollout status` for single provisionings, one after another,
//     under /usr/bin/time for its CPU time and peak RSS.
// Every child is ours: tracked by pid, killed by pid if the run is interrupted.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import type { ChildInput, ChildResult } from './protocol.js';
import type { ProxyMessage, ProxyRequestSummary } from './proxy-protocol.js';
import type { RequestCounts } from '../../test/support/api-proxy.js';
import { hrNow } from './stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = join(HERE, '..', '..');
const CHILD_FILES = { provisioner: join(HERE, 'provisioner-child.ts'), poller: join(HERE, 'poller-child.ts') } as const;
const PROXY_CHILD = join(HERE, 'proxy-child.ts');
/** How long a child may take to exit after writing its result before it counts as stuck. */
const EXIT_GRACE_MS = 10_000;

const running = new Set<ChildProcess>();
/** Children that clean up on SIGTERM (the proxy removes its temp dir). */
const gentle = new WeakSet<ChildProcess>();

/** Ends every child still running, by pid; for interrupts and error paths. */
export function killChildren(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill(gentle.has(child) ? 'SIGTERM' : 'SIGKILL');
  }
  running.clear();
}

export interface ProxyProcess {
  /** A kubeconfig pointing at the proxy (admin credentials). */
  readonly kubeconfigPath: string;
  /** Final counts; the proxy closes and its process exits afterwards. */
  report(): Promise<{ counts: RequestCounts; log: readonly ProxyRequestSummary[] }>;
  /** The counts so far; the proxy keeps running. */
  peek(): Promise<{ counts: RequestCounts; log: readonly ProxyRequestSummary[] }>;
  /** Kills it if it is still running (error paths). */
  kill(): void;
}

/** Starts the run's ApiProxy in its own process, so proxying never delays the observer. */
export async function startProxy(adminKubeconfigPath: string): Promise<ProxyProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', PROXY_CHILD, adminKubeconfigPath], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  gentle.add(child);
  const exited = trackChild(child);
  const messages: ProxyMessage[] = [];
  const waiters: Array<() => void> = [];
  child.on('message', (message: ProxyMessage) => {
    messages.push(message);
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (type: ProxyMessage['type'], timeoutMs: number): Promise<ProxyMessage> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = messages.find((message) => message.type === type);
      if (found) return found;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`proxy process exited before sending '${type}'`);
      if (Date.now() > deadline) throw new Error(`proxy process sent no '${type}' in ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  try {
    const ready = await next('ready', 60_000);
    if (ready.type !== 'ready') throw new Error('unexpected proxy message');
    return {
      kubeconfigPath: ready.kubeconfigPath,
      report: async () => {
        child.send({ type: 'report' });
        const report = await next('report', 30_000);
        if (report.type !== 'report') throw new Error('unexpected proxy message');
        const exitDeadline = setTimeout(kill, 10_000);
        await exited;
        clearTimeout(exitDeadline);
        return { counts: report.counts, log: report.log };
      },
      peek: async () => {
        child.send({ type: 'peek' });
        const peeked = await next('peek', 60_000);
        messages.splice(messages.indexOf(peeked), 1);
        if (peeked.type !== 'peek') throw new Error('unexpected proxy message');
        return { counts: peeked.counts, log: peeked.log };
      },
      kill,
    };
  } catch (error) {
    kill();
    throw error;
  }
}

export interface ChildRun {
  readonly result: ChildResult;
  /** The child ended by itself after its last waiter settled (no handle kept it alive). */
  readonly exitedOnItsOwn: boolean;
  readonly exitCode: number | null;
  readonly stderrTail: string;
}

/** Counts `child` among the run's children (killed by killChildren); resolves when it exits. */
export function trackChild(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  running.add(child);
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
}

export async function runChild(input: Omit<ChildInput, 'resultPath'>): Promise<ChildRun> {
  const dir = mkdtempSync(join(tmpdir(), 'kp-bench-child-'));
  try {
    const resultPath = join(dir, 'result.json');
    const inputPath = join(dir, 'input.json');
    writeFileSync(inputPath, JSON.stringify({ ...input, resultPath } satisfies ChildInput));
    // BENCH_CHILD_NODE_FLAGS: extra node flags for diagnosis, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
    const extraFlags = (process.env.BENCH_CHILD_NODE_FLAGS ?? '').split(/\s+/).filter((flag) => flag.length > 0);
    const child = spawn(process.execPath, ['--expose-gc', ...extraFlags, '--import', 'tsx', CHILD_FILES[input.kind], inputPath], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'inherit', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    });
    const exited = trackChild(child);
    let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    void exited.then((info) => (exitInfo = info));

    const hardDeadline = Date.now() + input.timeoutMs + 120_000;
    while (!existsSync(resultPath) && exitInfo === undefined) {
      if (Date.now() > hardDeadline) {
        child.kill('SIGKILL');
        throw new Error(`${input.kind} child produced no result in time; stderr:\n${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Give it a moment to exit on its own once its result is written.
    const graceDeadline = Date.now() + EXIT_GRACE_MS;
    while (exitInfo === undefined && Date.now() < graceDeadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const exitedOnItsOwn = exitInfo !== undefined;
    if (!exitedOnItsOwn) child.kill('SIGKILL');
    const final = await exited;
    if (!existsSync(resultPath)) {
      throw new Error(`${input.kind} child exited (${final.code ?? final.signal}) without a result; stderr:\n${stderr}`);
    }
    const result = JSON.parse(readFileSync(resultPath, 'utf8')) as ChildResult;
    return { result, exitedOnItsOwn, exitCode: final.code, stderrTail: stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface KubectlRep {
  readonly name: string;
  readonly startedAt: number;
  readonly createdAt: number;
  readonly exitedAt: number;
  readonly exitCode: number | null;
  readonly cpuMs: number;
  readonly peakRssMiB: number;
  readonly stderr: string;
}

export async function runKubectl(options: {
  readonly kubeconfigPath: string;
  readonly namespace: string;
  readonly image: string;
  readonly repetitions: number;
  readonly timeoutMs: number;
}): Promise<KubectlRep[]> {
  const api = KubernetesApi.fromConfig({ kubeconfigPath: options.kubeconfigPath, namespace: options.namespace });
  const dir = mkdtempSync(join(tmpdir(), 'kp-bench-kubectl-'));
  const reps: KubectlRep[] = [];
  try {
    for (let rep = 0; rep < options.repetitions; rep += 1) {
      const name = `kubectl-${rep}`;
      const spec = parseWorkloadSpec({ containerId: `k${rep}`, nodeId: 1, hostname: name, image: options.image, cpus: 0.01, memoryMb: 16 });
      const manifest = buildDeployment(spec, { namespace: options.namespace });
      const startedAt = hrNow();
      await api.create('deployments', options.namespace, manifest);
      const createdAt = hrNow();
      const timeFile = join(dir, `time-${rep}`);
      const child = spawn(
        '/usr/bin/time',
        [
          '-f',
          '%U %S %M',
          '-o',
          timeFile,
          'kubectl',
          'rollout',
          'status',
          `deployment/${name}`,
          '-n',
          options.namespace,
          '--kubeconfig',
          options.kubeconfigPath,
          `--timeout=${Math.ceil(options.timeoutMs / 1000)}s`,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2000)));
      const { code } = await trackChild(child);
      const exitedAt = hrNow();
      const [user = 0, system = 0, maxRssKb = 0] = existsSync(timeFile)
        ? readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(/\s+/).map(Number)
        : [];
      reps.push({
        name,
        startedAt,
        createdAt,
        exitedAt,
        exitCode: code,
        cpuMs: (user + system) * 1000,
        peakRssMiB: maxRssKb / 1024,
        stderr,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return reps;
}
