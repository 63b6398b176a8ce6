// workloadStatus(): one Deployment and its Pods in, one status in Manager's words out
// (kstatus style: a value, never an exception). The table, in order:
//
//   no Deployment, or not ours (no managed=true, no container-id,
//     or another container-id than expected)             missing
//   being deleted                                         stopping
//   replicas 0, no Pod left and no replica counted        offline  (absent counts are 0)
//   replicas 0, Pods left                                  stopping
//   rollout Complete (rolloutStatus)                       running
//   rollout Failed, or the failure policy names a Pod
//     problem or a final create refusal                   failed   (with the diagnosis)
//   rollout in progress, no failure                        creating / starting / updating
//
// In progress, which word: an episode that started with one word keeps it until it
// ends (`previous`, same generation); otherwise `starting` when the replicas went from 0
// to more (or the template that was available before is coming back up: a crashed or
// rescheduled Pod), `updating` when the pod template changed, `creating` for the first
// rollout of a new Deployment. Without `previous`, one snapshot decides: the controller's
// Progressing reason NewReplicaSetAvailable means this template was available before
// (starting); generation 1 means nothing changed since the create (creating); revision 1
// means the template never changed, so the replicas did (starting); else updating.
//
// API unreachable (`unknown`) is not a fact about objects: see unknownStatus().
import type { V1Container, V1Deployment, V1EndpointSlice, V1Pod, V1Service } from '../kube/objects.js';
import { routedPodOf, serviceStatus, type ServiceStatusValue } from './service-status.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL } from '../input/labels.js';
import { oneLine } from '../text.js';
import { describeProgress } from './describe-progress.js';
import type { PodDiagnosis, ReplicaCounts, RolloutStatus } from './events.js';
import {
  DEFAULT_FAILURE_POLICY,
  INITIAL_POLICY_STATE,
  applyCreateFailurePolicy,
  applyFailurePolicy,
  type FailurePolicy,
} from './failure-policy.js';
import { diagnosePod } from './pod-diagnosis.js';
import { currentRolloutPods } from './rollout-pods.js';
import { rolloutStatus } from './rollout-status.js';

/** The deployment controller's count of pod templates a Deployment has had ("1", "2", ...). */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';

/** Manager's status words. */
export type WorkloadState = 'running' | 'offline' | 'stopping' | 'creating' | 'starting' | 'updating' | 'failed' | 'missing' | 'unknown';

export interface WorkloadResources {
  /** The container's CPU limit (our Deployments set requests = limits), e.g. "500m". */
  readonly cpu: string | null;
  /** The container's memory limit, e.g. "256Mi". */
  readonly memory: string | null;
}

export interface WorkloadStatusValue {
  readonly state: WorkloadState;
  /** Short machine-readable reason: NewReplicaSetAvailable, ScaledToZero, ImagePullBackOff, NotFound, ApiUnreachable, ... */
  readonly reason: string;
  /** One line for a human. */
  readonly message: string;
  /**
   * The IP of the current Ready Pod, null when none is Ready. Temporary: it changes on
   * every restart, reschedule and rollout; show it, never key anything by it.
   */
  readonly podIp: string | null;
  /** The node of the Pod shown (the Ready one, else the newest rollout's). */
  readonly nodeName: string | null;
  /** Container restarts of that Pod. */
  readonly restarts: number;
  /** The image of the pod template (what the Deployment asks for). */
  readonly image: string | null;
  readonly resources: WorkloadResources;
  /** metadata.generation: bumped by every change to the Deployment's spec. */
  readonly generation: number;
  /** The generation the deployment controller has acted on. */
  readonly observedGeneration: number;
  /** Desired and counted replicas (absent counts are 0). */
  readonly replicas: ReplicaCounts;
  /** What a Pod is doing or why it cannot run, in the kubelet's or scheduler's words. */
  readonly pod?: PodDiagnosis;
  /**
   * The address Manager's agent connects to: the workload's Service's (ClusterIP, load
   * balancer, NodePort node address), the same across stop, start, restart and
   * reconfigure. null for a workload without ports (no Service), or before a load balancer
   * assigned one.
   */
  readonly address: string | null;
  /** The Service: type, address, ports, and whether it routes to the Ready Pod now. null without ports. */
  readonly service: ServiceStatusValue | null;
}

