// A workload's members as its status reads them: each member kind of the table that has a
// part in the status (src/members/<kind>/member.ts, `status`), the key its objects have in
// a workload, and what they add: a readiness gate of the tracker and the status's fields.
// statuses$ (the informers' caches), status (one-time reads) and list (the namespace's
// lists) all go over these, each finding the objects its own way.
import { ForbiddenError, NotFoundError } from '../../errors/api.js';
import { belongsToInstance, managedSelector } from '../../input/labels.js';
import type { KubernetesClient } from '../../kube/client.js';
import type { V1Deployment, V1Pod } from '../../kube/objects.js';
import type { MemberKind, MemberTable } from '../../members/set.js';
import type { AnyMemberWatch, MemberStatusRules } from '../../members/member.js';
import type { FailurePolicy } from '../../rollout/failure-policy.js';
import type { TrackedGate } from '../../rollout/tracker.js';
import type { MemberFields, WorkloadStatusValue } from '../../rollout/workload-status.js';

/** A member kind with a part in the status. */
export interface StatusMember {
  readonly kind: MemberKind;
  readonly rules: MemberStatusRules;
  readonly nameIn: (workload: string) => string;
  /** Its key is the workload's name in every watch: a change under a key names the workload itself. */
  readonly keyedByWorkload: boolean;
}

/** The table's members with a part in the status, in table order. */
export function statusMembers(table: MemberTable): readonly StatusMember[] {
  return table.rows.flatMap((row) => {
    const rules = row.status;
    if (!rules) return [];
    const nameIn = row.nameIn;
    return [{ kind: row.kind, rules, nameIn, keyedByWorkload: !rules.keyOf && nameIn('workload') === 'workload' }];
  });
}

/** The key of the workload's objects of `member`: undefined, it has none (no claim mounted). */
export function memberKey(member: StatusMember, workload: string, deployment: V1Deployment): string | undefined {
  return member.rules.keyOf ? member.rules.keyOf(deployment) : member.nameIn(workload);
}

/** One member of a workload as read: its key and its objects as one value (undefined: none there). */
export interface MemberView {
  readonly member: StatusMember;
  readonly key: string;
  readonly view: unknown;
}

/** What the members' objects make of the workload's readiness (gates) and status (fields). */
export interface MemberJudgement {
  readonly gates: readonly TrackedGate[];
  readonly fields: MemberFields | undefined;
}

const NO_GATES: readonly TrackedGate[] = Object.freeze([]);

export function judgeMembers(
  views: readonly MemberView[],
  deployment: V1Deployment,
  pods: readonly V1Pod[],
  policy: FailurePolicy,
): MemberJudgement {
  let gates = NO_GATES;
  for (const { member, view } of views) {
    const gate = member.rules.gate?.(view, deployment, pods, policy);
    if (gate) gates = gates === NO_GATES ? [gate] : [...gates, gate];
  }
  if (views.length === 0) return { gates, fields: undefined };
  const fields: MemberFields = (readyPod) => {
    const all: Partial<WorkloadStatusValue> = {};
    for (const { member, key, view } of views) Object.assign(all, member.rules.fields(view, key, readyPod));
    return all;
  };
  return { gates, fields };
}

/** Where one-time reads look: the namespace, and the installation whose objects count. */
export interface ReadScope {
  readonly client: KubernetesClient;
  readonly namespace: string;
  readonly instance: string | undefined;
}

/** What `watch` holds under `key`, read once: the object of that name, or those whose label names the key. */
async function readHeld(scope: ReadScope, watch: AnyMemberWatch, key: string, signal: AbortSignal): Promise<readonly unknown[]> {
  const { client, namespace, instance } = scope;
  if (watch.find.by === 'label') {
    return (await client.list(watch.kind, namespace, `${managedSelector(instance)},${watch.find.label}=${key}`, { signal })).items;
  }
  try {
    const object = await client.read(watch.kind, namespace, key, { signal });
    // Read by name: only the installation's, as the informers' selector would let through.
    return belongsToInstance(object, instance) ? [object] : [];
  } catch (error) {
    if (error instanceof NotFoundError) return [];
    throw error;
  }
}

/**
 * A member of one workload read once (status()): its own kind's watch first, its read
 * side's only when that found something; undefined when it has no key, or the caller may
 * not read it and the member may go without.
 */
export async function readMemberView(
  scope: ReadScope,
  member: StatusMember,
  workload: string,
  deployment: V1Deployment,
  signal: AbortSignal,
): Promise<MemberView | undefined> {
  const key = memberKey(member, workload, deployment);
  if (key === undefined) return undefined;
  const [own, ...readSide] = member.rules.watches;
  try {
    const first = own ? await readHeld(scope, own, key, signal) : [];
    const rest =
      first.length === 0 ? readSide.map(() => []) : await Promise.all(readSide.map((watch) => readHeld(scope, watch, key, signal)));
    let view = member.rules.view([first, ...rest], key);
    if (view !== undefined && member.rules.readMore) view = await member.rules.readMore(view, scope.client, signal);
    return { member, key, view };
  } catch (error) {
    if (error instanceof ForbiddenError && member.rules.optional) return undefined;
    throw error;
  }
}

/** Every object a watch's kind has in the namespace (list()), by the key it is found under. */
export type ListedByKey = ReadonlyMap<string, readonly unknown[]>;

/** Each member's watches listed once for the namespace; undefined for a member the caller may not list and that may go without. */
export async function listMembers(
  scope: ReadScope,
  members: readonly StatusMember[],
  signal: AbortSignal,
): Promise<readonly (readonly ListedByKey[] | undefined)[]> {
  return Promise.all(
    members.map(async (member) => {
      try {
        return await Promise.all(member.rules.watches.map((watch) => listByKey(scope, watch, signal)));
      } catch (error) {
        if (error instanceof ForbiddenError && member.rules.optional) return undefined;
        throw error;
      }
    }),
  );
}

async function listByKey(scope: ReadScope, watch: AnyMemberWatch, signal: AbortSignal): Promise<ListedByKey> {
  const list = await scope.client.list(watch.kind, scope.namespace, managedSelector(scope.instance), { signal });
  const byKey = new Map<string, unknown[]>();
  for (const object of list.items as readonly LabelledObject[]) {
    const key = watch.find.by === 'name' ? object.metadata?.name : object.metadata?.labels?.[watch.find.label];
    if (key === undefined) continue;
    const group = byKey.get(key);
    if (group) group.push(object);
    else byKey.set(key, [object]);
  }
  return byKey;
}

/** The members of one workload, from the namespace's lists (list()). */
export function listedMemberViews(
  members: readonly StatusMember[],
  listed: readonly (readonly ListedByKey[] | undefined)[],
  workload: string,
  deployment: V1Deployment,
): MemberView[] {
  const views: MemberView[] = [];
  members.forEach((member, index) => {
    const byWatch = listed[index];
    const key = byWatch && memberKey(member, workload, deployment);
    if (!byWatch || key === undefined) return;
    views.push({
      member,
      key,
      view: member.rules.view(
        byWatch.map((byKey) => byKey.get(key) ?? NONE),
        key,
      ),
    });
  });
  return views;
}

const NONE: readonly unknown[] = Object.freeze([]);

interface LabelledObject {
  readonly metadata?: { readonly name?: string; readonly labels?: Readonly<Record<string, string>> };
}
