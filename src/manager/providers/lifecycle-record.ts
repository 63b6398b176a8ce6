// What every provider's lifecycle needs from the container row before touching a node.
import { ContainerNotProvisionedError, type ContainerOperationName } from '../errors.js';
import type { ContainerRecord } from './types.js';

/** The saved provider ID; a container never provisioned has none, and nothing is called. */
export function requireProviderId(record: ContainerRecord, operation: ContainerOperationName): string {
  if (record.providerId) return record.providerId;
  throw new ContainerNotProvisionedError(record.id, operation);
}
