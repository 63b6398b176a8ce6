// SharedInformer: one reflector, one cache, many consumers (client-go's split of source,
// store and handlers). Consumers subscribe to a routing key (a Deployment's name, a
// container-id label) and receive snapshots of the cached objects under that key:
//   - on subscribe, at once from the cache when it is synced (nothing is missed between
//     a create and the subscription);
//   - on every change to an object under the key, found by a Map lookup: an event costs
//     the same with one waiter or ten thousand;
//   - after every relist, so waiters re-evaluate what changed while disconnected.
// The first subscriber starts the reflector, the last one stops it. A fatal reflector
// error fails every current subscriber at once. An optional transform projects each
// object before it is cached (client-go's SetTransform), so the cache holds only what
// consumers read.
import { Observable, Subscription, type Subscriber } from 'rxjs';
import type { KubeObject, ReflectorEvent } from './reflector.js';

export type SnapshotCause = 'cache' | 'event' | 'resync';

export interface KeyedSnapshot<T> {
  readonly key: string;
  /** The cached objects under the key right now (for a Deployment name: zero or one). */
  readonly objects: readonly T[];
  readonly cause: SnapshotCause;
}

export type RoutingKey<T> = (object: T) => string | undefined;

/**
 * Applied to every listed or watched object before it is cached and routed: must be pure
 * and keep metadata.name and whatever the routing key reads.
 */
export type ObjectTransform<T> = (object: T) => T;

export interface SharedInformerOptions<T> {
  readonly routingKey: RoutingKey<T>;
  readonly transform?: ObjectTransform<T>;
  /** Called when the last consumer has left and the reflector is stopped. */
  readonly onIdle?: () => void;
}

export class SharedInformer<T extends KubeObject> {
  private readonly byName = new Map<string, T>();
  private readonly byKey = new Map<string, Map<string, T>>();
  private readonly waiters = new Map<string, Set<Subscriber<KeyedSnapshot<T>>>>();
  private subscriberCount = 0;
  private connection: Subscription | undefined;
  private synced = false;

  private readonly routingKey: RoutingKey<T>;
  private readonly transform: ObjectTransform<T> | undefined;
  private readonly onIdle: () => void;

  constructor(
    private readonly events$: Observable<ReflectorEvent<T>>,
    options: SharedInformerOptions<T>,
  ) {
    this.routingKey = options.routingKey;
    this.transform = options.transform;
    this.onIdle = options.onIdle ?? (() => {});
  }

  /** Snapshots of the objects under `key`, from the cache and then per change. */
  observe(key: string): Observable<KeyedSnapshot<T>> {
    return new Observable<KeyedSnapshot<T>>((subscriber) => {
      let waitersOfKey = this.waiters.get(key);
      if (!waitersOfKey) {
        waitersOfKey = new Set();
        this.waiters.set(key, waitersOfKey);
      }
      waitersOfKey.add(subscriber);
      this.subscriberCount += 1;
      if (this.subscriberCount === 1) this.start();
      else if (this.synced) subscriber.next(this.snapshot(key, 'cache'));

      return () => this.remove(key, subscriber);
    });
  }

  /** How many consumers are subscribed (for tests and benchmarks). */
  get consumers(): number {
    return this.subscriberCount;
  }

  get running(): boolean {
    return this.connection !== undefined;
  }

  private start(): void {
    this.synced = false;
    // Assigned before subscribing: a source may emit, fail or be stopped synchronously.
    const connection = new Subscription();
    this.connection = connection;
    connection.add(
      this.events$.subscribe({
        next: (event) => this.apply(event),
        error: (error: unknown) => this.failAll(error),
      }),
    );
  }

  private stop(): void {
    const connection = this.connection;
    this.connection = undefined;
    this.synced = false;
    this.byName.clear();
    this.byKey.clear();
    connection?.unsubscribe();
    this.onIdle();
  }

  private remove(key: string, subscriber: Subscriber<KeyedSnapshot<T>>): void {
    const waitersOfKey = this.waiters.get(key);
    if (!waitersOfKey?.delete(subscriber)) return;
    if (waitersOfKey.size === 0) this.waiters.delete(key);
    this.subscriberCount -= 1;
    if (this.subscriberCount === 0) this.stop();
  }

  private apply(event: ReflectorEvent<T>): void {
    if (event.type === 'listed') {
      this.replace(event.items);
      return;
    }
    // A deleted object is not cached: no need to project it.
    const object = event.type === 'DELETED' || !this.transform ? event.object : this.transform(event.object);
    const name = object.metadata?.name;
    if (!name) return;
    const previous = this.byName.get(name);
    const previousKey = previous ? this.routingKey(previous) : undefined;
    const key = this.routingKey(object);
    if (event.type === 'DELETED') {
      this.byName.delete(name);
      this.unindex(name, previous ? previousKey : key);
    } else {
      this.byName.set(name, object);
      // Only a changed routing key moves the object: deleting and re-adding the same key
      // of a large Map on every event is slow in V8 (measured by bench/micro.ts).
      if (previous && previousKey !== key) this.unindex(name, previousKey);
      this.index(name, key, object);
    }
    if (key !== undefined) this.notify(key, 'event');
    if (previousKey !== undefined && previousKey !== key) this.notify(previousKey, 'event');
  }

  /** A (re)list replaces the whole cache; every waiter re-evaluates from it. */
  private replace(items: readonly T[]): void {
    this.byName.clear();
    this.byKey.clear();
    for (const listed of items) {
      const item = this.transform ? this.transform(listed) : listed;
      const name = item.metadata?.name;
      if (!name) continue;
      this.byName.set(name, item);
      this.index(name, this.routingKey(item), item);
    }
    this.synced = true;
    for (const key of [...this.waiters.keys()]) this.notify(key, 'resync');
  }

  private index(name: string, key: string | undefined, object: T): void {
    if (key === undefined) return;
    let objects = this.byKey.get(key);
    if (!objects) {
      objects = new Map();
      this.byKey.set(key, objects);
    }
    objects.set(name, object);
  }

  private unindex(name: string, key: string | undefined): void {
    if (key === undefined) return;
    const objects = this.byKey.get(key);
    objects?.delete(name);
    if (objects?.size === 0) this.byKey.delete(key);
  }

  private notify(key: string, cause: SnapshotCause): void {
    if (!this.synced) return;
    const waitersOfKey = this.waiters.get(key);
    if (!waitersOfKey) return;
    const snapshot = this.snapshot(key, cause);
    // Copy: a waiter that completes unsubscribes while we iterate.
    for (const subscriber of [...waitersOfKey]) subscriber.next(snapshot);
  }

  private snapshot(key: string, cause: SnapshotCause): KeyedSnapshot<T> {
    const objects = this.byKey.get(key);
    return { key, objects: objects ? [...objects.values()] : [], cause };
  }

  private failAll(error: unknown): void {
    const subscribers = [...this.waiters.values()].flatMap((set) => [...set]);
    this.waiters.clear();
    this.subscriberCount = 0;
    this.connection = undefined;
    this.synced = false;
    this.byName.clear();
    this.byKey.clear();
    this.onIdle();
    for (const subscriber of subscribers) subscriber.error(error);
  }
}
