// The objects one Manager container is made of, as one set: its Deployment, and with ports
// its Service (which carries an owner reference to the Deployment). Every
// member carries the workload's labels (ownership and app labels), so one selector finds
// them all and one rule says whose they are, and each is named after the workload in its
// namespace. Creation, adoption, drift, cleanup and removal go over the set in order, each
// member by its kind's rules below: a new object of a workload is its builder in
// buildWorkload() and one entry of MEMBER_RULES (after its entry in the kind table).
import type { Observable } from 'rxjs';
import type { InformerRegistry } from '../informers/registry.js';
import { CONTAINER_ID_LABEL, INSTANCE_LABEL, MANAGED_LABEL, belongsToInstance, describeInstance } from '../input/labels.js';
import { formatProviderId } from '../input/provider-id.js';
import type { WorkloadSpec } from '../input/workload-spec.js';
import type { KubernetesClient } from '../kube/client.js';
import type { KindMap } from '../kube/kinds.js';
import { workloadDrift, type DriftField } from './drift.js';
import { buildDeployment, workloadLabels, type BuildDeploymentOptions } from './manifest.js';
import { claimSnapshots, deploymentSnapshots, serviceSnapshots } from './rollout-sources.js';
import { buildClaim, claimDrift } from './storage-manifest.js';
import { buildService } from './service-manifest.js';
import { serviceDrift } from './service-drift.js';

/** The kinds a workload's objects are of. */
export type MemberKind = 'persistentvolumeclaims' | 'deployments' | 'services';

/** One object of a workload. */
export type WorkloadMember = { readonly [K in MemberKind]: { readonly kind: K; readonly object: KindMap[K] } }[MemberKind];

/** Whose a workload's objects are: the Manager container (and installation) their labels name. */
export interface WorkloadOwner {
  readonly containerId: string;
  /** The Manager installation; undefined: objects without an instance label. */
  readonly instance: string | undefined;
}

export interface WorkloadSet {
  readonly namespace: string;
  /** The workload's name (the hostname): every member is named after it. */
  readonly name: string;
  readonly providerId: string;
  /** Carried by every member, and by the Pods of the Deployment. */
  readonly labels: Readonly<Record<string, string>>;
  readonly owner: WorkloadOwner;
  /** In creation order (removal goes the other way). */
  readonly members: readonly WorkloadMember[];
}

/** How the steps that go over a set treat a member of one kind. */
export interface MemberRules<K extends MemberKind> {
  /** The member's name in the workload `workload`. */
  readonly nameIn: (workload: string) => string;
  /** Where a live member differs from the one asked for, in the spec's words (adoption). */
  readonly drift: (desired: KindMap[K], live: KindMap[K]) => DriftField[];
  /** What its deletion does to what it owns: Foreground removes a Deployment's Pods first. */
  readonly propagationPolicy: 'Foreground' | 'Background';
  /** Deleted again when the provisioning that created it fails (a claim holding data never would be). */
  readonly deleteOnFailure: boolean;
  /**
   * The member whose object becomes this one's owner reference when it is created (so
   * the garbage collector removes it with its owner, should a delete be cut short).
   * It must come earlier in the set.
   */
  readonly ownedBy?: MemberKind;
  /** The informer's snapshots of the member by name, which the waits for it to go read. */
  readonly snapshots: (
    registry: InformerRegistry,
    client: KubernetesClient,
    namespace: string,
    name: string,
    instance: string | undefined,
  ) => Observable<readonly KindMap[K][]>;
}

