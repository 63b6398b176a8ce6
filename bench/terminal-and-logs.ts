/// <reference lib="dom" />
// `npm run bench:terminal-and-logs`: a terminal and a followed log on the real node, ours
// beside kubectl, in one run (one cluster, the same containers). Root only; the real node's
// lock makes it one per machine.
//   - keystroke echo: one key at a time typed into `cat` under a tty, timed from the write
//     to its echo read back; through `openTerminal` (the library, in this process), through
//     `kube-provision exec -it` and `kubectl exec -it` (each under a pseudo-terminal of its
//     own, bench/lib/pty-echo.py), and through the live page's terminal (headless Chromium:
//     its WebSocket to the page's server, the shell's line editor echoing; timed in the page);
//   - bulk output: `head -c SIZE /dev/zero` read to its end without a tty, MiB/s, through
//     `openTerminal`, `kube-provision exec` and `kubectl exec`;
//   - memory per open session: the heap and RSS of this process with 25 and then 50
//     terminals open at once (each answered an echo), after a forced GC; kubectl and the
//     CLI open one process per session: their RSS once connected;
//   - log-follow latency: a container writing a line every 250 ms; from the runtime's
//     timestamp on the line (this machine's clock: the node is local) to the line read by
//     `logs$`, by `kube-provision logs -f` and by `kubectl logs -f`, all three at once.
// Writes bench/results/terminal-and-logs.md and terminal-and-logs.json.
//
//   npm run bench:terminal-and-logs -- --keys 200 --mib 64 [--rounds 5] [--only echo,page,bulk,memory,follow] [--diagnose]
// --rounds: the echo's three clients take turns, KEYS/rounds keys each per round (a fresh CLI
// process per round). --only: the sections to run (a reduced run writes partial tables).
// --diagnose: each echo client's GC pauses (the CLI with bench/lib/gc-stamps.cjs preloaded),
// CPU time per key and where its slowest keys fell, into bench/results/unpinned/.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { startCluster } from '../scripts/control-plane/cluster.js';
import { REAL_NODE_IMAGES } from '../scripts/control-plane/real-node/images.js';
import { REAL_NODE_NAMESPACE_ANNOTATIONS } from '../scripts/control-plane/real-node/node.js';
import { KubernetesApi } from '../src/kube/kubernetes-api.js';
import { timestampNanos } from '../src/workload/reads/log-lines.js';
import { logs$ } from '../src/workload/reads/logs.js';
import { provision } from '../src/workload/operations/provision.js';
import { openTerminal, type Terminal } from '../src/workload/reads/terminal.js';
import { libraryBackend } from '../src/ui/library-backend.js';
import { LiveHub } from '../src/ui/live-hub.js';
import { startUiServer } from '../src/ui/server.js';
import { launchBrowser } from '../test/support/browser.js';
import { machineInfo, machineMarkdown } from './lib/machine.js';
import { fmt, hrNow, markdownTable, median, summarize } from './lib/stats.js';
import type { Summary } from './lib/stats.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench', 'results');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const run = promisify(execFile);
const NAMESPACE = 'bench-term';

