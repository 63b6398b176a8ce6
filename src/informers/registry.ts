// One SharedInformer per (client, kind, namespace, label selector, routing key), for any
// kind of the kind table: every concurrent provisioning in a namespace shares one
// Deployment watch and one Pod watch. Entries remove themselves when their last consumer
// leaves, so nothing stays open.
import { ALL_NAMESPACES, type KubernetesClient } from '../kube/client.js';
import { KINDS, type KindMap, type WatchedKind } from '../kube/kinds.js';
import { InvalidOptionError } from '../errors/input.js';
import { DURATION_RULES } from '../input/duration.js';
import { aFunction, checkOptions, duration, nested, type OptionTable } from '../input/options.js';
import { listWatchSource } from './list-watch-source.js';
import { reflect, type ReflectorOptions } from './reflector.js';
import { SharedInformer, type ObjectIdentity, type ObjectTransform, type RoutingKey } from './shared-informer.js';
import type { KubeObject } from './reflector.js';

export interface InformerRequest<K extends WatchedKind> {
  readonly kind: K;
  /** ALL_NAMESPACES ('') for every namespace, and for cluster-scoped kinds (KINDS[kind].namespaced false). */
  readonly namespace: string;
  readonly labelSelector: string;
  /** Optional, e.g. `status.phase!=Succeeded`; informers with different field selectors never share. */
  readonly fieldSelector?: string;
  /** Names the routing key function, so two different keyings never share an entry. */
  readonly routingKeyName: string;
  readonly routingKey: RoutingKey<KindMap[K]>;
  /** Names the transform, so informers caching different projections never share an entry. */
  readonly transformName?: string;
  /** Projects each object before it is cached (see SharedInformer). */
  readonly transform?: ObjectTransform<KindMap[K]>;
}

/** One registered informer, as InformerRegistry#describe reports it. */
export interface InformerSummary {
  readonly kind: WatchedKind;
  readonly namespace: string;
  readonly labelSelector: string;
  readonly fieldSelector: string;
  readonly routingKeyName: string;
  /** Subscribed consumers (an informer without any is stopped and unregistered). */
  readonly consumers: number;
  readonly running: boolean;
  /** Objects cached. */
  readonly objects: number;
  /** Routing keys tracked (with objects or with a waiter). */
  readonly keys: number;
}

export class InformerRegistry {
  private readonly byClient = new WeakMap<KubernetesClient, Map<string, SharedInformer<never>>>();

  /**
   * `inactivityMs` and the `backoff` delays are durations in whole milliseconds from 1 to
   * 365 days (no Infinity: a silent watch is always cut, a restart always comes).
   */
  constructor(private readonly reflectorOptions: ReflectorOptions = {}) {
    checkReflectorOptions(reflectorOptions);
  }

  informer<K extends WatchedKind>(client: KubernetesClient, request: InformerRequest<K>): SharedInformer<KindMap[K]> {
    let informers = this.byClient.get(client);
    if (!informers) {
      informers = new Map();
      this.byClient.set(client, informers);
    }
    const id = `${request.kind}\u0000${request.namespace}\u0000${request.labelSelector}\u0000${request.routingKeyName}\u0000${request.transformName ?? ''}\u0000${request.fieldSelector ?? ''}`;
    const existing = informers.get(id) as SharedInformer<KindMap[K]> | undefined;
    if (existing) return existing;

    const source = listWatchSource(client, request.kind, request.namespace, request.labelSelector, request.fieldSelector);
    const options = this.reflectorOptions;
    // The informer hears about its own connection, for consumers that report staleness.
    const reflectorOptions: ReflectorOptions = {
      ...options,
      onDisconnected: (error, retryInMs) => {
        options.onDisconnected?.(error, retryInMs);
        created.reportDisconnected(error, retryInMs);
      },
      onConnected: () => {
        options.onConnected?.();
        created.reportConnected();
      },
    };
    const created: SharedInformer<KindMap[K]> = new SharedInformer(reflect(source, reflectorOptions), {
      routingKey: request.routingKey,
      ...(request.transform ? { transform: request.transform } : {}),
      // Across namespaces, names repeat: objects are told apart by namespace and name.
      ...(request.namespace === ALL_NAMESPACES && KINDS[request.kind].namespaced ? { identity: namespacedName } : {}),
      onFault: (error) => options.onRetry?.(error, 0),
      onIdle: () => {
        if (informers.get(id) === (created as unknown)) informers.delete(id);
      },
    });
    informers.set(id, created as unknown as SharedInformer<never>);
    return created;
  }

  /** Informers currently registered for a client (running or about to run). */
  count(client: KubernetesClient): number {
    return this.byClient.get(client)?.size ?? 0;
  }

  /** What each informer of a client holds now, for health pages and leak checks. */
  describe(client: KubernetesClient): readonly InformerSummary[] {
    const informers = this.byClient.get(client);
    if (!informers) return [];
    return [...informers].map(([id, informer]) => {
      const [kind = '', namespace = '', labelSelector = '', routingKeyName = '', , fieldSelector = ''] = id.split('\u0000');
      return {
        kind: kind as WatchedKind,
        namespace,
        labelSelector,
        fieldSelector,
        routingKeyName,
        consumers: informer.consumers,
        running: informer.running,
        objects: informer.size,
        keys: informer.keys,
      };
    });
  }
}

const backoffMs = duration(DURATION_RULES.backoffMs);
const REFLECTOR_OPTIONS: OptionTable = {
  inactivityMs: duration(DURATION_RULES.inactivityMs),
  backoff: nested(
    {
      initialMs: backoffMs,
      maxMs: backoffMs,
      factor: (value) =>
        typeof value === 'number' && Number.isFinite(value) && value >= 1
          ? undefined
          : `must be a finite number >= 1 (got ${String(value)})`,
      jitter: (value) =>
        typeof value === 'number' && value >= 0 && value <= 1 ? undefined : `must be a number from 0 to 1 (got ${String(value)})`,
    },
    { strict: false, required: ['initialMs', 'maxMs', 'factor', 'jitter'] },
  ),
  onRetry: aFunction,
  onDisconnected: aFunction,
  onConnected: aFunction,
};

/** The informer options a caller sets, checked once here (by the one option checker). */
function checkReflectorOptions(options: ReflectorOptions): void {
  checkOptions(options, REFLECTOR_OPTIONS, { noun: 'informer options', option: 'informers' });
  const backoff = options.backoff;
  if (backoff !== undefined && backoff.maxMs < backoff.initialMs) {
    throw new InvalidOptionError('backoff.maxMs', `backoff.maxMs must be at least backoff.initialMs (${backoff.initialMs})`);
  }
}

/** The process-wide registry used when a caller injects none. */
export const defaultInformerRegistry = new InformerRegistry();

const namespacedName: ObjectIdentity<KubeObject & { readonly metadata?: { readonly namespace?: string } }> = (object) =>
  object.metadata?.name === undefined ? undefined : `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
