// The kubectl-style flags every read and cluster command shares with `create`: which
// cluster and namespace, how long a request may take, and the output format.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { KubernetesApiOptions } from '../../kube/kubernetes-api.js';
import { UsageError } from '../../errors/input.js';
import { durationFlag } from '../duration.js';
import { DURATION_RULES } from '../../input/duration.js';
import { instanceProblem, namespaceProblem } from '../../input/fields.js';
import { gpuResourceProblem } from '../../input/gpus.js';
import { withGiven } from '../../input/given.js';

type FlagOptions = NonNullable<ParseArgsConfig['options']>;
type ParsedFlags<T extends FlagOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; strict: true; allowPositionals: boolean; options: T }>
>;

/**
 * node:util parseArgs, strict (an unknown flag is an error), its errors as UsageError (exit
 * 2) on one line. A flag that takes one value and is given twice is refused too: parseArgs
 * would keep the last one without a word.
 */
export function parseFlags<const T extends FlagOptions>(argv: readonly string[], options: T, allowPositionals = false): ParsedFlags<T> {
  let parsed: ParsedFlags<T> & { tokens?: readonly { kind: string; name?: string }[] };
  try {
    parsed = parseArgs({ args: [...argv], strict: true, allowPositionals, options, tokens: true });
  } catch (error) {
    throw new UsageError(parseArgsProblem(error as Error, argv, options));
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || token.name === undefined) continue;
    if (seen.has(token.name) && !(options[token.name] as { multiple?: boolean } | undefined)?.multiple) {
      throw new UsageError(`--${token.name} is given more than once; give it once`);
    }
    seen.add(token.name);
  }
  const { values, positionals } = parsed;
  return { values, positionals };
}

/** parseArgs' message, on one line (it writes some on three). */
function parseArgsProblem(error: Error, argv: readonly string[], options: FlagOptions): string {
  const ambiguous = /^Option '(?:-\w, )?--([\w-]+)' argument is ambiguous/.exec(error.message);
  if (ambiguous) {
    const name = ambiguous[1]!;
    const spellings = new Set([`--${name}`, ...(options[name]?.short ? [`-${options[name].short}`] : [])]);
    const at = argv.findIndex((arg, index) => spellings.has(arg) && argv[index + 1]?.startsWith('-'));
    const value = at >= 0 ? argv[at + 1]! : '-XYZ';
    return `--${name} needs a value, and "${value}" looks like a flag. To give a value that starts with a dash, write --${name}=${value}.`;
  }
  return error.message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}

export const CLUSTER_FLAG_OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  'insecure-skip-tls-verify': { type: 'boolean' },
  'request-timeout': { type: 'string' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `--instance`: the Manager installation whose workloads a command addresses (a label value). */
export const INSTANCE_FLAG_OPTION = { instance: { type: 'string' } } as const;

export const INSTANCE_FLAG_USAGE =
  '      --instance ID            the Manager installation whose workloads these are (its instance label; Managers sharing a namespace)';

/** The --instance value, checked: a label value, or undefined when not given. */
export function instanceFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const problem = instanceProblem(value);
  if (problem) throw new UsageError(`--instance ${withGiven(problem, value, [])}`);
  return value;
}

export const CLUSTER_FLAGS_USAGE = `Cluster:
      --kubeconfig PATH        kubeconfig (default: $KUBECONFIG, then ~/.kube/config)
      --context NAME           kubeconfig context (default: current-context)
  -n, --namespace NAME         namespace (default: the context's, else "default")
      --insecure-skip-tls-verify  do not verify the API server's certificate
      --request-timeout DUR    bound on each API request (default 75s; at most 365 days)`;

export interface ClusterFlags {
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
  readonly namespace?: string | undefined;
  readonly 'insecure-skip-tls-verify'?: boolean | undefined;
  readonly 'request-timeout'?: string | undefined;
}

/** -n/--namespace by the namespace rule (src/input/fields.ts), as a usage error naming the flag. */
export function namespaceFlag(value: string | undefined): void {
  const problem = value === undefined ? undefined : namespaceProblem(value);
  if (problem) throw new UsageError(`--namespace ${withGiven(problem, value, [])}`);
}

/** The cluster flags as KubernetesApi options, each checked the same way for every command. */
export function apiOptionsFrom(flags: ClusterFlags): KubernetesApiOptions {
  for (const flag of ['kubeconfig', 'context', 'namespace'] as const) {
    if (flags[flag] === '') throw new UsageError(`--${flag} must not be empty`);
  }
  namespaceFlag(flags.namespace);
  const requestTimeoutMs =
    flags['request-timeout'] !== undefined
      ? durationFlag('--request-timeout', flags['request-timeout'], DURATION_RULES.requestTimeoutMs)
      : undefined;
  return {
    ...(flags.kubeconfig !== undefined ? { kubeconfigPath: flags.kubeconfig } : {}),
    ...(flags.context !== undefined ? { context: flags.context } : {}),
    ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
    ...(flags['insecure-skip-tls-verify'] ? { tlsVerify: false } : {}),
    ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
  };
}

export { durationFlag };

export function outputFlag(value: string | undefined): 'text' | 'json' {
  const output = value ?? 'text';
  if (output !== 'text' && output !== 'json') throw new UsageError(`--output must be "text" or "json", not "${output}"`);
  return output;
}

/** `--cpus` and `--memory-mb` as the spec check() and fits() read; both or neither. */
export function resourceFlags(cpus: string | undefined, memoryMb: string | undefined): { cpus: unknown; memoryMb: unknown } | undefined {
  if (cpus === undefined && memoryMb === undefined) return undefined;
  if (cpus === undefined || memoryMb === undefined) throw new UsageError('--cpus and --memory-mb go together: give both or neither');
  const number = (text: string): number | string => (/^\s*-?(\d+(\.\d*)?|\.\d+)\s*$/.test(text) ? Number(text) : text);
  return { cpus: number(cpus), memoryMb: number(memoryMb) };
}

/**
 * `--gpus N` (and `--gpu-resource NAME`, what it counts) joined to the spec of --cpus and
 * --memory-mb: a GPU request is part of a workload, so --gpus needs both.
 */
export function gpuFlags(
  spec: { cpus: unknown; memoryMb: unknown } | undefined,
  gpus: string | undefined,
  gpuResource: string | undefined,
): { cpus: unknown; memoryMb: unknown; gpus?: unknown; gpuResource?: string } | undefined {
  if (gpuResource !== undefined) {
    const problem = gpuResourceProblem(gpuResource);
    if (problem) throw new UsageError(`--gpu-resource ${withGiven(problem, gpuResource, [])}`);
  }
  if (gpus === undefined) return spec;
  if (!spec) throw new UsageError('--gpus goes with --cpus and --memory-mb (the workload it is part of): give all three');
  const count = /^\s*-?\d+(\.\d*)?\s*$/.test(gpus) ? Number(gpus) : gpus;
  return { ...spec, gpus: count, ...(gpuResource !== undefined ? { gpuResource } : {}) };
}

/** Whether argv asks for JSON output, read before parsing so that a usage error is JSON too. */
export function asksForJson(argv: readonly string[]): boolean {
  return (
    argv.some((arg, i) => (arg === '-o' || arg === '--output') && argv[i + 1] === 'json') ||
    argv.includes('--output=json') ||
    argv.includes('-ojson')
  );
}
