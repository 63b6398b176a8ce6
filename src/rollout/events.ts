// Progress events of one provisioning: plain JSON-serializable objects, discriminated by
// `type`, each stamped with the ISO time it was produced. A UI can render them live; the
// CLI prints one line per event.
import type { ServiceStatusValue } from './service-status.js';
import type { SystemBootFailureKind } from './systemd-boot.js';

export type RolloutState = 'InProgress' | 'Complete' | 'Failed';

export interface ReplicaCounts {
  readonly desired: number;
  readonly total: number;
  readonly updated: number;
  readonly ready: number;
  readonly available: number;
}

/** The value rolloutStatus() computes from one Deployment object (kstatus style). */
export interface RolloutStatus {
  readonly state: RolloutState;
  /** Short machine-readable reason: e.g. NewReplicaSetAvailable, ProgressDeadlineExceeded, WaitingForAvailable. */
  readonly reason: string;
  /** One human sentence. */
  readonly message: string;
  readonly generation: number;
  readonly observedGeneration: number;
  readonly replicas: ReplicaCounts;
  /**
   * Set while a controller reports it cannot create the ReplicaSet (`ReplicaSetCreateError`)
   * or its Pods (`ReplicaFailure=True`, reason e.g. FailedCreate), with the API server's
   * error. The state is then InProgress: the failure policy decides whether it is final.
   */
  readonly createFailure?: { readonly reason: string; readonly message: string };
}

/** What a Pod of the current rollout is doing, or why it cannot run (diagnosePod()). */
export interface PodDiagnosis {
  /** `waiting` while it may still succeed; `failed` when Kubernetes reports a failure. */
  readonly severity: 'waiting' | 'failed';
  /** Kubernetes' own reason: ImagePullBackOff, CrashLoopBackOff, Unschedulable, OOMKilled, ... */
  readonly reason: string;
  /** The kubelet's or scheduler's message, when it gives one. */
  readonly message: string;
  readonly pod: string;
  readonly container?: string;
  /** Restart count of that container, for back-off policies. */
  readonly restartCount?: number;
  /**
   * A crashed container's last log lines, when they could be read (bounded, scrubbed, one
   * line each): added by the operation that waits, never by diagnosePod().
   */
  readonly logs?: readonly string[];
  /** What a running container waits on before it can be ready, in words: `its startup probe (a TCP connection to port 22)`. */
  readonly awaiting?: string;
  /** A system container's failed boot, named from those lines (reason SystemContainerBootFailed). */
  readonly systemBoot?: { readonly kind: SystemBootFailureKind; readonly line: string };
}

interface EventBase {
  /** ISO-8601 time the event was produced. */
  readonly at: string;
  readonly namespace: string;
  readonly name: string;
  readonly providerId: string;
}

/** The container's claim, as a provisioning created or adopted it (created/adopted events). */
export interface ClaimSummary {
  readonly name: string;
  readonly uid: string;
  /** It existed before this run (kept data of the same container): re-attached. */
  readonly adopted: boolean;
  readonly storageClass: string | null;
  /** "50Gi". */
  readonly requested: string | null;
  /** How the class was chosen: named by the spec, or the cluster's default. */
  readonly classSource: 'spec' | 'default';
}

export interface CreatedEvent extends EventBase {
  readonly type: 'created';
  readonly uid: string;
  /** With storage: the claim, created before the Deployment (or re-attached). */
  readonly claim?: ClaimSummary;
}

export interface AdoptedEvent extends EventBase {
  readonly type: 'adopted';
  readonly uid: string;
  /** With storage: the claim (re-attached, or created for the adopted Deployment). */
  readonly claim?: ClaimSummary;
  /**
   * Set when the adopted Deployment differed from the request and `onDrift: 'reconfigure'`
   * rewrote it: the fields written (`image`, `cpus`, `env.NAME`, `replicas`, ...).
   */
  readonly reconfigured?: readonly string[];
}

export interface ProgressEvent extends EventBase {
  readonly type: 'progress';
  readonly status: RolloutStatus;
  /** The Deployment's resourceVersion this status was read from. */
  readonly resourceVersion?: string;
  /** Plain words for a UI line: "waiting to be scheduled", "pulling the image", "0/1 ready". */
  readonly message: string;
  readonly pod?: PodDiagnosis;
  /**
   * Once the rollout is done, for a container with ports: the Service's address, ports and
   * what it waits for (the last event: it routes).
   */
  readonly service?: ServiceStatusValue;
  /** The last event's: the Pod the Service routes to, and the address of its node (a NodePort Service's address). */
  readonly routedTo?: RoutedPod;
}

/** A Pod a Service routes to. */
export interface RoutedPod {
  readonly pod: string;
  readonly podIp: string | null;
  readonly hostIp: string | null;
}

/** What a readiness gate adds to a wait's progress events once the rollout is done (ProgressEvent's fields). */
export type GateProgress = Pick<ProgressEvent, 'service' | 'routedTo'>;

export interface ReadyEvent extends EventBase {
  readonly type: 'ready';
  readonly adopted: boolean;
  readonly durationMs: number;
  /**
   * The Service's address (ClusterIP, load balancer IP or hostname, NodePort node address):
   * what Manager stores in `ipv4Address`. null for a container without ports.
   */
  readonly address: string | null;
  /** The Service as it routes to the Pod, null without ports. */
  readonly service: ServiceStatusValue | null;
}

/** What the provisioning goes on without, in one line (a system container's stop signal it could not ask about). */
export interface ProvisionWarnedEvent extends EventBase {
  readonly type: 'warned';
  readonly reason: 'StopSignalUnknown';
  readonly message: string;
}

export type ProvisionEvent = CreatedEvent | AdoptedEvent | ProgressEvent | ReadyEvent | ProvisionWarnedEvent;
