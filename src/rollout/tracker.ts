// trackRollout(): one step of judging a workload's rollout over time, as a pure function:
// the policy state, the Deployment, its Pods and the time in; the Deployment's status,
// what its Pods say, whether something ends the rollout, the new state and when to step
// again (a grace window ending) out. Whatever waits on a rollout (provisioning, start,
// restart, reconfigure) and whatever shows one (status$, statuses$) takes this one step,
// and arms its one timer, if any, through the long-timer helper: a judgement is made in
// one place, and a timer is never armed for a window that never ends.
//
// The failure policy runs only while a rollout is under way (InProgress, replicas wanted,
// not being deleted); otherwise its state starts afresh. Readiness beyond the Deployment
// (a Service's endpoints, a claim's binding) comes in as `gates`: statuses from the
// status table (object-status.ts), each of which must be Complete as well; a Failed gate
// ends the rollout with its reason.
//
// A crash (the most telling Pod problem is a container that crashed) is named as `crash`
// until its last log lines come in as `logs`; then they ride on its diagnosis (`pod`, and
// the failure's), so the progress line, the status and the error all carry them.
import type { V1Deployment, V1Pod } from '../kube/objects.js';
import { crashOf, withCrashLines, type CrashLines, type CrashRef } from './crash-lines.js';
import type { GateProgress, PodDiagnosis, RolloutStatus } from './events.js';
import {
  INITIAL_POLICY_STATE,
  applyCreateFailurePolicy,
  applyFailurePolicy,
  type FailurePolicy,
  type PolicyState,
} from './failure-policy.js';
import type { ObjectStatus } from './object-status.js';
import { diagnosePod } from './pod-diagnosis.js';
import { currentRolloutPods } from './rollout-pods.js';
import { rolloutStatus } from './rollout-status.js';
import { SYSTEM_BOOT_FAILED_REASON, classifySystemdBoot } from './systemd-boot.js';

/** What the tracker remembers between steps of one workload (same UID). */
export interface TrackerState {
  /** The Pod problems being timed. */
  readonly policy: PolicyState;
  /** When the ongoing create failure was first seen. */
  readonly createFailureSince: number | undefined;
  /** When each gate with a grace window (`kind/name/reason`) was first seen waiting. */
  readonly gatesSince?: Readonly<Record<string, number>>;
}

export const INITIAL_TRACKER_STATE: TrackerState = Object.freeze({ policy: INITIAL_POLICY_STATE, createFailureSince: undefined });

/** A readiness gate beyond the Deployment: another object of the workload and its status. */
export interface TrackedGate {
  /** As the API names it: `Service`. */
  readonly kind: string;
  readonly name: string;
  readonly status: ObjectStatus;
  /**
   * What the object's controllers keep saying is wrong while it is not ready (a claim the
   * provisioner fails on, a volume that will not mount): timed by the failure policy as a
   * Pod's problems are, and a final one ends the rollout as this gate's failure.
   */
  readonly problems?: readonly PodDiagnosis[];
  /**
   * An InProgress gate that waits this long fails with its reason (a LoadBalancer no
   * controller gives an address): the wait ends by name, not by the timeout.
   */
  readonly graceMs?: number;
  /** Scheduler time by which that window ends at the latest, however long `graceMs` is (the operation's deadline is near). */
  readonly endsBy?: number;
  /** What the failure says when that window ends. */
  readonly expiredMessage?: string;
  /** What a wait's progress events say of it once the rollout is done (the Service's route). */
  readonly progress?: GateProgress;
}

export interface TrackerInput {
  readonly deployment: V1Deployment;
  /** The Pods carrying the workload's container-id label. */
  readonly pods: readonly V1Pod[];
  /** Scheduler time, in ms. */
  readonly now: number;
  readonly gates?: readonly TrackedGate[];
  /** The last crash's log lines the caller read (see `crash`). */
  readonly logs?: CrashLines;
}

/** What ends a rollout. */
export interface TrackedFailure {
  /** `rollout`: the Deployment's own status; `create`: a controller's create failure made final; `pod`: the policy on a Pod problem; `gate`: another object of the workload. */
  readonly source: 'rollout' | 'create' | 'pod' | 'gate';
  readonly reason: string;
  /** The controller's, kubelet's or scheduler's words. */
  readonly detail: string;
  /** The Pod problem, for `pod`. */
  readonly pod?: PodDiagnosis;
  /** The kind of the object at fault, for `gate`. */
  readonly kind?: string;
}

