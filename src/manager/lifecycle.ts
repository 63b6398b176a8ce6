// One call per lifecycle operation, whatever the container's node type: the registry picks
// the provider (the one place a node type selects code) and its lifecycle does the work.
// Manager's routes and job scripts call these with the container row (or its id) and never
// ask which kind of node a container is on. With a store, the row is read through it (its
// node and site, its approved resources) and the result is written back to it.
import { EMPTY, asyncScheduler, concat, defer, filter, from, lastValueFrom, of, switchMap, tap } from 'rxjs';
import { requireProviderId } from './providers/lifecycle-record.js';
import type { Observable, SchedulerLike } from 'rxjs';
import { InvalidOptionError, OperationAbortedError, abortOn } from '../index.js';
import { LifecycleResultNotSavedError, LifecycleUnsupportedError, OPERATION_NOUNS, type ContainerOperationName } from './errors.js';
import { isoTime } from '../index.js';
import type { ProviderRegistry } from './providers/registry.js';
import type {
  ContainerId,
  ContainerLifecycle,
  ContainerLifecycleEvent,
  ContainerRecord,
  ContainerStatus,
  LifecycleCompletedEvent,
  LifecycleOperation,
  ProviderContext,
} from './providers/types.js';
import type { ContainerStore, OperationResult } from './store/container-store.js';
import { loadRecord } from './store/load-record.js';

export interface ContainerLifecycleOptions {
  /** Time source for event stamps and delays; default: the real clock. */
  readonly clock?: SchedulerLike;
  /**
   * Where the rows are: each operation then takes Manager's row (a Sequelize instance or a
   * plain row, with or without its node) or its id, reads the record through the store, and
   * saves the result there (provider ID, MAC and address). Without it, operations take a
   * ContainerRecord and save nothing.
   */
  readonly store?: ContainerStore;
}

export interface LifecycleCallOptions {
  /** Aborting stops the operation (OperationAbortedError); an already aborted signal stops it before the row is read. */
  readonly signal?: AbortSignal;
  /** The Promise forms call it with every event, in order (for a job log: eventPrinter()). */
  readonly onEvent?: (event: ContainerOperationEvent) => void;
}

/** What an operation is given: Manager's row or its id (with a store), or a ContainerRecord. */
export type ContainerTarget = ContainerRecord | ContainerId | { readonly id: ContainerId };

/** The row after an operation: what the store wrote (the `$` forms' last event, with a store). */
export interface LifecycleSavedEvent {
  readonly type: 'saved';
  readonly at: string;
  readonly containerId: ContainerId;
  readonly operation: LifecycleOperation;
  /** The provider ID now in the row; null after remove (the row is no longer on a node). */
  readonly providerId: string | null;
  /** Written only when the operation reported them (undefined: left as they were). */
  readonly macAddress?: string | null;
  readonly ipAddress?: string | null;
}

export type ContainerOperationEvent = ContainerLifecycleEvent | LifecycleSavedEvent;

/**
 * `name$` streams the provider's events, then one `completed` event, then (with a store)
 * one `saved` event; `name` resolves to the `completed` event once the row is saved.
 */
export type ContainerOperations = {
  readonly status: (target: ContainerTarget, options?: LifecycleCallOptions) => Promise<ContainerStatus>;
} & {
  readonly [Name in LifecycleOperation as `${Name}$`]: (
    target: ContainerTarget,
    options?: LifecycleCallOptions,
  ) => Observable<ContainerOperationEvent>;
} & {
  readonly [Name in LifecycleOperation]: (target: ContainerTarget, options?: LifecycleCallOptions) => Promise<LifecycleCompletedEvent>;
};

