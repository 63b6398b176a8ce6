// Builders for V1Deployment and V1Pod objects shaped the way the deployment controller,
// the ReplicaSet controller, the scheduler and the kubelet write them: the condition
// types, reasons and message wording are the ones those components use, Pods carry an
// ownerReference to their ReplicaSet and the pod-template-hash label, and container
// statuses hold waiting/running/terminated states with the kubelet's reasons.
//
// Every builder takes overrides and returns a fresh object, so tests can derive one
// state from another without sharing mutable data.
import type {
  V1ContainerState,
  V1ContainerStatus,
  V1Deployment,
  V1DeploymentCondition,
  V1Pod,
  V1PodCondition,
} from '@kubernetes/client-node';

export const NAMESPACE = 'default';
export const DEPLOYMENT = 'web';
export const HASH = '7c9f5d';
export const OLD_HASH = '5b6d8c';
export const IMAGE = 'registry.example.com/manager:1.4.2';

/** A fixed instant; conditions and states use it so objects compare equal across builds. */
export const T0 = new Date('2025-01-15T10:00:00Z');

export function replicaSetName(deployment = DEPLOYMENT, hash = HASH): string {
  return `${deployment}-${hash}`;
}

// ---- Deployment conditions, worded as pkg/controller/deployment/util writes them -------

function condition(type: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string): V1DeploymentCondition {
  return { type, status, reason, message, lastUpdateTime: T0, lastTransitionTime: T0 };
}

