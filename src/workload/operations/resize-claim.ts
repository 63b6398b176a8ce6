// Growing a container's volume (reconfigure with `storageGb`): the claim's request is
// patched, with the resourceVersion read as a precondition, when its StorageClass allows
// expansion. Refused before any write: no claim, a smaller size (a claim never shrinks), a
// class that does not allow expansion. Nothing waits for the volume itself to grow: a
// resizer may take its time, or (a local volume) never act; the claim's status says which
// (`resize`: pending, in-progress, not-supported).
import { ExpansionRefusedError, ForbiddenError, NotFoundError } from '../../errors/api.js';
import { KubeProvisionerError } from '../../errors/base.js';
import { storageQuantity } from '../../input/storage.js';
import type { V1PersistentVolumeClaim, V1StorageClass } from '../../kube/objects.js';
import { claimStatus, storageCompare, type ClaimStatusValue } from '../../rollout/claim-status.js';
import type { OperationContext } from '../toolkit/operation.js';
import { claimName } from '../../members/claim/manifest.js';
import { ownedBy } from '../../members/set.js';

/** Why a resize was refused; the claim was not changed. */
export type StorageResizeRefusal = 'NoClaim' | 'Shrink' | 'NotExpandable' | 'Refused';

/** A reconfigure's `storageGb` was refused; the claim (and the rest of the workload) was not changed. */
export class StorageResizeError extends KubeProvisionerError {
  override readonly name = 'StorageResizeError';
  readonly refusal: StorageResizeRefusal;
  readonly namespace: string;
  /** The claim's name. */
  readonly claim: string;
  /** What was asked ("80Gi"). */
  readonly requested: string;
  /** The claim's request as it is ("50Gi"), when there is a claim. */
  readonly current: string | undefined;
  readonly storageClass: string | undefined;
  constructor(
    refusal: StorageResizeRefusal,
    where: { readonly namespace: string; readonly claim: string },
    detail: { readonly requested: string; readonly current?: string; readonly storageClass?: string; readonly why: string },
    options: { cause?: unknown } = {},
  ) {
    super(`cannot resize the claim ${where.namespace}/${where.claim} to ${detail.requested}: ${detail.why}; nothing was changed`, options);
    this.refusal = refusal;
    this.namespace = where.namespace;
    this.claim = where.claim;
    this.requested = detail.requested;
    this.current = detail.current;
    this.storageClass = detail.storageClass;
  }
}

export interface ResizePlan {
  readonly claim: V1PersistentVolumeClaim;
  readonly storageClass: V1StorageClass | undefined;
  /** False: the claim asks for this size already. */
  readonly grow: boolean;
}

/**
 * Whether the claim asks for `sizeGb` or more already: a size the volume has reached, which
 * a caller stating a least size (Manager's approved rootfs) has no need to ask for again.
 */
export function claimHolds(claim: V1PersistentVolumeClaim, sizeGb: number): boolean {
  const order = storageCompare(storageQuantity(sizeGb), claim.spec?.resources?.requests?.storage);
  return order !== undefined && order <= 0;
}

/** Reads the claim (and its class) and decides; throws StorageResizeError before any write. */
/** `containerId`: the container the Deployment read belongs to; the claim must be its too. */
export async function planResize(context: OperationContext, containerId: string, sizeGb: number, signal: AbortSignal): Promise<ResizePlan> {
  const name = claimName({ hostname: context.name });
  const requested = storageQuantity(sizeGb);
  const where = { namespace: context.namespace, claim: name };
  let claim: V1PersistentVolumeClaim;
  try {
    claim = await context.client.read('persistentvolumeclaims', context.namespace, name, { signal });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw new StorageResizeError(
      'NoClaim',
      where,
      { requested, why: 'the container has no claim (it was created without storage)' },
      { cause: error },
    );
  }
  if (!ownedBy(claim, { containerId, instance: context.instance })) {
    throw new StorageResizeError('NoClaim', where, { requested, why: 'the claim of that name is not this container’s' });
  }
  const current = claim.spec?.resources?.requests?.storage;
  const className = claim.spec?.storageClassName;
  const detail = { requested, ...(current ? { current } : {}), ...(className ? { storageClass: className } : {}) };
  const order = storageCompare(requested, current);
  if (order === -1)
    throw new StorageResizeError('Shrink', where, { ...detail, why: `it asks for ${current} already, and a claim never shrinks` });
  if (order === 0) return { claim, storageClass: undefined, grow: false };
  let storageClass: V1StorageClass | undefined;
  if (className) {
    try {
      storageClass = await context.client.read('storageclasses', '', className, { signal });
    } catch (error) {
      // Not allowed to read the class: the API server's own check decides at the write.
      if (!(error instanceof ForbiddenError) && !(error instanceof NotFoundError)) throw error;
    }
  }
  if (storageClass && storageClass.allowVolumeExpansion !== true) {
    throw new StorageResizeError('NotExpandable', where, {
      ...detail,
      why: `its StorageClass ${className} does not allow expansion (allowVolumeExpansion is not true)`,
    });
  }
  return { claim, storageClass, grow: true };
}

/** Writes the new request; the claim as stored and its status. */
export async function writeResize(
  context: OperationContext,
  plan: ResizePlan,
  sizeGb: number,
  signal: AbortSignal,
): Promise<{ readonly claim: V1PersistentVolumeClaim; readonly status: ClaimStatusValue }> {
  const name = plan.claim.metadata?.name ?? claimName({ hostname: context.name });
  const requested = storageQuantity(sizeGb);
  try {
    const claim = await context.client.patch(
      'persistentvolumeclaims',
      context.namespace,
      name,
      {
        metadata: { uid: plan.claim.metadata?.uid, resourceVersion: plan.claim.metadata?.resourceVersion },
        spec: { resources: { requests: { storage: requested } } },
      },
      { signal },
    );
    return { claim, status: claimStatus(claim, name, plan.storageClass) };
  } catch (error) {
    if (!(error instanceof ExpansionRefusedError)) throw error;
    const current = plan.claim.spec?.resources?.requests?.storage;
    const storageClass = plan.claim.spec?.storageClassName;
    throw new StorageResizeError(
      'Refused',
      { namespace: context.namespace, claim: name },
      { requested, ...(current ? { current } : {}), ...(storageClass ? { storageClass } : {}), why: error.message },
      { cause: error },
    );
  }
}
