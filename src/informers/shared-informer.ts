// SharedInformer: one reflector, one cache, many consumers (client-go's split of source,
// store and handlers). Consumers subscribe to a routing key (a Deployment's name, a
// container-id label) and receive the cached objects under that key:
//   - on subscribe, at once from the cache when it is synced (nothing is missed between
//     a create and the subscription);
//   - on every change to an object under the key: an event costs a few Map lookups (its
//     object's name, then its key), with one waiter or ten thousand;
//   - after every relist, so waiters re-evaluate what changed while disconnected.
// The first subscriber starts the reflector, the last one stops it. A fatal reflector
// error fails every current subscriber at once. An optional transform projects each
// object before it is cached (client-go's SetTransform), so the cache holds only what
// consumers read.
//
// A consumer of every key (a live list of all workloads) uses observeAll(): it gets each
// key's change as it happens (the same lookups per event, whatever the number of
// keys), a `synced` notice after every (re)list, and the connection's state as the
// reflector reports it through the registry (`disconnected` while it retries, then
// `connected`).
//
// A cached object costs two Map entries and nothing else: its routing key by its name, and
// its key's objects by key, where most keys (a Deployment's name, a container-id) hold one
// object, kept as is; a list only for more. An event reads its object's key by name, then
// that key's objects and its waiters. What a waiter receives is an immutable array: one
// made per change and handed to every waiter of the key as is (so notifying needs no copy
// even when a waiter leaves meanwhile), never changed afterwards.
import { Observable, Subscription, type Subscriber } from 'rxjs';
import type { KubeObject, ReflectorEvent } from './reflector.js';

export type RoutingKey<T> = (object: T) => string | undefined;

/**
 * Applied to every listed or watched object before it is cached and routed: must be pure
 * and keep metadata.name and whatever the routing key reads.
 */
export type ObjectTransform<T> = (object: T) => T;

/** What tells cached objects apart: their name within one namespace, `namespace/name` across namespaces. */
export type ObjectIdentity<T> = (object: T) => string | undefined;

const byObjectName = (object: KubeObject): string | undefined => object.metadata?.name;

export interface SharedInformerOptions<T> {
  readonly routingKey: RoutingKey<T>;
  readonly transform?: ObjectTransform<T>;
  /** Default: metadata.name. */
  readonly identity?: ObjectIdentity<T>;
  /** Called when the last consumer has left and the reflector is stopped. */
  readonly onIdle?: () => void;
  /**
   * Told about every object skipped because the transform or routing key threw on it (an
   * object that does not fit the fields read). Default: nothing.
   */
  readonly onFault?: (error: unknown) => void;
}

const NONE: readonly never[] = Object.freeze([]);

/** What observeAll() delivers: every key's changes, relists done, and the connection's state. */
export type InformerNotice<T> =
  /** The cached objects under `key` now (empty: the last one left or was deleted). */
  | { readonly type: 'changed'; readonly key: string; readonly objects: readonly T[] }
  /** A (re)list is complete: every key it touched has been reported before this. */
  | { readonly type: 'synced' }
  /** The list or watch failed and is retried in `retryInMs`; the cache may be stale meanwhile. */
  | { readonly type: 'disconnected'; readonly error: unknown; readonly retryInMs: number }
  /** The server answers again after a `disconnected`. */
  | { readonly type: 'connected' };

const SYNCED: InformerNotice<never> = Object.freeze({ type: 'synced' });
const CONNECTED: InformerNotice<never> = Object.freeze({ type: 'connected' });

/** The objects cached under one routing key: the object itself when alone, else a list of them. */
type Cached<T> = T | readonly T[];

export class SharedInformer<T extends KubeObject> {
  /** The cached objects by routing key (a key without objects is not kept). */
  private readonly cachedByKey = new Map<string, Cached<T>>();
  /** The routing key of every cached object, by name (objects without a routing key are not cached). */
  private readonly keyByName = new Map<string, string>();
  /** The waiters of each key (observe), by key (a key without waiters is not kept). */
  private readonly subscribersByKey = new Map<string, readonly Subscriber<readonly T[]>[]>();
  private subscriberCount = 0;
  private connection: Subscription | undefined;
  private synced = false;
  /** Consumers of every key (observeAll). */
  private allSubscribers: readonly Subscriber<InformerNotice<T>>[] = NONE;
  /** Set while the source retries after a failure. */
  private disconnection: InformerNotice<T> | undefined;

  private readonly routingKey: RoutingKey<T>;
  private readonly transform: ObjectTransform<T> | undefined;
  private readonly identity: ObjectIdentity<T>;
  private readonly onIdle: () => void;
  private readonly onFault: (error: unknown) => void;
  private skipped = 0;

