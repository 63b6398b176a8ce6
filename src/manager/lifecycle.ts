// One call per lifecycle operation, whatever the container's node type: the registry picks
// the provider (the one place a node type selects code) and its lifecycle does the work.
// Manager's routes call these and never ask which kind of node a container is on.
import { asyncScheduler, defer, filter, lastValueFrom, of } from 'rxjs';
import { eventTime } from './event-time.js';
import { requireProviderId } from './providers/lifecycle-record.js';
import type { Observable, SchedulerLike } from 'rxjs';
import { LifecycleUnsupportedError } from './errors.js';
import type { ProviderRegistry } from './providers/registry.js';
import type {
  ContainerLifecycle,
  ContainerLifecycleEvent,
  ContainerRecord,
  ContainerStatus,
  LifecycleCompletedEvent,
  ProviderContext,
} from './providers/types.js';

export interface ContainerLifecycleOptions {
  /** Time source for event stamps and delays; default: the real clock. */
  readonly clock?: SchedulerLike;
}

export interface LifecycleCallOptions {
  readonly signal?: AbortSignal;
}

type Operation = 'start' | 'stop' | 'restart' | 'reconfigure' | 'remove' | 'setPorts';

/**
 * `name$` streams the provider's events and ends with one `completed` event (what Manager
 * saves: the provider ID, and after a start the MAC and IP); `name` resolves to that event.
 */
export type ContainerOperations = {
  readonly status: (record: ContainerRecord, options?: LifecycleCallOptions) => Promise<ContainerStatus>;
} & {
  readonly [Name in Operation as `${Name}$`]: (
    record: ContainerRecord,
    options?: LifecycleCallOptions,
  ) => Observable<ContainerLifecycleEvent>;
} & {
  readonly [Name in Operation]: (record: ContainerRecord, options?: LifecycleCallOptions) => Promise<LifecycleCompletedEvent>;
};

export function containerLifecycle(registry: ProviderRegistry, options: ContainerLifecycleOptions = {}): ContainerOperations {
  const clock = options.clock ?? asyncScheduler;
  const lifecycleOf = (record: ContainerRecord): ContainerLifecycle => {
    const provider = registry.providerFor(record.node.nodeType);
    if (!provider.lifecycle) throw new LifecycleUnsupportedError(provider.nodeType);
    return provider.lifecycle;
  };
  const context = (call: LifecycleCallOptions = {}): ProviderContext => ({ clock, ...(call.signal ? { signal: call.signal } : {}) });
  const stream =
    (name: Operation) =>
    (record: ContainerRecord, call?: LifecycleCallOptions): Observable<ContainerLifecycleEvent> =>
      defer(() => {
        const lifecycle = lifecycleOf(record);
        if (lifecycle[`${name}$`]) return lifecycle[`${name}$`]!(record, context(call));
        // A node that needs nothing for this operation (setPorts on Proxmox, Docker): done, unchanged.
        const provider = registry.providerFor(record.node.nodeType).nodeType;
        const completed: LifecycleCompletedEvent = {
          type: 'completed',
          at: eventTime(clock),
          provider,
          operation: name,
          providerId: requireProviderId(record),
          changed: false,
        };
        return of(completed);
      });
  const promise =
    (name: Operation) =>
    (record: ContainerRecord, call?: LifecycleCallOptions): Promise<LifecycleCompletedEvent> =>
      lastValueFrom(stream(name)(record, call).pipe(filter((event): event is LifecycleCompletedEvent => event.type === 'completed')));

  return {
    status: async (record, call) => lifecycleOf(record).status(record, context(call)),
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
