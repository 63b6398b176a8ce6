// SharedInformer: one reflector, one cache, many consumers (client-go's split of source,
// store and handlers). Consumers subscribe to a routing key (a Deployment's name, a
// container-id label) and receive the cached objects under that key:
//   - on subscribe, at once from the cache when it is synced (nothing is missed between
//     a create and the subscription);
//   - on every change to an object under the key, found by a Map lookup: an event costs
//     the same with one waiter or ten thousand;
//   - after every relist, so waiters re-evaluate what changed while disconnected.
// The first subscriber starts the reflector, the last one stops it. A fatal reflector
// error fails every current subscriber at once. An optional transform projects each
// object before it is cached (client-go's SetTransform), so the cache holds only what
// consumers read.
//
// Per key, the cached objects and the subscribers are immutable arrays, replaced on
// change (copy-on-write): an event hands its key's array to every subscriber as is,
// and notifying needs no copy even when a subscriber leaves meanwhile.
import { Observable, Subscription, type Subscriber } from 'rxjs';
import type { KubeObject, ReflectorEvent } from './reflector.js';

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

const NONE: readonly never[] = Object.freeze([]);

export class SharedInformer<T extends KubeObject> {
  private readonly byName = new Map<string, T>();
  private byKey = new Map<string, readonly T[]>();
  private readonly waiters = new Map<string, readonly Subscriber<readonly T[]>[]>();
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

  /**
   * The cached objects under `key` (for a Deployment name: zero or one), from the cache
   * and then per change. Each array is immutable: keep it as long as you like.
   */
  observe(key: string): Observable<readonly T[]> {
    return new Observable<readonly T[]>((subscriber) => {
      this.waiters.set(key, [...(this.waiters.get(key) ?? NONE), subscriber]);
      this.subscriberCount += 1;
      if (this.subscriberCount === 1) this.start();
      else if (this.synced) subscriber.next(this.byKey.get(key) ?? NONE);

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

  private remove(key: string, subscriber: Subscriber<readonly T[]>): void {
    const waitersOfKey = this.waiters.get(key);
    if (!waitersOfKey?.includes(subscriber)) return;
    if (waitersOfKey.length === 1) this.waiters.delete(key);
    else this.waiters.set(key, waitersOfKey.filter((waiter) => waiter !== subscriber));
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
    if (key !== undefined) this.notify(key);
    if (previousKey !== undefined && previousKey !== key) this.notify(previousKey);
  }

  /** A (re)list replaces the whole cache; every waiter re-evaluates from it. */
  private replace(items: readonly T[]): void {
    this.byName.clear();
    // Built fresh, so its arrays can be appended to until it is published.
    const byKey = new Map<string, T[]>();
    for (const listed of items) {
      const item = this.transform ? this.transform(listed) : listed;
      const name = item.metadata?.name;
      if (!name) continue;
      this.byName.set(name, item);
      const key = this.routingKey(item);
      if (key === undefined) continue;
      const objects = byKey.get(key);
      if (objects) objects.push(item);
      else byKey.set(key, [item]);
    }
    this.byKey = byKey;
    this.synced = true;
    for (const key of [...this.waiters.keys()]) this.notify(key);
  }

  private index(name: string, key: string | undefined, object: T): void {
    if (key === undefined) return;
    const objects = this.byKey.get(key);
    if (!objects) {
      this.byKey.set(key, [object]);
      return;
    }
    const at = objects.findIndex((cached) => cached.metadata?.name === name);
    this.byKey.set(key, at === -1 ? [...objects, object] : objects.with(at, object));
  }

  private unindex(name: string, key: string | undefined): void {
    if (key === undefined) return;
    const objects = this.byKey.get(key);
    if (!objects) return;
    const remaining = objects.filter((cached) => cached.metadata?.name !== name);
    if (remaining.length === 0) this.byKey.delete(key);
    else this.byKey.set(key, remaining);
  }

  private notify(key: string): void {
    if (!this.synced) return;
    const waitersOfKey = this.waiters.get(key);
    if (!waitersOfKey) return;
    const objects = this.byKey.get(key) ?? NONE;
    // Copy-on-write: a waiter that unsubscribes meanwhile replaces the array, not this one.
    for (const subscriber of waitersOfKey) subscriber.next(objects);
  }

  private failAll(error: unknown): void {
    const subscribers = [...this.waiters.values()].flat();
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