const { values } = parseArgs({
  options: {
    keys: { type: 'string', default: '200' },
    mib: { type: 'string', default: '64' },
    lines: { type: 'string', default: '80' },
    // The echo's clients take turns: each round types KEYS/rounds keys through each, so a
    // change in the machine's load falls on all of them alike.
    rounds: { type: 'string', default: '5' },
    only: { type: 'string', default: 'echo,page,bulk,memory,follow' },
    // Each slow key laid against the GC pauses of the process it went through.
    diagnose: { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(values.rounds);
const SECTIONS = new Set((values.only ?? '').split(','));
for (const section of SECTIONS) {
  if (!['echo', 'page', 'bulk', 'memory', 'follow'].includes(section))
    throw new Error(`--only lists sections of echo, page, bulk, memory, follow (got ${JSON.stringify(section)})`);
}
const KEYS = Number(values.keys);
const MIB = Number(values.mib);
const LINES = Number(values.lines);
const DIAGNOSE = values.diagnose === true;
const GC_STAMPS = join(ROOT, 'bench', 'lib', 'gc-stamps.cjs');
for (const [flag, value] of [
  ['--keys', KEYS],
  ['--mib', MIB],
  ['--lines', LINES],
  ['--rounds', ROUNDS],
] as const) {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${flag} must be a whole number >= 1`);
}
const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface Results {
  echo: Record<string, Summary>;
  throughput: Record<string, { mibPerSecond: number; runs: number[] }>;
  memory: { sessions: number; heapPerSessionKiB: number; rssPerSessionKiB: number }[];
  processRssKiB: Record<string, number | undefined>;
  follow: Record<string, Summary>;
}

async function main(): Promise<void> {
  const cluster = await startCluster({ realNode: true, log: (line) => log(line) });
  if (cluster.realNode === undefined) throw new Error('the cluster started without its real node');
  const kubeconfig = cluster.kubeconfigPath;
  const results: Results = { echo: {}, throughput: {}, memory: [], processRssKiB: {}, follow: {} };
  try {
    const api = KubernetesApi.fromConfig({ kubeconfigPath: kubeconfig });
    await run('kubectl', ['--kubeconfig', kubeconfig, 'create', 'namespace', NAMESPACE]);
    await run('kubectl', [
      '--kubeconfig',
      kubeconfig,
      'annotate',
      'namespace',
      NAMESPACE,
      ...Object.entries(REAL_NODE_NAMESPACE_ANNOTATIONS).map(([key, value]) => `${key}=${value}`),
    ]);
    const spec = (containerId: number, script: string) => ({
      namespace: NAMESPACE,
      containerId,
      nodeId: 1,
      hostname: `term-${containerId}`,
      image: REAL_NODE_IMAGES.busybox,
      cpus: 0.5,
      memoryMb: 128,
      env: {},
      entrypoint: ['sh', '-c', `trap 'exit 0' TERM; ${script} & wait`],
    });
    const shell = (await provision(api, spec(7001, 'while true; do sleep 1; done'), { timeoutMs: 180_000 })).providerId;
    const ticker = (
      await provision(api, spec(7002, 'i=0; while true; do echo "tick $i"; i=$((i+1)); sleep 0.25; done'), { timeoutMs: 180_000 })
    ).providerId;
    const deployment = (providerId: string): string => `deployment/${providerId.split('/')[1]}`;
    const kubectlArgs = ['--kubeconfig', kubeconfig, '-n', NAMESPACE];
    const cliArgs = ['--kubeconfig', kubeconfig];

    // Keystroke echo, the library and the two CLIs taking turns.
    const perRound = Math.ceil(KEYS / ROUNDS);
    const clients: [string, (keys: number) => Promise<EchoRun>][] = [
      ['openTerminal (library)', (keys) => echoThroughLibrary(api, shell, keys)],
      [
        'kube-provision exec -it',
        (keys) =>
          echoUnderPty(
            [
              process.execPath,
              ...(DIAGNOSE ? ['--require', GC_STAMPS] : []),
              ...(process.env.BENCH_CLI_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
              CLI,
              'exec',
              '-it',
              ...cliArgs,
              shell,
              '--',
              'cat',
            ],
            keys,
          ),
      ],
      ['kubectl exec -it', (keys) => echoUnderPty(['kubectl', ...kubectlArgs, 'exec', '-it', deployment(shell), '--', 'cat'], keys)],
    ];
    const diagnosis: Record<string, unknown> = {};
    const echoRuns = new Map<string, EchoRun[]>(clients.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS && SECTIONS.has('echo'); round += 1) {
      for (const [name, measure] of clients) {
        const keys = Math.min(perRound, KEYS - round * perRound);
        if (keys > 0) echoRuns.get(name)!.push(await measure(keys));
      }
    }
    for (const [name, runs] of echoRuns) {
      if (runs.length === 0) continue;
      results.echo[name] = summarize(runs.flatMap((each) => each.latenciesMs));
      const rss = runs.map((each) => each.rssKb).filter((value) => value !== undefined);
      if (rss.length > 0) results.processRssKiB[name] = median(rss);
      if (DIAGNOSE) diagnosis[name] = echoDiagnosis(runs);
    }
    if (DIAGNOSE) {
      writeFileSync(join(RESULTS, 'unpinned', 'terminal-echo-diagnosis.json'), `${JSON.stringify(diagnosis, null, 2)}\n`);
      for (const [name, entry] of Object.entries(diagnosis)) log(`diagnose ${name}: ${JSON.stringify(entry)}`);
    }
    if (SECTIONS.has('page')) results.echo["the live page's terminal (Chromium)"] = summarize(await echoThroughPage(api, shell));
    for (const [name, summary] of Object.entries(results.echo)) {
      log(`echo ${name}: p50 ${fmt(summary.p50, 2)} ms, p99 ${fmt(summary.p99, 2)} ms (${summary.count} keys)`);
    }

    // Bulk output.
    const bytes = MIB * 2 ** 20;
    const head = ['head', '-c', String(bytes), '/dev/zero'];
    const bulk: [string, () => Promise<number>][] = [
      ['openTerminal (library)', () => bulkThroughLibrary(api, shell, head)],
      ['kube-provision exec', () => countBytes(process.execPath, [CLI, 'exec', ...cliArgs, shell, '--', ...head])],
      ['kubectl exec', () => countBytes('kubectl', [...kubectlArgs, 'exec', deployment(shell), '--', ...head])],
    ];
    for (const [name] of bulk) results.throughput[name] = { mibPerSecond: 0, runs: [] };
    // Interleaved, three rounds: a change in the machine's load falls on all three.
    for (let round = 0; round < 3 && SECTIONS.has('bulk'); round += 1) {
      for (const [name, measure] of bulk) {
        const started = performance.now();
        const got = await measure();
        if (got !== bytes) throw new Error(`${name}: read ${got} bytes of ${bytes}`);
        results.throughput[name]!.runs.push(MIB / ((performance.now() - started) / 1000));
      }
    }
    for (const [name, entry] of Object.entries(results.throughput)) {
      entry.mibPerSecond = median(entry.runs);
      log(`bulk ${name}: ${fmt(entry.mibPerSecond)} MiB/s (median of ${entry.runs.map((value) => fmt(value)).join(', ')})`);
    }

    // Memory per open session.
    if (SECTIONS.has('memory')) results.memory = await memoryPerSession(api, shell, [25, 50]);
    for (const row of results.memory) {
      log(`${row.sessions} terminals: ${fmt(row.heapPerSessionKiB)} KiB heap, ${fmt(row.rssPerSessionKiB)} KiB RSS per session`);
    }

    // Log-follow latency, the three at once.
    if (SECTIONS.has('follow'))
      results.follow = await followLatency(api, ticker, [
        ['kube-provision logs -f', process.execPath, [CLI, 'logs', '-f', '--timestamps', '--tail', '0', ...cliArgs, ticker]],
        ['kubectl logs -f', 'kubectl', [...kubectlArgs, 'logs', '-f', '--timestamps', '--tail=0', deployment(ticker)]],
      ]);
    for (const [name, summary] of Object.entries(results.follow)) {
      log(`follow ${name}: p50 ${fmt(summary.p50, 1)} ms, p99 ${fmt(summary.p99, 1)} ms (${summary.count} lines)`);
    }
  } finally {
    await cluster.stop();
  }
  report(results);
}

/** One client's echo run: each key's latency and write time (hrNow), its process's RSS and GC pauses (with --diagnose). */
interface EchoRun {
  readonly latenciesMs: number[];
  readonly startsMs: number[];
  readonly rssKb: number | undefined;
  /** The client process's CPU time, and its time runnable but waiting for a CPU, per key (µs; the CLIs only). */
  readonly cpuUsPerKey?: number | undefined;
  readonly waitUsPerKey?: number | undefined;
  readonly cpuUsPerKeyThirds?: number[] | undefined;
  readonly userUsPerKey?: number | undefined;
  readonly systemUsPerKey?: number | undefined;
  /** kind: 1 a scavenge, 2 a mark-compact, 4 incremental marking, 8 weak callbacks (perf_hooks' constants). */
  readonly gcPauses: { start: number; ms: number; kind?: number | undefined }[];
}

/** Types `count` keys one at a time into `cat` under a terminal opened by the library; each key's write to its echo. */
async function echoThroughLibrary(api: KubernetesApi, providerId: string, count: number): Promise<EchoRun> {
  const gcPauses: EchoRun['gcPauses'] = [];
  const offset = hrNow() - performance.now();
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      gcPauses.push({
        start: entry.startTime + offset,
        ms: entry.duration,
        kind: (entry as unknown as { detail?: { kind?: number } }).detail?.kind,
      });
  });
  if (DIAGNOSE) gcObserver.observe({ entryTypes: ['gc'] });
  let seen = '';
  let waiting: { key: string; done: () => void } | undefined;
  const terminal = await openTerminal(api, providerId, {
    command: ['cat'],
    columns: 80,
    rows: 24,
    onStdout: (data) => {
      seen += data.toString('latin1');
      if (waiting && seen.includes(waiting.key)) waiting.done();
    },
  });
  const typed = (key: string, ms: number): Promise<boolean> =>
    new Promise((done) => {
      seen = '';
      const timer = setTimeout(() => {
        waiting = undefined;
        done(false);
      }, ms);
      waiting = {
        key,
        done: () => {
          clearTimeout(timer);
          waiting = undefined;
          done(true);
        },
      };
      terminal.write(key);
    });
  try {
    let connected = false;
    for (let tries = 0; tries < 120 && !connected; tries += 1) connected = await typed('r', 500);
    if (!connected) throw new Error('openTerminal: no echo within 60 s');
    await sleep(500);
    const keys = 'abcdefghijklmnopqstuvwxyz';
    const latencies: number[] = [];
    const starts: number[] = [];
    for (let index = 0; index < count; index += 1) {
      const started = performance.now();
      starts.push(started + offset);
      if (!(await typed(keys[index % keys.length]!, 10_000))) break;
      latencies.push(performance.now() - started);
    }
    return { latenciesMs: latencies, startsMs: starts, rssKb: undefined, gcPauses };
  } finally {
    gcObserver.disconnect();
    await terminal.close();
  }
}

/**
 * One client's echo laid against its process: its GC pauses within the slowest keys (the top
 * 2%), where in its runs those keys fell (by thirds: a fresh process's first keys run before
 * its JIT warmed up), and its CPU time per key (the CLIs' processes: on a CPU, and runnable
 * but waiting for one; user and system).
 */
function echoDiagnosis(runs: readonly EchoRun[]): Record<string, unknown> {
  const keys = runs.flatMap((run) =>
    run.latenciesMs.map((ms, index) => ({
      ms,
      start: run.startsMs[index]!,
      third: Math.min(2, Math.floor((3 * index) / run.latenciesMs.length)),
      pauses: run.gcPauses,
    })),
  );
  const sorted = [...keys].sort((a, b) => b.ms - a.ms);
  const slow = sorted.slice(0, Math.max(1, Math.ceil(keys.length * 0.02)));
  const within = (key: (typeof keys)[number]) =>
    key.pauses.filter((pause) => pause.start + pause.ms >= key.start && pause.start <= key.start + key.ms);
  return {
    keys: keys.length,
    latency: summarize(keys.map((key) => key.ms)),
    slowest: slow.slice(0, 10).map((key) => ({ ms: Number(key.ms.toFixed(2)), gc: within(key).map((pause) => pause.ms) })),
    slowWithGc: slow.filter((key) => within(key).length > 0).length,
    slowByThird: [0, 1, 2].map((third) => slow.filter((key) => key.third === third).length),
    allKeysWithGc: keys.filter((key) => within(key).length > 0).length,
    gcPauses: summarize(runs.flatMap((run) => run.gcPauses.map((pause) => pause.ms))),
    gcKinds: runs.flatMap((run) => run.gcPauses.map((pause) => pause.kind)),
    perRun: runs.map((run) => ({
      cpuUsPerKey: run.cpuUsPerKey,
      waitUsPerKey: run.waitUsPerKey,
      cpuUsPerKeyThirds: run.cpuUsPerKeyThirds,
      userUsPerKey: run.userUsPerKey,
      systemUsPerKey: run.systemUsPerKey,
    })),
  };
}

/** The live page's terminal as `kube-provision ui` serves it, typed into from headless Chromium; timed in the page. */
async function echoThroughPage(api: KubernetesApi, providerId: string): Promise<number[]> {
  const hub = new LiveHub({ api, namespace: NAMESPACE, backend: libraryBackend() });
  const server = await startUiServer({ hub, port: 0 });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(server.url);
    // tsx names functions with a helper of its own, which the page lacks.
    await page.evaluate('globalThis.__name = (fn) => fn');
    const [namespace = '', name = ''] = providerId.split('/');
    const path = `/api/workloads/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/terminal?columns=80&rows=24`;
    const measured = await page.evaluate(
      async ({ path, keys }) => {
        const socket = new WebSocket(`ws://${location.host}${path}`);
        socket.binaryType = 'arraybuffer';
        const decoder = new TextDecoder();
        let seen = '';
        let waiting: { key: string; done: (ok: boolean) => void } | undefined;
        socket.addEventListener('message', (message) => {
          if (typeof message.data === 'string') return;
          seen += decoder.decode(message.data as ArrayBuffer);
          if (waiting && seen.includes(waiting.key)) waiting.done(true);
        });
        await new Promise((opened, failed) => {
          socket.addEventListener('open', opened);
          socket.addEventListener('close', () => failed(new Error('the page server closed the terminal')));
        });
        const typed = (key: string, ms: number): Promise<boolean> =>
          new Promise((done) => {
            seen = '';
            const timer = setTimeout(() => {
              waiting = undefined;
              done(false);
            }, ms);
            waiting = {
              key,
              done: (ok) => {
                clearTimeout(timer);
                waiting = undefined;
                done(ok);
              },
            };
            socket.send(JSON.stringify({ type: 'input', data: key }));
          });
        let connected = false;
        for (let tries = 0; tries < 120 && !connected; tries += 1) connected = await typed('r', 500);
        if (!connected) return { error: 'no echo within 60 s', latencies: [] as number[] };
        await new Promise((settle) => setTimeout(settle, 500));
        const letters = 'abcdefghijklmnopqstuvwxyz';
        const latencies: number[] = [];
        for (let index = 0; index < keys; index += 1) {
          const started = performance.now();
          if (!(await typed(letters[index % letters.length]!, 10_000))) break;
          latencies.push(performance.now() - started);
        }
        socket.close();
        return { error: undefined, latencies };
      },
      { path, keys: KEYS },
    );
    if (measured.error !== undefined) throw new Error(`the live page's terminal: ${measured.error}`);
    return measured.latencies;
  } finally {
    await browser.close();
    await server.close();
    hub.close();
  }
}

async function echoUnderPty(argv: readonly string[], count: number): Promise<EchoRun> {
  const stamps = join(tmpdir(), `bench-gc-${process.pid}-${Date.now()}.json`);
  const { stdout } = await run('python3', [join(ROOT, 'bench', 'lib', 'pty-echo.py'), String(count), ...argv], {
    timeout: 300_000,
    env: { ...process.env, BENCH_GC_STAMPS: stamps },
  });
  const parsed = JSON.parse(stdout) as {
    latenciesMs?: number[];
    startsMs?: number[];
    rssKb?: number | null;
    cpuUsPerKey?: number;
    waitUsPerKey?: number;
    cpuUsPerKeyThirds?: number[];
    userUsPerKey?: number;
    systemUsPerKey?: number;
    error?: string;
  };
  if (parsed.error !== undefined) throw new Error(`${argv.join(' ')}: ${parsed.error}`);
  let gcPauses: EchoRun['gcPauses'] = [];
  if (existsSync(stamps)) {
    gcPauses = JSON.parse(readFileSync(stamps, 'utf8')) as EchoRun['gcPauses'];
    rmSync(stamps);
  }
  return {
    latenciesMs: parsed.latenciesMs ?? [],
    startsMs: parsed.startsMs ?? [],
    rssKb: parsed.rssKb ?? undefined,
    gcPauses,
    cpuUsPerKey: parsed.cpuUsPerKey,
    waitUsPerKey: parsed.waitUsPerKey,
    cpuUsPerKeyThirds: parsed.cpuUsPerKeyThirds,
    userUsPerKey: parsed.userUsPerKey,
    systemUsPerKey: parsed.systemUsPerKey,
  };
}

/** The bytes a command writes on stdout without a tty, read through the library. */
async function bulkThroughLibrary(api: KubernetesApi, providerId: string, command: readonly string[]): Promise<number> {
  let count = 0;
  const terminal = await openTerminal(api, providerId, { command, tty: false, stdin: false, onStdout: (data) => (count += data.length) });
  await terminal.exit;
  return count;
}

/** The bytes a process writes on stdout, read to its end. */
function countBytes(command: string, args: readonly string[]): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let count = 0;
    child.stdout.on('data', (data: Buffer) => (count += data.length));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? done(count) : fail(new Error(`${command} exited ${code}`))));
  });
}

