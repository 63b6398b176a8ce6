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
//   npm run bench:terminal-and-logs -- --keys 200 --mib 64
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
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
import { fmt, markdownTable, median, summarize } from './lib/stats.js';
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
  },
});
const KEYS = Number(values.keys);
const MIB = Number(values.mib);
const LINES = Number(values.lines);
for (const [flag, value] of [
  ['--keys', KEYS],
  ['--mib', MIB],
  ['--lines', LINES],
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

    // Keystroke echo.
    results.echo['openTerminal (library)'] = summarize(await echoThroughLibrary(api, shell));
    for (const [name, argv] of [
      ['kube-provision exec -it', [process.execPath, CLI, 'exec', '-it', ...cliArgs, shell, '--', 'cat']],
      ['kubectl exec -it', ['kubectl', ...kubectlArgs, 'exec', '-it', deployment(shell), '--', 'cat']],
    ] as const) {
      const measured = await echoUnderPty(argv);
      results.echo[name] = summarize(measured.latenciesMs);
      results.processRssKiB[name] = measured.rssKb;
    }
    results.echo["the live page's terminal (Chromium)"] = summarize(await echoThroughPage(api, shell));
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
    for (let round = 0; round < 3; round += 1) {
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
    results.memory = await memoryPerSession(api, shell, [25, 50]);
    for (const row of results.memory) {
      log(`${row.sessions} terminals: ${fmt(row.heapPerSessionKiB)} KiB heap, ${fmt(row.rssPerSessionKiB)} KiB RSS per session`);
    }

    // Log-follow latency, the three at once.
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

/** Types KEYS keys one at a time into `cat` under a terminal opened by the library; each key's write to its echo. */
async function echoThroughLibrary(api: KubernetesApi, providerId: string): Promise<number[]> {
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
    for (let index = 0; index < KEYS; index += 1) {
      const started = performance.now();
      if (!(await typed(keys[index % keys.length]!, 10_000))) break;
      latencies.push(performance.now() - started);
    }
    return latencies;
  } finally {
    await terminal.close();
  }
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

async function echoUnderPty(argv: readonly string[]): Promise<{ latenciesMs: number[]; rssKb: number | undefined }> {
  const { stdout } = await run('python3', [join(ROOT, 'bench', 'lib', 'pty-echo.py'), String(KEYS), ...argv], { timeout: 300_000 });
  const parsed = JSON.parse(stdout) as { latenciesMs?: number[]; rssKb?: number | null; error?: string };
  if (parsed.error !== undefined) throw new Error(`${argv.join(' ')}: ${parsed.error}`);
  return { latenciesMs: parsed.latenciesMs ?? [], rssKb: parsed.rssKb ?? undefined };
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
    'time, from the write to its echo read back. The library in this process; the two CLIs each under a pseudo-terminal of',
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
