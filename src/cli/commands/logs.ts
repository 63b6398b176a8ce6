// kube-provision logs PROVIDER_ID [-f] [--previous] [--since DUR] [--tail N] [--timestamps]:
// the workload's container log (its current Pod, found by its labels), in kubectl's manner;
// -f follows it across the kubelet's log rotation and across restarts and replaced Pods
// (logs$), until interrupted.
import { UsageError } from '../../errors/input.js';
import { KubernetesApi } from '../../kube/kubernetes-api.js';
import { containerIdOption } from '../../workload/toolkit/read-options.js';
import { logs$, type LogLine } from '../../workload/reads/logs.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import {
  apiOptionsFrom,
  CLUSTER_FLAG_OPTIONS,
  CLUSTER_FLAGS_USAGE,
  durationFlag,
  INSTANCE_FLAG_OPTION,
  INSTANCE_FLAG_USAGE,
  instanceFlag,
  outputFlag,
  parseFlags,
} from './cluster-flags.js';
import { runCommand } from './run-command.js';
import { earlyAddress, workloadAddress } from './workload-address.js';

export const LOGS_USAGE = `Usage: kube-provision logs PROVIDER_ID [-f] [--previous] [--since DUR] [--tail N] [--timestamps] [flags]

Print the log of the workload's container (its current Pod, found by its labels).
PROVIDER_ID is namespace/name, or a name in the namespace of -n.

  -f, --follow                 keep printing lines as they come, across log rotation, restarts and
                               replaced Pods, until interrupted (Ctrl-C)
  -p, --previous               the log of the run before the current one (a crashed container's)
      --since DUR              only lines newer than this (5s, 2m, 3h); at least 1s
      --since-time TIME        only lines since this RFC 3339 time (2026-12-05T04:00:00Z)
      --tail N                 only the last N lines at the start (a whole number >= 0)
      --timestamps             put the kubelet's timestamp before each line
      --container-id ID        Manager's container id the workload must carry
${INSTANCE_FLAG_USAGE}
${CLUSTER_FLAGS_USAGE}
Output:
  -o, --output text|json       json: one line object per line ({text, time, pod, container, truncated})
  -h, --help

Exit codes: 0 done, 2 invalid input, 4 no answer in time, 5 API or kubeconfig error (no
container to read, forbidden, the kubelet unreachable), 7 no such workload, 130 interrupted
(the way -f ends).`;

export async function runLogs(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand('logs', argv, io, async (output) => {
    const { values, positionals } = parseFlags(
      argv,
      {
        ...CLUSTER_FLAG_OPTIONS,
        ...INSTANCE_FLAG_OPTION,
        follow: { type: 'boolean', short: 'f' },
        previous: { type: 'boolean', short: 'p' },
        since: { type: 'string' },
        'since-time': { type: 'string' },
        tail: { type: 'string' },
        timestamps: { type: 'boolean' },
        'container-id': { type: 'string' },
      },
      true,
    );
    if (values.help) {
      io.stdout(LOGS_USAGE);
      return EXIT.ok;
    }
    output.json = outputFlag(values.output) === 'json';
    if (positionals.length !== 1) throw new UsageError('logs takes exactly one PROVIDER_ID (namespace/name)');
    if (values.follow && values.previous)
      throw new UsageError('--previous is the run that ended: it cannot be followed (drop -f or --previous)');
    if (values.since !== undefined && values['since-time'] !== undefined)
      throw new UsageError('--since and --since-time cannot both be given: choose one');
    const sinceSeconds = values.since === undefined ? undefined : sinceFlag(values.since);
    const sinceTime = values['since-time'];
    if (sinceTime !== undefined && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(sinceTime)) {
      throw new UsageError(`--since-time must be an RFC 3339 time such as 2026-12-05T04:00:00Z, not "${sinceTime}"`);
    }
    const tailLines = values.tail === undefined ? undefined : tailFlag(values.tail);
    const containerId = containerIdOption(values['container-id']);
    const instance = instanceFlag(values.instance);
    const early = earlyAddress(positionals[0], values.namespace);
    const api = KubernetesApi.fromConfig(apiOptionsFrom(values));
    output.useClient(api);
    const providerId = early ?? workloadAddress(positionals[0]!, values.namespace, api.namespace);
    const print = (line: LogLine): void => {
      if (output.json) output.value(line);
      else output.logLine(values.timestamps && line.time !== undefined ? `${line.time} ${line.text}` : line.text);
    };
    const interrupted = await new Promise<boolean>((resolve, reject) => {
      const subscription = logs$(api, providerId, {
        ...(values.follow ? { follow: true } : {}),
        ...(values.previous ? { previous: true } : {}),
        ...(values.timestamps ? { timestamps: true } : {}),
        ...(sinceSeconds !== undefined ? { sinceSeconds } : {}),
        ...(sinceTime !== undefined ? { sinceTime } : {}),
        ...(tailLines !== undefined ? { tailLines } : {}),
        ...(containerId !== undefined ? { containerId } : {}),
        ...(instance !== undefined ? { instance } : {}),
      }).subscribe({
        next: print,
        error: (error: unknown) => {
          io.signal?.removeEventListener('abort', onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
        complete: () => {
          io.signal?.removeEventListener('abort', onAbort);
          resolve(false);
        },
      });
      // Interrupting is how a follow ends: the request is aborted, no error line.
      const onAbort = (): void => {
        subscription.unsubscribe();
        resolve(true);
      };
      if (io.signal?.aborted) onAbort();
      else io.signal?.addEventListener('abort', onAbort, { once: true });
    });
    return interrupted ? EXIT.aborted : EXIT.ok;
  });
}

/** --since: a duration of at least one second, as whole seconds (rounded up, as kubectl does). */
function sinceFlag(text: string): number {
  const ms = durationFlag('--since', text);
  if (!(ms >= 1000) || !Number.isFinite(ms)) throw new UsageError(`--since must be a duration of at least 1s (such as 10m), not "${text}"`);
  return Math.ceil(ms / 1000);
}

function tailFlag(text: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`--tail must be a whole number of lines >= 0, not "${text}"`);
  }
  return Number(text);
}