/** Heap and RSS of this process per open terminal, with `steps` of them open at once (each answered an echo). */
async function memoryPerSession(
  api: KubernetesApi,
  providerId: string,
  steps: readonly number[],
): Promise<{ sessions: number; heapPerSessionKiB: number; rssPerSessionKiB: number }[]> {
  const settle = async (): Promise<NodeJS.MemoryUsage> => {
    for (let round = 0; round < 3; round += 1) {
      gc();
      await sleep(200);
    }
    return process.memoryUsage();
  };
  const terminals: Terminal[] = [];
  const rows: { sessions: number; heapPerSessionKiB: number; rssPerSessionKiB: number }[] = [];
  const before = await settle();
  try {
    for (const step of steps) {
      const opening: Promise<Terminal>[] = [];
      for (let index = terminals.length; index < step; index += 1) opening.push(openAnswered(api, providerId));
      terminals.push(...(await Promise.all(opening)));
      const now = await settle();
      rows.push({
        sessions: step,
        heapPerSessionKiB: (now.heapUsed - before.heapUsed) / 1024 / step,
        rssPerSessionKiB: (now.rss - before.rss) / 1024 / step,
      });
    }
  } finally {
    await Promise.all(terminals.map((terminal) => terminal.close()));
  }
  return rows;
}

