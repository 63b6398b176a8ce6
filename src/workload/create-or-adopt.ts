// createOrAdopt(): creates the objects of a workload set, in order. When one of that name
// already exists, it is adopted only if it is the same Manager container's (its
// container-id, managed and instance labels) and not being deleted; otherwise the create
// fails with ConflictError and the existing object is left untouched. Nothing is ever
// overwritten or patched here: what is adopted is compared with the member asked for
// (`drift`), and the caller decides.
import type { Observable } from 'rxjs';
import { ConflictError } from '../errors/api.js';
import { describeInstance } from '../input/labels.js';
import type { KubernetesClient } from '../kube/client.js';
import { KINDS } from '../kube/kinds.js';
import { fromAbortable } from '../rx/from-abortable.js';
import type { DriftField } from './drift.js';
import type { KindMap } from '../kube/kinds.js';
import { ownedBy, ownerOf, rulesOf, type MemberKind, type WorkloadMember, type WorkloadSet } from './workload-set.js';

/** One member as this run found or made it. */
export type MemberOutcome = WorkloadMember & {
  /** It existed before this run (same container): adopted, never created. */
  readonly adopted: boolean;
  /** Adopted: where it differs from the member asked for (empty: it is as asked). */
  readonly drift: readonly DriftField[];
};

/**
 * Emits the members as stored once all exist. `outcomes` gets each member as soon as it is
 * created or adopted, so a caller whose later member fails knows what this run created.
 */
export function createOrAdopt(client: KubernetesClient, set: WorkloadSet, outcomes: MemberOutcome[] = []): Observable<MemberOutcome[]> {
  return fromAbortable(async (signal) => {
    for (const member of set.members) outcomes.push(await createOrAdoptMember(client, set, member, signal));
    return outcomes;
  });
}

function createOrAdoptMember(
  client: KubernetesClient,
  set: WorkloadSet,
  member: WorkloadMember,
  signal: AbortSignal,
): Promise<MemberOutcome> {
  // One call per kind keeps each member's kind and object typed together.
  return member.kind === 'deployments'
    ? createOrAdoptOne(client, set, member.kind, member.object, signal)
    : createOrAdoptOne(client, set, member.kind, member.object, signal);
}

async function createOrAdoptOne<K extends MemberKind>(
  client: KubernetesClient,
  set: WorkloadSet,
  kind: K,
  object: KindMap[K],
  signal: AbortSignal,
): Promise<MemberOutcome> {
  const { namespace } = set;
  const name = object.metadata?.name ?? '';
  try {
    return { kind, object: await client.create(kind, namespace, object, { signal }), adopted: false, drift: [] } as MemberOutcome;
  } catch (error) {
    if (!(error instanceof ConflictError) || error.reason !== 'AlreadyExists') throw error;
    const existing = await client.read(kind, namespace, name, { signal });
    const what = `${KINDS[kind].kind} ${namespace}/${name}`;
    const target = { verb: 'create', resource: kind, namespace, name };
    const { containerId, instance } = set.owner;
    if (!ownedBy(existing, set.owner)) {
      const found = ownerOf(existing);
      throw new ConflictError(
        `${what} already exists and belongs to ` +
          (found.containerId ? `container-id ${found.containerId}${describeInstance(found.instance)}` : 'something other than Manager') +
          `, not container-id ${containerId}${describeInstance(instance)}; it was left untouched`,
        { reason: 'AlreadyExists', target, cause: error },
      );
    }
    if (existing.metadata?.deletionTimestamp) {
      throw new ConflictError(
        `${what} of container-id ${containerId} is being deleted (a failed run's cleanup, or someone else); retry once it is gone`,
        { reason: 'AlreadyExists', target, cause: error },
      );
    }
    return { kind, object: existing, adopted: true, drift: rulesOf(kind).drift(object, existing) } as MemberOutcome;
  }
}
