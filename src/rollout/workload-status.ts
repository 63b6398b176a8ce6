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
import type { ClaimStatusValue } from './claim-status.js';
import type { V1Container, V1Deployment, V1EndpointSlice, V1Pod, V1Service } from '../kube/objects.js';
import { serviceGate } from './service-gate.js';
import { serviceFields, type ServiceStatusValue } from './service-status.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL } from '../input/labels.js';
import { REVISION_ANNOTATION } from '../kube/objects.js';
import { oneLine } from '../text.js';
import { sharedValue } from '../interning.js';
import { lastLogLine } from './crash-lines.js';
import { describeProgress } from './describe-progress.js';
import type { PodDiagnosis, ReplicaCounts, RolloutStatus } from './events.js';
import { DEFAULT_FAILURE_POLICY, type FailurePolicy } from './failure-policy.js';
import { INITIAL_TRACKER_STATE, trackRollout, type TrackedFailure, type TrackedGate, type TrackerStep } from './tracker.js';

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
   * The container's volume, read by status() when its Pods mount one: the claim's phase,
   * class, requested and actual capacity, and whether a resize is pending or not supported.
   */
  readonly storage?: ClaimStatusValue;
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

/** A workload's Service and its EndpointSlices, if it has one (a container with ports). */
export interface WorkloadNetwork {
  readonly service?: V1Service;
  readonly slices?: readonly V1EndpointSlice[];
}

/** What the failure policy concluded over time (statuses$ tracks it per workload). */
export interface FailureJudgement {
  /** The Pod problem the policy declared fatal, if any. */
  readonly podFailure?: PodDiagnosis;
  /** The controllers' create failure is final (quota, admission, ...) or lasted its grace window. */
  readonly createFailureFatal?: boolean;
}

export interface WorkloadStatusOptions extends WorkloadNetwork {
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
  /** The gates and fields of the workload's other objects, judged by the caller: in place of `service` and `slices`. */
  readonly members?: { readonly gates: readonly TrackedGate[]; readonly fields: MemberFields | undefined };
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
  const notOurs = ownershipStatus(deployment, options.containerId);
  if (notOurs || !deployment) return notOurs ?? missing('NotFound', 'no such Deployment');
  // One snapshot, no history: the tracker's step from a fresh state at time 0 applies the
  // rules that need none (the reasons that fail at once, a crash loop's restart count,
  // create refusals that are final); grace windows need a caller that keeps the state.
  const policy = options.failurePolicy ?? DEFAULT_FAILURE_POLICY;
  const { members = networkMembers(options, deployment, pods, policy) } = options;
  const step = trackRollout(policy, INITIAL_TRACKER_STATE, { deployment, pods, now: 0, gates: members.gates });
  const { fields } = members;
  return trackedStatus(deployment, pods, options.judgement ? judged(step, options.judgement) : step, options.previous, fields);
}

/** The Service's gate and fields, from `service` and `slices`. */
function networkMembers(
  { service, slices = NO_SLICES }: WorkloadNetwork,
  deployment: V1Deployment,
  pods: readonly V1Pod[],
  policy: FailurePolicy,
): NonNullable<WorkloadStatusOptions['members']> {
  const gate = serviceGate(service, slices, deployment, pods, policy);
  return {
    gates: gate ? [gate] : [],
    fields: service ? (readyPod: V1Pod | undefined) => serviceFields(service, slices, readyPod) : undefined,
  };
}

/**
 * `missing` when `deployment` is not a Manager workload's (absent, no managed=true, no
 * container-id, or another container-id than `containerId`); undefined when it is one.
 */
export function ownershipStatus(deployment: V1Deployment | undefined, containerId?: string): WorkloadStatusValue | undefined {
  if (!deployment) return missing('NotFound', 'no such Deployment');
  const labels = deployment.metadata?.labels ?? {};
  if (labels[MANAGED_LABEL] !== 'true') {
    return missing('NotManaged', `the Deployment is not Manager's: it lacks the label ${MANAGED_LABEL}=true`);
  }
  const own = labels[CONTAINER_ID_LABEL];
  if (own === undefined) {
    return missing('NotManaged', `the Deployment is not Manager's: it lacks the label ${CONTAINER_ID_LABEL}`);
  }
  if (containerId !== undefined && own !== containerId) {
    return missing('OtherContainer', `the Deployment belongs to container ${own}, not ${containerId}`);
  }
  return undefined;
}

/** The status fields a workload's other objects give (its Service's address), given the Pod the status shows as ready. */
export type MemberFields = (readyPod: V1Pod | undefined) => Partial<WorkloadStatusValue>;

