// What the live page needs from the library, as injected functions: the live status of
// every managed workload in a namespace, and the operations its buttons start. The UI
// knows nothing else of the library, so the same page runs on the library's functions
// (library-backend.ts) and on whatever a test passes in.
import type { Observable } from 'rxjs';
import type { KubernetesClient } from '../kube/client.js';
import type { PodDiagnosis } from '../rollout/events.js';
import type { ServiceStatusValue } from '../rollout/service-status.js';
import type { Terminal, TerminalOptions } from '../workload/reads/terminal.js';
import type { LogLine, LogsOptions } from '../workload/reads/logs.js';

/** Manager's words for a workload's state. */
export type WorkloadState = 'running' | 'offline' | 'stopping' | 'creating' | 'starting' | 'updating' | 'failed' | 'missing' | 'unknown';

export interface WorkloadStatus {
  readonly state: WorkloadState;
  readonly reason: string;
  readonly message: string;
  /** The Ready Pod's IP: shown, never an identity. */
  readonly podIp: string | null;
  readonly nodeName: string | null;
  readonly restarts: number;
  readonly image: string | null;
  readonly generation: number;
  /** What a Pod is doing or why it cannot run, in the kubelet's or scheduler's words. */
  readonly pod?: PodDiagnosis;
  /** The Service's address (the one Manager's agent connects to); null without ports. Absent: the backend does not say. */
  readonly address?: string | null;
  /** The Service: its ports and whether its EndpointSlices list the Pod as ready; null without ports. */
  readonly service?: ServiceStatusValue | null;
}

/** One change of one workload's status (`missing` once when it is deleted). */
export interface WorkloadStatusEvent {
  readonly type: 'status';
  readonly at: string;
  readonly namespace: string;
  readonly name: string;
  readonly providerId: string;
  readonly containerId: string;
  readonly nodeId: string;
  readonly status: WorkloadStatus;
}

/** A progress event of any operation: the shape provisioning's events share. */
export interface OperationEvent {
  readonly type: string;
  readonly at: string;
  readonly namespace: string;
  readonly name: string;
  readonly providerId: string;
}

export interface OperationOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  /** The Manager installation (instance label) the workload belongs to. */
  readonly instance?: string;
}

/** What the page shows of the cluster itself: can it be reached? */
export interface ClusterConnection {
  /** `connecting` until the first list has answered, `unreachable` while it cannot be reached. */
  readonly state: 'connecting' | 'connected' | 'unreachable';
  /** Why it cannot be reached, in the client's words. */
  readonly message?: string;
}

/** The namespace (and installation) a page shows. */
export interface PageScope {
  readonly namespace: string;
  readonly instance?: string;
}

export type LifecycleAction = 'start' | 'stop' | 'restart' | 'remove';

export const LIFECYCLE_ACTIONS: readonly LifecycleAction[] = ['start', 'stop', 'restart', 'remove'];

export type LifecycleOperation = (api: KubernetesClient, providerId: string, options?: OperationOptions) => Observable<OperationEvent>;

export interface UiBackend {
  /** Every managed workload's status, live, each change once. Required. */
  readonly statuses$: (api: KubernetesClient, options: PageScope) => Observable<WorkloadStatusEvent>;
  /** Whether the cluster can be reached, each change once. Optional: without it the page cannot tell. */
  readonly connection$?: (api: KubernetesClient, options: PageScope) => Observable<ClusterConnection>;
  /** Creates a workload from a spec (the library's provision$). */
  readonly provision$?: (api: KubernetesClient, spec: unknown, options?: OperationOptions) => Observable<OperationEvent>;
  readonly start$?: LifecycleOperation;
  readonly stop$?: LifecycleOperation;
  readonly restart$?: LifecycleOperation;
  /** Deletes the workload (named `remove`: `delete` is a keyword). */
  readonly remove$?: LifecycleOperation;
  /** A terminal in the workload's container (the library's openTerminal). */
  readonly openTerminal?: (api: KubernetesClient, providerId: string, options: TerminalOptions) => Promise<Terminal>;
  /** The workload's container log as lines (the library's logs$). */
  readonly logs$?: (api: KubernetesClient, providerId: string, options: LogsOptions) => Observable<LogLine>;
}

/** The actions a backend offers, for the page's buttons. */
export function availableActions(backend: UiBackend): LifecycleAction[] {
  return LIFECYCLE_ACTIONS.filter((action) => backend[`${action}$`] !== undefined);
}
