// Where the create flow reads a container record and records what was provisioned.
// Manager's Sequelize models sit behind one adapter; tests use the in-memory store.
import type { ContainerId, ContainerRecord, ProvisionedIdentity } from '../providers/types.js';

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
}
