// How a Manager container runs on its node's cluster, beyond its resources: the RuntimeClass
// (a GPU's, or a system container's) and a user namespace, from the node's columns. One
// rule for the create and every reconfigure, so a reconfigure never drops the class the
// create chose.
import { isSystemCommand } from '../../index.js';
import { nodeGpuSettings, nodeSystemSettings } from '../node-config.js';
import { effectiveEntrypoint } from './environment.js';
import type { ContainerRecord } from './types.js';

/** Whether Manager's entrypoint (the image's entrypoint and command, one string) starts an init system. */
export function runsInitSystem(record: Pick<ContainerRecord, 'entrypoint'>): boolean {
  const entrypoint = effectiveEntrypoint(record.entrypoint, null);
  return entrypoint !== null && isSystemCommand(entrypoint);
}

export interface RuntimeRequest {
  readonly gpus: number;
  readonly gpuResource?: string;
  /** null: the cluster's default RuntimeClass. */
  readonly runtimeClass: string | null;
  readonly hostUsers?: false;
}

/**
 * One GPU of the node's resource with its RuntimeClass when nvidiaRequested; otherwise a
 * system container's class (kubeSystemRuntimeClass); and `hostUsers: false` on a node with
 * kubeUserNamespaces on. A GPU's class wins: the node's admin names one that does both.
 */
export function runtimeRequest(record: ContainerRecord): RuntimeRequest {
  const system = nodeSystemSettings(record.node);
  const userNamespace = system.userNamespaces ? { hostUsers: false as const } : {};
  if (record.nvidiaRequested) {
    const gpu = nodeGpuSettings(record.node);
    return { gpus: 1, gpuResource: gpu.resource, runtimeClass: gpu.runtimeClass ?? null, ...userNamespace };
  }
  const runtimeClass = runsInitSystem(record) ? (system.runtimeClass ?? null) : null;
  return { gpus: 0, runtimeClass, ...userNamespace };
}
