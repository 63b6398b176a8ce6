// What a member kind of a workload is, in one place: the descriptor each kind's folder
// exports (deployment/, service/, claim/), and the table in set.ts lists. Creation,
// adoption, drift, cleanup and removal go over a set's members by these rules alone
// (controller-runtime's builder.Owns(): a controller declares the kinds it owns).
import type { Observable } from 'rxjs';
import type { InformerRegistry, InformerRequest } from '../informers/registry.js';
import type { WorkloadSpec } from '../input/workload-spec.js';
import type { KubernetesClient } from '../kube/client.js';
import type { KindMap, WatchedKind } from '../kube/kinds.js';
import type { V1Deployment, V1Pod } from '../kube/objects.js';
import type { FailurePolicy } from '../rollout/failure-policy.js';
import type { TrackedGate } from '../rollout/tracker.js';
import type { WorkloadStatusValue } from '../rollout/workload-status.js';
import type { Permission } from '../kube/permission.js';
import type { DriftField } from './drift.js';
import type { BuildDeploymentOptions } from './deployment/manifest.js';

/** Where an informer watches: a namespace, and the installation whose objects it selects. */
export interface WatchScope {
  readonly registry: InformerRegistry;
  readonly client: KubernetesClient;
  readonly namespace: string;
  readonly instance: string | undefined;
}

/** A kind a workload's objects may be of: any the client knows; a member table says which are. */
export type MemberKind = WatchedKind;

/** One object of a workload. */
export type WorkloadMember = { readonly [K in MemberKind]: { readonly kind: K; readonly object: KindMap[K] } }[MemberKind];

/** The rules of some member kind (a row of a member table). */
export type AnyMemberRules = { readonly [K in MemberKind]: MemberRules<K> }[MemberKind];

/** How an informer of a kind keys and caches its objects: the request but for where it watches. */
export type CacheRequest<K extends keyof KindMap> = Omit<InformerRequest<K>, 'kind' | 'namespace' | 'labelSelector'>;

/** The set of objects one Manager container is made of, as a pure function of its spec. */
export interface BuildWorkloadOptions extends BuildDeploymentOptions {
  /** The claim's class when the spec names none: the cluster's default, found before the create. */
  readonly storageClass?: string;
}

/** What every member's builder is given besides the spec. */
export interface MemberBuildContext {
  readonly namespace: string;
  /** The workload's labels: every member carries them. */
  readonly labels: Readonly<Record<string, string>>;
  readonly options: BuildWorkloadOptions;
}

/** How the steps that go over a set treat a member of one kind. */
export interface MemberRules<K extends MemberKind> {
  readonly kind: K;
  /** The member asked for by `spec`; undefined: this workload has none of the kind. */
  readonly build: (spec: WorkloadSpec, context: MemberBuildContext) => KindMap[K] | undefined;
  /** The member's name in the workload `workload`. */
  readonly nameIn: (workload: string) => string;
  /** Where a live member differs from the one asked for, in the spec's words (adoption). */
  readonly drift: (desired: KindMap[K], live: KindMap[K]) => DriftField[];
  /** What its deletion does to what it owns: Foreground removes a Deployment's Pods first. */
  readonly propagationPolicy: 'Foreground' | 'Background';
  /**
   * The member whose objects use this one (a claim: the Deployment's Pods mount it). A
   * failed provisioning deletes what it created, but this one only when it created that
   * member too: an adopted one may be using it.
   */
  readonly usedBy?: MemberKind;
  /**
   * Where a live object of the kind differs from a set that asks for none of it (a Service
   * left from an earlier spec with ports), judged when the member it is owned by was
   * adopted; without it, such an object is not looked for.
   */
  readonly driftWhenUnasked?: (live: KindMap[K]) => DriftField[];
  /**
   * The member whose object becomes this one's owner reference when it is created (so
   * the garbage collector removes it with its owner, should a delete be cut short).
   * It must come earlier in the set.
   */
  readonly ownedBy?: MemberKind;
  /**
   * The RBAC permissions the kind needs in the namespace, its read side's included: to
   * create it and wait for it (`create`), and beyond that for the workload's whole life
   * (`lifecycle`: status, start, stop, restart, reconfigure, delete, terminal, logs).
   */
  readonly permissions: { readonly create: readonly Permission[]; readonly lifecycle: readonly Permission[] };
  /** How its informer keys (by the member's name) and caches it. */
  readonly cache: CacheRequest<K>;
  /** The informer's snapshots of the member by name, which the waits for it to go read. */
  readonly snapshots: (
    registry: InformerRegistry,
    client: KubernetesClient,
    namespace: string,
    name: string,
    instance: string | undefined,
  ) => Observable<readonly KindMap[K][]>;
  /**
   * Its readiness gates while a rollout is awaited, per change (a claim that must bind and
   * attach, named when it will not, never waited out; a Service that must route to the new
   * Pod: ready means reachable), judged by the one wait (awaitReady) with the Deployment.
   * `object` is the member as the run found, made or wrote it (its UID counts, and the
   * version written), or known by name alone (any of that name).
   */
  readonly rolloutGates?: (object: KindMap[K], sources: RolloutGateSources) => Observable<readonly TrackedGate[]>;
  /** Its part in the workload's status and readiness; none: the status says nothing of it. */
  readonly status?: MemberStatusRules;
}