export const MEMBER_RULES: { readonly [K in MemberKind]: MemberRules<K> } = {
  // The claim: before the Deployment, so its Pod finds it; no owner reference (a
  // Deployment deleted by hand never takes the data with it). A failed provisioning
  // deletes the claim it created (no user has written to it), unless asked to keep it.
  persistentvolumeclaims: {
    nameIn: (workload) => workload,
    drift: claimDrift,
    propagationPolicy: 'Background',
    deleteOnFailure: true,
    snapshots: claimSnapshots,
  },
  deployments: {
    nameIn: (workload) => workload,
    drift: workloadDrift,
    propagationPolicy: 'Foreground',
    deleteOnFailure: true,
    snapshots: deploymentSnapshots,
  },
  services: {
    nameIn: (workload) => workload,
    drift: serviceDrift,
    // Its EndpointSlices are the EndpointSlice controller's; nothing waits for them.
    propagationPolicy: 'Background',
    deleteOnFailure: true,
    ownedBy: 'deployments',
    snapshots: serviceSnapshots,
  },
};

/** The kinds of a workload in creation order. */
export const MEMBER_KINDS: readonly MemberKind[] = ['persistentvolumeclaims', 'deployments', 'services'];

/** The rules of `kind`, typed for it. */
export function rulesOf<K extends MemberKind>(kind: K): MemberRules<K> {
  return MEMBER_RULES[kind];
}

/** The set of objects one Manager container is made of, as a pure function of its spec. */
export interface BuildWorkloadOptions extends BuildDeploymentOptions {
  /** The claim's class when the spec names none: the cluster's default, found before the create. */
  readonly storageClass?: string;
}

export function buildWorkload(spec: WorkloadSpec, options: BuildWorkloadOptions = {}): WorkloadSet {
  const { storageClass, ...deploymentOptions } = options;
  const deployment = buildDeployment(spec, deploymentOptions);
  const namespace = deployment.metadata!.namespace!;
  const labels = workloadLabels(spec);
  const claim = spec.storage
    ? buildClaim({ ...spec, storage: spec.storage }, { namespace, labels, ...(storageClass !== undefined ? { storageClass } : {}) })
    : undefined;
  return {
    namespace,
    name: spec.hostname,
    providerId: formatProviderId(namespace, spec.hostname),
    labels,
    owner: { containerId: spec.containerId, instance: spec.instance },
    members: [
      ...(claim ? [{ kind: 'persistentvolumeclaims' as const, object: claim }] : []),
      { kind: 'deployments', object: deployment },
      // A container without ports has no Service.
      ...(spec.ports && spec.ports.length > 0 ? [{ kind: 'services' as const, object: buildService(spec, { namespace }) }] : []),
    ],
  };
}

/** The set's Service, if the container has ports. */
export function serviceOf(set: { readonly members: readonly WorkloadMember[] }): KindMap['services'] | undefined {
  const member = set.members.find((each) => each.kind === 'services');
  return member?.kind === 'services' ? member.object : undefined;
}

/** The set's Deployment: the member whose rollout is the workload's. */
export function deploymentOf(set: { readonly members: readonly WorkloadMember[] }): KindMap['deployments'] {
  const member = set.members.find((each) => each.kind === 'deployments');
  if (!member) throw new Error('a workload set without its Deployment');
  return member.object;
}

/** Whether an object carries `owner`'s labels: managed, its container-id, its instance (or none). */
export function ownedBy(object: { metadata?: { labels?: Record<string, string> } }, owner: WorkloadOwner): boolean {
  const labels = object.metadata?.labels ?? {};
  return labels[CONTAINER_ID_LABEL] === owner.containerId && labels[MANAGED_LABEL] === 'true' && belongsToInstance(object, owner.instance);
}

/** The owner an object's labels name, if it is a managed one. */
export function ownerOf(object: { metadata?: { labels?: Record<string, string> } }): Partial<WorkloadOwner> {
  const labels = object.metadata?.labels ?? {};
  return { containerId: labels[CONTAINER_ID_LABEL], instance: labels[INSTANCE_LABEL] };
}

/** Whose an object is, in words: "container-id 99 of instance b", or "something other than Manager". */
export function describeOwner(object: { metadata?: { labels?: Record<string, string> } }): string {
  const found = ownerOf(object);
  const managed = object.metadata?.labels?.[MANAGED_LABEL] === 'true';
  return managed && found.containerId
    ? `container-id ${found.containerId}${describeInstance(found.instance)}`
    : 'something other than Manager';
}
