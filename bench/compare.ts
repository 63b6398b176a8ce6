// Two commits side by side: the results that `npm run bench` (cluster.json) and
// `npm run bench:statuses` (statuses.json) wrote for each, run one after the other on the
// same machine with each commit's own benchmark, put in one table. It measures nothing.
//
//   tsx bench/compare.ts --title "..." --label A=DIR [--label B=DIR ...] --out FILE.md [--harness COMMIT]
//
// --harness: the sides were run by one commit's benchmark, each loading another commit's
// built library (its dist/), so that only the library differs; the header says so.
//
// Each DIR holds a cluster/ and a statuses/ folder (either may be missing), as written by
// `bench/run.ts --out DIR/cluster` and `bench/statuses.ts --out DIR/statuses`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, markdownTable } from './lib/stats.js';

interface Summary {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}
interface ClusterRun {
  readonly kind: string;
  readonly n: number;
  readonly rep?: number;
  readonly succeeded: number;
  readonly detectionMs: Summary;
  readonly endToEndMs: Summary;
  readonly cpuMsPerProvisioning: number;
  readonly peakRssMiB: number;
  readonly heapBytesPerWaiter?: number;
  readonly requestsPerProvisioning: number;
}
interface ClusterFile {
  readonly machine: { readonly gitCommit?: string; readonly date?: string };
  readonly runs: readonly ClusterRun[];
}
interface StatusesFile {
  readonly machine: { readonly gitCommit?: string; readonly date?: string };
  readonly detectionMs: Summary;
  readonly inProcessMs: Summary;
  readonly heapBytesPerWorkload: number;
  readonly childCpuMs: number;
  readonly evaluations?: number;
  readonly watchEvents?: number;
  readonly stopPhaseMs: number;
  readonly startPhaseMs: number;
}

const { values } = parseArgs({
  options: { title: { type: 'string' }, label: { type: 'string', multiple: true }, out: { type: 'string' }, harness: { type: 'string' } },
  strict: true,
});
if (!values.out) throw new Error('--out: required (the markdown file to write)');
if (!values.title) throw new Error('--title: required (what is compared)');
const labels = (values.label ?? []).map((entry) => {
  const at = entry.indexOf('=');
  if (at < 1) throw new Error(`--label: expected NAME=DIR, got ${entry}`);
  return { name: entry.slice(0, at), dir: resolve(entry.slice(at + 1)) };
});
if (labels.length < 2) throw new Error('--label: at least two, to compare');

const read = <T>(path: string): T | undefined => (existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : undefined);
const sides = labels.map(({ name, dir }) => ({
  name,
  cluster: read<ClusterFile>(join(dir, 'cluster', 'cluster.json')),
  statuses: read<StatusesFile>(join(dir, 'statuses', 'statuses.json')),
}));

const lines: string[] = [`# ${values.title}`, ''];
const how = values.harness
  ? `each produced by one benchmark, commit ${values.harness}'s, loading that side's built library (its dist/), so that only the library differs`
  : "each produced by its own commit's benchmark";
lines.push(
  `Written by \`tsx bench/compare.ts\` from the results of each side, ${how}, one run after another on the same machine (the order below). Nothing here is measured twice: the figures are those files'.`,
  '',
);
for (const side of sides) {
  const machine = side.cluster?.machine ?? side.statuses?.machine;
  lines.push(
    `- **${side.name}**: ${values.harness ? 'benchmark at ' : ''}git ${machine?.gitCommit ?? 'unknown'}, ${machine?.date ?? 'no date'}`,
  );
}

const clusterSides = sides.filter((side) => side.cluster);
if (clusterSides.length > 0) {
  lines.push('', '## `npm run bench` (our provisioner)', '');
  const rows: string[][] = [];
  const sizes = [
    ...new Set(clusterSides.flatMap((side) => side.cluster!.runs.filter((run) => run.kind === 'provisioner').map((run) => run.n))),
  ];
  for (const n of sizes.sort((a, b) => a - b)) {
    for (const side of clusterSides) {
      for (const run of side.cluster!.runs.filter((each) => each.kind === 'provisioner' && each.n === n)) {
        rows.push([
          String(n),
          `${side.name}${run.rep ? ` run ${run.rep}` : ''}`,
          `${run.succeeded}/${n}`,
          `${fmt(run.detectionMs.p50, 2)} / ${fmt(run.detectionMs.p95, 2)} / ${fmt(run.detectionMs.p99, 2)}`,
          fmt(run.endToEndMs.p50, 0),
          fmt(run.requestsPerProvisioning, 2),
          fmt(run.cpuMsPerProvisioning, 2),
          run.heapBytesPerWaiter === undefined ? 'n/a' : fmt(run.heapBytesPerWaiter / 1024, 1),
          fmt(run.peakRssMiB, 0),
        ]);
      }
    }
  }
  lines.push(
    markdownTable(
      [
        'N',
        'side',
        'ok',
        'detection p50 / p95 / p99 ms',
        'create→resolved p50 ms',
        'requests per prov.',
        'CPU ms per prov.',
        'heap KiB per waiter',
        'peak RSS MiB',
      ],
      rows,
    ),
  );
}

const statusSides = sides.filter((side) => side.statuses);
if (statusSides.length > 0) {
  lines.push('', '## `npm run bench:statuses` (1,000 workloads)', '');
  lines.push(
    markdownTable(
      [
        'side',
        'detection p50 / p95 / p99 / max ms',
        'in the child p50 / p99 ms',
        'heap KiB per workload',
        'child CPU ms',
        'evaluations per watch event',
        'scale to 0 / to 1 s',
      ],
      statusSides.map(({ name, statuses: s }) => [
        name,
        `${fmt(s!.detectionMs.p50, 2)} / ${fmt(s!.detectionMs.p95, 2)} / ${fmt(s!.detectionMs.p99, 2)} / ${fmt(s!.detectionMs.max, 2)}`,
        `${fmt(s!.inProcessMs.p50, 3)} / ${fmt(s!.inProcessMs.p99, 3)}`,
        fmt(s!.heapBytesPerWorkload / 1024, 2),
        fmt(s!.childCpuMs, 0),
        s!.evaluations !== undefined && s!.watchEvents ? fmt(s!.evaluations / s!.watchEvents, 3) : 'not reported',
        `${fmt(s!.stopPhaseMs / 1000, 1)} / ${fmt(s!.startPhaseMs / 1000, 1)}`,
      ]),
    ),
  );
}
writeFileSync(resolve(values.out), `${lines.join('\n')}\n`);
process.stderr.write(`[bench:compare] wrote ${values.out}\n`);
