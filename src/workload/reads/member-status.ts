// A workload's members as its status reads them: each member kind of the table that has a
// part in the status (src/members/<kind>/member.ts, `status`), the key its objects have in
// a workload, and what they add: a readiness gate of the tracker and the status's fields.
// statuses$, status and list all go over these, each finding the objects its own way.
import type { V1Deployment, V1Pod } from '../../kube/objects.js';
import type { MemberKind, MemberTable } from '../../members/set.js';
import type { MemberStatusRules } from '../../members/member.js';
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
