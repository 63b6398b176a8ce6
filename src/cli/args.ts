// Flags of `kube-provision create`, kubectl-style, into the inputs of provision$.
// The spec fields stay raw here: parseWorkloadSpec validates them all at once, on the same
// path as a library caller's object, and its issues are then named by the flag (or the
// spec file field) the value came from. Durations follow the library's one rule
// (src/input/duration.ts). Nothing is rounded, dropped or merged without a word.
import type { KubernetesApiOptions } from '../kube/kubernetes-api.js';
import { FILE_RULE, readRegularFile } from '../kube/read-file.js';
import { DEFAULT_TIMEOUT_MS } from '../workload/toolkit/operation.js';
import { durationFlag, parseDuration } from './duration.js';
import { InvalidSpecError, UsageError, type SpecIssue } from '../errors/input.js';
import { DURATION_RULES, progressDeadlineProblem } from '../input/duration.js';
import { apiOptionsFrom, parseFlags } from './commands/cluster-flags.js';
import { SERVICE_TYPE_FLAG_HELP, parsePortFlags, portFlagFor } from './port-flags.js';

/** Where each spec value came from: a flag, or the spec file. */
export interface InputSources {
  /** Top-level spec fields set by a flag. */
  readonly fromFlags: ReadonlySet<string>;
  /** Variables set by --env (the others came from the spec file). */
  readonly envFromFlags: ReadonlySet<string>;
  /** The --spec-file argument, if any. */
  readonly specFile?: string;
  /** The --port flags as typed, in order (issues at `ports.N` name the Nth). */
  readonly portFlags?: readonly string[];
}

export interface CreateCommand {
  readonly api: KubernetesApiOptions;
  readonly spec: Record<string, unknown>;
  readonly sources: InputSources;
  readonly timeoutMs: number;
  readonly progressDeadlineSeconds?: number;
  readonly keepOnFailure: boolean;
  readonly output: 'text' | 'json';
  /** What to do when the container's Deployment exists but differs (see ProvisionOptions.onDrift). */
  readonly onDrift?: 'fail' | 'reconfigure';
}

/** The flag of each spec field. */
export const FIELD_FLAGS: Readonly<Record<string, string>> = {
  containerId: '--container-id',
  nodeId: '--node-id',
  hostname: '--hostname',
  image: '--image',
  cpus: '--cpus',
  memoryMb: '--memory-mb',
  env: '--env',
  entrypoint: '--entrypoint',
  args: '--arg',
  instance: '--instance',
  ports: '--port',
  serviceType: '--service-type',
  gpus: '--gpus',
  gpuResource: '--gpu-resource',
  runtimeClass: '--runtime-class',
  systemContainer: '--system-container',
  hostUsers: '--user-namespace',
};

/** The flag of each storage field (`storage.sizeGb`). */
export const STORAGE_FLAGS: Readonly<Record<string, string>> = {
  sizeGb: '--storage-gb',
  storageClass: '--storage-class',
  paths: '--persist',
  seed: '--storage-seed',
};

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
      --port PORT[/tcp|/udp]   a port the container serves (repeatable; default tcp): a Service of the
                               same name carries them at one stable address
      --service-type TYPE      the Service's type: ${SERVICE_TYPE_FLAG_HELP}
      --gpus N                 GPUs to request (whole number; request = limit)
      --gpu-resource NAME      the extended resource --gpus counts (default nvidia.com/gpu)
      --runtime-class NAME     the Pod's RuntimeClass (e.g. nvidia, or one with writable cgroups for
                               a system container; default: the cluster's)
      --system-container       the container runs systemd as PID 1 (default: when the entrypoint's
                               command is /sbin/init or systemd); see docs/system-containers.md
      --no-system-container    an ordinary container, whatever its entrypoint
      --user-namespace         run the Pod in a user namespace of its own (hostUsers: false)