/** What a member's rollout gates are judged against. */
export interface RolloutGateSources {
  readonly scope: WatchScope;
  /** The Deployment being rolled out (this run's, by UID), per change. */
  readonly deployment$: Observable<V1Deployment>;
  /** The workload's Pods, per change. */
  readonly pods$: Observable<readonly V1Pod[]>;
  readonly failurePolicy: FailurePolicy;
  /** Scheduler time by which a gate's grace window ends at the latest (the operation's deadline is near). */
  readonly graceEndsBy: number | undefined;
}

/** One informer a member's status follows, and how a workload's objects are found in it by key. */
export interface MemberWatch<K extends WatchedKind = WatchedKind> {
  readonly kind: K;
  /** Keyed by the same rule the one-time reads find them by (`find`). */
  readonly cache: CacheRequest<K>;
  /** Under a key: the object of that name, or the objects whose label `label` is the key. */
  readonly find: { readonly by: 'name' } | { readonly by: 'label'; readonly label: string };
}

/** A watch of some kind. */
export type AnyMemberWatch = { readonly [K in WatchedKind]: MemberWatch<K> }[WatchedKind];

/**
 * What a workload's status says about a member, and what its readiness needs of it, read
 * alike from the shared informers (statuses$, status$), a namespace's lists (list) and
 * one-time reads (status): each watch gives the objects it holds under the workload's key.
 */
export interface MemberStatusRules<View = unknown> {
  /** Its own kind's first, then its read side's (a Service's EndpointSlices). */
  readonly watches: readonly AnyMemberWatch[];
  /**
   * The key of a workload's objects in every watch, from its Deployment (the claim its
   * Pods mount); absent: the member's name in the workload. Undefined: it has none.
   */
  keyOf?(deployment: V1Deployment): string | undefined;
  // Methods, not function properties: a table holds the rules of every view type at once.
  /** Its objects as one value, from what each watch holds under `key` (in the order of `watches`). */
  view(held: readonly (readonly unknown[])[], key: string): View | undefined;
  /** What a one-time read adds to the view (the claim's class while it resizes). */
  readMore?(view: View, client: KubernetesClient, signal: AbortSignal): Promise<View>;
  /**
   * What readiness needs of it now, as the status board judges it: a gate of the tracker
   * (the Service routing, the claim bound), as its rolloutGates judge it; undefined: nothing.
   */
  gate?(view: View | undefined, deployment: V1Deployment, pods: readonly V1Pod[], policy: FailurePolicy): TrackedGate | undefined;
  /** Its fields of the status, given its view and the Pod the status shows as ready. */
  fields(view: View | undefined, key: string, readyPod: V1Pod | undefined): Partial<WorkloadStatusValue>;
  /**
   * Whether two statuses say the same of its fields, when they are fields the status type
   * does not know (sameWorkloadStatus compares the address, the Service and the storage):
   * a live list emits a workload again when they change.
   */
  sameFields?(a: WorkloadStatusValue, b: WorkloadStatusValue): boolean;
  /** A caller that may not read it (403) gets statuses without its fields, instead of an error. */
  readonly optional?: boolean;
}