  constructor(
    private readonly events$: Observable<ReflectorEvent<T>>,
    options: SharedInformerOptions<T>,
  ) {
    this.routingKey = options.routingKey;
    this.transform = options.transform;
    this.identity = options.identity ?? byObjectName;
    this.onIdle = options.onIdle ?? (() => {});
    this.onFault = options.onFault ?? (() => {});
  }

  /** Objects skipped so far because they did not fit the fields read. */
  get faults(): number {
    return this.skipped;
  }

  /**
   * The cached objects under `key` (for a Deployment name: zero or one), from the cache
   * and then per change. Each array is immutable: keep it as long as you like.
   */
  observe(key: string): Observable<readonly T[]> {
    return new Observable<readonly T[]>((subscriber) => {
      this.subscribersByKey.set(key, [...(this.subscribersByKey.get(key) ?? NONE), subscriber]);
      this.subscriberCount += 1;
      if (this.subscriberCount === 1) this.start();
      else if (this.synced) subscriber.next(this.cached(key));

      return () => this.remove(key, subscriber);
    });
  }

  /**
   * Every key's changes, for a consumer of them all. On subscribe, when the cache is
   * synced: one `changed` per cached key and a `synced` (and `disconnected` if the
   * source is retrying); then each change as it happens.
   */
  observeAll(): Observable<InformerNotice<T>> {
    return new Observable<InformerNotice<T>>((subscriber) => {
      this.allSubscribers = [...this.allSubscribers, subscriber];
      this.subscriberCount += 1;
      if (this.subscriberCount === 1) this.start();
      else if (this.synced) {
        for (const [key, cached] of this.cachedByKey) subscriber.next({ type: 'changed', key, objects: listOf(cached) });
        subscriber.next(SYNCED);
      }
      if (this.disconnection) subscriber.next(this.disconnection);
      return () => this.removeFromAll(subscriber);
    });
  }

  /**
   * The source lost its connection and retries in `retryInMs` (the registry wires the
   * reflector's onDisconnected here). Told to observeAll() consumers on every retry.
   */
  reportDisconnected(error: unknown, retryInMs: number): void {
    if (!this.connection) return;
    const notice: InformerNotice<T> = { type: 'disconnected', error, retryInMs };
    this.disconnection = notice;
    for (const subscriber of this.allSubscribers) subscriber.next(notice);
  }

  /** The source works again (a watch was accepted, a list answered, an event arrived). */
  reportConnected(): void {
    if (!this.disconnection) return;
    this.disconnection = undefined;
    for (const subscriber of this.allSubscribers) subscriber.next(CONNECTED);
  }

  /** How many consumers are subscribed (for tests and benchmarks). */
  get consumers(): number {
    return this.subscriberCount;
  }

  get running(): boolean {
    return this.connection !== undefined;
  }

  /** How many objects the cache holds now (for leak checks: compare with what exists). */
  get size(): number {
    return this.keyByName.size;
  }

  /** How many routing keys are tracked now: keys with objects or with a waiter. */
  get keys(): number {
    let waitingOnly = 0;
    for (const key of this.subscribersByKey.keys()) if (!this.cachedByKey.has(key)) waitingOnly += 1;
    return this.cachedByKey.size + waitingOnly;
  }

  /**
   * The objects cached under `key` now, as a waiter receives them: for a consumer of
   * observeAll() that reads a key's objects when it needs them instead of keeping them.
   */
  cached(key: string): readonly T[] {
    const cached = this.cachedByKey.get(key);
    return cached === undefined ? NONE : listOf(cached);
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
    this.disconnection = undefined;
    this.clear();
    connection?.unsubscribe();
    this.onIdle();
  }

  private clear(): void {
    this.cachedByKey.clear();
    this.keyByName.clear();
  }

  private remove(key: string, subscriber: Subscriber<readonly T[]>): void {
    const subscribers = this.subscribersByKey.get(key);
    if (!subscribers?.includes(subscriber)) return;
    const left = subscribers.filter((other) => other !== subscriber);
    if (left.length === 0) this.subscribersByKey.delete(key);
    else this.subscribersByKey.set(key, left);
    this.subscriberCount -= 1;
    if (this.subscriberCount === 0) this.stop();
  }

  private removeFromAll(subscriber: Subscriber<InformerNotice<T>>): void {
    if (!this.allSubscribers.includes(subscriber)) return;
    this.allSubscribers = this.allSubscribers.filter((other) => other !== subscriber);
    this.subscriberCount -= 1;
    if (this.subscriberCount === 0) this.stop();
  }

  /** The object as cached with its routing key, or undefined (reported) when it does not fit. */
  private project(object: T, deleted: boolean): { readonly object: T; readonly key: string | undefined } | undefined {
    try {
      // A deleted object is not cached: no need to project it.
      const projected = deleted || !this.transform ? object : this.transform(object);
      return { object: projected, key: this.routingKey(projected) };
    } catch (error) {
      this.skipped += 1;
      this.onFault(error);
      return undefined;
    }
  }

