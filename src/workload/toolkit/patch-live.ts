// Writes to a live workload that never overwrite a change unseen: each write carries the
// UID read (and, when asked, its resourceVersion) as a precondition; a write refused
// because the object changed is read again and rebuilt from what is there now.
import type { V1Deployment } from '../../kube/objects.js';
import { ConflictError, InvalidObjectError } from '../../errors/api.js';
import type { DeploymentMergePatch } from '../../kube/client.js';
import type { OperationContext } from './operation.js';
import { readOwned, type OwnedWorkload } from './ownership.js';

/** A write that was refused because the object changed is read again and rebuilt this often. */
const MAX_WRITE_ATTEMPTS = 5;

export interface PatchOutcome {
  /** The object as stored after the write; undefined when nothing had to be written. */
  readonly written: V1Deployment | undefined;
  /** The object the patch was built from (read again after a refused write). */
  readonly live: OwnedWorkload;
}

/**
 * Writes the merge patch `build` makes from the live object, with its UID as a
 * precondition (and, with `exact`, its resourceVersion: any change since the read, even by
 * the controllers, refuses the write). A refused write (409 Conflict, or 422 on the UID:
 * another object took the name) is read again and rebuilt from what is there now, so a
 * concurrent change is never overwritten unseen. `build` returns undefined when the live
 * object needs no write.
 */
export async function patchLive(
  context: OperationContext,
  first: OwnedWorkload,
  build: (live: OwnedWorkload) => DeploymentMergePatch | undefined,
  signal: AbortSignal,
  options: { readonly exact: boolean },
): Promise<PatchOutcome> {
  let live = first;
  for (let attempt = 1; ; attempt += 1) {
    const patch = build(live);
    if (patch === undefined) return { written: undefined, live };
    const metadata = {
      ...(patch.metadata as Record<string, unknown> | undefined),
      uid: live.uid,
      ...(options.exact ? { resourceVersion: live.resourceVersion } : {}),
    };
    try {
      const written = await context.client.patch('deployments', context.namespace, context.name, { ...patch, metadata }, { signal });
      return { written, live };
    } catch (error) {
      if (attempt >= MAX_WRITE_ATTEMPTS || !refusedAsChanged(error)) throw error;
      live = await readOwned(context, signal);
    }
  }
}

/** The write was refused because the object is not the one read any more. */
function refusedAsChanged(error: unknown): boolean {
  if (error instanceof ConflictError) return error.reason === 'Conflict' || error.reason === undefined;
  return error instanceof InvalidObjectError && error.causes.some((cause) => cause.field === 'metadata.uid');
}
