// The shapes shared by the create flow and every provider: the Manager container record a
// provider receives, the events it emits, and the outcome the flow persists.
//
// Every provider is a cold Observable. The Kubernetes provider's events are the library's
// own ProvisionEvent values, passed through unchanged; other providers report `step`
// events. Every provider ends its stream with exactly one `provisioned` event: the result
// the create flow saves.
import type { Observable, SchedulerLike } from 'rxjs';
import type { LifecycleEvent, ProvisionEvent } from '../../index.js';

/** Manager's Container primary key (an integer in Manager; strings are accepted too). */
export type ContainerId = number | string;

/** The node a container is provisioned on. Each provider reads only its own fields. */
export interface NodeRecord {
  readonly id: number | string;
  readonly name: string;
  /** Selects the provider, in the registry and nowhere else. */
  readonly nodeType: string;
  // Proxmox (Manager's Node columns; defaults applied by the provider)
  readonly imageStorage?: string | null;
  readonly volumeStorage?: string | null;
  readonly networkBridge?: string | null;
  // Kubernetes: either a kubeconfig (the columns Manager's plan adds for kubernetes nodes)...
  readonly kubeconfigPath?: string | null;
  readonly kubeContext?: string | null;
  readonly kubeNamespace?: string | null;
  // ...or Manager's existing columns: the API server URL and a bearer token in `secret`.
  // `tlsVerify` applies to both (and to Proxmox); only an explicit false turns it off.
  readonly apiUrl?: string | null;
  readonly secret?: string | null;
  readonly tlsVerify?: boolean | null;
  // Kubernetes, for a container with nvidiaRequested: the extended resource it requests
  // (default nvidia.com/gpu) and the RuntimeClass it runs with (default: none).
  readonly kubeGpuResource?: string | null;
  readonly kubeGpuRuntimeClass?: string | null;
  // Kubernetes storage: each container's volume, sized by the approved rootfs.
  /** The claim's StorageClass; empty: the cluster's default class. */
  readonly kubeStorageClass?: string | null;
  /** The persisted paths, absolute directories separated by spaces; empty: the default set. */
  readonly kubePersistPaths?: string | null;
  /** `off` turns the volume off, explicitly (the files then live as long as the Pod); empty or `on`: a volume. */
  readonly kubePersistence?: string | null;
  // Kubernetes system containers (docs/system-containers.md).
  /** The RuntimeClass of a system container (systemd as PID 1): a handler with writable cgroups; empty: the cluster's default. */
  readonly kubeSystemRuntimeClass?: string | null;
  /** `on` runs each container in a user namespace of its own (hostUsers: false); empty or `off`: the host's users. */
  readonly kubeUserNamespaces?: string | null;
}

export interface SiteRecord {
  readonly name: string;
  /** DNS search domain of the site's internal network; Manager allows none (null). */
  readonly internalDomain: string | null;
}

/** Approved resources, already defaulted (Manager: 4 cores, 4096 MB, 0 swap, 50 GB). */
export interface ContainerResources {
  readonly cpus: number;
  readonly memoryMb: number;
  readonly swapMb: number;
  readonly rootfsGb: number;
}

/**
 * One of Manager's Service rows of a container, flattened: `http` (its nginx proxies a
 * hostname to the internal port, over TCP), `transport` (an external port to the internal
 * one, over `protocol`), or `dns` (an SRV record, no port of its own).
 */
export interface ContainerService {
  readonly id?: number | string | null;
  readonly type: string;
  readonly internalPort: number | null;
  /** `transport` only: Manager's TransportService.protocol, tcp or udp. */
  readonly protocol?: string | null;
}

export interface ContainerRecord {
  readonly id: ContainerId;
  /** DNS-1123 label, unique per site. */
  readonly hostname: string;
  /** The owner's uid. */
  readonly username: string;
  /** An OCI image reference (`host/org/image:tag`) or a Proxmox template name; null if unset. */
  readonly template: string | null;
  /** Manager's `containerId` column: null until provisioning has succeeded. */
  readonly providerId: string | null;
  readonly macAddress: string | null;
  readonly ipAddress: string | null;
  readonly nvidiaRequested: boolean;
  /** The user's own variables (highest precedence). */
  readonly environment: Readonly<Record<string, string>>;
  /** Admin-defined system defaults (lowest precedence; applied, never persisted). */
  readonly defaultEnvironment: Readonly<Record<string, string>>;
  /** ONE command line string (image Entrypoint and Cmd joined by a space) or null. */
  readonly entrypoint: string | null;
  readonly resources: ContainerResources;
  readonly node: NodeRecord;
  readonly site: SiteRecord | null;
  /**
   * The container's Manager services; on a Kubernetes node they become the ports of its
   * Service (see service-ports.ts). Absent: none.
   */
  readonly services?: readonly ContainerService[];
}

// ---- events ------------------------------------------------------------------------

/** One step of a non-Kubernetes provider, e.g. `nextId` "Allocated VMID 104". */
export interface StepEvent {
  readonly type: 'step';
  /** ISO-8601 time the event was produced. */
  readonly at: string;
  /** The node type of the provider that ran the step. */
  readonly provider: string;
  /** Short machine-readable step name (stable; tests and UIs may key on it). */
  readonly step: string;
  readonly message: string;
  /** `warning` for a problem the provider continues past (as Manager does). */
  readonly severity: 'info' | 'warning';
}