export interface TrackerStep {
  readonly rollout: RolloutStatus;
  /** The Pods of the newest ReplicaSet. */
  readonly current: readonly V1Pod[];
  /** What those Pods are doing or why they cannot run (not read once the rollout is Complete). */
  readonly diagnoses: readonly PodDiagnosis[];
  /** The diagnosis a user most needs to see first: failures before waits. */
  readonly pod: PodDiagnosis | undefined;
  /** The rollout's Pods exist and all are running and ready (the Deployment may lag). */
  readonly podsReady: boolean;
  /** The rollout is Complete and so is every gate. */
  readonly complete: boolean;
  /** The gate still waited for, when the Deployment is done but a gate is not. */
  readonly waitingFor: TrackedGate | undefined;
  /** What ends the rollout now, if anything. */
  readonly failure: TrackedFailure | undefined;
  readonly state: TrackerState;
  /** When a grace window ends, so a step is due though nothing changed; undefined: none. */
  readonly recheckAt: number | undefined;
  /** The crash shown (`failure.pod`, else `pod`) whose log lines `logs` does not hold yet. */
  readonly crash: CrashRef | undefined;
}

const NO_DIAGNOSES: readonly PodDiagnosis[] = Object.freeze([]);
const NO_GATES: readonly TrackedGate[] = Object.freeze([]);

export function trackRollout(policy: FailurePolicy, state: TrackerState, input: TrackerInput): TrackerStep {
  return withBootFailure(withLogs(judge(policy, state, input), input.logs));
}

/**
 * A crash whose lines are systemd giving up booting ends the rollout at its first exit,
 * named by cause: a restart cannot fix it, and the crash loop rule would wait restarts.
 */
function withBootFailure(step: TrackerStep): TrackerStep {
  const pod = step.failure?.pod ?? step.pod;
  if (pod?.logs === undefined || pod.severity !== 'failed') return step;
  if (step.failure === undefined && !(step.rollout.state === 'InProgress' && step.rollout.replicas.desired > 0)) return step;
  if (step.failure !== undefined && step.failure.source !== 'pod') return step;
  const boot = classifySystemdBoot(pod.logs);
  if (boot === undefined) return step;
  const named: PodDiagnosis = {
    ...pod,
    reason: SYSTEM_BOOT_FAILED_REASON,
    message: boot.message,
    systemBoot: { kind: boot.kind, line: boot.line },
  };
  return {
    ...step,
    pod: step.pod === pod ? named : step.pod,
    failure: { source: 'pod', reason: SYSTEM_BOOT_FAILED_REASON, detail: `${boot.kind}: ${boot.message}`, pod: named },
  };
}

function judge(policy: FailurePolicy, state: TrackerState, input: TrackerInput): Omit<TrackerStep, 'crash'> {
  const { deployment, pods, now } = input;
  const gates = input.gates ?? NO_GATES;
  const rollout = rolloutStatus(deployment);
  const current = currentRolloutPods(deployment, pods);
  const diagnoses = rollout.state === 'Complete' || current.length === 0 ? NO_DIAGNOSES : diagnosesOf(current);
  const gateProblems = rollout.state === 'Complete' ? NO_GATE_PROBLEMS : problemsOf(gates);
  const pod = mostTelling(diagnoses) ?? mostTelling([...gateProblems.keys()]);
  const podsReady = current.length > 0 && diagnoses.length === 0;
  const underWay = rollout.state === 'InProgress' && rollout.replicas.desired > 0 && !deployment.metadata?.deletionTimestamp;
  const wanted = rollout.replicas.desired > 0 && !deployment.metadata?.deletionTimestamp;
  const timed = timeGates(gates, wanted ? state.gatesSince : undefined, now, wanted);
  const failedGate = gates.find((gate) => gate.status.state === 'Failed') ?? timed.expired;
  const waitingFor = rollout.state === 'Complete' ? gates.find((gate) => gate.status.state !== 'Complete') : undefined;
  const step = {
    rollout,
    current,
    diagnoses,
    pod,
    podsReady,
    complete: rollout.state === 'Complete' && waitingFor === undefined,
    waitingFor,
  };

  if (!underWay) {
    const failure: TrackedFailure | undefined =
      rollout.state === 'Failed'
        ? { source: 'rollout', reason: rollout.reason, detail: rollout.message }
        : failedGate && gateFailure(failedGate);
    const fresh = timed.since === undefined ? INITIAL_TRACKER_STATE : { ...INITIAL_TRACKER_STATE, gatesSince: timed.since };
    return { ...step, failure, state: fresh, recheckAt: finite(timed.recheckAt) };
  }

  const create = applyCreateFailurePolicy(policy, state.createFailureSince, rollout.createFailure, now);
  const problems = gateProblems.size === 0 ? diagnoses : [...diagnoses, ...gateProblems.keys()];
  const verdict = applyFailurePolicy(policy, state.policy, problems, now);
  const failedGateProblem = verdict.failure && gateProblems.get(verdict.failure);
  const failure: TrackedFailure | undefined =
    create.fatal && rollout.createFailure
      ? { source: 'create', reason: rollout.createFailure.reason, detail: rollout.createFailure.message }
      : verdict.failure && failedGateProblem
        ? {
            source: 'gate',
            kind: failedGateProblem.kind,
            reason: verdict.failure.reason,
            detail: `${failedGateProblem.kind} ${failedGateProblem.name}: ${verdict.failure.message}`,
          }
        : verdict.failure
          ? { source: 'pod', reason: verdict.failure.reason, detail: verdict.failure.message, pod: verdict.failure }
          : failedGate && gateFailure(failedGate);
  const nextState =
    verdict.state === state.policy && create.since === state.createFailureSince && timed.since === state.gatesSince
      ? state
      : { policy: verdict.state, createFailureSince: create.since, ...(timed.since ? { gatesSince: timed.since } : {}) };
  const recheckAt = earliest(earliest(verdict.recheckAt, create.recheckAt), timed.recheckAt);
  return { ...step, failure, state: nextState, recheckAt: finite(recheckAt) };
}