/**
 * A Manager workload's status from the tracker's step over its Deployment and Pods (the
 * caller checked ownership): whoever keeps the tracker's state over time (statuses$) judges
 * once per event with it, and the status is read off that one judgement.
 * @param previous the last status of the same Deployment (same UID), if the caller keeps one
 * @param fields what the workload's other objects add (without them: no address, no Service)
 */
export function trackedStatus(
  deployment: V1Deployment,
  pods: readonly V1Pod[],
  step: TrackerStep,
  previous?: WorkloadStatusValue,
  fields?: MemberFields,
): WorkloadStatusValue {
  const { rollout, current, pod: telling, failure } = step;
  const readyPod = readyPodOf(current, pods);
  const detail = detailOf(deployment, rollout, readyPod ?? current[0] ?? pods[0], readyPod);
  const given = fields?.(readyPod);
  // The members' fields over a copy (spread first, then assigned): the kept status stays as compact as one without them.
  const value = (state: WorkloadState, reason: string, message: string, pod?: PodDiagnosis): WorkloadStatusValue => {
    const status = { state, reason, message: oneLine(message), ...detail, ...(pod ? { pod } : {}) };
    return given ? { ...status, ...given } : status;
  };

  if (deployment.metadata?.deletionTimestamp) return value('stopping', 'Deleting', 'the Deployment is being deleted');
  const { desired, total, ready } = rollout.replicas;
  if (desired === 0) {
    const left = Math.max(pods.length, total);
    return left === 0
      ? value('offline', 'ScaledToZero', 'scaled to 0, no pod left')
      : value('stopping', 'PodsTerminating', `scaled to 0, ${left} pod${left === 1 ? '' : 's'} left`);
  }
  if (step.complete) return value('running', rollout.reason, `${ready}/${desired} ready`);
  if (failure?.source === 'rollout') return value('failed', rollout.reason, rollout.message, telling);
  if (failure?.source === 'create' || failure?.source === 'gate') return value('failed', failure.reason, failure.detail, telling);
  if (failure?.pod) return value('failed', failure.reason, describeFailure(failure.pod), failure.pod);
  const gate = step.waitingFor;
  if (gate)
    return value(
      inProgressState(deployment, rollout, previous),
      gate.status.reason,
      `waiting for the ${gate.kind} ${gate.name}: ${gate.status.message}`,
    );

  return value(
    inProgressState(deployment, rollout, previous),
    telling?.reason ?? rollout.reason,
    describeProgress(rollout, telling, { podsReady: step.podsReady }),
    telling,
  );
}

function missing(reason: string, message: string): WorkloadStatusValue {
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

/** The step with a caller's own judgement (FailureJudgement) in place of the policy's. */
function judged(step: TrackerStep, judgement: FailureJudgement): TrackerStep {
  if (step.failure?.source === 'rollout' || step.rollout.state !== 'InProgress') return step;
  const create = step.rollout.createFailure;
  const failure: TrackedFailure | undefined =
    judgement.createFailureFatal && create
      ? { source: 'create', reason: create.reason, detail: create.message }
      : judgement.podFailure
        ? { source: 'pod', reason: judgement.podFailure.reason, detail: judgement.podFailure.message, pod: judgement.podFailure }
        : undefined;
  return { ...step, failure };
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

function detailOf(deployment: V1Deployment, rollout: RolloutStatus, shown: V1Pod | undefined, readyPod: V1Pod | undefined): Detail {
  const container: V1Container | undefined = deployment.spec?.template?.spec?.containers?.[0];
  const limits = container?.resources?.limits;
  const requests = container?.resources?.requests;
  let restarts = 0;
  for (const status of shown?.status?.containerStatuses ?? []) restarts += status.restartCount ?? 0;
  return {
    podIp: readyPod?.status?.podIP ?? null,
    address: null,
    service: null,
    nodeName: shown?.spec?.nodeName ?? null,
    restarts,
    image: container?.image ?? null,
    // Alike in many workloads, and kept with each one's status (statuses$): one shared copy.
    resources: sharedValue('workload-resources', {
      cpu: quantity(limits?.cpu ?? requests?.cpu),
      memory: quantity(limits?.memory ?? requests?.memory),
    }),
    generation: rollout.generation,
    observedGeneration: rollout.observedGeneration,
    replicas: sharedValue('replicas', rollout.replicas),
  };
}

/** The Pod a status shows as ready: the current rollout's, else any. */
function readyPodOf(current: readonly V1Pod[], pods: readonly V1Pod[]): V1Pod | undefined {
  return current.find(isReady) ?? pods.find(isReady);
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

function describeFailure(pod: PodDiagnosis): string {
  const where = pod.container ? `container ${pod.container} in pod ${pod.pod}` : `pod ${pod.pod}`;
  return `${pod.reason} (${where})${pod.message && pod.message !== pod.reason ? `: ${pod.message}` : ''}${lastLogLine(pod)}`;
}
