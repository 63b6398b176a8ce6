// The flags of the benches that time provisionings with and without one extra object
// (bench/network.ts, bench/storage.ts): one parser, so both read their options alike.
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Implementation } from './protocol.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ProvisioningBenchOptions {
  readonly sizes: readonly number[];
  readonly podReadyDelayMs: number;
  readonly impl: Implementation;
  readonly timeoutMs: number;
  readonly outDir: string;
  readonly clusterNice: number;
  readonly clusterCpus: string;
  readonly clientCpus: string;
}

/** Flags first, then BENCH_* variables, then the defaults; refuses what no run could use. */
export function provisioningBenchOptions(defaultSizes: string, env: NodeJS.ProcessEnv = process.env): ProvisioningBenchOptions {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      'pod-ready-ms': { type: 'string' },
      impl: { type: 'string' },
      'timeout-ms': { type: 'string' },
      out: { type: 'string' },
      'cluster-nice': { type: 'string' },
      'cluster-cpus': { type: 'string' },
      'client-cpus': { type: 'string' },
    },
    strict: true,
  });
  const sizes = (values.sizes ?? env.BENCH_SIZES ?? defaultSizes).split(',').map((size) => Number.parseInt(size.trim(), 10));
  const impl = (values.impl ?? env.BENCH_IMPL ?? 'src') as Implementation;
  const cpuCount = availableParallelism();
  const clusterCpus = values['cluster-cpus'] ?? env.BENCH_CLUSTER_CPUS ?? (cpuCount >= 2 ? '0' : 'none');
  const clientCpus =
    values['client-cpus'] ?? env.BENCH_CLIENT_CPUS ?? (clusterCpus === '0' ? (cpuCount === 2 ? '1' : `1-${cpuCount - 1}`) : 'none');
  for (const size of sizes) if (!Number.isSafeInteger(size) || size < 1) throw new Error(`--sizes: not a positive integer: ${size}`);
  if (impl !== 'dist' && impl !== 'src') throw new Error(`--impl must be dist or src, got ${String(impl)}`);
  return {
    sizes,
    podReadyDelayMs: Number(values['pod-ready-ms'] ?? env.BENCH_POD_READY_MS ?? 3000),
    impl,
    timeoutMs: Number(values['timeout-ms'] ?? env.BENCH_TIMEOUT_MS ?? 300_000),
    outDir: resolve(REPO_ROOT, values.out ?? env.BENCH_OUT ?? 'bench/results'),
    clusterNice: Number(values['cluster-nice'] ?? env.BENCH_CLUSTER_NICE ?? 10),
    clusterCpus,
    clientCpus,
  };
}
