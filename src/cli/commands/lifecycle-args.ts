// Flags of `kube-provision start|stop|restart|delete|reconfigure PROVIDER_ID`, kubectl-style
// like create's. The workload is named by its provider ID ("namespace/name"); -n, when
// given, must agree with it. The changes of reconfigure stay raw here:
// parseWorkloadChanges validates them all at once, with creation's field rules.
import { InvalidSpecError, UsageError } from '../../errors/input.js';
import type { KubernetesApiOptions } from '../../kube/kubernetes-api.js';
import { parseProviderId } from '../../input/provider-id.js';
import { DEFAULT_TIMEOUT_MS } from '../../workload/toolkit/operation.js';
import { DURATION_RULES } from '../../input/duration.js';
import { numberOrText, parseEnv } from '../args.js';
import { durationFlag } from '../duration.js';
import { apiOptionsFrom, INSTANCE_FLAG_USAGE, instanceFlag, parseFlags } from './cluster-flags.js';
import { SERVICE_TYPE_FLAG_HELP, portsFromFlags } from '../port-flags.js';
import { KINDS } from '../../kube/kinds.js';

const CLAIM = KINDS.persistentvolumeclaims.kind;

export type LifecycleCommandName = 'start' | 'stop' | 'restart' | 'reconfigure' | 'delete';

export const LIFECYCLE_COMMANDS: ReadonlySet<string> = new Set<LifecycleCommandName>(['start', 'stop', 'restart', 'reconfigure', 'delete']);

export interface LifecycleCommand {
  readonly command: LifecycleCommandName;
  readonly providerId: string;
  readonly api: KubernetesApiOptions;
  readonly timeoutMs: number;
  readonly containerId?: string;
  /** The Manager installation (instance label) the workload belongs to. */
  readonly instance?: string;
  readonly output: 'text' | 'json';
  /** reconfigure only: the changes, as the library takes them (validated later). */
  readonly changes?: Record<string, unknown>;
  readonly rollbackOnFailure?: boolean;
  /** delete only: keep the container's claim and its data (--keep-data). */
  readonly keepData?: boolean;
}

const WHAT: Record<LifecycleCommandName, string> = {
  start:
    'Scale a stopped workload to 1 and wait until its rollout is complete and available.\nA running workload is left as it is (nothing is written).',
  stop: 'Scale a workload to 0 and wait until none of its Pods is left. The diagnosis of a failing\nPod is printed before it goes. A stopped workload is left as it is (nothing is written).',
  restart:
    'Roll out a new Pod from the same pod template (kubectl rollout restart) and wait for it.\nA stopped workload stays stopped (nothing is written).',
  reconfigure:
    'Change the pod template of the same Deployment (same provider ID) and wait for its rollout.\nThe replica count is untouched: a stopped workload stays stopped.',
  delete: `Delete the Deployment and its ${CLAIM}, with the data on it (only if they carry\n--container-id and managed=true), and wait until they and the Pods are gone. A missing workload\nsucceeds at once. --keep-data keeps the claim: a later create of the same container re-attaches it.`,
};

const CHANGE_FLAGS = `Changes (at least one):
      --env KEY=VALUE          set an environment variable (repeatable)
      --unset-env KEY          remove an environment variable (repeatable)
      --cpus N                 CPU cores, fractions down to 0.001
      --memory-mb N            memory in MiB
      --entrypoint "CMD ARGS"  command, split like shell words (quotes respected)
      --arg VALUE              argument after the command (repeatable; replaces the old ones)
      --image REF              OCI image reference, passed to Kubernetes as is
      --storage-gb N           grow the container's volume to N GiB (never shrinks; its StorageClass
                               must allow expansion; the container keeps running)
      --port PORT[/tcp|/udp]   a port of the container's Service (repeatable; the list replaces the old
                               one; only the Service is written when ports are the only change)
      --no-ports               remove every port (and with them the Service)
      --service-type TYPE      the Service's type: ${SERVICE_TYPE_FLAG_HELP}
      --gpus N                 GPUs to request (whole number, request = limit; 0 removes them): a new Pod
                               rolls out, and fails fast (Unschedulable) where no node offers them
      --gpu-resource NAME      the extended resource --gpus counts (default: the one it has, else nvidia.com/gpu)
      --runtime-class NAME     the RuntimeClass the Pod runs with (e.g. nvidia)
      --no-runtime-class       back to the cluster's default RuntimeClass
      --rollback-on-failure    if the new rollout fails, restore the previous pod template and wait for it
`;