/** A terminal running `cat`, once it has echoed a key. */
async function openAnswered(api: KubernetesApi, providerId: string): Promise<Terminal> {
  let answered: () => void = () => undefined;
  const echoed = new Promise<void>((done) => (answered = done));
  const terminal = await openTerminal(api, providerId, { command: ['cat'], onStdout: () => answered() });
  terminal.write('m');
  await echoed;
  return terminal;
}

/** Line written (the runtime's timestamp) to line read, for logs$ and each follower process, all at once. */
async function followLatency(
  api: KubernetesApi,
  providerId: string,
  followers: readonly (readonly [string, string, readonly string[]])[],
): Promise<Record<string, Summary>> {
  // Per reader, each tick's latency by its number: the same lines are compared.
  const seen: Record<string, Map<number, number>> = { 'logs$ (library)': new Map() };
  const note = (name: string, time: string | undefined, text: string): void => {
    const nanos = time === undefined ? undefined : timestampNanos(time);
    const tick = /^tick (\d+)$/.exec(text)?.[1];
    if (nanos !== undefined && tick !== undefined)
      seen[name]!.set(Number(tick), performance.timeOrigin + performance.now() - Number(nanos) / 1e6);
  };
  const subscription = logs$(api, providerId, { follow: true, tailLines: 0, timestamps: true }).subscribe((line) =>
    note('logs$ (library)', line.time, line.text),
  );
  const children = followers.map(([name, command, args]) => {
    seen[name] = new Map();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let partial = '';
    child.stdout.on('data', (data: Buffer) => {
      const text = partial + data.toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const space = line.indexOf(' ');
        note(name, line.slice(0, space), line.slice(space + 1));
      }
    });
    return child;
  });
  // From two ticks after every reader has its first (the readers' own start-up is over), LINES ticks all have.
  const common = (): number[] => {
    const lists = Object.values(seen);
    if (lists.some((list) => list.size === 0)) return [];
    const first = Math.max(...lists.map((list) => Math.min(...list.keys()))) + 2;
    return [...lists[0]!.keys()].filter((tick) => tick >= first && lists.every((list) => list.has(tick)));
  };
  try {
    const deadline = Date.now() + LINES * 250 + 60_000;
    while (common().length < LINES && Date.now() < deadline) await sleep(250);
  } finally {
    subscription.unsubscribe();
    for (const child of children) child.kill('SIGINT');
  }
  const ticks = common().slice(0, LINES);
  return Object.fromEntries(Object.entries(seen).map(([name, list]) => [name, summarize(ticks.map((tick) => list.get(tick)!))]));
}

