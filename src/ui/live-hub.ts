// LiveHub: the state behind the live page, independent of any HTTP server, so a server
// can restart (or several serve it) without losing it:
//   - one statuses$ subscription for the namespace, and the latest status of each workload;
//   - whether the cluster can be reached (the backend's connection$, when it has one);
//   - the operations started through it (provisionings, start/stop/restart/remove), each
//     subscribed once by the hub and recorded with its latest progress events;
//   - one EventChannel carrying all of it to every page: `status`, `operation-started`,
//     `operation-event`, `operation-ended`, `statuses-error`, with a snapshot for pages
//     that connect fresh or cannot be resumed from the channel's buffer.
// A page closing never ends an operation; close() does (it is the owner's call). The hub
// acts in its namespace only, runs at most one operation per workload (the same one again
// joins it, another is refused) and at most `maxRunningOperations` at once. Everything
// the hub keeps and publishes is masked (src/mask.ts) with what its client knows: the
// backend's events and errors reach the page only that way.
import {
  ReplaySubject,
  Subject,
  asyncScheduler,
  catchError,
  defer,
  of,
  retry,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { longTimer } from '../rx/long-timer.js';
import { InvalidOptionError, InvalidSpecError } from '../errors/input.js';
import type { KubernetesClient } from '../kube/client.js';
import { formatProviderId, parseProviderId } from '../input/provider-id.js';
import { parseWorkloadSpec } from '../input/workload-spec.js';
import { EventChannel } from '../sse/event-channel.js';
import { errorForViewers, type ErrorForViewers } from '../sse/error-for-viewers.js';
import { maskOf, maskValueWith, type MaskText } from '../mask.js';
import {
  availableActions,
  type ClusterConnection,
  type LifecycleAction,
  type OperationEvent,
  type UiBackend,
  type WorkloadStatusEvent,
} from './backend.js';
import { OperationInProgressError, OtherNamespaceError, PageBusyError } from './refusals.js';
import type { LogLine, LogsOptions } from '../workload/reads/logs.js';
import type { Terminal, TerminalOptions } from '../workload/reads/terminal.js';

export const DEFAULT_HUB_REPLAY = 5000;
export const DEFAULT_KEEP_FINISHED_OPERATIONS = 50;
export const DEFAULT_EVENTS_PER_OPERATION = 200;
/** A failed status feed is resubscribed after this long (its informers back off on their own first). */
export const STATUSES_RETRY_MS = 5000;
/** Operations running at once; one more is refused (429) until one ends. */
export const DEFAULT_MAX_RUNNING_OPERATIONS = 32;

export type OperationKind = 'provision' | LifecycleAction;

export interface OperationSummary {
  readonly id: string;
  readonly kind: OperationKind;
  readonly providerId: string;
  readonly startedAt: string;
  readonly state: 'running' | 'succeeded' | 'failed';
  readonly endedAt?: string;
  readonly error?: ErrorForViewers;
  /** The latest progress events (at most `eventsPerOperation`). */
  readonly events: readonly OperationEvent[];
  /** How many older events were left out of `events`. */
  readonly omitted: number;
}

export type HubEvent =
  | WorkloadStatusEvent
  | { readonly type: 'operation-started'; readonly at: string; readonly operation: OperationSummary }
  | { readonly type: 'operation-event'; readonly operationId: string; readonly event: OperationEvent }
  | {
      readonly type: 'operation-ended';
      readonly at: string;
      readonly operationId: string;
      readonly state: 'succeeded' | 'failed';
      readonly error?: ErrorForViewers;
    }
  | { readonly type: 'statuses-error'; readonly at: string; readonly error: ErrorForViewers }
  /** Whether the cluster can be reached (from the backend's connection$). */
  | ({ readonly type: 'connection'; readonly at: string } & ClusterConnection);

export interface HubSnapshot {
  readonly namespace: string;
  /** The Manager installation whose workloads these are, or null for workloads without one. */
  readonly instance: string | null;
  /** Whether the cluster can be reached; null when the backend cannot tell. */
  readonly connection: ClusterConnection | null;
  readonly actions: readonly LifecycleAction[];
  readonly canProvision: boolean;
  /** Whether rows offer a terminal (the backend's openTerminal) and a log pane (its logs$). */
  readonly canTerminal: boolean;
  readonly canLogs: boolean;
  readonly statuses: readonly WorkloadStatusEvent[];
  readonly operations: readonly OperationSummary[];
}

export interface LiveHubOptions {
  readonly api: KubernetesClient;
  readonly namespace: string;
  readonly backend: UiBackend;
  /** The Manager installation whose workloads the page shows and acts on; default: workloads without one. */
  readonly instance?: string;
  /** Operations running at once. Default 32. */
  readonly maxRunningOperations?: number;
  /** Events kept for reconnecting and slow pages. Default 5000. */
  readonly replay?: number;
  /** Finished operations kept on the page. Default 50. */
  readonly keepFinishedOperations?: number;
  /** Progress events kept per operation for pages that connect later. Default 200. */
  readonly eventsPerOperation?: number;
  /** Clock and timers (tests inject a virtual-time scheduler). */
  readonly scheduler?: SchedulerLike;
}

/** A running or finished operation, as the hub's owner sees it. */
export interface Operation {
  readonly id: string;
  readonly kind: OperationKind;
  readonly providerId: string;
  /** Its events from the start (within `eventsPerOperation`), then live; errors as the operation does. */
  readonly events$: Observable<OperationEvent>;
  /** The same operation was running already: this call joined it instead of starting another. */
  readonly joined: boolean;
}

interface OperationRecord {
  readonly id: string;
  readonly kind: OperationKind;
  readonly providerId: string;
  readonly startedAt: string;
  state: OperationSummary['state'];
  endedAt?: string;
  error?: ErrorForViewers;
  events: OperationEvent[];
  omitted: number;
  readonly replay: ReplaySubject<OperationEvent>;
  subscription?: Subscription;
}

export class LiveHub {
  readonly namespace: string;
  readonly instance: string | undefined;
  readonly channel: EventChannel<HubEvent>;
  private readonly api: KubernetesClient;
  private readonly backend: UiBackend;
  private readonly statuses = new Map<string, WorkloadStatusEvent>();
  private readonly operations = new Map<string, OperationRecord>();
  /** The running operation of each workload (provider ID). */
  private readonly runningByWorkload = new Map<string, OperationRecord>();
  private connection: ClusterConnection | null = null;
  private readonly connectionSubscription: Subscription | undefined;
  private readonly maxRunning: number;
  private readonly changes = new Subject<HubEvent>();
  private readonly statusSubscription: Subscription;
  private readonly keepFinished: number;
  private readonly eventsPerOperation: number;
  private readonly scheduler: SchedulerLike;
  private readonly mask: MaskText;
  private nextOperation = 1;
  private isClosed = false;

  constructor(options: LiveHubOptions) {
    this.api = options.api;
    this.namespace = options.namespace;
    this.instance = options.instance;
    this.backend = options.backend;
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.mask = maskOf(options.api);
    this.keepFinished = wholeNumber('keepFinishedOperations', options.keepFinishedOperations ?? DEFAULT_KEEP_FINISHED_OPERATIONS, 0);
    this.eventsPerOperation = wholeNumber('eventsPerOperation', options.eventsPerOperation ?? DEFAULT_EVENTS_PER_OPERATION, 1);
    this.maxRunning = wholeNumber('maxRunningOperations', options.maxRunningOperations ?? DEFAULT_MAX_RUNNING_OPERATIONS, 1);
    this.channel = new EventChannel<HubEvent>(this.changes, {
      replay: options.replay ?? DEFAULT_HUB_REPLAY,
      snapshot: () => this.snapshot(),
    });
    const scope = { namespace: options.namespace, ...(options.instance !== undefined ? { instance: options.instance } : {}) };
    const connection$ = options.backend.connection$;
    if (connection$) {
      this.connection = { state: 'connecting' };
      this.connectionSubscription = defer(() => connection$(options.api, scope))
        .pipe(
          catchError((error: unknown) =>
            of<ClusterConnection>({ state: 'unreachable', message: errorForViewers(error, this.mask).message }),
          ),
        )
        .subscribe((connection) => this.onConnection(connection));
    }
    // Deferred, so a retry asks the backend for a new feed.
    this.statusSubscription = defer(() => options.backend.statuses$(options.api, scope))
      .pipe(
        retry({
          delay: (error: unknown) => {
            this.publish({ type: 'statuses-error', at: this.now(), error: errorForViewers(error, this.mask) });
            return longTimer(STATUSES_RETRY_MS, this.scheduler);
          },
        }),
      )
      .subscribe((event) => this.onStatus(event));
  }

  /** The state as of the last event on the channel. */
  snapshot(): HubSnapshot {
    return {
      namespace: this.namespace,
      instance: this.instance ?? null,
      connection: this.connection,
      actions: availableActions(this.backend),
      canProvision: this.backend.provision$ !== undefined,
      canTerminal: this.backend.openTerminal !== undefined,
      canLogs: this.backend.logs$ !== undefined,
      statuses: [...this.statuses.values()],
      operations: [...this.operations.values()].map(summary),
    };
  }

  /** The latest status of each workload (tests and the CLI read it). */
  status(providerId: string): WorkloadStatusEvent | undefined {
    return this.statuses.get(providerId);
  }

  /** Operations still running. */
  get runningOperations(): number {
    return [...this.operations.values()].filter((record) => record.state === 'running').length;
  }

  /**
   * Runs an operation (subscribes `events$` once, here) and shows it on every page. The
   * caller may watch it through the returned `events$` without running it again.
   */
  run(kind: OperationKind, providerId: string, events$: Observable<OperationEvent>): Operation {
    return this.start(kind, providerId, () => events$);
  }

  /** run(), asking the backend for the operation only when one is really started. */
  private start(kind: OperationKind, providerId: string, operation: () => Observable<OperationEvent>): Operation {
    if (this.isClosed) throw new InvalidOptionError('hub', 'the live hub is closed');
    const running = this.runningByWorkload.get(providerId);
    if (running) {
      if (running.kind !== kind) throw new OperationInProgressError(running, kind);
      return { id: running.id, kind, providerId, events$: running.replay.asObservable(), joined: true };
    }
    if (this.runningByWorkload.size >= this.maxRunning) throw new PageBusyError('operations', this.maxRunning);
    const id = `op-${this.nextOperation}`;
    this.nextOperation += 1;
    const record: OperationRecord = {
      id,
      kind,
      providerId,
      startedAt: this.now(),
      state: 'running',
      events: [],
      omitted: 0,
      replay: new ReplaySubject<OperationEvent>(this.eventsPerOperation),
    };
    this.operations.set(id, record);
    this.runningByWorkload.set(providerId, record);
    this.publish({ type: 'operation-started', at: record.startedAt, operation: summary(record) });
    record.subscription = operation().subscribe({
      next: (raw) => {
        const event = maskValueWith(raw, this.mask);
        record.events.push(event);
        if (record.events.length > this.eventsPerOperation) {
          record.events.shift();
          record.omitted += 1;
        }
        this.publish({ type: 'operation-event', operationId: id, event });
        record.replay.next(event);
      },
      error: (error: unknown) => {
        this.end(record, 'failed', errorForViewers(error, this.mask));
        record.replay.error(error);
      },
      complete: () => {
        this.end(record, 'succeeded');
        record.replay.complete();
      },
    });
    return { id, kind, providerId, events$: record.replay.asObservable(), joined: false };
  }

  /** Creates a workload with the backend's provision$. Throws InvalidSpecError before anything runs. */
  provision(spec: unknown): Operation {
    const provision$ = this.backend.provision$;
    if (!provision$) throw new InvalidOptionError('provision$', 'this UI backend cannot create workloads (no provision$)');
    const parsed = parseWorkloadSpec(spec);
    // The page's namespace and installation: a spec naming others is refused, one naming none gets them.
    const issues = [
      ...(parsed.namespace !== undefined && parsed.namespace !== this.namespace
        ? [{ path: 'namespace', message: `must be ${this.namespace} (or left out): this page serves that namespace only` }]
        : []),
      ...(parsed.instance !== this.instance && parsed.instance !== undefined
        ? [
            {
              path: 'instance',
              message: this.instance
                ? `must be ${this.instance} (or left out): this page serves that installation only`
                : 'must be left out: this page serves workloads without an instance',
            },
          ]
        : []),
    ];
    if (issues.length > 0) throw new InvalidSpecError(issues);
    const input = { ...(spec as object), namespace: this.namespace, ...(this.instance !== undefined ? { instance: this.instance } : {}) };
    const providerId = formatProviderId(this.namespace, parsed.hostname);
    return this.start('provision', providerId, () => provision$(this.api, input));
  }

  /** Starts, stops, restarts or removes a workload with the backend's operation. */
  act(action: LifecycleAction, providerId: string): Operation {
    const operation = this.backend[`${action}$`];
    if (!operation) throw new InvalidOptionError(`${action}$`, `this UI backend has no ${action}$ operation`);
    this.checkScope(providerId);
    return this.start(action, providerId, () => operation(this.api, providerId, this.scopeOptions()));
  }

  /** A terminal in a workload of the page's namespace (and installation), with the backend's openTerminal. */
  openTerminal(providerId: string, options: Omit<TerminalOptions, 'instance' | 'containerId'>): Promise<Terminal> {
    const openTerminal = this.backend.openTerminal;
    if (!openTerminal) throw new InvalidOptionError('openTerminal', 'this UI backend cannot open terminals (no openTerminal)');
    this.checkScope(providerId);
    return openTerminal(this.api, providerId, { ...options, ...this.scopeOptions() });
  }

  /** The log of a workload of the page's namespace (and installation), with the backend's logs$. */
  logs$(providerId: string, options: Omit<LogsOptions, 'instance' | 'containerId'>): Observable<LogLine> {
    const logs$ = this.backend.logs$;
    if (!logs$) throw new InvalidOptionError('logs$', 'this UI backend cannot read logs (no logs$)');
    this.checkScope(providerId);
    // The container's own output, as `kube-provision logs` prints it: not masked, like a terminal's.
    return logs$(this.api, providerId, { ...options, ...this.scopeOptions() });
  }

  /** The error as a page may see it: masked with what the hub's client knows. */
  forViewers(error: unknown): ErrorForViewers {
    return errorForViewers(error, this.mask);
  }

  /** The page acts in its own namespace only: anything else is refused (OtherNamespaceError) before it reaches the backend. */
  checkScope(providerId: string): void {
    const { namespace } = parseProviderId(providerId);
    if (namespace !== this.namespace) throw new OtherNamespaceError(this.namespace, providerId);
  }

  private scopeOptions(): { instance?: string } {
    return this.instance !== undefined ? { instance: this.instance } : {};
  }

  /** Stops the status feed, ends the operations it runs and every page's stream. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.statusSubscription.unsubscribe();
    this.connectionSubscription?.unsubscribe();
    for (const record of this.operations.values()) record.subscription?.unsubscribe();
    this.channel.close();
    this.changes.complete();
  }

  private onStatus(raw: WorkloadStatusEvent): void {
    const event = maskValueWith(raw, this.mask);
    if (event.status.state === 'missing') this.statuses.delete(event.providerId);
    else this.statuses.set(event.providerId, event);
    this.publish(event);
  }

  private onConnection(connection: ClusterConnection): void {
    // The state is ours (one of three words); only the client's message is relayed text.
    const masked: ClusterConnection =
      connection.message === undefined ? { state: connection.state } : { state: connection.state, message: this.mask(connection.message) };
    if (this.connection?.state === masked.state && this.connection.message === masked.message) return;
    this.connection = masked;
    this.publish({ type: 'connection', at: this.now(), ...masked });
  }

  private end(record: OperationRecord, state: 'succeeded' | 'failed', error?: ErrorForViewers): void {
    record.state = state;
    if (this.runningByWorkload.get(record.providerId) === record) this.runningByWorkload.delete(record.providerId);
    record.endedAt = this.now();
    if (error) record.error = error;
    this.publish({
      type: 'operation-ended',
      at: record.endedAt,
      operationId: record.id,
      state,
      ...(error ? { error } : {}),
    });
    this.forgetOldOperations();
  }

  private forgetOldOperations(): void {
    const finished = [...this.operations.values()].filter((record) => record.state !== 'running');
    for (const record of finished.slice(0, Math.max(0, finished.length - this.keepFinished))) this.operations.delete(record.id);
  }

  private now(): string {
    return new Date(this.scheduler.now()).toISOString();
  }

  /** State first, then the event: a snapshot taken between two events matches the last ID sent. */
  private publish(event: HubEvent): void {
    this.changes.next(event);
  }
}

function summary(record: OperationRecord): OperationSummary {
  return {
    id: record.id,
    kind: record.kind,
    providerId: record.providerId,
    startedAt: record.startedAt,
    state: record.state,
    ...(record.endedAt ? { endedAt: record.endedAt } : {}),
    ...(record.error ? { error: record.error } : {}),
    events: [...record.events],
    omitted: record.omitted,
  };
}

function wholeNumber(option: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new InvalidOptionError(option, `${option} must be a whole number, at least ${min} (got ${value})`);
  return value;
}