/**
 * The env/entrypoint the template itself carried, folded under the user's values. Manager
 * snapshots these onto the record at creation, because the template may change before a
 * later reconfiguration.
 */
export interface TemplateDefaults {
  readonly environment: Readonly<Record<string, string>>;
  readonly entrypoint: string | null;
}

/** What the provider really allocated, read back after start (for inventory systems). */
export interface ActualResources {
  readonly cores: number | null;
  readonly memoryMb: number | null;
  readonly diskGb: number | null;
}

/** What a successful provisioning produced; the create flow persists it. */
export interface ProvisionedIdentity {
  readonly providerId: string;
  /** Null is valid: a Kubernetes workload has no stable MAC address. */
  readonly macAddress: string | null;
  readonly ipAddress: string | null;
  readonly templateDefaults?: TemplateDefaults;
}

/** The last event of every provider stream. */
export interface ProvisionedEvent extends ProvisionedIdentity {
  readonly type: 'provisioned';
  readonly at: string;
  readonly provider: string;
  readonly resources?: ActualResources;
}

export type ProviderEvent = ProvisionEvent | StepEvent | ProvisionedEvent;

// ---- providers ---------------------------------------------------------------------

export interface ProviderContext {
  /** Time source for event stamps and delays; tests pass a virtual-time scheduler. */
  readonly clock: SchedulerLike;
  /** The caller's abort signal, for providers that can hand it to their client. */
  readonly signal?: AbortSignal;
}

export interface Provider {
  /** The node type this provider serves; unique within a registry. */
  readonly nodeType: string;
  /**
   * Cold: subscribing starts the work, unsubscribing stops it before its next step.
   * Emits progress, then exactly one `provisioned` event, then completes; errors with a
   * project error (KubeProvisionerError subclass).
   */
  provision$(record: ContainerRecord, context: ProviderContext): Observable<ProviderEvent>;
  /** Status, start, stop, restart, reconfigure and remove; absent: create only. */
  readonly lifecycle?: ContainerLifecycle;
}

// ---- lifecycle after creation ---------------------------------------------------------

/** Manager's status words, whatever the node type. */
export type ContainerState = 'running' | 'offline' | 'stopping' | 'creating' | 'starting' | 'updating' | 'failed' | 'missing' | 'unknown';

export interface ContainerStatus {
  readonly state: ContainerState;
  /** Short machine-readable reason (the node's own word where it has one). */
  readonly reason: string;
  /** One line for a human. */
  readonly message: string;
  /**
   * The address Manager's agent reaches the container at (its `ipv4Address`), null when
   * none. On Kubernetes the Service's address: it lasts through stop, start and
   * reconfigure (null for a container without ports).
   */
  readonly ipAddress: string | null;
  /** Kubernetes only: the Ready Pod's IP, temporary by nature (every new Pod has another); show it, never store it. */
  readonly podIp?: string | null;
}

export type LifecycleOperation = 'start' | 'stop' | 'restart' | 'reconfigure' | 'remove' | 'setPorts';

/** The last event of every lifecycle stream: what Manager saves on the container row. */
export interface LifecycleCompletedEvent {
  readonly type: 'completed';
  readonly at: string;
  readonly provider: string;
  readonly operation: LifecycleOperation;
  /** Unchanged except on Docker, where a reconfigure recreates the container under a new ID. */
  readonly providerId: string;
  /** false: nothing had to be done (already running, already stopped, already gone). */
  readonly changed: boolean;
  /**
   * After start, restart and reconfigure of a running container: its address now. MAC null
   * on Kubernetes (no stable MAC); both null when the container is not running.
   */
  readonly network?: { readonly macAddress: string | null; readonly ipAddress: string | null };
}

export type ContainerLifecycleEvent = LifecycleEvent | StepEvent | LifecycleCompletedEvent;

/**
 * The operations on a provisioned container. Each receives the container row (its node
 * and its saved provider ID); the `$` forms are cold, emit progress and end with exactly
 * one `completed` event. `reconfigure$` applies the record as it now is (env, entrypoint,
 * CPU, memory).
 */
export interface ContainerLifecycle {
  status(record: ContainerRecord, context: ProviderContext): Promise<ContainerStatus>;
  start$(record: ContainerRecord, context: ProviderContext): Observable<ContainerLifecycleEvent>;
  stop$(record: ContainerRecord, context: ProviderContext): Observable<ContainerLifecycleEvent>;
  restart$(record: ContainerRecord, context: ProviderContext): Observable<ContainerLifecycleEvent>;
  reconfigure$(record: ContainerRecord, context: ProviderContext): Observable<ContainerLifecycleEvent>;
  remove$(record: ContainerRecord, context: ProviderContext): Observable<ContainerLifecycleEvent>;
  /**
   * The record's services as the ports the node serves (Kubernetes: the Service's ports,
   * nothing restarts). Absent: the node needs nothing for a change of services (Manager's
   * agent reaches a Proxmox or Docker container at its own address on every port).
   */
  setPorts$?(record: ContainerRecord, context: ProviderContext): Observable<ContainerLifecycleEvent>;
}
