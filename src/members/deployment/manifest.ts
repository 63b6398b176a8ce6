// The Deployment for one Manager container, as a pure function of its spec: same input,
// deep-equal output (no clock, no randomness), and no undefined fields, so the object
// equals its own JSON round trip.

import type { V1Container, V1Deployment, V1EnvVar, V1PodSpec } from '../../kube/objects.js';
import { InvalidOptionError, InvalidSpecError } from '../../errors/input.js';
import { namespaceProblem } from '../../input/fields.js';
import { DEFAULT_NAMESPACE } from '../../input/names.js';
import type { WorkloadSpec } from '../../input/workload-spec.js';
import { CONTAINER_ID_LABEL, INSTANCE_LABEL, ownershipLabels } from '../../input/labels.js';
import { cpuQuantity, memoryQuantity } from '../../input/quantities.js';
import { minReadySecondsProblem, progressDeadlineProblem } from '../../input/duration.js';
import { withStorage } from '../claim/manifest.js';
import { withSystemContainer } from './system-manifest.js';
import { isSystemContainer } from '../../input/system-container.js';

/** Kubernetes' own default: a rollout without progress for 10 minutes is Failed. */
export const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;

/**
 * A new Pod counts as available only after it has been Ready this long without a crash. A
 * container without a readiness probe is Ready the moment it starts: one that exits at
 * once (a bad config, an OOM kill) is reported Ready until the kubelet reports the exit,
 * about a second later on a real kubelet, and with 0 (Kubernetes' default) the rollout
 * completes in that moment. The Ready condition's time is whole seconds, so the controller
 * may count a Pod available up to a second early: 2 still let such a container through now
 * and then; 3 keeps it Ready for more than two seconds first.
 */
export const DEFAULT_MIN_READY_SECONDS = 3;

export const MANAGED_BY = 'kube-provisioner';

/**
 * The largest manifest we send, in bytes of JSON: below what etcd stores (larger creates
 * fail after the request, with a 500), with room for the controllers' status and the
 * server's managedFields. docs/reliability.md has the limits and the shapes tried.
 */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

export interface BuildDeploymentOptions {
  /** Used when the spec names no namespace (e.g. the node's configured namespace). */
  namespace?: string;
  progressDeadlineSeconds?: number;
  /** Default DEFAULT_MIN_READY_SECONDS; less than progressDeadlineSeconds. */
  minReadySeconds?: number;
  /**
   * The cluster keeps a container's `lifecycle.stopSignal` (Kubernetes' ContainerStopSignals
   * feature): a system container then names systemd's stop signal in its Pod as well as in
   * its image. Default false.
   */
  stopSignals?: boolean;
  /** A system container's startup probe bound, whole seconds (default DEFAULT_SYSTEM_STARTUP_SECONDS). */
  startupSeconds?: number;
}

/** The spec's namespace wins over the configured one; `default` is the last resort. */
export function effectiveNamespace(spec: Pick<WorkloadSpec, 'namespace'>, options: BuildDeploymentOptions = {}): string {
  const namespace = spec.namespace ?? options.namespace ?? DEFAULT_NAMESPACE;
  const problem = namespaceProblem(namespace);
  if (problem) throw new InvalidSpecError([{ path: 'namespace', message: problem }]);
  return namespace;
}

/** Labels for the Deployment and its pod template: ownership plus the recommended app labels. */
export function workloadLabels(spec: Pick<WorkloadSpec, 'containerId' | 'nodeId' | 'hostname' | 'instance'>): Record<string, string> {
  return {
    ...ownershipLabels(spec),
    'app.kubernetes.io/name': spec.hostname,
    'app.kubernetes.io/managed-by': MANAGED_BY,
  };
}

/** Environment variables sorted by name, so the manifest never depends on key order. */
export function envVars(env: Readonly<Record<string, string>>): V1EnvVar[] {
  return Object.keys(env)
    .sort()
    .map((name) => ({ name, value: env[name] as string }));
}

function container(spec: WorkloadSpec): V1Container {
  const env = envVars(spec.env);
  // Requests equal limits: the pod gets Guaranteed QoS, so the amount Manager approved is
  // both reserved on the node and the ceiling the container can use.
  const resources: Record<string, string> = { cpu: cpuQuantity(spec.cpus), memory: memoryQuantity(spec.memoryMb) };
  // Extended resources are whole units with the request equal to the limit.
  if (spec.gpus !== undefined && spec.gpuResource !== undefined) resources[spec.gpuResource] = String(spec.gpus);
  return {
    name: spec.hostname,
    // Exactly as given: Kubernetes and the container runtime resolve and pull it.
    image: spec.image,
    ...(spec.entrypoint ? { command: [...spec.entrypoint] } : {}),
    ...(spec.args ? { args: [...spec.args] } : {}),
    ...(env.length > 0 ? { env } : {}),
    resources: { limits: { ...resources }, requests: { ...resources } },
  };
}

