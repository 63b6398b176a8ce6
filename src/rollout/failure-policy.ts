// The fail-fast policy: when a Pod problem ends the provisioning instead of waiting for
// the Deployment's progress deadline (10 minutes by default). A pure function of the
// previous tracking state, the current diagnoses and the time.
//
//   fail at once      InvalidImageName, ErrImageNeverPull, CreateContainerConfigError,
//                     StartupProbeFailed (the kubelet gave up on the probe's whole bound), and
//                     an image pull error saying the image does not exist ("not found",
//                     "manifest unknown", ...): waiting cannot help.
//   image pull        ErrImagePull / ImagePullBackOff: after `maxBackOffs` back-offs or
//                     `graceMs` of failing continuously; a registry hiccup (one back-off,
//                     then a successful pull) never fails a provisioning.
//   crash loop        CrashLoopBackOff or a non-zero exit (OOMKilled included): after
//                     `maxRestarts` restarts or `graceMs`.
//   unschedulable     PodScheduled=False/Unschedulable for `graceMs` (kstatus uses 15 s):
//                     an autoscaler may still add room.
//   container error   CreateContainerError, RunContainerError, hook errors: after `graceMs`.
//   create failure    a controller cannot create the ReplicaSet or its Pods (ReplicaSetCreateError,
//                     ReplicaFailure/FailedCreate): at once when the API server refused for
//                     good (quota, LimitRange, PodSecurity, an admission webhook's denial,
//                     an invalid object), after `graceMs` otherwise: controllers retry, and
//                     a restarting control plane or an unreachable webhook heals.
//   storage          a claim that cannot bind, a volume that cannot attach or mount, a seed
//                    that cannot run: storage-policy.ts has each rule and its grace.
//   load balancer    a LoadBalancer Service without an address after `graceMs`: a cluster
//                    with no load-balancer controller never assigns one. The window ends
//                    a margin before the operation's deadline at the latest
//                    (loadBalancerGraceEndsBy), so the failure is named, never a timeout.
// A failed Pod (evicted, say) is reported but not fatal: its ReplicaSet replaces it, and
// if that cannot work the Deployment's own progress deadline says so.
import { DURATION_RULES, countProblem } from '../input/duration.js';
import type { FieldRule } from '../input/fields.js';
import { aRegExp, checkOptions, duration, nested, type OptionTable } from '../input/options.js';
import type { PodDiagnosis } from './events.js';
import { DEFAULT_STORAGE_POLICY, storageTrackKind, type StorageFailurePolicy, type StorageTrackKind } from './storage-policy.js';
import { STARTUP_PROBE_FAILED_REASON } from './startup-probe.js';
import { STORAGE_REASONS } from './storage-diagnosis.js';

export interface FailurePolicy extends StorageFailurePolicy {
  readonly imagePull: { readonly maxBackOffs: number; readonly graceMs: number };
  readonly crashLoop: { readonly maxRestarts: number; readonly graceMs: number };
  readonly unschedulable: { readonly graceMs: number };
  readonly containerError: { readonly graceMs: number };
  /** `failAtOnce`: a create error matching this is a refusal that retrying cannot change. */
  readonly createFailure: { readonly graceMs: number; readonly failAtOnce: RegExp };
  readonly failAtOnceReasons: readonly string[];
  /** An image pull message matching this means the image does not exist. */
  readonly imageNotFound: RegExp;
  /** How long a LoadBalancer Service may wait for its address (LoadBalancerPending). */
  readonly loadBalancer: { readonly graceMs: number };
}

export const DEFAULT_FAILURE_POLICY: FailurePolicy = {
  imagePull: { maxBackOffs: 3, graceMs: 120_000 },
  crashLoop: { maxRestarts: 3, graceMs: 180_000 },
  unschedulable: { graceMs: 15_000 },
  containerError: { graceMs: 30_000 },
  createFailure: {
    graceMs: 30_000,
    failAtOnce:
      /exceeded quota|denied (the )?request|violates PodSecurity|is invalid:|usage per (Container|Pod)|limit to request ratio|because it is being terminated/i,
  },
  failAtOnceReasons: ['InvalidImageName', 'ErrImageNeverPull', 'CreateContainerConfigError', STARTUP_PROBE_FAILED_REASON],
  imageNotFound: /not found|manifest unknown|name unknown|repository does not exist|no such host/i,
  ...DEFAULT_STORAGE_POLICY,
  loadBalancer: { graceMs: 60_000 },
};

/** The deadline a wait runs under: when it falls (scheduler time) and the whole timeout it ends. */
export interface WaitDeadline {
  readonly at: number;
  readonly timeoutMs: number;
}

/** The most a LoadBalancer's grace window keeps clear before the deadline. */
export const LOAD_BALANCER_DEADLINE_MARGIN_MS = 5_000;

