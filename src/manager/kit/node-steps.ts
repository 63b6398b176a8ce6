// The node calls of Manager's own job scripts, for a kubernetes node. Manager's
// bin/create-container.js and bin/reconfigure-container.js stay Manager's: they call these at
// the point where they would ask `node.api()` for a Proxmox-shaped client, and every step of
// their own around it (the Cloudflare DNS records, the NetBox registration, the logs) runs as
// for every node type. So adopting the kit swaps only what talks to the node.
import { createContainer } from '../create-flow.js';
import { eventPrinter, type JobEvent } from '../event-printer.js';
import type { LifecycleCompletedEvent } from '../providers/types.js';
import { managerProviders, type ManagerModels, type ManagerProvidersOptions } from './manager-providers.js';

export interface NodeStepOptions extends ManagerProvidersOptions {
  /** Sees every event of the node's work. Default: eventPrinter(), one job-log line per event. */
  readonly onEvent?: (event: JobEvent) => void;
}

/**
 * What Manager's create job reads back from the node for its own steps after it, in the
 * names they use: the row's address for NetBox, and what the container reserves (NetBox's
 * vcpus, memory and disk; null when the node gives it none, a container without a volume).
 */
export interface NodeCreateOutcome {
  readonly providerId: string;
  /** Null on Kubernetes: a workload has no stable MAC. */
  readonly macAddress: string | null;
  /** The Service's address, lasting the container's life; null for a container without services. */
  readonly ipv4Address: string | null;
  readonly vcpus: number | null;
  readonly memoryMb: number | null;
  readonly diskGb: number | null;
}

/**
 * Creates the row's container on its node and stores its provider ID and address on the
 * row, as Manager's own node calls end; its errors are the create flow's (the row is left
 * unchanged).
 */
export async function createOnNode(models: ManagerModels, containerId: number, options: NodeStepOptions = {}): Promise<NodeCreateOutcome> {
  const { store, providers } = managerProviders(models, options);
  const created = await createContainer(containerId, { providers, store, onEvent: options.onEvent ?? eventPrinter() });
  return {
    providerId: created.providerId,
    macAddress: created.macAddress,
    ipv4Address: created.ipAddress,
    vcpus: created.resources?.cores ?? null,
    memoryMb: created.resources?.memoryMb ?? null,
    diskGb: created.resources?.diskGb ?? null,
  };
}

export interface ReconfigureOnNodeOptions extends NodeStepOptions {
  /**
   * The job was queued by a user's edit or restart (no `--cpus`, `--memory`, `--swap` or
   * `--rootfs`): when the row asks for nothing new, the container restarts, as the user
   * asked. A job queued by a resource approval sets it false: an approval the container
   * already has (a second, identical one) changes nothing and restarts nothing.
   */
  readonly restartIfUnchanged: boolean;
}

/** Gives the container its row as it now is; the row keeps its address. */
export async function reconfigureOnNode(
  models: ManagerModels,
  containerId: number,
  options: ReconfigureOnNodeOptions,
): Promise<LifecycleCompletedEvent> {
  const { lifecycle } = managerProviders(models, options);
  const onEvent = options.onEvent ?? eventPrinter();
  const reconfigured = await lifecycle.reconfigure(containerId, { onEvent });
  if (reconfigured.changed || !options.restartIfUnchanged) return reconfigured;
  return lifecycle.restart(containerId, { onEvent });
}