/** The shown crash's lines on its diagnoses, or the crash named for the caller to read. */
function withLogs(step: Omit<TrackerStep, 'crash'>, logs: CrashLines | undefined): TrackerStep {
  const crash = crashOf(step.failure?.pod ?? step.pod);
  if (crash === undefined || logs?.key !== crash.key) return { ...step, crash };
  const { pod, failure } = step;
  return {
    ...step,
    pod: pod && withCrashLines(pod, logs),
    failure: failure?.pod ? { ...failure, pod: withCrashLines(failure.pod, logs) } : failure,
    crash: undefined,
  };
}

function diagnosesOf(pods: readonly V1Pod[]): readonly PodDiagnosis[] {
  const diagnoses: PodDiagnosis[] = [];
  for (const pod of pods) {
    const diagnosis = diagnosePod(pod);
    if (diagnosis) diagnoses.push(diagnosis);
  }
  return diagnoses.length === 0 ? NO_DIAGNOSES : diagnoses;
}

const NO_GATE_PROBLEMS: ReadonlyMap<PodDiagnosis, TrackedGate> = new Map();

/** Each gate's problems, and the gate each one is of. */
function problemsOf(gates: readonly TrackedGate[]): ReadonlyMap<PodDiagnosis, TrackedGate> {
  if (!gates.some((gate) => gate.problems?.length)) return NO_GATE_PROBLEMS;
  const problems = new Map<PodDiagnosis, TrackedGate>();
  for (const gate of gates) for (const problem of gate.problems ?? []) problems.set(problem, gate);
  return problems;
}

/** The grace windows of the gates that have one: when each began, which has ended, when the next ends. */
function timeGates(
  gates: readonly TrackedGate[],
  since: Readonly<Record<string, number>> | undefined,
  now: number,
  wanted: boolean,
): { since: Readonly<Record<string, number>> | undefined; expired: TrackedGate | undefined; recheckAt: number | undefined } {
  let next: Record<string, number> | undefined;
  let expired: TrackedGate | undefined;
  let recheckAt: number | undefined;
  for (const gate of gates) {
    if (!wanted || gate.graceMs === undefined || gate.status.state !== 'InProgress') continue;
    const key = `${gate.kind}/${gate.name}/${gate.status.reason}`;
    const began = since?.[key] ?? now;
    (next ??= {})[key] = began;
    const endsAt = Math.min(began + gate.graceMs, gate.endsBy ?? Infinity);
    if (now >= endsAt)
      expired ??= { ...gate, status: { ...gate.status, state: 'Failed', message: gate.expiredMessage ?? gate.status.message } };
    else recheckAt = earliest(recheckAt, endsAt);
  }
  const unchanged = since !== undefined && next !== undefined && sameKeys(since, next);
  return { since: unchanged ? since : next, expired, recheckAt };
}

function sameKeys(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

function gateFailure(gate: TrackedGate): TrackedFailure {
  return { source: 'gate', kind: gate.kind, reason: gate.status.reason, detail: `${gate.kind} ${gate.name}: ${gate.status.message}` };
}

/** Failures before waits. */
export function mostTelling(diagnoses: readonly PodDiagnosis[]): PodDiagnosis | undefined {
  return diagnoses.find((diagnosis) => diagnosis.severity === 'failed') ?? diagnoses[0];
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** A grace window of Infinity ends never: no recheck is due for it. */
function finite(at: number | undefined): number | undefined {
  return at !== undefined && Number.isFinite(at) ? at : undefined;
}
