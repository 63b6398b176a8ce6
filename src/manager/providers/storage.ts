// Proxmox storage resolution: the node's preferred storage when it supports the content
// type, else the largest enabled storage that does (with a warning), else an error.
import { NoStorageError } from '../errors.js';
import type { Datastore, ProxmoxCreateApi } from './node-api.js';
import type { StepRunner } from './step-runner.js';

/** `vztmpl` holds container templates and image archives; `rootdir` holds root disks. */
export type StorageContent = 'vztmpl' | 'rootdir';

export async function resolveStorage(
  steps: StepRunner,
  client: Pick<ProxmoxCreateApi, 'datastores'>,
  nodeName: string,
  preferred: string,
  content: StorageContent,
): Promise<string> {
  const storages = await steps.call('resolve-storage', () => client.datastores(nodeName, content, true));
  if (storages.length === 0) throw new NoStorageError(nodeName, content);
  if (storages.some((candidate) => candidate.storage === preferred)) return preferred;
  const fallback = largest(storages);
  steps.report(
    'resolve-storage',
    `Storage "${preferred}" does not support "${content}" on node ${nodeName}; falling back to "${fallback}"`,
    'warning',
  );
  return fallback;
}

function largest(storages: readonly Datastore[]): string {
  let best = storages[0] as Datastore;
  for (const candidate of storages) {
    if ((candidate.total ?? 0) > (best.total ?? 0)) best = candidate;
  }
  return best.storage;
}