function report(results: Results): void {
  const ms = (value: number, digits = 2): string => fmt(value, digits);
  const echo = markdownTable(
    ['keystroke echo through', 'keys', 'p50 (ms)', 'p99 (ms)', 'max (ms)', 'client process RSS (MiB)'],
    Object.entries(results.echo).map(([name, summary]) => [
      name,
      String(summary.count),
      ms(summary.p50),
      ms(summary.p99),
      ms(summary.max),
      results.processRssKiB[name] === undefined ? 'in this process' : fmt(results.processRssKiB[name] / 1024),
    ]),
  );
  const bulk = markdownTable(
    [`bulk output (${MIB} MiB, no tty) through`, 'MiB/s (median of 3)', 'runs (MiB/s)'],
    Object.entries(results.throughput).map(([name, entry]) => [
      name,
      fmt(entry.mibPerSecond),
      entry.runs.map((value) => fmt(value)).join(', '),
    ]),
  );
  const memory = markdownTable(
    ['terminals open at once (openTerminal)', 'heap per session (KiB)', 'RSS per session (KiB)'],
    results.memory.map((row) => [String(row.sessions), fmt(row.heapPerSessionKiB), fmt(row.rssPerSessionKiB)]),
  );
  const follow = markdownTable(
    ['log line written → read by', 'lines', 'p50 (ms)', 'p99 (ms)', 'max (ms)'],
    Object.entries(results.follow).map(([name, summary]) => [
      name,
      String(summary.count),
      ms(summary.p50, 1),
      ms(summary.p99, 1),
      ms(summary.max, 1),
    ]),
  );
  const machine = machineInfo();
  const markdown = [
    '# A terminal and a followed log, ours beside kubectl (bench/terminal-and-logs.ts)',
    '',
    machineMarkdown(machine, {
      'load average at the end': loadavg()
        .map((value) => value.toFixed(1))
        .join(', '),
    }),
    '',
    'How busy the machine was: the load average above, and the body of the commit that recorded these figures;',
    'the columns of one table were measured in the same minutes, interleaved where stated.',
    '',
    echo,
    '',
    `Each key typed into \`cat\` under a tty in a busybox container on the real node (the remote terminal echoes it), one at a`,
    `time, from the write to its echo read back; the library and the two CLIs take turns, ${ROUNDS} rounds of ${Math.ceil(KEYS / ROUNDS)} keys`,
    'each (a change in the load falls on all three). The library in this process; the two CLIs each under a pseudo-terminal of',
    "its own (bench/lib/pty-echo.py), as a user at a terminal runs them; their RSS once connected is one session's cost.",
    "The live page's terminal: headless Chromium typing over the page's WebSocket to `kube-provision ui`'s server (in this",
    "process), into the shell's line editor, timed in the page: one more hop (browser to page server) than the library.",
    '',
    bulk,
    '',
    'Interleaved: library, CLI, kubectl, three rounds; from the start (connect included) to the last byte.',
    '',
    memory,
    '',
    "This process's heap and RSS after a forced GC, less the same before any terminal, divided by the terminals open (each",
    'had answered an echo). kubectl and the CLI pay a process per session (the RSS column of the first table).',
    '',
    follow,
    '',
    "A container writes a line every 250 ms; from the runtime's timestamp on the line (the node is this machine: one clock)",
    'to the line read, by the three at once; the same lines for all three, from two lines after each had read its first.',
    '',
  ].join('\n');
  writeFileSync(join(RESULTS, 'terminal-and-logs.md'), markdown);
  writeFileSync(join(RESULTS, 'terminal-and-logs.json'), `${JSON.stringify({ machine, ...results }, null, 2)}\n`);
  process.stdout.write(markdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:terminal-and-logs failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
