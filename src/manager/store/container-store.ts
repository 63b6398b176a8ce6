// Where the create flow and the lifecycle read a container record and record what was done.
// Manager's Sequelize models sit behind one adapter; tests use the in-memory store.
import type { ContainerId, ContainerRecord, ProvisionedIdentity } from '../providers/types.js';

/** A lifecycle operation's result, as the row keeps it. */
export interface OperationResult {
  /** The provider ID now (a Docker reconfigure replaces it); null: the container was removed from its node. */
  readonly providerId: string | null;
  /** Written when present (null clears it); absent: left as it is. */
  readonly macAddress?: string | null;
  readonly ipAddress?: string | null;
}

export interface ContainerStore {
  /** The record with this ID, or undefined when there is none. */
  load(containerId: ContainerId): Promise<ContainerRecord | undefined>;
  /**
   * Records the provider ID, MAC and IP (null is stored as null) and, when given, the
   * template's env/entrypoint folded under the user's. Compare-and-set: writes only while
   * the record still has no provider ID, so two racing creations cannot both claim it.
   * Resolves false when nothing was written (provisioned meanwhile, or deleted).
   */
  saveProvisioned(containerId: ContainerId, identity: ProvisionedIdentity): Promise<boolean>;
  /**
   * Records a lifecycle operation's result (containerLifecycle with a store needs it).
   * Compare-and-set: writes only while the record still has `expectedProviderId`. Resolves
   * false when nothing was written (deleted, or its provider ID changed meanwhile).
   */
  saveOperation?(containerId: ContainerId, expectedProviderId: string, result: OperationResult): Promise<boolean>;
}
