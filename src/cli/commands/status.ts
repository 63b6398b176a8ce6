// kube-provision status PROVIDER_ID [--watch]: one workload's status as a line (the same
// shape as create's progress lines) or a JSON status event; with --watch, one more line
// per change, from the shared informers, until interrupted.
import { OperationAbortedError } from '../../errors/operation.js';
import { UsageError } from '../../errors/input.js';
import { KubernetesApi } from '../../kube/kubernetes-api.js';
import type { StatusEvent } from '../../workload/reads/status-board.js';
import { containerIdOption } from '../../workload/toolkit/read-options.js';
import { readStatus } from '../../workload/reads/status.js';
import { status$ } from '../../workload/reads/statuses.js';
import { isoTime } from '../../rx/clock-time.js';
import { asyncScheduler } from 'rxjs';
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
import { formatStatusLine } from '../status-format.js';
import { earlyAddress, workloadAddress } from './workload-address.js';

export const STATUS_USAGE = `Usage: kube-provision status PROVIDER_ID [--watch] [flags]

Show a Manager workload's status: running, offline, stopping, creating, starting,
updating, failed, missing or unknown, with the reason in the kubelet's or controller's
words. PROVIDER_ID is namespace/name, or a name in the namespace of -n.

  -w, --watch                  keep printing a line per change until interrupted (Ctrl-C)
      --container-id ID        Manager's container id: a Deployment with another one is "missing"
${INSTANCE_FLAG_USAGE}
      --timeout DUR            bound on the read without --watch (default 30s)
${CLUSTER_FLAGS_USAGE}
Output:
  -o, --output text|json       json: one status event per line
  -h, --help

Exit codes: 0 read (whatever the status, missing included), 2 invalid input, 4 no answer from
the API server in time, 5 API or kubeconfig error (without --watch the status is printed as
unknown, with the reason), 130 interrupted (the way a --watch ends).`;

export async function runStatus(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand('status', argv, io, async (output) => {
    const { values, positionals } = parse(argv);
    if (values.help) {
      io.stdout(STATUS_USAGE);
      return EXIT.ok;
    }
    const format = values.output ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`--output must be "text" or "json", not "${format}"`);
    output.json = format === 'json';
    if (positionals.length !== 1) throw new UsageError('status takes exactly one PROVIDER_ID (namespace/name)');
    if (values.watch && values.timeout !== undefined)
      throw new UsageError('--timeout bounds a single read; --watch runs until interrupted');
    const timeoutMs = values.timeout !== undefined ? durationFlag('--timeout', values.timeout) : undefined;
    const containerId = containerIdOption(values['container-id']);
    const instance = instanceFlag(values.instance);
    const early = earlyAddress(positionals[0], values.namespace);
    const api = KubernetesApi.fromConfig(apiOptionsFrom(values));
    output.useClient(api);
    const providerId = early ?? workloadAddress(positionals[0]!, values.namespace, api.namespace);
    const print = (event: StatusEvent): void => (output.json ? output.value(event) : output.out(formatStatusLine(event)));
    const common = {
      ...(containerId !== undefined ? { containerId } : {}),
      ...(instance !== undefined ? { instance } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
    };

    if (!values.watch) {
      const reading = await readStatus(api, providerId, { ...common, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
      print({ type: 'status', at: isoTime(asyncScheduler), ...reading });
      return exitCodeForStatus(reading.status);
    }
    try {
      await new Promise<void>((resolve, reject) => {
        status$(api, providerId, common).subscribe({ next: print, error: reject, complete: resolve });
      });
    } catch (error) {
      // Interrupting is how a watch ends: no error line for it.
      if (error instanceof OperationAbortedError) return EXIT.aborted;
      throw error;
    }
    return EXIT.ok;
  });
}

function parse(argv: readonly string[]) {
  return parseFlags(
    argv,
    {
      ...CLUSTER_FLAG_OPTIONS,
      ...INSTANCE_FLAG_OPTION,
      watch: { type: 'boolean', short: 'w' },
      'container-id': { type: 'string' },
      timeout: { type: 'string' },
    },
    true,
  );
}
