// Reading one record for the create flow and the lifecycle: a store's own failure becomes
// ContainerLoadError (its error the cause), a missing record ContainerNotFoundError.
import { KubeProvisionerError } from '../../index.js';
import { ContainerLoadError, ContainerNotFoundError } from '../errors.js';
import type { ContainerId, ContainerRecord } from '../providers/types.js';
import type { ContainerStore } from './container-store.js';

export async function loadRecord(store: ContainerStore, containerId: ContainerId): Promise<ContainerRecord> {
  let record: ContainerRecord | undefined;
  try {
    record = await store.load(containerId);
  } catch (error) {
    if (error instanceof KubeProvisionerError) throw error;
    throw new ContainerLoadError(containerId, { cause: error });
  }
  if (!record) throw new ContainerNotFoundError(containerId);
  return record;
}