export function lifecycleUsage(command: LifecycleCommandName): string {
  return `Usage: kube-provision ${command} PROVIDER_ID [flags]

${WHAT[command]}
PROVIDER_ID is "namespace/name", as create printed it.

${command === 'reconfigure' ? CHANGE_FLAGS : ''}Workload:
      --container-id ID        the Manager container id the Deployment must carry${command === 'delete' ? ' (required)' : ''}
${INSTANCE_FLAG_USAGE}
${command === 'delete' ? `      --keep-data              keep the ${CLAIM} and its data (default: delete it)\n` : ''}Cluster:
      --kubeconfig PATH        kubeconfig (default: $KUBECONFIG, then ~/.kube/config)
      --context NAME           kubeconfig context (default: current-context)
  -n, --namespace NAME         must match the provider ID's namespace when given
      --insecure-skip-tls-verify  do not verify the API server's certificate
      --request-timeout DUR    bound on each API request (default 75s)
Waiting:
      --timeout DUR            bound on the whole operation (default 5m), e.g. 90s, 5m, 1m30s
Output:
  -o, --output text|json       json: one JSON object per line
  -h, --help

Exit codes: 0 done, 2 invalid input, 3 rollout failed, 4 timeout, 5 API or kubeconfig error,
6 conflict (not this container's Deployment), 7 no such workload, 8 superseded by a
concurrent operation, 130 interrupted.`;
}