export const conditions = {
  /** Progressing=True NewReplicaSetCreated: the controller just created the new ReplicaSet. */
  newReplicaSetCreated: (rs = replicaSetName()) =>
    condition('Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set "${rs}"`),
  /** Progressing=True FoundNewReplicaSet: an existing ReplicaSet matches the template. */
  foundNewReplicaSet: (rs = replicaSetName()) => condition('Progressing', 'True', 'FoundNewReplicaSet', `Found new replica set "${rs}"`),
  /** Progressing=True ReplicaSetUpdated: the rollout is making progress. */
  replicaSetUpdated: (rs = replicaSetName()) => condition('Progressing', 'True', 'ReplicaSetUpdated', `ReplicaSet "${rs}" is progressing.`),
  /** Progressing=True NewReplicaSetAvailable: the rollout is complete. */
  newReplicaSetAvailable: (rs = replicaSetName()) =>
    condition('Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${rs}" has successfully progressed.`),
  /** Progressing=False ProgressDeadlineExceeded. */
  progressDeadlineExceeded: (rs = replicaSetName()) =>
    condition('Progressing', 'False', 'ProgressDeadlineExceeded', `ReplicaSet "${rs}" has timed out progressing.`),
  /** Progressing=False ReplicaSetCreateError. */
  replicaSetCreateError: (
    rs = replicaSetName(),
    cause = `replicasets.apps "${rs}" is forbidden: exceeded quota: object-counts, requested: count/replicasets.apps=1, used: count/replicasets.apps=10, limited: count/replicasets.apps=10`,
  ) => condition('Progressing', 'False', 'ReplicaSetCreateError', `Failed to create new replica set "${rs}": ${cause}`),
  /** Progressing=Unknown DeploymentPaused. */
  deploymentPaused: () => condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused'),
  /** Available=True MinimumReplicasAvailable. */
  available: () => condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
  /** Available=False MinimumReplicasUnavailable. */
  unavailable: () => condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'),
  /** ReplicaFailure=True FailedCreate: the ReplicaSet controller cannot create Pods (quota). */
  replicaFailure: (message = quotaMessage()) => condition('ReplicaFailure', 'True', 'FailedCreate', message),
};

/** The admission error the ReplicaSet controller copies into its FailedCreate condition. */
export function quotaMessage(rs = replicaSetName()): string {
  return (
    `pods "${rs}-" is forbidden: exceeded quota: compute-resources, requested: limits.memory=2Gi, ` +
    'used: limits.memory=7Gi, limited: limits.memory=8Gi'
  );
}

/** A transient create error: the controller's Pod create while the API server restarts. */
export const API_SERVER_RESTART_CREATE_ERROR =
  'Post "https://127.0.0.1:25244/api/v1/namespaces/default/pods": failed to get token for kube-system/replicaset-controller: timed out waiting for the condition';

// ---- Deployments ------------------------------------------------------------------------

export interface DeploymentOptions {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly generation?: number;
  /** undefined: no status at all (as returned by create). Defaults to `generation`. */
  readonly observedGeneration?: number | null;
  /** spec.replicas; default 1. */
  readonly replicas?: number;
  /** status.replicas; default: `replicas`. */
  readonly statusReplicas?: number;
  readonly updatedReplicas?: number;
  readonly readyReplicas?: number;
  readonly availableReplicas?: number;
  /** Default: the conditions of a completed rollout (Available=True, NewReplicaSetAvailable). */
  readonly conditions?: readonly V1DeploymentCondition[];
  readonly paused?: boolean;
  /** spec.progressDeadlineSeconds; default 600 (the API default); null leaves it unset. */
  readonly progressDeadlineSeconds?: number | null;
  readonly minReadySeconds?: number;
  readonly deletionTimestamp?: Date;
  readonly resourceVersion?: string;
  readonly labels?: Record<string, string>;
  readonly image?: string;
}

/**
 * A Deployment as the API server returns it after the controller has synced. With no
 * options it is a completed 1-replica rollout; override counts and conditions to build
 * any intermediate state.
 */
export function deployment(options: DeploymentOptions = {}): V1Deployment {
  const name = options.name ?? DEPLOYMENT;
  const generation = options.generation ?? 1;
  const replicas = options.replicas ?? 1;
  const labels = options.labels ?? { app: name };
  const rs = replicaSetName(name);
  const observed = options.observedGeneration === undefined ? generation : options.observedGeneration;
  const statusReplicas = options.statusReplicas ?? replicas;
  const updated = options.updatedReplicas ?? replicas;
  const ready = options.readyReplicas ?? replicas;
  const available = options.availableReplicas ?? replicas;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: options.namespace ?? NAMESPACE,
      uid: options.uid ?? '5f0c3a52-8d0e-4b8e-9c33-2f1e0b7a4d11',
      resourceVersion: options.resourceVersion ?? String(1000 + generation),
      generation,
      creationTimestamp: T0,
      labels: { ...labels },
      annotations: { 'deployment.kubernetes.io/revision': String(generation) },
      ...(options.deletionTimestamp ? { deletionTimestamp: options.deletionTimestamp } : {}),
    },
    spec: {
      replicas,
      selector: { matchLabels: { ...labels } },
      template: {
        metadata: { labels: { ...labels } },
        spec: { containers: [{ name: 'manager', image: options.image ?? IMAGE }] },
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: 10,
      ...(options.progressDeadlineSeconds === null ? {} : { progressDeadlineSeconds: options.progressDeadlineSeconds ?? 600 }),
      ...(options.minReadySeconds !== undefined ? { minReadySeconds: options.minReadySeconds } : {}),
      ...(options.paused ? { paused: true } : {}),
    },
    ...(observed === null
      ? {}
      : {
          status: {
            observedGeneration: observed,
            replicas: statusReplicas,
            updatedReplicas: updated,
            readyReplicas: ready,
            availableReplicas: available,
            unavailableReplicas: Math.max(0, replicas - available),
            conditions: (options.conditions ?? [conditions.available(), conditions.newReplicaSetAvailable(rs)]).map((c) => ({ ...c })),
          },
        }),
  };
}

/** A Deployment as create returns it: generation 1, no status yet. */
export function createdDeployment(options: Omit<DeploymentOptions, 'observedGeneration'> = {}): V1Deployment {
  return deployment({ ...options, observedGeneration: null });
}

/**
 * The first status the controller writes after creating the ReplicaSet: Pods requested,
 * none ready, Available=False, Progressing ReplicaSetUpdated.
 */
export function progressingDeployment(options: DeploymentOptions = {}): V1Deployment {
  const rs = replicaSetName(options.name ?? DEPLOYMENT);
  return deployment({
    readyReplicas: 0,
    availableReplicas: 0,
    conditions: [conditions.unavailable(), conditions.replicaSetUpdated(rs)],
    ...options,
  });
}

// ---- Container states, as the kubelet reports them -------------------------------------

export const states = {
  waiting: (reason: string, message?: string): V1ContainerState => ({
    waiting: { reason, ...(message !== undefined ? { message } : {}) },
  }),
  running: (startedAt = T0): V1ContainerState => ({ running: { startedAt } }),
  terminated: (exitCode: number, reason = exitCode === 0 ? 'Completed' : 'Error', message?: string): V1ContainerState => ({
    terminated: {
      exitCode,
      reason,
      startedAt: T0,
      finishedAt: new Date(T0.getTime() + 5_000),
      containerID: 'containerd://0f3c9a1d2e4b',
      ...(message !== undefined ? { message } : {}),
    },
  }),
};

export interface ContainerStatusOptions {
  readonly name?: string;
  readonly image?: string;
  readonly ready?: boolean;
  readonly restartCount?: number;
  readonly state?: V1ContainerState;
  readonly lastState?: V1ContainerState;
}

export function containerStatus(options: ContainerStatusOptions = {}): V1ContainerStatus {
  const state = options.state ?? states.running();
  return {
    name: options.name ?? 'manager',
    image: options.image ?? IMAGE,
    imageID: state.running || state.terminated ? `${IMAGE}@sha256:3f1d5e7a9b` : '',
    ready: options.ready ?? false,
    restartCount: options.restartCount ?? 0,
    started: Boolean(state.running),
    state,
    lastState: options.lastState ?? {},
    ...(state.running || state.terminated ? { containerID: 'containerd://0f3c9a1d2e4b' } : {}),
  };
}

// ---- Pods -----------------------------------------------------------------------------

export interface PodOptions {
  readonly name?: string;
  readonly namespace?: string;
  readonly deployment?: string;
  /** pod-template-hash; the Pod is owned by ReplicaSet `<deployment>-<hash>`. */
  readonly hash?: string;
  readonly phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  /** null: not bound to a node yet. */
  readonly nodeName?: string | null;
  readonly conditions?: readonly V1PodCondition[];
  readonly containerStatuses?: readonly V1ContainerStatus[];
  readonly initContainerStatuses?: readonly V1ContainerStatus[];
  /** Spec init containers; `restartPolicy: 'Always'` makes one a native sidecar. */
  readonly initContainers?: readonly { name: string; restartPolicy?: string }[];
  readonly reason?: string;
  readonly message?: string;
  readonly deletionTimestamp?: Date;
  readonly labels?: Record<string, string>;
}

let podCounter = 0;

function podCondition(type: string, status: 'True' | 'False', reason?: string, message?: string): V1PodCondition {
  return {
    type,
    status,
    lastTransitionTime: T0,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

export const podConditions = {
  scheduled: () => podCondition('PodScheduled', 'True'),
  unschedulable: (message: string) => podCondition('PodScheduled', 'False', 'Unschedulable', message),
  initialized: (done: boolean) =>
    done ? podCondition('Initialized', 'True') : podCondition('Initialized', 'False', 'ContainersNotInitialized'),
  ready: (ready: boolean) =>
    ready
      ? podCondition('Ready', 'True')
      : podCondition('Ready', 'False', 'ContainersNotReady', 'containers with unready status: [manager]'),
  containersReady: (ready: boolean) =>
    ready
      ? podCondition('ContainersReady', 'True')
      : podCondition('ContainersReady', 'False', 'ContainersNotReady', 'containers with unready status: [manager]'),
};

/** The scheduler's message when no node fits. */
export const UNSCHEDULABLE_MESSAGE =
  '0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: ' +
  '3 No preemption victims found for incoming pod.';

/**
 * A Pod of the Deployment's ReplicaSet. Without options: bound to a node, phase Running,
 * one running container that is not ready yet. Use the named builders below for the
 * usual states.
 */
export function pod(options: PodOptions = {}): V1Pod {
  const deploymentName = options.deployment ?? DEPLOYMENT;
  const hash = options.hash ?? HASH;
  const rs = replicaSetName(deploymentName, hash);
  const name = options.name ?? `${rs}-${suffix(++podCounter)}`;
  const containerStatuses = options.containerStatuses ?? [containerStatus()];
  const allReady = containerStatuses.length > 0 && containerStatuses.every((c) => c.ready);
  const nodeName = options.nodeName === null ? undefined : (options.nodeName ?? 'worker-1');
  const conditions =
    options.conditions ??
    (nodeName
      ? [podConditions.initialized(true), podConditions.ready(allReady), podConditions.containersReady(allReady), podConditions.scheduled()]
      : []);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: `${rs}-`,
      namespace: options.namespace ?? NAMESPACE,
      uid: `0b1c2d3e-0000-4000-8000-${String(podCounter).padStart(12, '0')}`,
      resourceVersion: String(2000 + podCounter),
      creationTimestamp: T0,
      labels: { app: deploymentName, 'pod-template-hash': hash, ...options.labels },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: rs,
          uid: `9a8b7c6d-0000-4000-8000-${hash.padStart(12, '0')}`,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      ...(options.deletionTimestamp ? { deletionTimestamp: options.deletionTimestamp } : {}),
    },
    spec: {
      containers: [{ name: 'manager', image: IMAGE }],
      ...(options.initContainers ? { initContainers: options.initContainers.map((c) => ({ image: IMAGE, ...c })) } : {}),
      ...(nodeName ? { nodeName } : {}),
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
    },
    status: {
      phase: options.phase ?? (nodeName ? 'Running' : 'Pending'),
      qosClass: 'Burstable',
      conditions: conditions.map((c) => ({ ...c })),
      ...(nodeName ? { hostIP: '10.0.0.11', podIP: '10.244.1.17', startTime: T0 } : {}),
      ...(containerStatuses.length > 0 ? { containerStatuses: [...containerStatuses] } : {}),
      ...(options.initContainerStatuses ? { initContainerStatuses: [...options.initContainerStatuses] } : {}),
      ...(options.reason ? { reason: options.reason } : {}),
      ...(options.message ? { message: options.message } : {}),
    },
  };
}

function suffix(n: number): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  let value = n * 7919 + 104729;
  for (let i = 0; i < 5; i++) {
    out += alphabet[value % alphabet.length];
    value = Math.floor(value / alphabet.length);
  }
  return out;
}