function progressDeadline(options: BuildDeploymentOptions): number {
  const seconds = options.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS;
  const problem = progressDeadlineProblem(seconds);
  if (problem) throw new InvalidOptionError('progressDeadlineSeconds', `progressDeadlineSeconds ${problem}`);
  return seconds;
}

/** The API server requires progressDeadlineSeconds > minReadySeconds. */
function minReady(options: BuildDeploymentOptions, deadlineSeconds: number): number {
  const seconds = options.minReadySeconds ?? Math.min(DEFAULT_MIN_READY_SECONDS, deadlineSeconds - 1);
  const problem = minReadySecondsProblem(seconds);
  if (problem) throw new InvalidOptionError('minReadySeconds', `minReadySeconds ${problem}`);
  if (seconds >= deadlineSeconds) {
    throw new InvalidOptionError(
      'minReadySeconds',
      `minReadySeconds must be less than progressDeadlineSeconds (${seconds} >= ${deadlineSeconds})`,
    );
  }
  return seconds;
}

/** The Deployment's pod selector: the workload's identity. */
export function selectorLabels(spec: Pick<WorkloadSpec, 'containerId' | 'instance'>): Record<string, string> {
  return {
    [CONTAINER_ID_LABEL]: spec.containerId,
    ...(spec.instance !== undefined ? { [INSTANCE_LABEL]: spec.instance } : {}),
  };
}

/**
 * Throws InvalidSpecError when the manifest's JSON is larger than MAX_MANIFEST_BYTES, naming
 * the spec field that takes the most room: the API server or etcd would refuse it anyway,
 * after the request.
 */
export function checkManifestSize(manifest: V1Deployment, spec: WorkloadSpec): void {
  const bytes = Buffer.byteLength(JSON.stringify(manifest));
  if (bytes <= MAX_MANIFEST_BYTES) return;
  const sizes: [string, number][] = [
    ['env', Buffer.byteLength(JSON.stringify(spec.env))],
    ['entrypoint', Buffer.byteLength(JSON.stringify(spec.entrypoint ?? []))],
    ['args', Buffer.byteLength(JSON.stringify(spec.args ?? []))],
    ['image', Buffer.byteLength(spec.image)],
  ];
  const [largest, largestBytes] = sizes.reduce((a, b) => (b[1] > a[1] ? b : a));
  throw new InvalidSpecError([
    {
      path: largest,
      message: `makes the Deployment ${bytes} bytes of JSON, more than the ${MAX_MANIFEST_BYTES} bytes allowed (this field takes ${largestBytes})`,
    },
  ]);
}

/** The apps/v1 Deployment that runs one Manager container as a single "pet" replica. */
export function buildDeployment(spec: WorkloadSpec, options: BuildDeploymentOptions = {}): V1Deployment {
  const namespace = effectiveNamespace(spec, options);
  const progressDeadlineSeconds = progressDeadline(options);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: spec.hostname, namespace, labels: workloadLabels(spec) },
    spec: {
      replicas: 1,
      // The selector is immutable once created, so it keys on identity only: the
      // container-id label, which never changes for a Manager record, and the instance
      // label when there is one, so two Managers' Deployments in one namespace never
      // select (or fight over) each other's Pods even with equal container IDs.
      selector: { matchLabels: selectorLabels(spec) },
      // Never two copies at once: the old Pod is gone before a new one starts.
      strategy: { type: 'Recreate' },
      // Only one replica ever runs; a couple of old ReplicaSets are enough to see what
      // changed without piling up empty ReplicaSets on every reconfiguration.
      revisionHistoryLimit: 2,
      progressDeadlineSeconds,
      // Ready for a moment is not running: see DEFAULT_MIN_READY_SECONDS.
      minReadySeconds: minReady(options, progressDeadlineSeconds),
      template: {
        metadata: { labels: workloadLabels(spec) },
        spec: podSpec(spec, options),
      },
    },
  };
}

function podSpec(spec: WorkloadSpec, options: BuildDeploymentOptions): V1PodSpec {
  const plain: V1PodSpec = {
    // Same hostname inside the container as the LXC had.
    hostname: spec.hostname,
    // No surprise *_SERVICE_HOST variables from other Services in the namespace.
    enableServiceLinks: false,
    // The user's workload gets no credentials for the Kubernetes API.
    automountServiceAccountToken: false,
    ...(spec.runtimeClass !== undefined ? { runtimeClassName: spec.runtimeClass } : {}),
    ...(spec.hostUsers !== undefined ? { hostUsers: spec.hostUsers } : {}),
    containers: [container(spec)],
  };
  // An init system as PID 1 gets what it needs to boot (docs/system-containers.md).
  const pod = isSystemContainer(spec)
    ? withSystemContainer(plain, spec, {
        ...(options.stopSignals !== undefined ? { stopSignals: options.stopSignals } : {}),
        ...(options.startupSeconds !== undefined ? { startupSeconds: options.startupSeconds } : {}),
      })
    : plain;
  // The claim as a volume, the persisted paths mounted, and their seeding (docs/storage.md).
  return spec.storage ? withStorage(pod, { ...spec, storage: spec.storage }) : pod;
}
