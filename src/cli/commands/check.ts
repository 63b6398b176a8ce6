// kube-provision check: the preflight report as a table (or one JSON object with -o json).
import { check, DEFAULT_CHECK_TIMEOUT_MS } from '../../cluster/check.js';
import { BOOT_CHECK_ITEM_ID, DEFAULT_BOOT_TIMEOUT_MS, bootCheck } from '../../workload/operations/boot-check.js';
import type { CheckItem, CheckReport } from '../../cluster/check-report.js';
import { isValidImageReference } from '../../input/image-reference.js';
import { KubernetesApi } from '../../kube/kubernetes-api.js';
import { OPERATION_NAMES, type OperationName } from '../../cluster/permissions.js';
import { InvalidSpecError, UsageError } from '../../errors/input.js';
import { dns1123SubdomainProblem } from '../../input/gpus.js';
import { EXIT, exitCodeForCheck } from '../exit-codes.js';
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

export const CHECK_USAGE = `Usage: kube-provision check [flags]

Checks, before any provisioning, that the cluster will work: the kubeconfig and context,
TLS, the API server, who we are, the RBAC permissions each operation needs in the
namespace, the namespace itself, (with --cpus and --memory-mb) whether its LimitRanges
and ResourceQuotas allow such a workload, and the cluster's GPU capacity (each node's
allocatable nvidia.com/gpu, or the --gpu-resource; said plainly when no node offers it), and
with --runtime-class whether that RuntimeClass exists; with --system-image, whether that image
boots as a system container.
Prints one line per item.

${CLUSTER_FLAGS_USAGE}
Check:
      --cpus N                 CPU cores of the workload to check against LimitRanges and ResourceQuotas
      --memory-mb N            its memory in MiB (give both or neither)
      --gpus N                 GPUs of the workload (with --cpus and --memory-mb): the gpus item then needs a
                               Ready, schedulable node offering that many
      --gpu-resource NAME      the extended resource whose capacity is reported (default nvidia.com/gpu)
      --runtime-class NAME     the RuntimeClass the containers run with (a system container's): it must exist
      --system-image REF       also boot REF once as a system container (systemd as /sbin/init, sshd on 22) in
                               the namespace, with --runtime-class if given: the system-boot item says the time
                               to a login or the named failure; the throw-away workload (kp-check-<hex>) is
                               removed afterwards, also on failure, timeout or Ctrl-C
      --boot-timeout DUR       bound on that boot (default 3m)
      --needs OPERATION        whose permissions must be there: create or lifecycle (default lifecycle)
      --timeout DUR            bound on the whole check (default 10s)
Output:
  -o, --output text|json       json: the report as one JSON object
  -h, --help

Exit codes: 0 every needed item passed (warnings allowed), 2 invalid flags, 4 the API server
gave no answer in time, 5 a needed item failed.`;

export async function runCheck(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand('check', argv, io, async (output) => {
    const parsed = parseCheckArgs(argv);
    if (parsed === 'help') {
      io.stdout(CHECK_USAGE);
      return EXIT.ok;
    }
    output.json = parsed.output === 'json';
    let report = await check(parsed.api, {
      ...(parsed.spec ? { spec: parsed.spec } : {}),
      ...(parsed.gpuResource !== undefined ? { gpuResource: parsed.gpuResource } : {}),
      ...(parsed.runtimeClass !== undefined ? { runtimeClass: parsed.runtimeClass } : {}),
      needs: parsed.needs,
      timeoutMs: parsed.timeoutMs,
      ...(io.signal ? { signal: io.signal } : {}),
    }).catch((error: unknown) => {
      throw flagNamedSpecError(error);
    });
    if (parsed.systemImage !== undefined) report = await withBootCheck(parsed, report, io.signal);
    if (output.json) output.value(report);
    else for (const line of formatCheckReport(report)) output.out(line);
    return exitCodeForCheck(report);
  });
}

/**
 * The report with the system image's boot as its last item: booted only when every needed
 * item passed (a boot cannot work where the API or the permissions do not).
 */
async function withBootCheck(parsed: CheckCommand, report: CheckReport, signal: AbortSignal | undefined): Promise<CheckReport> {
  const image = parsed.systemImage ?? '';
  if (!report.ok) {
    const item: CheckItem = {
      id: BOOT_CHECK_ITEM_ID,
      status: 'skip',
      needed: true,
      message: `not booted: ${image} needs the items above to pass first`,
      durationMs: 0,
    };
    return { ...report, items: [...report.items, item] };
  }
  const { item } = await bootCheck(KubernetesApi.fromConfig(parsed.api), {
    image,
    ...(report.namespace ? { namespace: report.namespace } : {}),
    ...(parsed.runtimeClass !== undefined ? { runtimeClass: parsed.runtimeClass } : {}),
    timeoutMs: parsed.bootTimeoutMs,
    ...(signal ? { signal } : {}),
  });
  return { ...report, ok: item.status !== 'fail', durationMs: report.durationMs + item.durationMs, items: [...report.items, item] };
}