/** What the failure policy concluded over time (statuses$ tracks it per workload). */
export interface FailureJudgement {
  /** The Pod problem the policy declared fatal, if any. */
  readonly podFailure?: PodDiagnosis;
  /** The controllers' create failure is final (quota, admission, ...) or lasted its grace window. */
  readonly createFailureFatal?: boolean;
}

export interface WorkloadStatusOptions {
  /** The container-id the caller expects; a Deployment with another one is not ours. */
  readonly containerId?: string;
  readonly failurePolicy?: FailurePolicy;
  /** The last status of the same Deployment (same UID), if the caller keeps one. */
  readonly previous?: WorkloadStatusValue;
  /**
   * The failure policy applied over time by the caller. Without it this snapshot alone is
   * judged: the reasons that fail at once, a crash loop's restart count, and create
   * refusals that are final; grace windows need a history.
   */
  readonly judgement?: FailureJudgement;
  /** The workload's Service, if it has one (a container with ports). */
  readonly service?: V1Service;
  /** That Service's EndpointSlices. */
  readonly slices?: readonly V1EndpointSlice[];
}

const NO_REPLICAS: ReplicaCounts = Object.freeze({ desired: 0, total: 0, updated: 0, ready: 0, available: 0 });
const NO_SLICES: readonly V1EndpointSlice[] = Object.freeze([]);
const NO_RESOURCES: WorkloadResources = Object.freeze({ cpu: null, memory: null });
const IN_PROGRESS: ReadonlySet<WorkloadState> = new Set(['creating', 'starting', 'updating']);

export function workloadStatus(
  deployment: V1Deployment | undefined,
  pods: readonly V1Pod[],
  options: WorkloadStatusOptions = {},
): WorkloadStatusValue {
  if (!deployment) return notOurs('NotFound', 'no such Deployment');
  const labels = deployment.metadata?.labels ?? {};
  if (labels[MANAGED_LABEL] !== 'true') {
    return notOurs('NotManaged', `the Deployment is not Manager's: it lacks the label ${MANAGED_LABEL}=true`);
  }
  const containerId = labels[CONTAINER_ID_LABEL];
  if (containerId === undefined) {
    return notOurs('NotManaged', `the Deployment is not Manager's: it lacks the label ${CONTAINER_ID_LABEL}`);
  }
  if (options.containerId !== undefined && containerId !== options.containerId) {
    return notOurs('OtherContainer', `the Deployment belongs to container ${containerId}, not ${options.containerId}`);
  }

  const rollout = rolloutStatus(deployment);
  const current = currentRolloutPods(deployment, pods);
  const detail = detailOf(deployment, rollout, pods, current, options);
  const value = (state: WorkloadState, reason: string, message: string, pod?: PodDiagnosis): WorkloadStatusValue => ({
    state,
    reason,
    message: oneLine(message),
    ...detail,
    ...(pod ? { pod } : {}),
  });

  if (deployment.metadata?.deletionTimestamp) return value('stopping', 'Deleting', 'the Deployment is being deleted');
  const { desired, total, ready } = rollout.replicas;
  if (desired === 0) {
    const left = Math.max(pods.length, total);
    return left === 0
      ? value('offline', 'ScaledToZero', 'scaled to 0, no pod left')
      : value('stopping', 'PodsTerminating', `scaled to 0, ${left} pod${left === 1 ? '' : 's'} left`);
  }
  if (rollout.state === 'Complete') return value('running', rollout.reason, `${ready}/${desired} ready`);

  const diagnoses = current.map(diagnosePod).filter((diagnosis): diagnosis is PodDiagnosis => diagnosis !== undefined);
  const telling = mostTelling(diagnoses);
  if (rollout.state === 'Failed') return value('failed', rollout.reason, rollout.message, telling);

  const policy = options.failurePolicy ?? DEFAULT_FAILURE_POLICY;
  const judgement = options.judgement ?? judgeSnapshot(policy, rollout, diagnoses);
  if (judgement.createFailureFatal && rollout.createFailure) {
    return value('failed', rollout.createFailure.reason, rollout.createFailure.message, telling);
  }
  if (judgement.podFailure)
    return value('failed', judgement.podFailure.reason, describeFailure(judgement.podFailure), judgement.podFailure);

  const podsReady = current.length > 0 && diagnoses.length === 0;
  return value(
    inProgressState(deployment, rollout, options.previous),
    telling?.reason ?? rollout.reason,
    describeProgress(rollout, telling, { podsReady }),
    telling,
  );
}

