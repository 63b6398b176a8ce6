// The objects one Manager container is made of, as one set: its claim (with storage), its
// Deployment, and its Service (with ports). Every member carries the workload's labels
// (ownership and app labels), so one selector finds them all and one rule says whose they
// are, and each is named after the workload in its namespace. Creation, adoption, drift,
// cleanup and removal go over the set in order, each member by its kind's rules: a new
// object of a workload is one member file (its folder here) and one row of MEMBERS.
import { CONTAINER_ID_LABEL, INSTANCE_LABEL, MANAGED_LABEL, belongsToInstance, describeInstance } from '../input/labels.js';
import { formatProviderId } from '../input/provider-id.js';
import type { WorkloadSpec } from '../input/workload-spec.js';
import type { KindMap } from '../kube/kinds.js';
import { CLAIM_MEMBER } from './claim/member.js';
import { DEPLOYMENT_MEMBER } from './deployment/member.js';
import { effectiveNamespace, workloadLabels } from './deployment/manifest.js';
import type { AnyMemberRules, BuildWorkloadOptions, MemberKind, MemberRules, WorkloadMember } from './member.js';
import { SERVICE_MEMBER } from './service/member.js';

export type { AnyMemberRules, BuildWorkloadOptions, MemberKind, MemberRules, WorkloadMember } from './member.js';

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
  /** The member kinds it was built from, whose rules its steps follow. */
  readonly table: MemberTable;
}

/**
 * The member kinds of a workload, one row each, in creation order. Everything that goes
 * over a workload's objects takes its table (MEMBERS unless a caller gives another), so a
 * new kind is one descriptor and one row.
 */
export class MemberTable {
  readonly kinds: readonly MemberKind[];
  private readonly byKind: ReadonlyMap<MemberKind, AnyMemberRules>;

  constructor(readonly rows: readonly AnyMemberRules[]) {
    this.kinds = rows.map((row) => row.kind);
    this.byKind = new Map(rows.map((row) => [row.kind, row]));
    if (this.byKind.size !== rows.length) throw new Error(`a member table lists a kind twice: ${this.kinds.join(', ')}`);
    if (!this.byKind.has('deployments')) throw new Error("a member table without the Deployment, whose rollout is the workload's");
    rows.forEach((row, index) => {
      if (row.ownedBy !== undefined && !this.kinds.slice(0, index).includes(row.ownedBy)) {
        throw new Error(`the member ${row.kind} is owned by ${row.ownedBy}, which must come earlier in the table`);
      }
    });
  }

  /** The rules of `kind`, typed for it. */
  rulesOf<K extends MemberKind>(kind: K): MemberRules<K> {
    const rules = this.byKind.get(kind);
    if (!rules) throw new Error(`no member kind ${kind} in the table (${this.kinds.join(', ')})`);
    return rules as unknown as MemberRules<K>;
  }

  /** In JSON (a set printed, logged), its kinds. */
  toJSON(): readonly MemberKind[] {
    return this.kinds;
  }

  /** This table and `row`, last. */
  with(row: AnyMemberRules): MemberTable {
    return new MemberTable([...this.rows, row]);
  }
}

/** The option rule of a member table (`members`). */
export const aMemberTable = (value: unknown): string | undefined =>
  value instanceof MemberTable ? undefined : 'must be a MemberTable (the member kinds of a workload)';

/** The library's members: the claim before the Deployment, so its Pod finds it; the Service, owned by the Deployment, after it. */
export const MEMBERS = new MemberTable([CLAIM_MEMBER, DEPLOYMENT_MEMBER, SERVICE_MEMBER]);

export function buildWorkload(spec: WorkloadSpec, options: BuildWorkloadOptions = {}, table: MemberTable = MEMBERS): WorkloadSet {
  const namespace = effectiveNamespace(spec, options);
  const labels = workloadLabels(spec);
  const context = { namespace, labels, options };
  const members = table.kinds.flatMap((kind) => {
    const object = table.rulesOf(kind).build(spec, context);
    return object === undefined ? [] : [{ kind, object } as WorkloadMember];
  });
  return {
    namespace,
    name: spec.hostname,
    providerId: formatProviderId(namespace, spec.hostname),
    labels,
    owner: { containerId: spec.containerId, instance: spec.instance },
    members,
    table,
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
