// kube-provision get [PROVIDER_ID] [-o json|wide]: the managed workloads of a namespace
// (list), or one of them (status), as a table, wide table or JSON lines.
import { UsageError } from '../../errors/input.js';
import { KubernetesApi } from '../../kube/kubernetes-api.js';
import { list, type WorkloadSnapshot } from '../../workload/list.js';
import { readStatus, type StatusReading } from '../../workload/status.js';
import { apiOptionsFrom, asksForJson, CLUSTER_FLAG_OPTIONS, CLUSTER_FLAGS_USAGE, durationFlag, parseFlags } from './cluster-flags.js';
import { EXIT, exitCodeFor } from '../exit-codes.js';
import { errorRecord, formatErrorLine } from '../format.js';
import type { CliIo } from '../io.js';
import { formatStatusTable } from '../status-format.js';
import { earlyAddress, workloadAddress } from './workload-address.js';

export const GET_USAGE = `Usage: kube-provision get [PROVIDER_ID] [flags]

List the Manager workloads (Deployments carrying the ownership labels) of a namespace with
their status, or show one of them. PROVIDER_ID is namespace/name, or a name in the
namespace of -n (default: the context's).

${CLUSTER_FLAGS_USAGE}
      --timeout DUR            bound on the whole read (default 30s)
Output:
  -o, --output text|wide|json  wide: Pod IP, node, restarts, image, CPU, memory, message;
                               json: one object per line (Manager's snapshot shape)
  -h, --help

Exit codes: 0 read (whatever the status, missing included), 2 invalid input, 5 API or
kubeconfig error (one workload: its status is printed as unknown, with the reason), 130 interrupted.`;

export async function runGet(argv: readonly string[], io: CliIo): Promise<number> {
  let json = asksForJson(argv);
  try {
    const { values, positionals } = parse(argv);
    if (values.help) {
      io.stdout(GET_USAGE);
      return EXIT.ok;
    }
    const output = values.output ?? 'text';
    if (output !== 'text' && output !== 'wide' && output !== 'json') {
      throw new UsageError(`--output must be "text", "wide" or "json", not "${output}"`);
    }
    json = output === 'json';
    if (positionals.length > 1) throw new UsageError(`get takes at most one PROVIDER_ID (got ${positionals.length})`);
    const timeoutMs = values.timeout !== undefined ? durationFlag('--timeout', values.timeout) : undefined;
    const [address] = positionals;
    const early = earlyAddress(address, values.namespace);
    const api = KubernetesApi.fromConfig(apiOptionsFrom(values));
    const options = { ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(io.signal ? { signal: io.signal } : {}) };

    let snapshots: WorkloadSnapshot[];
    let code: number = EXIT.ok;
    if (address !== undefined) {
      const reading = await readStatus(api, early ?? workloadAddress(address, values.namespace, api.namespace), options);
      snapshots = [snapshotOf(reading)];
      if (reading.status.state === 'unknown') code = EXIT.apiError;
    } else {
      snapshots = await list(api, options);
    }
    if (json) for (const snapshot of snapshots) io.stdout(JSON.stringify(snapshot));
    else if (snapshots.length === 0) io.stderr(`No workloads found in namespace ${api.namespace}.`);
    else for (const line of formatStatusTable(snapshots, output === 'wide')) io.stdout(line);
    return code;
  } catch (error) {
    if (json) io.stdout(JSON.stringify(errorRecord(error)));
    io.stderr(formatErrorLine(error));
    if (error instanceof UsageError) io.stderr('Run "kube-provision get --help" for the flags.');
    return exitCodeFor(error);
  }
}

function parse(argv: readonly string[]) {
  return parseFlags(argv, { ...CLUSTER_FLAG_OPTIONS, timeout: { type: 'string' } }, true);
}

function snapshotOf(reading: StatusReading): WorkloadSnapshot {
  return {
    vmid: reading.providerId,
    name: reading.name,
    type: 'deployment',
    status: reading.status.state,
    providerId: reading.providerId,
    namespace: reading.namespace,
    containerId: reading.containerId,
    nodeId: reading.nodeId,
    detail: reading.status,
  };
}
