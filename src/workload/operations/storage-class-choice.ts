// Which StorageClass a container's claim gets, decided before anything is created: the one
// the spec names (it must exist), or the cluster's default (there must be one), or without
// a default the class of this container's own kept claim, which the create re-attaches. A
// claim that names no class on a cluster without a default would stay Pending forever; here
// that is a typed error naming the option, and nothing is created.
import { KubeProvisionerError } from '../../errors/base.js';
import { ForbiddenError, NotFoundError } from '../../errors/api.js';
import type { StorageSpec } from '../../input/storage.js';
import type { KubernetesClient } from '../../kube/client.js';
import type { V1StorageClass } from '../../kube/objects.js';
import { defaultStorageClass } from '../../rollout/storage-class.js';
import { ownedBy, type WorkloadOwner } from '../../members/set.js';

/** The cluster has no default StorageClass and the spec names none: nothing was created. */
export class NoDefaultStorageClassError extends KubeProvisionerError {
  override readonly name = 'NoDefaultStorageClassError';
  /** The option that names a class: `storage.storageClass` (CLI `--storage-class`). */
  readonly option = 'storage.storageClass';
  /** The classes the cluster has, by name. */
  readonly classes: readonly string[];
  constructor(classes: readonly string[]) {
    super(
      'the cluster has no default StorageClass, so a claim naming none would stay Pending forever: name one with storage.storageClass ' +
        `(kube-provision create --storage-class NAME)${classes.length > 0 ? `; the cluster has ${classes.join(', ')}` : '; the cluster has no StorageClass at all'}` +
        '; nothing was created',
    );
    this.classes = classes;
  }
}

/** The StorageClass the spec names does not exist: nothing was created. */
export class StorageClassNotFoundError extends KubeProvisionerError {
  override readonly name = 'StorageClassNotFoundError';
  readonly option = 'storage.storageClass';
  readonly storageClass: string;
  constructor(storageClass: string, options: { cause?: unknown } = {}) {
    super(`StorageClass ${storageClass} (storage.storageClass) does not exist; nothing was created`, options);
    this.storageClass = storageClass;
  }
}

export interface StorageClassChoice {
  readonly name: string;
  /** `spec`: named by the spec; `claim`: the class of this container's kept claim; `default`: the cluster's default. */
  readonly source: 'spec' | 'claim' | 'default';
  /** The class as read; undefined when the spec names one that may not be read (403), or it is the kept claim's. */
  readonly storageClass?: V1StorageClass;
  /** Several classes are marked default: the newest was chosen, as the API server's admission does. */
  readonly otherDefaults?: readonly string[];
}

/** The container's claim, as a create would re-attach it: its place, and whose it must be. */
export interface KeptClaim {
  readonly namespace: string;
  readonly name: string;
  readonly owner: WorkloadOwner;
}

/**
 * The class for `storage`: one request (read the named class, or list them all). A named
 * class the caller may not read is taken as named (the caller chose it; a missing one is
 * then named by the PV controller's ProvisioningFailed); finding the default needs `list`.
 * With no default, a claim of this container at `kept` (kept data) decides: it is
 * re-attached as it is, so its class is the one (a kept claim is adopted whatever its
 * class when there is a default, the class being compared only when the spec names one).
 */
export async function chooseStorageClass(
  client: KubernetesClient,
  storage: StorageSpec,
  signal?: AbortSignal,
  kept?: KeptClaim,
): Promise<StorageClassChoice> {
  const named = storage.storageClass;
  if (named !== undefined) {
    try {
      const storageClass = await client.read('storageclasses', '', named, signal ? { signal } : {});
      return { name: named, source: 'spec', storageClass };
    } catch (error) {
      if (error instanceof NotFoundError) throw new StorageClassNotFoundError(named, { cause: error });
      if (error instanceof ForbiddenError) return { name: named, source: 'spec' };
      throw error;
    }
  }
  const { items } = await client.list('storageclasses', '', undefined, signal ? { signal } : {});
  const { chosen, defaults } = defaultStorageClass(items);
  if (!chosen) {
    const keptClass = kept ? await keptClaimClass(client, kept, signal) : undefined;
    if (keptClass !== undefined) return { name: keptClass, source: 'claim' };
    throw new NoDefaultStorageClassError(items.map((item) => item.metadata?.name ?? '').filter(Boolean));
  }
  const others = defaults.slice(1).map((item) => item.metadata?.name ?? '');
  return {
    name: chosen.metadata?.name ?? '',
    source: 'default',
    storageClass: chosen,
    ...(others.length > 0 ? { otherDefaults: others } : {}),
  };
}

/**
 * The class of the container's own claim when it is there to be re-attached: ours by its
 * labels, not being deleted, naming a class. Anything else (none, another's, one going)
 * decides nothing: the create judges that claim as before.
 */
async function keptClaimClass(client: KubernetesClient, kept: KeptClaim, signal?: AbortSignal): Promise<string | undefined> {
  try {
    const claim = await client.read('persistentvolumeclaims', kept.namespace, kept.name, signal ? { signal } : {});
    if (!ownedBy(claim, kept.owner) || claim.metadata?.deletionTimestamp) return undefined;
    return claim.spec?.storageClassName || undefined;
  } catch (error) {
    // None, or not allowed to read it: the choice stays as it was (no default is named as such).
    if (error instanceof NotFoundError || error instanceof ForbiddenError) return undefined;
    throw error;
  }
}