  private apply(event: ReflectorEvent<T>): void {
    // Anything from the source proves the connection works; after a relist, once its
    // changes are reported, so a consumer never re-evaluates from the stale cache.
    if (event.type === 'listed') {
      this.replace(event.items);
      if (this.disconnection) this.reportConnected();
      return;
    }
    if (this.disconnection) this.reportConnected();
    const projected = this.project(event.object, event.type === 'DELETED');
    if (!projected) return;
    const { object, key } = projected;
    const name = this.identity(object);
    if (!name) return;
    const previous = this.keyByName.get(name);
    if (event.type !== 'DELETED' && previous !== undefined && previous === key) {
      // The common case: a cached object changed, its routing key did not.
      this.cache(key, name, object);
      this.notify(key);
      return;
    }
    if (previous !== undefined) {
      this.uncache(previous, name);
      this.keyByName.delete(name);
    }
    let current: string | undefined;
    if (event.type !== 'DELETED' && key !== undefined) {
      this.cache(key, name, object);
      this.keyByName.set(name, key);
      current = key;
    } else if (key !== undefined && (key === previous || this.cachedByKey.has(key) || this.subscribersByKey.has(key))) {
      // A deletion still tells the key's waiters where things stand.
      current = key;
    }
    if (current !== undefined) this.notify(current);
    if (previous !== undefined && previous !== current) this.notify(previous);
  }

  /** A (re)list replaces the whole cache; every waiter re-evaluates from it. */
  private replace(items: readonly T[]): void {
    // Lists built fresh here can be appended to until they are cached.
    const listed = new Map<string, T[]>();
    this.keyByName.clear();
    for (const item of items) {
      const projected = this.project(item, false);
      if (!projected) continue;
      const { object: cached, key } = projected;
      const name = this.identity(cached);
      if (!name || key === undefined) continue;
      const objects = listed.get(key);
      if (objects) objects.push(cached);
      else listed.set(key, [cached]);
      this.keyByName.set(name, key);
    }
    // Keys emptied by the relist are reported too: their objects went away while disconnected.
    const touched = new Set([...this.cachedByKey.keys(), ...this.subscribersByKey.keys(), ...listed.keys()]);
    this.cachedByKey.clear();
    for (const [key, objects] of listed) this.cachedByKey.set(key, objects.length === 1 ? objects[0]! : objects.slice());
    this.synced = true;
    for (const key of touched) this.notify(key);
    for (const subscriber of this.allSubscribers) subscriber.next(SYNCED);
  }

  /** Caches `object` (of identity `name`) under `key`, in place of the one of that name, if any. */
  private cache(key: string, name: string, object: T): void {
    const cached = this.cachedByKey.get(key);
    if (cached === undefined || (!isList(cached) && this.identity(cached) === name)) {
      // Alone under its key (a Deployment by name), it needs no search: no read of the old object.
      this.cachedByKey.set(key, object);
      return;
    }
    const objects = listOf(cached);
    const index = objects.findIndex((other) => this.identity(other) === name);
    this.cachedByKey.set(key, index < 0 ? [...objects, object] : objects.with(index, object));
  }

  /** Drops the object of identity `name` from under `key`, and the key with its last object. */
  private uncache(key: string, name: string): void {
    const left = this.cached(key).filter((cached) => this.identity(cached) !== name);
    if (left.length === 0) this.cachedByKey.delete(key);
    else this.cachedByKey.set(key, left.length === 1 ? left[0]! : left);
  }

  private notify(key: string): void {
    if (!this.synced) return;
    const subscribers = this.subscribersByKey.get(key) ?? NONE;
    const all = this.allSubscribers;
    if (subscribers.length === 0 && all.length === 0) return;
    // One array for every waiter of this change; a waiter that leaves meanwhile replaces the
    // list of waiters, not this one.
    const objects = this.cached(key);
    for (const subscriber of subscribers) subscriber.next(objects);
    if (all.length > 0) {
      const notice: InformerNotice<T> = { type: 'changed', key, objects };
      for (const subscriber of all) subscriber.next(notice);
    }
  }

  private failAll(error: unknown): void {
    const subscribers = [...this.subscribersByKey.values()].flat();
    this.subscribersByKey.clear();
    const all = this.allSubscribers;
    this.allSubscribers = NONE;
    this.subscriberCount = 0;
    this.connection = undefined;
    this.synced = false;
    this.disconnection = undefined;
    this.clear();
    this.onIdle();
    for (const subscriber of subscribers) subscriber.error(error);
    for (const subscriber of all) subscriber.error(error);
  }
}

function isList<T>(cached: Cached<T>): cached is readonly T[] {
  return Array.isArray(cached);
}

/** A key's objects as a list (a fresh one for a single object). */
function listOf<T>(cached: Cached<T>): readonly T[] {
  return isList(cached) ? cached : [cached];
}