/** Just created by the ReplicaSet controller: not bound to a node, no conditions yet. */
export function pendingPod(options: PodOptions = {}): V1Pod {
  return pod({ nodeName: null, conditions: [], containerStatuses: [], phase: 'Pending', ...options });
}

/** The scheduler found no node: PodScheduled=False Unschedulable with its message. */
export function unschedulablePod(message = UNSCHEDULABLE_MESSAGE, options: PodOptions = {}): V1Pod {
  return pod({
    nodeName: null,
    phase: 'Pending',
    conditions: [podConditions.unschedulable(message)],
    containerStatuses: [],
    ...options,
  });
}

/** Bound to a node, the kubelet is pulling the image / creating the container. */
export function containerCreatingPod(options: PodOptions = {}): V1Pod {
  return pod({
    phase: 'Pending',
    containerStatuses: [containerStatus({ state: states.waiting('ContainerCreating') })],
    ...options,
  });
}

export interface WaitingPodOptions extends PodOptions {
  readonly container?: string;
  readonly restartCount?: number;
  readonly lastState?: V1ContainerState;
}

/** One container waiting with the kubelet's reason and message (ErrImagePull, CrashLoopBackOff, ...). */
export function waitingPod(reason: string, message?: string, options: WaitingPodOptions = {}): V1Pod {
  const { container, restartCount, lastState, ...podOptions } = options;
  const started = (restartCount ?? 0) > 0;
  return pod({
    phase: started ? 'Running' : 'Pending',
    containerStatuses: [
      containerStatus({
        ...(container ? { name: container } : {}),
        state: states.waiting(reason, message),
        restartCount: restartCount ?? 0,
        ...(lastState ? { lastState } : {}),
      }),
    ],
    ...podOptions,
  });
}

