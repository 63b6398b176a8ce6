// Flags of `kube-provision create`, kubectl-style, into the inputs of provision$.
// The spec fields stay raw here: parseWorkloadSpec validates them all at once.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { KubernetesApiOptions } from '../kube/kubernetes-api.js';
import { DEFAULT_TIMEOUT_MS } from '../workload/provision.js';
import { parseDuration } from './duration.js';
import { UsageError } from '../errors.js';

export interface CreateCommand {
  readonly api: KubernetesApiOptions;
  readonly spec: Record<string, unknown>;
  readonly timeoutMs: number;
  readonly progressDeadlineSeconds?: number;
  readonly keepOnFailure: boolean;
  readonly output: 'text' | 'json';
  /** What to do when the container's Deployment exists but differs (see ProvisionOptions.onDrift). */
  readonly onDrift?: 'fail' | 'reconfigure';
}

export const CREATE_USAGE = `Usage: kube-provision create [flags]

Provision a Manager container as a Kubernetes Deployment and wait for its rollout.
Prints one line per progress event; the provider ID (namespace/name) is the last line.

Spec:
      --container-id ID        Manager container id (label value)            (required)
      --node-id ID             Manager node id (label value)                 (required)
      --hostname NAME          Deployment and pod hostname (DNS-1123 label)  (required)
      --image REF              OCI image reference, passed to Kubernetes as is (required)
      --cpus N                 CPU cores, fractions down to 0.001            (required)
      --memory-mb N            memory in MiB                                 (required)
      --env KEY=VALUE          environment variable (repeatable)
      --entrypoint "CMD ARGS"  command, split like shell words (quotes respected)
      --arg VALUE              argument after the command (repeatable; --arg=--flag for dashes)
      --instance ID            Manager installation that owns it (label value; Managers sharing a namespace)
  -f, --spec-file PATH         JSON spec (fields as in the API); flags override it; - reads stdin
Cluster:
      --kubeconfig PATH        kubeconfig (default: $KUBECONFIG, then ~/.kube/config)
      --context NAME           kubeconfig context (default: current-context)
  -n, --namespace NAME         namespace (default: the context's, else "default")
      --insecure-skip-tls-verify  do not verify the API server's certificate
      --request-timeout DUR    bound on each API request (default 30s)
Waiting:
      --timeout DUR            bound on the whole provisioning (default 5m), e.g. 90s, 5m, 1m30s
      --progress-deadline DUR  the Deployment's progressDeadlineSeconds (default 10m)
      --on-drift fail|reconfigure  when this container's Deployment exists but differs from
                               the flags: fail (default, exit 6) or rewrite it and wait
      --keep-on-failure        keep the Deployment this run created when it fails (default: delete
                               it with its pods once the failure is diagnosed; an adopted one is kept)
Output:
  -o, --output text|json       json: one JSON object per line
  -h, --help

Exit codes: 0 ready, 2 invalid input, 3 rollout failed, 4 timeout, 5 API or kubeconfig error,
6 conflict (name taken by another container, or drift), 130 interrupted.`;

export function parseCreateArgs(argv: readonly string[], readStdin: () => string = () => readFileSync(0, 'utf8')): CreateCommand | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        'container-id': { type: 'string' },
        'node-id': { type: 'string' },
        hostname: { type: 'string' },
        image: { type: 'string' },
        cpus: { type: 'string' },
        'memory-mb': { type: 'string' },
        env: { type: 'string', multiple: true },
        entrypoint: { type: 'string' },
        arg: { type: 'string', multiple: true },
        instance: { type: 'string' },
        'spec-file': { type: 'string', short: 'f' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        namespace: { type: 'string', short: 'n' },
        'insecure-skip-tls-verify': { type: 'boolean' },
        'request-timeout': { type: 'string' },
        timeout: { type: 'string' },
        'progress-deadline': { type: 'string' },
        'on-drift': { type: 'string' },
        'keep-on-failure': { type: 'boolean' },
        output: { type: 'string', short: 'o' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const flags = parsed.values;
  if (flags.help) return 'help';

  const spec: Record<string, unknown> = flags['spec-file'] ? readSpecFile(flags['spec-file'], readStdin) : {};
  const set = (field: string, value: unknown): void => {
    if (value !== undefined) spec[field] = value;
  };
  set('containerId', flags['container-id']);
  set('nodeId', flags['node-id']);
  set('hostname', flags.hostname);
  set('image', flags.image);
  set('cpus', numberOrText(flags.cpus));
  set('memoryMb', numberOrText(flags['memory-mb']));
  set('entrypoint', flags.entrypoint);
  set('instance', flags.instance);
  if (flags.arg) spec.args = flags.arg;
  if (flags.env) spec.env = { ...(spec.env as Record<string, unknown> | undefined), ...parseEnv(flags.env) };

  const onDrift = flags['on-drift'];
  if (onDrift !== undefined && onDrift !== 'fail' && onDrift !== 'reconfigure') {
    throw new UsageError(`--on-drift must be "fail" or "reconfigure", not "${onDrift}"`);
  }
  const output = flags.output ?? 'text';
  if (output !== 'text' && output !== 'json') throw new UsageError(`--output must be "text" or "json", not "${output}"`);
  const requestTimeoutMs = flags['request-timeout'] !== undefined ? duration('--request-timeout', flags['request-timeout']) : undefined;

  return {
    api: {
      ...(flags.kubeconfig !== undefined ? { kubeconfigPath: flags.kubeconfig } : {}),
      ...(flags.context !== undefined ? { context: flags.context } : {}),
      ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
      ...(flags['insecure-skip-tls-verify'] ? { tlsVerify: false } : {}),
      ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
    },
    spec,
    timeoutMs: flags.timeout !== undefined ? duration('--timeout', flags.timeout) : DEFAULT_TIMEOUT_MS,
    ...(flags['progress-deadline'] !== undefined
      ? { progressDeadlineSeconds: Math.max(1, Math.round(duration('--progress-deadline', flags['progress-deadline']) / 1000)) }
      : {}),
    keepOnFailure: flags['keep-on-failure'] === true,
    output,
    ...(onDrift !== undefined ? { onDrift } : {}),
  };
}

export function duration(flag: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new UsageError(`${flag} must be a duration like 90s, 5m or 1m30s, not "${text}"`);
  return ms;
}

export function parseEnv(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    if (separator <= 0) throw new UsageError(`--env must be KEY=VALUE, not "${pair}"`);
    env[pair.slice(0, separator)] = pair.slice(separator + 1);
  }
  return env;
}

/** Numbers become numbers; anything else stays text so validation can name the field. */
export function numberOrText(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text;
}

function readSpecFile(path: string, readStdin: () => string): Record<string, unknown> {
  let text: string;
  try {
    text = path === '-' ? readStdin() : readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--spec-file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`--spec-file ${path} is not valid JSON`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`--spec-file ${path} must hold a JSON object`);
  return value as Record<string, unknown>;
}
