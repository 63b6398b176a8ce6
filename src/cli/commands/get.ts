// kube-provision get [PROVIDER_ID] [-o json|wide]: the managed workloads of a namespace
// (list), or one of them (status), as a table, wide table or JSON lines.
import { UsageError } from '../../errors/input.js';
import { KubernetesApi } from '../../kube/kubernetes-api.js';
import { list, type WorkloadSnapshot } from '../../workload/reads/list.js';
import { readStatus, type StatusReading } from '../../workload/reads/status.js';
import {
  apiOptionsFrom,
  CLUSTER_FLAG_OPTIONS,
  CLUSTER_FLAGS_USAGE,
  durationFlag,
  INSTANCE_FLAG_OPTION,
  INSTANCE_FLAG_USAGE,
  instanceFlag,
  parseFlags,
} from './cluster-flags.js';
import { EXIT, exitCodeForStatus } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { runCommand } from './run-command.js';
import { formatStatusTable } from '../status-format.js';
import { earlyAddress, workloadAddress } from './workload-address.js';

export const GET_USAGE = `Usage: kube-provision get [PROVIDER_ID] [flags]

List the Manager workloads (Deployments carrying the ownership labels) of a namespace with
their status, or show one of them. PROVIDER_ID is namespace/name, or a name in the
namespace of -n (default: the context's).

${INSTANCE_FLAG_USAGE}
${CLUSTER_FLAGS_USAGE}
      --timeout DUR            bound on the whole read (default 30s)
Output:
  -o, --output text|wide|json  wide: Pod IP, node, restarts, image, CPU, memory, message;
                               json: one object per line (Manager's snapshot shape)
  -h, --help

Exit codes: 0 read (whatever the status, missing included), 2 invalid input, 4 no answer from
the API server in time, 5 API or kubeconfig error (one workload: its status is printed as
unknown, with the reason), 130 interrupted.`;

export async function runGet(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand('get', argv, io, async (output) => {
    const { values, positionals } = parse(argv);
    if (values.help) {
      io.stdout(GET_USAGE);
      return EXIT.ok;
    }
    const format = values.output ?? 'text';
    if (format !== 'text' && format !== 'wide' && format !== 'json') {
      throw new UsageError(`--output must be "text", "wide" or "json", not "${format}"`);
    }
    output.json = format === 'json';
    if (positionals.length > 1) throw new UsageError(`get takes at most one PROVIDER_ID (got ${positionals.length})`);
    const timeoutMs = values.timeout !== undefined ? durationFlag('--timeout', values.timeout) : undefined;
    const instance = instanceFlag(values.instance);
    const [address] = positionals;
    const early = earlyAddress(address, values.namespace);
    const api = KubernetesApi.fromConfig(apiOptionsFrom(values));
    output.useClient(api);
    const options = {
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      ...(instance !== undefined ? { instance } : {}),
    };

    let snapshots: WorkloadSnapshot[];
    let code: number = EXIT.ok;
    if (address !== undefined) {
      const reading = await readStatus(api, early ?? workloadAddress(address, values.namespace, api.namespace), options);
      snapshots = [snapshotOf(reading)];
      code = exitCodeForStatus(reading.status);
    } else {
      snapshots = await list(api, options);
    }
    if (output.json) for (const snapshot of snapshots) output.value(snapshot);
    else if (snapshots.length === 0) output.err(`No workloads found in namespace ${api.namespace}.`);
    else for (const line of formatStatusTable(snapshots, format === 'wide')) output.out(line);
    return code;
  });
}

function parse(argv: readonly string[]) {
  return parseFlags(argv, { ...CLUSTER_FLAG_OPTIONS, ...INSTANCE_FLAG_OPTION, timeout: { type: 'string' } }, true);
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