/** Running, not ready (readiness probe not yet passing). */
export function runningPod(options: PodOptions & { restartCount?: number; lastState?: V1ContainerState } = {}): V1Pod {
  const { restartCount, lastState, ...podOptions } = options;
  return pod({
    containerStatuses: [containerStatus({ ready: false, restartCount: restartCount ?? 0, ...(lastState ? { lastState } : {}) })],
    ...podOptions,
  });
}

/** Running and ready. */
export function readyPod(options: PodOptions = {}): V1Pod {
  return pod({ containerStatuses: [containerStatus({ ready: true })], ...options });
}

/** The container has exited and not been restarted yet. */
export function terminatedPod(exitCode: number, reason?: string, options: PodOptions = {}): V1Pod {
  return pod({ containerStatuses: [containerStatus({ state: states.terminated(exitCode, reason) })], ...options });
}

/** The kubelet's eviction message under memory pressure. */
export const EVICTION_MESSAGE =
  'The node was low on resource: memory. Threshold quantity: 100Mi, available: 91Mi. ' +
  'Container manager was using 1203Mi, request is 512Mi, has larger consumption of its request. ';

/** Evicted by the kubelet: phase Failed, reason Evicted. */
export function evictedPod(message = EVICTION_MESSAGE, options: PodOptions = {}): V1Pod {
  return pod({
    phase: 'Failed',
    reason: 'Evicted',
    message,
    containerStatuses: [containerStatus({ state: states.terminated(137, 'ContainerStatusUnknown') })],
    ...options,
  });
}

