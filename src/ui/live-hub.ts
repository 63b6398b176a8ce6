// LiveHub: the state behind the live page, independent of any HTTP server, so a server
// can restart (or several serve it) without losing it:
//   - one statuses$ subscription for the namespace, and the latest status of each workload;
//   - the operations started through it (provisionings, start/stop/restart/remove), each
//     subscribed once by the hub and recorded with its latest progress events;
//   - one EventChannel carrying all of it to every page: `status`, `operation-started`,
//     `operation-event`, `operation-ended`, `statuses-error`, with a snapshot for pages
//     that connect fresh or cannot be resumed from the channel's buffer.
// A page closing never ends an operation; close() does (it is the owner's call).
import { ReplaySubject, Subject, asyncScheduler, defer, retry, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { longTimer } from '../rx/long-timer.js';
import { InvalidOptionError } from '../errors/input.js';
import type { KubernetesClient } from '../kube/client.js';
import { formatProviderId, parseProviderId } from '../input/provider-id.js';
import { parseWorkloadSpec } from '../input/workload-spec.js';
import { EventChannel } from '../sse/event-channel.js';
import { errorForViewers, type ErrorForViewers } from '../sse/error-for-viewers.js';
import { availableActions, type LifecycleAction, type OperationEvent, type UiBackend, type WorkloadStatusEvent } from './backend.js';

export const DEFAULT_HUB_REPLAY = 5000;
export const DEFAULT_KEEP_FINISHED_OPERATIONS = 50;
export const DEFAULT_EVENTS_PER_OPERATION = 200;
/** A failed status feed is resubscribed after this long (its informers back off on their own first). */
export const STATUSES_RETRY_MS = 5000;

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
  | { readonly type: 'statuses-error'; readonly at: string; readonly error: ErrorForViewers };

export interface HubSnapshot {
  readonly namespace: string;
  readonly actions: readonly LifecycleAction[];
  readonly canProvision: boolean;
  readonly statuses: readonly WorkloadStatusEvent[];
  readonly operations: readonly OperationSummary[];
}

export interface LiveHubOptions {
  readonly api: KubernetesClient;
  readonly namespace: string;
  readonly backend: UiBackend;
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
  readonly channel: EventChannel<HubEvent>;
  private readonly api: KubernetesClient;
  private readonly backend: UiBackend;
  private readonly statuses = new Map<string, WorkloadStatusEvent>();
  private readonly operations = new Map<string, OperationRecord>();
  private readonly changes = new Subject<HubEvent>();
  private readonly statusSubscription: Subscription;
  private readonly keepFinished: number;
  private readonly eventsPerOperation: number;
  private readonly scheduler: SchedulerLike;
  private nextOperation = 1;
  private isClosed = false;

  constructor(options: LiveHubOptions) {
    this.api = options.api;
    this.namespace = options.namespace;
    this.backend = options.backend;
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.keepFinished = wholeNumber('keepFinishedOperations', options.keepFinishedOperations ?? DEFAULT_KEEP_FINISHED_OPERATIONS, 0);
    this.eventsPerOperation = wholeNumber('eventsPerOperation', options.eventsPerOperation ?? DEFAULT_EVENTS_PER_OPERATION, 1);
    this.channel = new EventChannel<HubEvent>(this.changes, {
      replay: options.replay ?? DEFAULT_HUB_REPLAY,
      snapshot: () => this.snapshot(),
    });
    // Deferred, so a retry asks the backend for a new feed.
    this.statusSubscription = defer(() => options.backend.statuses$(options.api, { namespace: options.namespace }))
      .pipe(
        retry({
          delay: (error: unknown) => {
            this.publish({ type: 'statuses-error', at: this.now(), error: errorForViewers(error) });
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
      actions: availableActions(this.backend),
      canProvision: this.backend.provision$ !== undefined,
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
    if (this.isClosed) throw new InvalidOptionError('hub', 'the live hub is closed');
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
    this.publish({ type: 'operation-started', at: record.startedAt, operation: summary(record) });
    record.subscription = events$.subscribe({
      next: (event) => {
        record.events.push(event);
        if (record.events.length > this.eventsPerOperation) {
          record.events.shift();
          record.omitted += 1;
        }
        this.publish({ type: 'operation-event', operationId: id, event });
        record.replay.next(event);
      },
      error: (error: unknown) => {
        this.end(record, 'failed', errorForViewers(error));
        record.replay.error(error);
      },
      complete: () => {
        this.end(record, 'succeeded');
        record.replay.complete();
      },
    });
    return { id, kind, providerId, events$: record.replay.asObservable() };
  }

  /** Creates a workload with the backend's provision$. Throws InvalidSpecError before anything runs. */
  provision(spec: unknown): Operation {
    const provision$ = this.backend.provision$;
    if (!provision$) throw new InvalidOptionError('provision$', 'this UI backend cannot create workloads (no provision$)');
    const parsed = parseWorkloadSpec(spec);
    const providerId = formatProviderId(parsed.namespace ?? this.namespace, parsed.hostname);
    return this.run('provision', providerId, provision$(this.api, spec));
  }

  /** Starts, stops, restarts or removes a workload with the backend's operation. */
  act(action: LifecycleAction, providerId: string): Operation {
    const operation = this.backend[`${action}$`];
    if (!operation) throw new InvalidOptionError(`${action}$`, `this UI backend has no ${action}$ operation`);
    parseProviderId(providerId);
    return this.run(action, providerId, operation(this.api, providerId));
  }

  /** Stops the status feed, ends the operations it runs and every page's stream. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.statusSubscription.unsubscribe();
    for (const record of this.operations.values()) record.subscription?.unsubscribe();
    this.channel.close();
    this.changes.complete();
  }

  private onStatus(event: WorkloadStatusEvent): void {
    if (event.status.state === 'missing') this.statuses.delete(event.providerId);
    else this.statuses.set(event.providerId, event);
    this.publish(event);
  }

  private end(record: OperationRecord, state: 'succeeded' | 'failed', error?: ErrorForViewers): void {
    record.state = state;
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