function notOurs(reason: string, message: string): WorkloadStatusValue {
  return {
    state: 'missing',
    reason,
    message,
    podIp: null,
    address: null,
    service: null,
    nodeName: null,
    restarts: 0,
    image: null,
    resources: NO_RESOURCES,
    generation: 0,
    observedGeneration: 0,
    replicas: NO_REPLICAS,
  };
}

/** The policy's rules that need no history, applied to one snapshot. */
function judgeSnapshot(policy: FailurePolicy, rollout: RolloutStatus, diagnoses: readonly PodDiagnosis[]): FailureJudgement {
  const verdict = applyFailurePolicy(policy, INITIAL_POLICY_STATE, diagnoses, 0);
  const create = applyCreateFailurePolicy(policy, undefined, rollout.createFailure, 0);
  return { ...(verdict.failure ? { podFailure: verdict.failure } : {}), createFailureFatal: create.fatal };
}

function inProgressState(deployment: V1Deployment, rollout: RolloutStatus, previous: WorkloadStatusValue | undefined): WorkloadState {
  const { generation } = rollout;
  const { desired } = rollout.replicas;
  if (previous && previous.state !== 'missing' && previous.state !== 'unknown') {
    if (IN_PROGRESS.has(previous.state) && previous.generation === generation) return previous.state;
    if (previous.state === 'offline' || previous.state === 'stopping') return 'starting';
    if (previous.state === 'running' && previous.generation === generation) return 'starting';
    if (previous.generation < generation && previous.replicas.desired === desired) return 'updating';
  }
  const progressing = deployment.status?.conditions?.find((condition) => condition.type === 'Progressing');
  if (progressing?.reason === 'NewReplicaSetAvailable') return 'starting';
  if (generation <= 1) return 'creating';
  const revision = Number(deployment.metadata?.annotations?.[REVISION_ANNOTATION] ?? '1');
  return revision <= 1 ? 'starting' : 'updating';
}

type Detail = Omit<WorkloadStatusValue, 'state' | 'reason' | 'message' | 'pod'>;

function detailOf(
  deployment: V1Deployment,
  rollout: RolloutStatus,
  pods: readonly V1Pod[],
  current: readonly V1Pod[],
  options: Pick<WorkloadStatusOptions, 'service' | 'slices'>,
): Detail {
  const container: V1Container | undefined = deployment.spec?.template?.spec?.containers?.[0];
  const limits = container?.resources?.limits;
  const requests = container?.resources?.requests;
  const readyPod = current.find(isReady) ?? pods.find(isReady);
  const shown = readyPod ?? current[0] ?? pods[0];
  let restarts = 0;
  for (const status of shown?.status?.containerStatuses ?? []) restarts += status.restartCount ?? 0;
  const service = serviceStatus(options.service, options.slices ?? NO_SLICES, readyPod && routedPodOf(readyPod));
  return {
    podIp: readyPod?.status?.podIP ?? null,
    address: service?.address ?? null,
    service,
    nodeName: shown?.spec?.nodeName ?? null,
    restarts,
    image: container?.image ?? null,
    resources: { cpu: quantity(limits?.cpu ?? requests?.cpu), memory: quantity(limits?.memory ?? requests?.memory) },
    generation: rollout.generation,
    observedGeneration: rollout.observedGeneration,
    replicas: rollout.replicas,
  };
}

function isReady(pod: V1Pod): boolean {
  return (
    !pod.metadata?.deletionTimestamp &&
    pod.status?.phase === 'Running' &&
    pod.status.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') === true
  );
}

function quantity(value: unknown): string | null {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
}

/** Failures before waits. */
function mostTelling(diagnoses: readonly PodDiagnosis[]): PodDiagnosis | undefined {
  return diagnoses.find((diagnosis) => diagnosis.severity === 'failed') ?? diagnoses[0];
}

function describeFailure(pod: PodDiagnosis): string {
  const where = pod.container ? `container ${pod.container} in pod ${pod.pod}` : `pod ${pod.pod}`;
  return `${pod.reason} (${where})${pod.message && pod.message !== pod.reason ? `: ${pod.message}` : ''}`;
}
