// kube-provision nodes: the cluster's nodes as a table (or JSON), once or live (--watch),
// and with --cpus and --memory-mb, whether such a workload fits on one of them now.
import { fitsOnNodes, type FitsResult } from '../../cluster/fits.js';
import type { NodeInfo } from '../../cluster/node-info.js';
import { nodes, nodes$ } from '../../cluster/nodes.js';
import { parseResourceRequest } from '../../cluster/resource-request.js';
import type { PodRequest } from '../../cluster/namespace-limits.js';
import { InvalidSpecError, UsageError } from '../../errors/input.js';
import { KubernetesApi } from '../../kube/kubernetes-api.js';
import { formatBytes, formatMillicores } from '../../input/parse-quantity.js';
import { EXIT } from '../exit-codes.js';
import { formatTable } from '../table.js';
import type { CliIo } from '../io.js';
import {
  apiOptionsFrom,
  CLUSTER_FLAG_OPTIONS,
  CLUSTER_FLAGS_USAGE,
  durationFlag,
  outputFlag,
  parseFlags,
  gpuFlags,
  resourceFlags,
} from './cluster-flags.js';
import { runCommand } from './run-command.js';

export const NODES_USAGE = `Usage: kube-provision nodes [flags]

Lists the cluster's nodes: Ready (and since when), schedulable or cordoned, InternalIP and
ExternalIP, allocatable CPU, memory, Pods and GPUs (each GPU resource a node offers, e.g.
nvidia.com/gpu), and how much of each Pods already request.
Needs list (and with --watch, watch) on nodes and on pods in all namespaces.

${CLUSTER_FLAGS_USAGE}
Nodes:
      --cpus N                 also say whether a workload of this many cores ...
      --memory-mb N            ... and this much memory fits on a Ready, schedulable node now (a hint: not the scheduler)
      --gpus N                 ... with this many GPUs free on that node (with --cpus and --memory-mb)
      --gpu-resource NAME      the extended resource --gpus counts (default nvidia.com/gpu)
  -w, --watch                  print again on every change, until interrupted (then exit 0)
      --timeout DUR            bound on the listing (default 30s; not with --watch)
Output:
  -o, --output text|json       json: {"nodes": [...], "fits": ...} (one object per change with --watch)
  -h, --help

Exit codes: 0 listed, 2 invalid flags, 4 no answer in time, 5 kubeconfig or API error
(403: the user may not list nodes or pods), 130 interrupted (a listing; --watch exits 0).`;

export async function runNodes(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand('nodes', argv, io, async (output) => {
    const parsed = parseNodesArgs(argv);
    if (parsed === 'help') {
      io.stdout(NODES_USAGE);
      return EXIT.ok;
    }
    output.json = parsed.output === 'json';
    const print = (infos: readonly NodeInfo[]): void => {
      const fit = parsed.request ? fitsOnNodes(infos, parsed.request) : undefined;
      if (output.json) output.value({ nodes: infos, ...(fit ? { fits: fit } : {}) });
      else for (const line of formatNodes(infos, fit)) output.out(line);
    };
    const api = KubernetesApi.fromConfig(parsed.api);
    output.useClient(api);
    if (!parsed.watch) {
      print(await nodes(api, { timeoutMs: parsed.timeoutMs, ...(io.signal ? { signal: io.signal } : {}) }));
      return EXIT.ok;
    }
    // A watch ends when interrupted: that is its normal end (exit 0).
    await new Promise<void>((resolve, reject) => {
      const subscription = nodes$(api).subscribe({ next: print, error: reject, complete: resolve });
      const signal = io.signal;
      if (!signal) return;
      const stop = (): void => {
        subscription.unsubscribe();
        resolve();
      };
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
      subscription.add(() => signal.removeEventListener('abort', stop));
    });
    return EXIT.ok;
  });
}

interface NodesCommand {
  readonly api: ReturnType<typeof apiOptionsFrom>;
  readonly request: PodRequest | undefined;
  readonly watch: boolean;
  readonly timeoutMs: number;
  readonly output: 'text' | 'json';
}

export function parseNodesArgs(argv: readonly string[]): NodesCommand | 'help' {
  const { values } = parseFlags(argv, {
    ...CLUSTER_FLAG_OPTIONS,
    cpus: { type: 'string' },
    'memory-mb': { type: 'string' },
    gpus: { type: 'string' },
    'gpu-resource': { type: 'string' },
    watch: { type: 'boolean', short: 'w' },
    timeout: { type: 'string' },
  });
  if (values.help) return 'help';
  if (values.watch && values.timeout !== undefined) throw new UsageError('--timeout bounds a single listing: it does not go with --watch');
  if (values['gpu-resource'] !== undefined && values.gpus === undefined) {
    throw new UsageError('--gpu-resource names what --gpus counts: give --gpus too');
  }
  const spec = gpuFlags(resourceFlags(values.cpus, values['memory-mb']), values.gpus, values['gpu-resource']);
  let request: PodRequest | undefined;
  try {
    request = spec ? parseResourceRequest(spec) : undefined;
  } catch (error) {
    if (!(error instanceof InvalidSpecError)) throw error;
    const flags: Record<string, string> = { cpus: '--cpus', memoryMb: '--memory-mb', gpus: '--gpus', gpuResource: '--gpu-resource' };
    throw new UsageError(error.issues.map((issue) => `${flags[issue.path] ?? issue.path} ${issue.message}`).join('; '));
  }
  return {
    api: apiOptionsFrom(values),
    request,
    watch: values.watch ?? false,
    timeoutMs: values.timeout !== undefined ? durationFlag('--timeout', values.timeout) : 30_000,
    output: outputFlag(values.output),
  };
}

export function formatNodes(infos: readonly NodeInfo[], fit: FitsResult | undefined): string[] {
  const rows = infos.map((node) => [
    node.name,
    node.ready ? 'Ready' : 'NotReady',
    node.readySince ?? '-',
    node.schedulable ? 'yes' : 'cordoned',
    node.internalIP ?? '-',
    node.externalIP ?? '-',
    `${formatMillicores(node.requested.cpuMillicores)}/${formatMillicores(node.allocatable.cpuMillicores)}`,
    `${formatBytes(node.requested.memoryBytes)}/${formatBytes(node.allocatable.memoryBytes)}`,
    `${node.requested.pods}/${node.allocatable.pods}`,
    Object.entries(node.gpus)
      .map(([resource, gpus]) => `${resource} ${gpus.requested}/${gpus.allocatable}`)
      .join(',') || '-',
    node.taints.map((taint) => `${taint.key}:${taint.effect}`).join(',') || '-',
  ]);
  const lines = formatTable(
    [
      'NAME',
      'STATUS',
      'SINCE',
      'SCHEDULABLE',
      'INTERNAL-IP',
      'EXTERNAL-IP',
      'CPU REQ/ALLOC',
      'MEMORY REQ/ALLOC',
      'PODS',
      'GPUS REQ/ALLOC',
      'TAINTS',
    ],
    rows,
  );
  if (infos.length === 0) lines.push('(no nodes)');
  if (fit) lines.push(`${fit.fits ? 'fits' : 'does NOT fit'}: ${fit.message} (a hint, not the scheduler)`);
  return lines;
}
