// Progress events of the operations on an existing workload (start, stop, restart,
// reconfigure, remove). Same shape as creation's: plain JSON, discriminated by `type`,
// stamped with `at`, and naming `namespace`, `name` and `providerId`. Waiting on a rollout
// emits creation's own `progress` events.
import type { ClaimStatusValue } from '../../rollout/claim-status.js';
import type { PodDiagnosis, ProgressEvent } from '../../rollout/events.js';
import type { ServiceStatusValue } from '../../rollout/service-status.js';
import type { KindName } from '../../kube/kinds.js';

interface LifecycleEventBase {
  /** ISO-8601 time the event was produced. */
  readonly at: string;
  readonly namespace: string;
  readonly name: string;
  readonly providerId: string;
}

/**
 * What a Pod was doing, or why it could not run, taken before a stop or removal takes the
 * Pod away: a crash loop's reason and last exit are kept in the log.
 */
export interface DiagnosedEvent extends LifecycleEventBase {
  readonly type: 'diagnosed';
  readonly pod: PodDiagnosis;
}

/** The replica count was written (start, stop). */
export interface ScaledEvent extends LifecycleEventBase {
  readonly type: 'scaled';
  readonly replicas: number;
  readonly previousReplicas: number;
  /** The Deployment generation the write made; the wait is for this one. */
  readonly generation: number;
}

/** The pod template was written (restart, reconfigure, adoption with onDrift: 'reconfigure'). */
export interface PatchedEvent extends LifecycleEventBase {
  readonly type: 'patched';
  /** What changed, in the spec's words: `image`, `env.NAME`, `cpus`, `restartedAt`, ... */
  readonly fields: readonly string[];
  readonly generation: number;
  readonly replicas: number;
}

/** The reconfiguration's rollout failed; the previous pod template was written back. */
export interface RollbackEvent extends LifecycleEventBase {
  readonly type: 'rollback';
  /** Why: the failure's reason (ErrImagePull, CrashLoopBackOff, ...). */
  readonly reason: string;
  readonly generation: number;
}

/** The deletion of one of the workload's objects was accepted (remove: the Service, then the claim unless kept, then the Deployment). */
export interface DeletedEvent extends LifecycleEventBase {
  readonly type: 'deleted';
  readonly uid: string;
  /** The object's kind, as the API names it: `Deployment`, `Service`, ... */
  readonly kind: string;
  /** The object's name. */
  readonly object: string;
}

/** reconfigure with storageGb: the claim's request was grown (the volume grows when its resizer acts). */
export interface ResizedEvent extends LifecycleEventBase {
  readonly type: 'resized';
  readonly object: string;
  /** The request before ("50Gi") and now ("80Gi"). */
  readonly previous: string;
  readonly requested: string;
  /** What the volume has now; null until bound. */
  readonly capacity: string | null;
  /** The claim's resize state right after the write (docs/status.md). */
  readonly resize: ClaimStatusValue['resize'];
  readonly message: string;
}

/** remove with keepData: the container's claim stays, with the data on it; a later create for the same container re-attaches it. */
export interface KeptEvent extends LifecycleEventBase {
  readonly type: 'kept';
  readonly kind: KindName<'persistentvolumeclaims'>;
  readonly object: string;
  readonly uid: string;
}

/**
 * remove: an object of the workload's name that is not this container's (another
 * container's or installation's, or not Manager's at all) was left untouched, and did not
 * keep the workload's own objects from going.
 */
export interface LeftEvent extends LifecycleEventBase {
  readonly type: 'left';
  readonly kind: LeftObject['kind'];
  readonly object: string;
  readonly uid: string;
  /** Whose it is, in words: "Service team-a/web belongs to something other than Manager, not container-id 42: left untouched". */
  readonly message: string;
}

/** An object remove left untouched because it is not the container's. */
export interface LeftObject {
  /** As the API names it: `Service`, or the claim's kind. */
  readonly kind: string;
  readonly object: string;
  readonly uid: string;
  readonly message: string;
}

/** The workload's Service was written (setPorts, reconfigure with ports, adoption with onDrift: 'reconfigure'). */
export interface ServiceEvent extends LifecycleEventBase {
  readonly type: 'service';
  readonly action: 'created' | 'patched' | 'deleted';
  /** What changed, in the spec's words: `ports`, `serviceType`, `selector`, `owner`. */
  readonly fields: readonly string[];
  readonly uid: string;
}

/** Waiting for Pods (stop) or for the Deployment and its Pods (remove) to be gone. */
export interface WaitingEvent extends LifecycleEventBase {
  readonly type: 'waiting';
  /** Plain words: "waiting for 1 pod to go (web-7c9f5d-x1: Terminating)". */
  readonly message: string;
  /** The names of the workload's Pods still there. */
  readonly pods: readonly string[];
}

/**
 * Something that does not stop the operation but that the user should fix: `SlowHalt`, a
 * system container still running well after its stop (docs/system-containers.md).
 */
export interface WarnedEvent extends LifecycleEventBase {
  readonly type: 'warned';
  readonly reason: 'SlowHalt';
  /** The Pod it is about. */
  readonly pod: string;
  /** One line, in plain words: what was seen, why it matters, what to change. */
  readonly message: string;
}

interface OutcomeBase extends LifecycleEventBase {
  /** false: nothing had to be written (already running, already stopped, already gone). */
  readonly changed: boolean;
  readonly durationMs: number;
}

/** start's last event: the rollout is complete and available. */
export interface StartedEvent extends OutcomeBase {
  readonly type: 'started';
}

/** stop's last event: replicas 0 and no Pod left. */
export interface StoppedEvent extends OutcomeBase {
  readonly type: 'stopped';
}

/** restart's last event. */
export interface RestartedEvent extends OutcomeBase {
  readonly type: 'restarted';
  /** false: the workload was stopped, and it stays stopped (nothing was restarted). */
  readonly running: boolean;
}

/** reconfigure's last event: the new template is rolled out (or, stopped, observed). */
export interface ReconfiguredEvent extends OutcomeBase {
  readonly type: 'reconfigured';
  /** What changed, in the spec's words (empty when nothing did). */
  readonly fields: readonly string[];
  /** The replica count, untouched: 0 means it stays stopped. */
  readonly replicas: number;
}

/** setPorts' last event: the Service carries the ports (running: and routes to the Pod on them). */
export interface PortsSetEvent extends OutcomeBase {
  readonly type: 'portsSet';
  /** The Service's address; null when no ports are left (no Service). */
  readonly address: string | null;
  readonly service: ServiceStatusValue | null;
}

/** remove's last event: the Deployment and its Pods are gone (changed: false, it was already). */
export interface RemovedEvent extends OutcomeBase {
  readonly type: 'removed';
  /** The container's claim: deleted and gone, kept (keepData), or there was none. */
  readonly storage: 'deleted' | 'kept' | 'none';
  /** Objects of the name that are not the container's, left untouched (each had its `left` event). */
  readonly left: readonly LeftObject[];
}

export type OutcomeEvent = StartedEvent | StoppedEvent | RestartedEvent | ReconfiguredEvent | RemovedEvent | PortsSetEvent;

export type LifecycleEvent =
  | ProgressEvent
  | DiagnosedEvent
  | ScaledEvent
  | PatchedEvent
  | RollbackEvent
  | DeletedEvent
  | KeptEvent
  | LeftEvent
  | ResizedEvent
  | ServiceEvent
  | WaitingEvent
  | WarnedEvent
  | OutcomeEvent;