/**
 * When a LoadBalancer's grace window ends at the latest, under `deadline`: a margin before
 * it (a tenth of the timeout, at most LOAD_BALANCER_DEADLINE_MARGIN_MS), so a load balancer
 * that never comes is named (LoadBalancerPending) and never left to the timeout, whatever
 * the grace and the timeout are. undefined: no deadline, the grace alone.
 */
export function loadBalancerGraceEndsBy(deadline: WaitDeadline | undefined): number | undefined {
  if (deadline === undefined || !Number.isFinite(deadline.at)) return undefined;
  return deadline.at - Math.min(LOAD_BALANCER_DEADLINE_MARGIN_MS, deadline.timeoutMs / 10);
}

export interface FailurePolicyOverrides {
  readonly imagePull?: Partial<FailurePolicy['imagePull']>;
  readonly crashLoop?: Partial<FailurePolicy['crashLoop']>;
  readonly unschedulable?: Partial<FailurePolicy['unschedulable']>;
  readonly containerError?: Partial<FailurePolicy['containerError']>;
  readonly createFailure?: Partial<FailurePolicy['createFailure']>;
  readonly failAtOnceReasons?: readonly string[];
  readonly imageNotFound?: RegExp;
  readonly volumeBinding?: Partial<FailurePolicy['volumeBinding']>;
  readonly provisioning?: Partial<FailurePolicy['provisioning']>;
  readonly volumeAttach?: Partial<FailurePolicy['volumeAttach']>;
  readonly volumeMount?: Partial<FailurePolicy['volumeMount']>;
  readonly loadBalancer?: Partial<FailurePolicy['loadBalancer']>;
}

/**
 * The default policy with `overrides` applied. Grace windows are durations in whole
 * milliseconds from 0 (fail at once) to 365 days, or Infinity (never fail on the time
 * alone); counts are whole numbers from 0. Anything else, an unknown key included, throws
 * InvalidOptionError naming the field (`failurePolicy.imagePull.graceMs`).
 */
export function resolveFailurePolicy(overrides: FailurePolicyOverrides = {}): FailurePolicy {
  checkOverrides(overrides);
  const d = DEFAULT_FAILURE_POLICY;
  return {
    imagePull: { ...d.imagePull, ...overrides.imagePull },
    crashLoop: { ...d.crashLoop, ...overrides.crashLoop },
    unschedulable: { ...d.unschedulable, ...overrides.unschedulable },
    containerError: { ...d.containerError, ...overrides.containerError },
    createFailure: { ...d.createFailure, ...overrides.createFailure },
    failAtOnceReasons: overrides.failAtOnceReasons ?? d.failAtOnceReasons,
    imageNotFound: overrides.imageNotFound ?? d.imageNotFound,
    volumeBinding: { ...d.volumeBinding, ...overrides.volumeBinding },
    provisioning: { ...d.provisioning, ...overrides.provisioning },
    volumeAttach: { ...d.volumeAttach, ...overrides.volumeAttach },
    volumeMount: { ...d.volumeMount, ...overrides.volumeMount },
    loadBalancer: { ...d.loadBalancer, ...overrides.loadBalancer },
  };
}

const grace = duration(DURATION_RULES.graceMs);
const reasons: FieldRule = (value) =>
  Array.isArray(value) && value.every((reason) => typeof reason === 'string') ? undefined : 'must be a list of strings';

const OVERRIDES: OptionTable = {
  imagePull: nested({ maxBackOffs: countProblem, graceMs: grace }),
  crashLoop: nested({ maxRestarts: countProblem, graceMs: grace }),
  unschedulable: nested({ graceMs: grace }),
  containerError: nested({ graceMs: grace }),
  createFailure: nested({ graceMs: grace, failAtOnce: aRegExp }),
  failAtOnceReasons: reasons,
  imageNotFound: aRegExp,
  volumeBinding: nested({ graceMs: grace }),
  provisioning: nested({ graceMs: grace, failAtOnce: aRegExp }),
  volumeAttach: nested({ graceMs: grace }),
  volumeMount: nested({ graceMs: grace }),
  loadBalancer: nested({ graceMs: grace }),
};

function checkOverrides(overrides: unknown): void {
  checkOptions(overrides, OVERRIDES, { noun: 'failurePolicy', path: 'failurePolicy.', known: 'a failure policy field' });
}

type TrackKind = 'imagePull' | 'crashLoop' | 'unschedulable' | 'containerError' | StorageTrackKind;

interface Track {
  readonly kind: TrackKind;
  /** When this problem was first seen (scheduler time, ms). */
  readonly since: number;
  readonly backOffs: number;
  readonly lastReason: string;
}

/** Problems being tracked, per pod/container. Treat as opaque. */
export type PolicyState = ReadonlyMap<string, Track>;

