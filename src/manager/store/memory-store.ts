// An in-memory ContainerStore for tests and development. It hands out copies, so no
// caller can change a stored record except through saveProvisioned.
import type { ContainerId, ContainerRecord, ProvisionedIdentity } from '../providers/types.js';
import type { ContainerStore, OperationResult } from './container-store.js';

export class MemoryContainerStore implements ContainerStore {
  // Keyed by the ID's string form: Manager's CLI passes "42" for record 42.
  private readonly records = new Map<string, ContainerRecord>();

  constructor(records: Iterable<ContainerRecord> = []) {
    for (const record of records) this.put(record);
  }

  /** Adds or replaces a record. */
  put(record: ContainerRecord): void {
    this.records.set(String(record.id), structuredClone(record));
  }

  async load(containerId: ContainerId): Promise<ContainerRecord | undefined> {
    const record = this.records.get(String(containerId));
    return record === undefined ? undefined : structuredClone(record);
  }

  async saveProvisioned(containerId: ContainerId, identity: ProvisionedIdentity): Promise<boolean> {
    const record = this.records.get(String(containerId));
    if (record === undefined || record.providerId !== null) return false;
    this.records.set(String(containerId), {
      ...record,
      providerId: identity.providerId,
      macAddress: identity.macAddress,
      ipAddress: identity.ipAddress,
      ...(identity.templateDefaults
        ? { environment: { ...identity.templateDefaults.environment }, entrypoint: identity.templateDefaults.entrypoint }
        : {}),
    });
    return true;
  }

  async saveOperation(containerId: ContainerId, expectedProviderId: string, result: OperationResult): Promise<boolean> {
    const record = this.records.get(String(containerId));
    if (record === undefined || record.providerId !== expectedProviderId) return false;
    this.records.set(String(containerId), {
      ...record,
      providerId: result.providerId,
      ...(result.macAddress !== undefined ? { macAddress: result.macAddress } : {}),
      ...(result.ipAddress !== undefined ? { ipAddress: result.ipAddress } : {}),
    });
    return true;
  }
}