export function parseLifecycleArgs(command: LifecycleCommandName, argv: readonly string[]): LifecycleCommand | 'help' {
  const reconfigure = command === 'reconfigure';
  const parsed = parseFlags(
    argv,
    {
      'container-id': { type: 'string' },
      instance: { type: 'string' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      namespace: { type: 'string', short: 'n' },
      'insecure-skip-tls-verify': { type: 'boolean' },
      'request-timeout': { type: 'string' },
      timeout: { type: 'string' },
      output: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
      ...(reconfigure
        ? {
            env: { type: 'string', multiple: true },
            'unset-env': { type: 'string', multiple: true },
            cpus: { type: 'string' },
            'memory-mb': { type: 'string' },
            entrypoint: { type: 'string' },
            arg: { type: 'string', multiple: true },
            image: { type: 'string' },
            'storage-gb': { type: 'string' },
            port: { type: 'string', multiple: true },
            'no-ports': { type: 'boolean' },
            'service-type': { type: 'string' },
            gpus: { type: 'string' },
            'gpu-resource': { type: 'string' },
            'runtime-class': { type: 'string' },
            'no-runtime-class': { type: 'boolean' },
            'rollback-on-failure': { type: 'boolean' },
          }
        : {}),
      ...(command === 'delete' ? { 'keep-data': { type: 'boolean' } } : {}),
    },
    true,
  );
  const flags = parsed.values as Record<string, string | string[] | boolean | undefined>;
  if (flags.help) return 'help';

  if (parsed.positionals.length !== 1) {
    throw new UsageError(
      parsed.positionals.length === 0
        ? `${command} needs the workload's provider ID (namespace/name)`
        : `${command} takes one provider ID, got ${parsed.positionals.length}: ${parsed.positionals.join(' ')}`,
    );
  }
  const providerId = parsed.positionals[0] as string;
  const { namespace } = parseProviderId(providerId);
  const namespaceFlag = text(flags.namespace);
  if (namespaceFlag !== undefined && namespaceFlag !== namespace) {
    throw new UsageError(`-n/--namespace ${namespaceFlag} does not match the provider ID's namespace ${namespace}`);
  }
  const containerId = text(flags['container-id']);
  if (command === 'delete' && containerId === undefined) {
    throw new UsageError('delete needs --container-id: the Manager container id the Deployment must carry');
  }
  const output = text(flags.output) ?? 'text';
  if (output !== 'text' && output !== 'json') throw new UsageError(`--output must be "text" or "json", not "${output}"`);
  const timeout = text(flags.timeout);
  const instance = instanceFlag(text(flags.instance));

  return {
    command,
    providerId,
    // The namespace is the provider ID's (-n, when given, must agree with it).
    api: { ...apiOptionsFrom(parsed.values), namespace },
    timeoutMs: timeout !== undefined ? durationFlag('--timeout', timeout, DURATION_RULES.timeoutMs) : DEFAULT_TIMEOUT_MS,
    ...(containerId !== undefined ? { containerId } : {}),
    ...(instance !== undefined ? { instance } : {}),
    output,
    ...(reconfigure ? { changes: changesFrom(flags), rollbackOnFailure: flags['rollback-on-failure'] === true } : {}),
    ...(command === 'delete' ? { keepData: flags['keep-data'] === true } : {}),
  };
}

function changesFrom(flags: Record<string, string | string[] | boolean | undefined>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const env = flags.env as string[] | undefined;
  const unset = flags['unset-env'] as string[] | undefined;
  if (env) changes.env = parseEnv(env);
  if (unset) changes.unsetEnv = unset;
  const cpus = text(flags.cpus);
  const memory = text(flags['memory-mb']);
  if (cpus !== undefined) changes.cpus = numberOrText(cpus);
  if (memory !== undefined) changes.memoryMb = numberOrText(memory);
  const entrypoint = text(flags.entrypoint);
  if (entrypoint !== undefined) changes.entrypoint = entrypoint;
  if (flags.arg) changes.args = flags.arg;
  const image = text(flags.image);
  if (image !== undefined) changes.image = image;
  const ports = portsFromFlags(flags.port as string[] | undefined, flags['no-ports'] === true);
  if (ports !== undefined) changes.ports = ports;
  const serviceType = text(flags['service-type']);
  if (serviceType !== undefined) changes.serviceType = serviceType;
  const storageGb = text(flags['storage-gb']);
  if (storageGb !== undefined) changes.storageGb = numberOrText(storageGb);
  const gpus = text(flags.gpus);
  const gpuResource = text(flags['gpu-resource']);
  if (gpuResource !== undefined && gpus === undefined) throw new UsageError('--gpu-resource names what --gpus counts: give --gpus too');
  if (gpus !== undefined) changes.gpus = numberOrText(gpus);
  if (gpuResource !== undefined) changes.gpuResource = gpuResource;
  const runtimeClass = text(flags['runtime-class']);
  if (runtimeClass !== undefined && flags['no-runtime-class'] === true) {
    throw new UsageError('--runtime-class and --no-runtime-class contradict each other: give one');
  }
  if (runtimeClass !== undefined) changes.runtimeClass = runtimeClass;
  if (flags['no-runtime-class'] === true) changes.runtimeClass = null;
  if (Object.keys(changes).length === 0) {
    throw new UsageError(
      'reconfigure needs at least one change: --env, --unset-env, --cpus, --memory-mb, --entrypoint, --arg, --image, --port, --no-ports, --service-type, --storage-gb, --gpus, --runtime-class or --no-runtime-class',
    );
  }
  return changes;
}

function text(value: string | string[] | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The reconfigure flag of each field of the changes. */
const CHANGE_FIELD_FLAGS: Readonly<Record<string, string>> = {
  cpus: '--cpus',
  memoryMb: '--memory-mb',
  entrypoint: '--entrypoint',
  image: '--image',
  storageGb: '--storage-gb',
  ports: '--port',
  serviceType: '--service-type',
  gpus: '--gpus',
  gpuResource: '--gpu-resource',
  runtimeClass: '--runtime-class',
};

/** The changes came from flags: each issue names the flag (`--gpus`, `--env NAME`, `--arg #2`), not the field. */
export function withChangeFlags(error: InvalidSpecError): InvalidSpecError {
  return new InvalidSpecError(
    error.issues.map((issue) => {
      const [field = '', ...rest] = issue.path.split('.');
      const index = Number(rest[0]);
      const flag =
        field === 'env' && rest.length > 0
          ? `--env ${rest.join('.')}`
          : field === 'unsetEnv' && Number.isInteger(index)
            ? `--unset-env #${index + 1}`
            : field === 'args' && Number.isInteger(index)
              ? `--arg #${index + 1}`
              : CHANGE_FIELD_FLAGS[field];
      return flag === undefined ? issue : { ...issue, flag };
    }),
    error.omittedIssues,
  );
}