export const INITIAL_POLICY_STATE: PolicyState = new Map();

export interface PolicyVerdict {
  readonly state: PolicyState;
  /** The problem that ends the provisioning, if one does now. */
  readonly failure?: PodDiagnosis;
  /** When a grace window ends, if one is open: evaluate again then. */
  readonly recheckAt?: number;
}

export function applyFailurePolicy(
  policy: FailurePolicy,
  previous: PolicyState,
  diagnoses: readonly PodDiagnosis[],
  now: number,
): PolicyVerdict {
  // The common case on the hot path: no Pod problem now, none tracked before.
  if (diagnoses.length === 0 && previous.size === 0) return { state: previous };
  const state = new Map<string, Track>();
  let failure: PodDiagnosis | undefined;
  let recheckAt: number | undefined;

  for (const diagnosis of diagnoses) {
    const kind = trackKind(policy, diagnosis);
    if (kind === 'failAtOnce') {
      failure ??= diagnosis;
      continue;
    }
    if (!kind) continue;
    const key = `${diagnosis.pod}/${diagnosis.container ?? ''}`;
    const before = previous.get(key);
    const same = before?.kind === kind ? before : undefined;
    const enteredBackOff = diagnosis.reason === 'ImagePullBackOff' && same?.lastReason !== 'ImagePullBackOff';
    const track: Track = {
      kind,
      since: same?.since ?? now,
      backOffs: (same?.backOffs ?? 0) + (enteredBackOff ? 1 : 0),
      lastReason: diagnosis.reason,
    };
    state.set(key, track);

    const deadline = track.since + graceMs(policy, kind);
    if (now >= deadline || exceedsCount(policy, track, diagnosis)) {
      failure ??= diagnosis;
    } else {
      recheckAt = recheckAt === undefined ? deadline : Math.min(recheckAt, deadline);
    }
  }
  return { state, ...(failure ? { failure } : {}), ...(!failure && recheckAt !== undefined ? { recheckAt } : {}) };
}

function trackKind(policy: FailurePolicy, diagnosis: PodDiagnosis): TrackKind | 'failAtOnce' | undefined {
  const { reason, message } = diagnosis;
  if (policy.failAtOnceReasons.includes(reason)) return 'failAtOnce';
  const storage = storageTrackKind(policy, diagnosis);
  if (storage) return storage;
  if (reason === 'ErrImagePull' || reason === 'ImagePullBackOff') {
    return policy.imageNotFound.test(message) ? 'failAtOnce' : 'imagePull';
  }
  if (reason === 'Unschedulable') return 'unschedulable';
  if (reason === 'CrashLoopBackOff') return 'crashLoop';
  if (reason === 'CreateContainerError' || reason === 'RunContainerError' || reason.endsWith('HookError')) {
    return 'containerError';
  }
  // A container that exited non-zero and has not been restarted yet.
  if (diagnosis.severity === 'failed' && diagnosis.container !== undefined) return 'crashLoop';
  return undefined;
}

function graceMs(policy: FailurePolicy, kind: TrackKind): number {
  return policy[kind].graceMs;
}

function exceedsCount(policy: FailurePolicy, track: Track, diagnosis: PodDiagnosis): boolean {
  if (track.kind === 'imagePull') return track.backOffs >= policy.imagePull.maxBackOffs;
  if (track.kind === 'crashLoop') {
    const restarting = diagnosis.reason === 'CrashLoopBackOff' || diagnosis.reason === STORAGE_REASONS.seedFailed;
    return restarting && (diagnosis.restartCount ?? 0) >= policy.crashLoop.maxRestarts;
  }
  return false;
}

export interface CreateFailureVerdict {
  /** When the ongoing create failure was first seen (pass it back in); none once it cleared. */
  readonly since?: number;
  /** The create failure ends the provisioning now. */
  readonly fatal: boolean;
  /** When the grace window ends, if one is open: evaluate again then. */
  readonly recheckAt?: number;
}

/**
 * The create-failure rule: `failure` is the status's createFailure, if any; `since` is what
 * the previous verdict returned.
 */
export function applyCreateFailurePolicy(
  policy: FailurePolicy,
  since: number | undefined,
  failure: { readonly message: string } | undefined,
  now: number,
): CreateFailureVerdict {
  if (!failure) return NO_CREATE_FAILURE;
  const first = since ?? now;
  if (policy.createFailure.failAtOnce.test(failure.message)) return { since: first, fatal: true };
  const deadline = first + policy.createFailure.graceMs;
  return now >= deadline ? { since: first, fatal: true } : { since: first, fatal: false, recheckAt: deadline };
}

const NO_CREATE_FAILURE: CreateFailureVerdict = Object.freeze({ fatal: false });