export function containerLifecycle(registry: ProviderRegistry, options: ContainerLifecycleOptions = {}): ContainerOperations {
  const clock = options.clock ?? asyncScheduler;
  const store = options.store;
  if (store !== undefined && (typeof store?.load !== 'function' || typeof store.saveOperation !== 'function')) {
    throw new InvalidOptionError(
      'store',
      'containerLifecycle needs a store with load() and saveOperation(), such as SequelizeContainerStore',
    );
  }
  const lifecycleOf = (record: ContainerRecord): ContainerLifecycle => {
    const provider = registry.providerFor(record.node.nodeType);
    if (!provider.lifecycle) throw new LifecycleUnsupportedError(provider.nodeType);
    return provider.lifecycle;
  };
  const context = (call: LifecycleCallOptions): ProviderContext => ({ clock, ...(call.signal ? { signal: call.signal } : {}) });
  const aborted = (name: ContainerOperationName, target: ContainerTarget) => (reason: unknown) =>
    new OperationAbortedError(name, `container ${String(targetId(target))}`, reason, OPERATION_NOUNS[name]);

  const stream =
    (name: LifecycleOperation) =>
    (target: ContainerTarget, call: LifecycleCallOptions = {}): Observable<ContainerOperationEvent> =>
      defer(() => {
        let record: ContainerRecord | undefined;
        let completed: LifecycleCompletedEvent | undefined;
        const operation$ = defer(() => from(recordOf(store, target))).pipe(
          switchMap((loaded): Observable<ContainerLifecycleEvent> => {
            record = loaded;
            const lifecycle = lifecycleOf(loaded);
            if (lifecycle[`${name}$`]) return lifecycle[`${name}$`]!(loaded, context(call));
            // A node that needs nothing for this operation (setPorts on Proxmox, Docker): done, unchanged.
            return of<ContainerLifecycleEvent>({
              type: 'completed',
              at: isoTime(clock),
              provider: registry.providerFor(loaded.node.nodeType).nodeType,
              operation: name,
              providerId: requireProviderId(loaded, name),
              changed: false,
            });
          }),
          tap((event) => {
            if (event.type === 'completed') completed = event;
          }),
          abortOn(call.signal, aborted(name, target)),
        );
        // Once the node has done it, saving is the only way to keep the row true, so an
        // abort no longer applies to the save.
        const save$ = defer(() => (store && record && completed ? from(saveResult(store, record, completed, clock)) : EMPTY));
        return concat(operation$, save$);
      });
  const promise =
    (name: LifecycleOperation) =>
    (target: ContainerTarget, call?: LifecycleCallOptions): Promise<LifecycleCompletedEvent> =>
      lastValueFrom(
        stream(name)(target, call).pipe(
          tap((event) => call?.onEvent?.(event)),
          filter((event): event is LifecycleCompletedEvent => event.type === 'completed'),
        ),
      );

  return {
    status: (target, call = {}) =>
      lastValueFrom(
        defer(() => from(recordOf(store, target))).pipe(
          switchMap((record) => from(lifecycleOf(record).status(record, context(call)))),
          abortOn(call.signal, aborted('status', target)),
        ),
      ),
    start$: stream('start'),
    stop$: stream('stop'),
    restart$: stream('restart'),
    reconfigure$: stream('reconfigure'),
    remove$: stream('remove'),
    setPorts$: stream('setPorts'),
    start: promise('start'),
    stop: promise('stop'),
    restart: promise('restart'),
    reconfigure: promise('reconfigure'),
    remove: promise('remove'),
    setPorts: promise('setPorts'),
  };
}

/** A ContainerRecord as the providers take it, not one of Manager's rows (which a store reads). */
function isContainerRecord(target: ContainerTarget): target is ContainerRecord {
  if (typeof target !== 'object' || target === null) return false;
  const candidate = target as Partial<ContainerRecord> & { get?: unknown };
  return typeof candidate.get !== 'function' && typeof candidate.node === 'object' && typeof candidate.resources === 'object';
}

function targetId(target: ContainerTarget): unknown {
  return typeof target === 'object' && target !== null ? (target as { id?: unknown }).id : target;
}

async function recordOf(store: ContainerStore | undefined, target: ContainerTarget): Promise<ContainerRecord> {
  if (isContainerRecord(target)) return target;
  const id = targetId(target);
  if (!store) {
    throw new InvalidOptionError(
      'store',
      "containerLifecycle needs { store } to take Manager's row or its id (without one, pass a ContainerRecord, e.g. from store.load(id))",
    );
  }
  if (!((typeof id === 'number' && Number.isSafeInteger(id)) || (typeof id === 'string' && id !== ''))) {
    throw new InvalidOptionError(
      'container',
      `a container is its row or its id (an integer), not ${typeof id === 'string' ? '""' : typeof id}`,
    );
  }
  return loadRecord(store, id);
}

/** The row after the operation: the provider ID it now has, and the network when the operation reported it. */
function resultOf(completed: LifecycleCompletedEvent): OperationResult {
  if (completed.operation === 'remove') return { providerId: null, macAddress: null, ipAddress: null };
  return { providerId: completed.providerId, ...(completed.network ?? {}) };
}

async function saveResult(
  store: ContainerStore,
  record: ContainerRecord,
  completed: LifecycleCompletedEvent,
  clock: SchedulerLike,
): Promise<LifecycleSavedEvent> {
  const { operation } = completed;
  const result = resultOf(completed);
  const expected = record.providerId ?? completed.providerId;
  let written: boolean;
  try {
    // saveOperation exists: containerLifecycle checks the store when it is given.
    written = await store.saveOperation!(record.id, expected, result);
  } catch (error) {
    throw new LifecycleResultNotSavedError(record.id, operation, completed.providerId, 'the store failed', { cause: error });
  }
  if (!written) {
    throw new LifecycleResultNotSavedError(
      record.id,
      operation,
      completed.providerId,
      `the row no longer has provider ID ${expected} (deleted or changed meanwhile)`,
    );
  }
  return { type: 'saved', at: isoTime(clock), containerId: record.id, operation, ...result };
}