// ---- kubelet messages -------------------------------------------------------------------

export const kubeletMessages = {
  imageNotFound: (image = 'docker.io/library/nginx:does-not-exist') =>
    `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference ` +
    `"${image}": ${image}: not found`,
  manifestUnknown: (image = 'registry.example.com/manager:9.9.9') =>
    `rpc error: code = Unknown desc = failed to pull and unpack image "${image}": failed to resolve reference ` +
    `"${image}": unexpected status from HEAD request to https://registry.example.com/v2/manager/manifests/9.9.9: ` +
    'manifest unknown: manifest unknown',
  registryUnavailable: (image = IMAGE) =>
    `rpc error: code = Unknown desc = failed to pull and unpack image "${image}": failed to copy: httpReadSeeker: ` +
    'failed open: unexpected status code https://registry.example.com/v2/manager/blobs/sha256:9b2e4c: ' +
    '503 Service Unavailable',
  backOffPulling: (image = IMAGE) => `Back-off pulling image "${image}"`,
  invalidImageName: (image = 'Registry.Example.com/Manager:Latest') =>
    `Failed to apply default image tag "${image}": couldn't parse image reference "${image}": ` +
    'invalid reference format: repository name must be lowercase',
  crashLoop: (podName: string, container = 'manager', seconds = 10) =>
    `back-off ${seconds}s restarting failed container=${container} pod=${podName}_${NAMESPACE}(0b1c2d3e-0000-4000-8000-000000000001)`,
  secretNotFound: (secret = 'manager-env') => `secret "${secret}" not found`,
  createContainerError: () =>
    'failed to generate container "0f3c9a1d" spec: failed to generate spec: path "/data" is mounted on "/" ' +
    'but it is not a shared or slave mount',
  runContainerError: () =>
    'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create ' +
    'failed: unable to start container process: exec: "/bin/manager": stat /bin/manager: no such file or ' +
    'directory: unknown',
};