interface CheckCommand {
  readonly api: ReturnType<typeof apiOptionsFrom>;
  readonly spec: { cpus: unknown; memoryMb: unknown; gpus?: unknown; gpuResource?: string } | undefined;
  readonly gpuResource: string | undefined;
  readonly runtimeClass: string | undefined;
  readonly systemImage: string | undefined;
  readonly bootTimeoutMs: number;
  readonly needs: OperationName;
  readonly timeoutMs: number;
  readonly output: 'text' | 'json';
}

export function parseCheckArgs(argv: readonly string[]): CheckCommand | 'help' {
  const { values } = parseFlags(argv, {
    ...CLUSTER_FLAG_OPTIONS,
    cpus: { type: 'string' },
    'memory-mb': { type: 'string' },
    gpus: { type: 'string' },
    'gpu-resource': { type: 'string' },
    'runtime-class': { type: 'string' },
    'system-image': { type: 'string' },
    'boot-timeout': { type: 'string' },
    needs: { type: 'string' },
    timeout: { type: 'string' },
  });
  if (values.help) return 'help';
  if (values['boot-timeout'] !== undefined && values['system-image'] === undefined) {
    throw new UsageError('--boot-timeout bounds the boot of --system-image: give --system-image too');
  }
  const needs = values.needs ?? 'lifecycle';
  if (!(OPERATION_NAMES as readonly string[]).includes(needs)) {
    throw new UsageError(`--needs must be one of ${OPERATION_NAMES.join(', ')}, not "${needs}"`);
  }
  return {
    api: apiOptionsFrom(values),
    spec: gpuFlags(resourceFlags(values.cpus, values['memory-mb']), values.gpus, values['gpu-resource']),
    gpuResource: values['gpu-resource'],
    runtimeClass: runtimeClassFlag(values['runtime-class']),
    systemImage: systemImageFlag(values['system-image']),
    bootTimeoutMs: values['boot-timeout'] !== undefined ? durationFlag('--boot-timeout', values['boot-timeout']) : DEFAULT_BOOT_TIMEOUT_MS,
    needs: needs as OperationName,
    timeoutMs: values.timeout !== undefined ? durationFlag('--timeout', values.timeout) : DEFAULT_CHECK_TIMEOUT_MS,
    output: outputFlag(values.output),
  };
}

const STATUS_WORDS = { pass: 'ok', warn: 'WARN', fail: 'FAIL', skip: 'skip' } as const;

/** The report for a person: a summary line, then one row per item. */
export function formatCheckReport(report: CheckReport): string[] {
  const where = [
    report.server ?? 'no server',
    report.context ? `context ${report.context}` : undefined,
    report.namespace ? `namespace ${report.namespace}` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  const failed = report.items.filter((item) => item.status === 'fail').length;
  const warned = report.items.filter((item) => item.status === 'warn').length;
  const verdict = report.ok
    ? `ready${warned ? ` (${warned} warning${warned === 1 ? '' : 's'})` : ''}`
    : `NOT READY: ${failed} needed item${failed === 1 ? '' : 's'} failed`;
  return [
    `Checked ${where} in ${report.durationMs} ms: ${verdict}`,
    ...formatTable(
      ['ITEM', 'STATUS', 'DETAIL'],
      report.items.map((item) => [item.id, STATUS_WORDS[item.status], item.message]),
    ),
  ];
}

const SPEC_FLAGS: Record<string, string> = { cpus: '--cpus', memoryMb: '--memory-mb', gpus: '--gpus', gpuResource: '--gpu-resource' };

/** The spec came from flags: name the flag, not the field. */
function flagNamedSpecError(error: unknown): unknown {
  if (!(error instanceof InvalidSpecError)) return error;
  return new UsageError(error.issues.map((issue) => `${SPEC_FLAGS[issue.path] ?? issue.path} ${issue.message}`).join('; '));
}

/** --runtime-class, checked before any request: the flag, the value and the rule. */
function runtimeClassFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const problem = dns1123SubdomainProblem(value);
  if (problem) throw new UsageError(`--runtime-class ${problem} (got ${JSON.stringify(value)})`);
  return value;
}

/** --system-image, checked before any request: the flag, the value and the rule. */
function systemImageFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isValidImageReference(value))
    throw new UsageError(`--system-image must be an image reference such as registry/name:tag (got ${JSON.stringify(value)})`);
  return value;
}
