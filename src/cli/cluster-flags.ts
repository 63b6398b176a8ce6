// The kubectl-style flags every read command shares with `create`: which cluster and
// namespace, how long a request may take, and the output format.
import type { KubernetesApiOptions } from '../kube/kubernetes-api.js';
import { UsageError } from '../errors.js';
import { parseDuration } from './duration.js';
import { DURATION_RULES, durationProblem, type DurationRule } from '../spec/duration.js';

/** node:util parseArgs definitions of the shared flags. */
export const CLUSTER_FLAG_DEFINITIONS = {
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
      --request-timeout DUR    bound on each API request (default 30s)`;

export interface ClusterFlagValues {
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
  readonly namespace?: string | undefined;
  readonly 'insecure-skip-tls-verify'?: boolean | undefined;
  readonly 'request-timeout'?: string | undefined;
}

export function apiOptionsFrom(flags: ClusterFlagValues): KubernetesApiOptions {
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

export function durationFlag(flag: string, text: string, rule: DurationRule = DURATION_RULES.readTimeoutMs): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new UsageError(`${flag} must be a duration like 90s, 5m or 1m30s, not "${text}"`);
  const problem = durationProblem(ms, rule);
  if (problem) throw new UsageError(`${flag} ${problem}`);
  return ms;
}

/** Whether argv asks for JSON output, read before parsing so that a usage error is JSON too. */
export function asksForJson(argv: readonly string[]): boolean {
  return (
    argv.some((arg, i) => (arg === '-o' || arg === '--output') && argv[i + 1] === 'json') ||
    argv.includes('--output=json') ||
    argv.includes('-ojson')
  );
}
