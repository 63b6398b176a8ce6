// SharedInformer: one reflector, one cache, many consumers (client-go's split of source,
// store and handlers). Consumers subscribe to a routing key (a Deployment's name, a
// container-id label) and receive the cached objects under that key:
//   - on subscribe, at once from the cache when it is synced (nothing is missed between
//     a create and the subscription);
//   - on every change to an object under the key: an event costs one Map lookup (its
//     object's name) when its routing key is unchanged, with one waiter or ten thousand;
//   - after every relist, so waiters re-evaluate what changed while disconnected.
// The first subscriber starts the reflector, the last one stops it. A fatal reflector
// error fails every current subscriber at once. An optional transform projects each
// object before it is cached (client-go's SetTransform), so the cache holds only what
// consumers read.
//
// A consumer of every key (a live list of all workloads) uses observeAll(): it gets each
// key's change as it happens (the same one lookup per event, whatever the number of
// keys), a `synced` notice after every (re)list, and the connection's state as the
// reflector reports it through the registry (`disconnected` while it retries, then
// `connected`).
//
// Each routing key has one entry holding its cached objects and its subscribers, and each
// cached name points at its key's entry: an event finds everything it touches with one
// lookup, since each lookup in a large Map is a memory access of its own. The
// objects and subscribers of an entry are immutable arrays, replaced on change
// (copy-on-write): an event hands its key's array to every subscriber as is, and
// notifying needs no copy even when a subscriber leaves meanwhile.
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

interface KeyEntry<T> {
  readonly key: string;
  objects: readonly T[];
  subscribers: readonly Subscriber<readonly T[]>[];
}

export class SharedInformer<T extends KubeObject> {
  private readonly entries = new Map<string, KeyEntry<T>>();
  /** The entry of every cached object, by name (objects without a routing key are not cached). */
  private readonly byName = new Map<string, KeyEntry<T>>();
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
      const entry = this.entryOf(key);
      entry.subscribers = [...entry.subscribers, subscriber];
      this.subscriberCount += 1;
      if (this.subscriberCount === 1) this.start();
      else if (this.synced) subscriber.next(entry.objects);

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
        for (const entry of this.entries.values()) {
          if (entry.objects.length > 0) subscriber.next({ type: 'changed', key: entry.key, objects: entry.objects });
        }
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
    return this.byName.size;
  }

  /** How many routing keys are tracked now: keys with objects or with a waiter. */
  get keys(): number {
    return this.entries.size;
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
    this.entries.clear();
    this.byName.clear();
  }

  private remove(key: string, subscriber: Subscriber<readonly T[]>): void {
    const entry = this.entries.get(key);
    if (!entry?.subscribers.includes(subscriber)) return;
    entry.subscribers = entry.subscribers.filter((other) => other !== subscriber);
    this.dropIfEmpty(entry);
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
    const previous = this.byName.get(name);
    if (event.type !== 'DELETED' && previous !== undefined && previous.key === key) {
      // The common case: a cached object changed, its routing key did not. Alone under
      // its key (a Deployment by name), it needs no search: no read of the old object.
      previous.objects = previous.objects.length === 1 ? [object] : this.withObject(previous.objects, name, object);
      this.notify(previous);
      return;
    }
    if (previous) {
      previous.objects = previous.objects.filter((cached) => this.identity(cached) !== name);
      this.byName.delete(name);
    }
    let current: KeyEntry<T> | undefined;
    if (event.type !== 'DELETED' && key !== undefined) {
      current = this.entryOf(key);
      current.objects = this.withObject(current.objects, name, object);
      this.byName.set(name, current);
    } else if (key !== undefined) {
      // A deletion still tells the key's waiters where things stand.
      current = this.entries.get(key);
    }
    if (current) this.notify(current);
    if (previous && previous !== current) this.notify(previous);
    if (previous) this.dropIfEmpty(previous);
  }

  /** A (re)list replaces the whole cache; every waiter re-evaluates from it. */
  private replace(items: readonly T[]): void {
    // Arrays built fresh here can be appended to until they are published.
    const listed = new Map<KeyEntry<T>, T[]>();
    this.byName.clear();
    for (const item of items) {
      const projected = this.project(item, false);
      if (!projected) continue;
      const { object: cached, key } = projected;
      const name = this.identity(cached);
      if (!name || key === undefined) continue;
      const entry = this.entryOf(key);
      const objects = listed.get(entry);
      if (objects) objects.push(cached);
      else listed.set(entry, [cached]);
      this.byName.set(name, entry);
    }
    const touched = [...this.entries.values()];
    for (const entry of touched) entry.objects = listed.get(entry) ?? NONE;
    this.synced = true;
    // Keys emptied by the relist are reported too: their objects went away while disconnected.
    for (const entry of touched) this.notify(entry);
    for (const entry of touched) this.dropIfEmpty(entry);
    for (const subscriber of this.allSubscribers) subscriber.next(SYNCED);
  }

  private entryOf(key: string): KeyEntry<T> {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { key, objects: NONE, subscribers: NONE };
      this.entries.set(key, entry);
    }
    return entry;
  }

  private dropIfEmpty(entry: KeyEntry<T>): void {
    if (entry.objects.length === 0 && entry.subscribers.length === 0 && this.entries.get(entry.key) === entry) {
      this.entries.delete(entry.key);
    }
  }

  private notify(entry: KeyEntry<T>): void {
    if (!this.synced) return;
    const { objects, subscribers } = entry;
    // Copy-on-write: a waiter that unsubscribes meanwhile replaces the array, not this one.
    for (const subscriber of subscribers) subscriber.next(objects);
    const all = this.allSubscribers;
    if (all.length > 0) {
      const notice: InformerNotice<T> = { type: 'changed', key: entry.key, objects };
      for (const subscriber of all) subscriber.next(notice);
    }
  }

  /** `objects` with the one of identity `name` replaced by `object`, or `object` appended. */
  private withObject(objects: readonly T[], name: string, object: T): readonly T[] {
    for (let index = 0; index < objects.length; index += 1) {
      if (this.identity(objects[index]!) === name) return objects.with(index, object);
    }
    return [...objects, object];
  }

  private failAll(error: unknown): void {
    const subscribers = [...this.entries.values()].flatMap((entry) => entry.subscribers);
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