Storage (a volume that keeps the container's files through stop, start, restart and reconfigure):
      --storage-gb N           its size in GiB; without it the files live as long as the Pod
      --storage-class NAME     its StorageClass (default: the cluster's default class; none is an error)
      --persist PATH           a directory kept on it (repeatable; default /etc /home /opt /root /srv /usr /var)
      --storage-seed image|empty  image (default): copy each path from the image on the first start;
                               empty: start the named paths empty (an image without /bin/sh and cp)
  -f, --spec-file PATH         JSON spec (fields as in the API); flags override it; - reads stdin
Cluster:
      --kubeconfig PATH        kubeconfig (default: $KUBECONFIG, then ~/.kube/config)
      --context NAME           kubeconfig context (default: current-context)
  -n, --namespace NAME         namespace (default: the context's, else "default")
      --insecure-skip-tls-verify  do not verify the API server's certificate
      --request-timeout DUR    bound on each API request (default 75s; at most 365 days)
Waiting:
      --timeout DUR            bound on the whole provisioning (default 5m), e.g. 90s, 5m, 1m30s;
                               at most 365 days, or "infinity" for no bound
      --progress-deadline DUR  the Deployment's progressDeadlineSeconds, whole seconds (default 10m)
      --on-drift fail|reconfigure  when this container's Deployment exists but differs from
                               the flags: fail (default, exit 6) or rewrite it and wait
      --keep-on-failure        keep the Deployment this run created when it fails (default: delete
                               it with its pods once the failure is diagnosed; an adopted one is kept)
Output:
  -o, --output text|json       json: one JSON object per line
  -h, --help

Exit codes: 0 ready, 2 invalid input, 3 rollout failed, 4 timeout, 5 API or kubeconfig error,
6 conflict (name taken by another container, or drift), 130 interrupted.`;

const CREATE_FLAG_OPTIONS = {
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
  gpus: { type: 'string' },
  'gpu-resource': { type: 'string' },
  'runtime-class': { type: 'string' },
  'system-container': { type: 'boolean' },
  'no-system-container': { type: 'boolean' },
  'user-namespace': { type: 'boolean' },
  'storage-gb': { type: 'string' },
  'storage-class': { type: 'string' },
  persist: { type: 'string', multiple: true },
  'storage-seed': { type: 'string' },
  port: { type: 'string', multiple: true },
  'service-type': { type: 'string' },
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
} as const;

/**
 * The spec file is stdin (`-f -`): the caller reads it first, without blocking the process
 * (runCli does), and hands the text to parseCreateArgs.
 */
export function specFromStdin(argv: readonly string[]): boolean {
  try {
    return parseFlags(argv, CREATE_FLAG_OPTIONS).values['spec-file'] === '-';
  } catch {
    return false; // parseCreateArgs reports the flags' problem
  }
}

export function parseCreateArgs(argv: readonly string[], readStdin: () => string = noStdin): CreateCommand | 'help' {
  const parsed = parseFlags(argv, CREATE_FLAG_OPTIONS);
  const flags = parsed.values;
  if (flags.help) return 'help';

  const specFile = flags['spec-file'];
  const spec: Record<string, unknown> = specFile !== undefined ? readSpecFile(specFile, readStdin) : {};
  const fromFlags = new Set<string>();
  const set = (field: string, value: unknown): void => {
    if (value === undefined) return;
    spec[field] = value;
    fromFlags.add(field);
  };
  set('containerId', flags['container-id']);
  set('nodeId', flags['node-id']);
  set('hostname', flags.hostname);
  set('image', flags.image);
  set('cpus', numberOrText(flags.cpus));
  set('memoryMb', numberOrText(flags['memory-mb']));
  set('entrypoint', flags.entrypoint);
  set('instance', flags.instance);
  set('gpus', numberOrText(flags.gpus));
  set('gpuResource', flags['gpu-resource']);
  set('runtimeClass', flags['runtime-class']);
  set('systemContainer', systemContainerFlag(flags['system-container'], flags['no-system-container']));
  set('hostUsers', flags['user-namespace'] === true ? false : undefined);
  set('args', flags.arg);
  set('ports', flags.port ? parsePortFlags(flags.port) : undefined);
  set('serviceType', flags['service-type']);
  storageFromFlags(spec, fromFlags, flags);
  const envFromFlags = new Set<string>();
  if (flags.env) {
    const fromFile = spec.env;
    const variables = parseEnv(flags.env);
    for (const name of Object.keys(variables)) envFromFlags.add(name);
    // Flags add to (and override) the file's variables. A file `env` that is not an object
    // is left as it is, for validation to refuse, rather than merged into something else.
    if (fromFile === undefined || fromFile === null) spec.env = variables;
    else if (typeof fromFile === 'object' && !Array.isArray(fromFile)) spec.env = Object.assign(copyOwn(fromFile), variables);
  }

  const onDrift = flags['on-drift'];
  if (onDrift !== undefined && onDrift !== 'fail' && onDrift !== 'reconfigure') {
    throw new UsageError(`--on-drift must be "fail" or "reconfigure", not "${onDrift}"`);
  }
  const output = flags.output ?? 'text';
  if (output !== 'text' && output !== 'json') throw new UsageError(`--output must be "text" or "json", not "${output}"`);

  return {
    api: apiOptionsFrom(flags),
    spec,
    sources: {
      fromFlags,
      envFromFlags,
      ...(specFile !== undefined ? { specFile } : {}),
      ...(flags.port ? { portFlags: flags.port } : {}),
    },
    timeoutMs: flags.timeout !== undefined ? durationFlag('--timeout', flags.timeout, DURATION_RULES.timeoutMs) : DEFAULT_TIMEOUT_MS,
    ...(flags['progress-deadline'] !== undefined ? { progressDeadlineSeconds: progressDeadline(flags['progress-deadline']) } : {}),
    keepOnFailure: flags['keep-on-failure'] === true,
    output,
    ...(onDrift !== undefined ? { onDrift } : {}),
  };
}

/**
 * The storage flags into `spec.storage`, over the spec file's: --storage-gb makes the
 * volume; the others refine one (the file's, or the flag's).
 */
function storageFromFlags(
  spec: Record<string, unknown>,
  fromFlags: Set<string>,
  flags: { 'storage-gb'?: string; 'storage-class'?: string; persist?: string[]; 'storage-seed'?: string },
): void {
  const given = {
    sizeGb: numberOrText(flags['storage-gb']),
    storageClass: flags['storage-class'],
    paths: flags.persist,
    seed: flags['storage-seed'],
  };
  const named = Object.entries(given).filter(([, value]) => value !== undefined);
  if (named.length === 0) return;
  const fromFile = spec.storage;
  if (given.sizeGb === undefined && (fromFile === undefined || fromFile === null)) {
    throw new UsageError(`${named.map(([field]) => STORAGE_FLAGS[field]).join(' and ')} need --storage-gb: the volume's size in GiB`);
  }
  const storage = fromFile && typeof fromFile === 'object' && !Array.isArray(fromFile) ? copyOwn(fromFile) : {};
  for (const [field, value] of named) {
    storage[field] = value;
    fromFlags.add(`storage.${field}`);
  }
  spec.storage = storage;
}

/** --system-container or --no-system-container into the spec's `systemContainer`; neither: detected. */
export function systemContainerFlag(on: boolean | undefined, off: boolean | undefined): boolean | undefined {
  if (on === true && off === true) throw new UsageError('--system-container and --no-system-container contradict each other: give one');
  if (on === true) return true;
  if (off === true) return false;
  return undefined;
}

function progressDeadline(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new UsageError(`--progress-deadline must be a duration like 90s, 10m or 1h, not "${text}"`);
  const seconds = ms / 1000;
  const problem = progressDeadlineProblem(seconds);
  if (problem) throw new UsageError(`--progress-deadline ${problem}`);
  return seconds;
}

/** --env pairs as an object without a prototype (a name like `__proto__` stays a variable). */
export function parseEnv(pairs: readonly string[]): Record<string, string> {
  const env = Object.create(null) as Record<string, string>;
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    if (separator <= 0) throw new UsageError(`--env must be KEY=VALUE, not "${pair}"`);
    const name = pair.slice(0, separator);
    if (Object.hasOwn(env, name)) throw new UsageError(`--env ${name} is given twice; give each variable once`);
    Object.defineProperty(env, name, { value: pair.slice(separator + 1), enumerable: true, writable: true, configurable: true });
  }
  return env;
}

