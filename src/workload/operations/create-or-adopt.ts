// createOrAdopt(): creates the objects of a workload set, in order. When one of that name
// already exists, it is adopted only if it is the same Manager container's (its
// container-id, managed and instance labels) and not being deleted; otherwise the create
// fails with ConflictError and the existing object is left untouched. Nothing is ever
// overwritten or patched here: what is adopted is compared with the member asked for
// (`drift`), and the caller decides; so is a member the set no longer asks for, left from
// an earlier spec beside an adopted owner. A member owned by an earlier one (a Service by its
// Deployment) is created with an owner reference to that object as stored.
import type { Observable } from 'rxjs';
import { ConflictError, NotFoundError } from '../../errors/api.js';
import { describeInstance } from '../../input/labels.js';
import type { KubernetesClient } from '../../kube/client.js';
import { KINDS, apiVersionOf, type KindMap } from '../../kube/kinds.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import type { DriftField } from '../../members/drift.js';
import { serviceRefusal } from './service-refusal.js';
import { describeOwner, ownedBy, type MemberKind, type WorkloadMember, type WorkloadSet } from '../../members/set.js';

/** One member as this run found or made it. */
export type MemberOutcome = WorkloadMember & {
  /** It existed before this run (same container): adopted, never created. */
  readonly adopted: boolean;
  /** Adopted: where it differs from the member asked for (empty: it is as asked). */
  readonly drift: readonly DriftField[];
};

/**
 * Emits the members as stored once all exist. `outcomes` gets each member as soon as it is
 * created or adopted, so a caller whose later member fails knows what this run created;
 * `onMember` is told of it then too, before the next member is written.
 */
export function createOrAdopt(
  client: KubernetesClient,
  set: WorkloadSet,
  outcomes: MemberOutcome[] = [],
  onMember?: (outcome: MemberOutcome) => void,
): Observable<MemberOutcome[]> {
  return fromAbortable(async (signal) => {
    for (const member of set.members) {
      const outcome = await createOrAdoptMember(client, set, member, outcomes, signal);
      outcomes.push(outcome);
      if (!signal.aborted) onMember?.(outcome);
    }
    for (const kind of set.table.kinds) {
      const unasked = await unaskedMember(client, set, kind, outcomes, signal);
      if (unasked) outcomes.push(unasked);
    }
    return outcomes;
  });
}

/**
 * A member the set no longer asks for, left by an earlier spec of the same container and
 * found with the member it is owned by adopted: adopted too, its drift what undoing it
 * means. A created owner needs no look: what was left is owned by an older object, and the
 * garbage collector removes it.
 */
async function unaskedMember(
  client: KubernetesClient,
  set: WorkloadSet,
  kind: MemberKind,
  outcomes: readonly MemberOutcome[],
  signal: AbortSignal,
): Promise<MemberOutcome | undefined> {
  const rules = set.table.rulesOf<MemberKind>(kind);
  if (!rules.driftWhenUnasked || set.members.some((member) => member.kind === kind)) return undefined;
  if (!outcomes.some((outcome) => outcome.kind === rules.ownedBy && outcome.adopted)) return undefined;
  try {
    const live = await client.read(kind, set.namespace, rules.nameIn(set.name), { signal });
    if (!ownedBy(live, set.owner)) return undefined;
    return { kind, object: live, adopted: true, drift: rules.driftWhenUnasked(live) } as MemberOutcome;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

async function createOrAdoptMember(
  client: KubernetesClient,
  set: WorkloadSet,
  member: WorkloadMember,
  created: readonly MemberOutcome[],
  signal: AbortSignal,
): Promise<MemberOutcome> {
  const { kind } = member;
  const object = withOwner(set, member, created);
  const { namespace } = set;
  const name = object.metadata?.name ?? '';
  const outcome = (stored: typeof object, adopted: boolean, drift: readonly DriftField[]): MemberOutcome =>
    ({ kind, object: stored, adopted, drift }) as MemberOutcome;
  try {
    return outcome(await client.create(kind, namespace, object, { signal }), false, []);
  } catch (error) {
    if (!(error instanceof ConflictError) || error.reason !== 'AlreadyExists') {
      // A refused Service is named by the spec field at fault, in the API server's words.
      throw (kind === 'services' ? serviceRefusal(error, { namespace, name }, object as KindMap['services']) : undefined) ?? error;
    }
    const existing = await client.read(kind, namespace, name, { signal });
    const what = `${KINDS[kind].kind} ${namespace}/${name}`;
    const target = { verb: 'create', resource: kind, namespace, name };
    const { containerId, instance } = set.owner;
    if (!ownedBy(existing, set.owner)) {
      throw new ConflictError(
        `${what} already exists and belongs to ${describeOwner(existing)}, not container-id ${containerId}${describeInstance(instance)}; it was left untouched`,
        { reason: 'AlreadyExists', target, cause: error },
      );
    }
    if (existing.metadata?.deletionTimestamp) {
      throw new ConflictError(
        `${what} of container-id ${containerId} is being deleted (a failed run's cleanup, or someone else); retry once it is gone`,
        { reason: 'AlreadyExists', target, cause: error },
      );
    }
    const rules = set.table.rulesOf<MemberKind>(kind);
    return outcome(existing, true, rules.drift(object, existing));
  }
}

/** The member with the owner reference its rules ask for: the object of an earlier member, as stored. */
function withOwner(set: WorkloadSet, member: WorkloadMember, created: readonly MemberOutcome[]): WorkloadMember['object'] {
  const ownerKind = set.table.rulesOf(member.kind).ownedBy;
  if (!ownerKind) return member.object;
  const owner = created.find((each) => each.kind === ownerKind)?.object;
  const name = owner?.metadata?.name;
  const uid = owner?.metadata?.uid;
  if (!name || !uid) return member.object;
  const reference = { apiVersion: apiVersionOf(ownerKind), kind: KINDS[ownerKind].kind, name, uid };
  return { ...member.object, metadata: { ...member.object.metadata, ownerReferences: [reference] } };
}
