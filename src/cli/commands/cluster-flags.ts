// The kubectl-style flags every read and cluster command shares with `create`: which
// cluster and namespace, how long a request may take, and the output format.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { KubernetesApiOptions } from '../../kube/kubernetes-api.js';
import { UsageError } from '../../errors/input.js';
import { durationFlag } from '../duration.js';
import { DURATION_RULES } from '../../input/duration.js';
import { namespaceProblem } from '../../input/fields.js';

type FlagOptions = NonNullable<ParseArgsConfig['options']>;
type ParsedFlags<T extends FlagOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; strict: true; allowPositionals: boolean; options: T }>
>;

/** node:util parseArgs, strict (an unknown flag is an error), its errors as UsageError (exit 2). */
export function parseFlags<const T extends FlagOptions>(argv: readonly string[], options: T, allowPositionals = false): ParsedFlags<T> {
  try {
    return parseArgs({ args: [...argv], strict: true, allowPositionals, options });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
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

export const CLUSTER_FLAGS_USAGE = `Cluster:
      --kubeconfig PATH        kubeconfig (default: $KUBECONFIG, then ~/.kube/config)
      --context NAME           kubeconfig context (default: current-context)
  -n, --namespace NAME         namespace (default: the context's, else "default")
      --insecure-skip-tls-verify  do not verify the API server's certificate
      --request-timeout DUR    bound on each API request (default 30s; at most 365 days)`;

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
  if (problem) throw new UsageError(`--namespace ${problem}`);
}

export function apiOptionsFrom(flags: ClusterFlags): KubernetesApiOptions {
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

/** Whether argv asks for JSON output, read before parsing so that a usage error is JSON too. */
export function asksForJson(argv: readonly string[]): boolean {
  return (
    argv.some((arg, i) => (arg === '-o' || arg === '--output') && argv[i + 1] === 'json') ||
    argv.includes('--output=json') ||
    argv.includes('-ojson')
  );
}