/** A copy of an object's own enumerable properties, defined (not assigned), on no prototype. */
function copyOwn(source: object): Record<string, unknown> {
  const copy = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(source)) {
    Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/**
 * Numbers become numbers (decimal notation: "2", "0.5", ".5", "1e3"); anything else stays
 * text, so validation names the flag and says what it wanted.
 */
export function numberOrText(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  return /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(trimmed) ? Number(trimmed) : text;
}

function noStdin(): never {
  throw new UsageError('--spec-file - reads stdin, which was not read');
}

function readSpecFile(path: string, readStdin: () => string): Record<string, unknown> {
  let text: string;
  if (path === '-') {
    text = readStdin();
  } else {
    const file = readRegularFile(path);
    if (!file.ok)
      throw new UsageError(`--spec-file ${path} ${file.problem}${file.code === undefined ? `: a spec file must be ${FILE_RULE}` : ''}`);
    text = file.bytes.toString('utf8');
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

/**
 * The error with each issue naming where the user typed the value: the flag (`--memory-mb`,
 * `--env NAME`, `--arg #2`) or the spec file field (`--spec-file field memoryMb`).
 */
export function withFlags(error: InvalidSpecError, sources: InputSources): InvalidSpecError {
  return new InvalidSpecError(
    error.issues.map((issue) => ({ ...issue, flag: flagFor(issue, sources) })),
    error.omittedIssues,
  );
}

function flagFor(issue: SpecIssue, sources: InputSources): string {
  const [field = '', ...rest] = issue.path.split('.');
  const variable = rest.join('.');
  if (field === 'storage') {
    const [storageField = '', index] = rest;
    const storageFlag = STORAGE_FLAGS[storageField];
    if (storageFlag === undefined || !sources.fromFlags.has(`storage.${storageField}`)) return `--spec-file field ${issue.path}`;
    return storageField === 'paths' && index !== undefined && Number.isInteger(Number(index))
      ? `--persist #${Number(index) + 1}`
      : storageFlag;
  }
  if (field === 'env' && rest.length > 0 && sources.envFromFlags.has(variable)) return `--env ${variable}`;
  const flag = FIELD_FLAGS[field];
  if (flag === undefined || field === 'env' || !sources.fromFlags.has(field)) return `--spec-file field ${issue.path || '(root)'}`;
  const index = Number(rest[0]);
  if (field === 'args' && rest.length > 0 && Number.isInteger(index)) return `--arg #${index + 1}`;
  if (field === 'entrypoint' && rest.length > 0 && Number.isInteger(index)) return `--entrypoint (word ${index + 1})`;
  if (field === 'ports') return portFlagFor(issue.path, sources.portFlags ?? []) ?? flag;
  return flag;
}
