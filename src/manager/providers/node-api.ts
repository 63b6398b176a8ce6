// The method surface Manager's node clients share (its ProxmoxApi, and the DockerApi and
// DummyApi that imitate it), typed from how Manager calls them. Manager passes its own
// client objects; each provider asks only for the methods it calls.
import type { NodeRecord } from './types.js';

/** A Proxmox VMID, or a Docker engine container ID where Docker stands in. */
export type Vmid = number | string;

/** A task handle: a Proxmox UPID, or `docker:<kind>:<id>` from Manager's DockerApi. */
export type TaskId = string;

export interface Datastore {
  readonly storage: string;
  /** Capacity in bytes; the fallback picks the largest. */
  readonly total?: number;
  readonly [field: string]: unknown;
}

export interface StorageItem {
  /** Volume ID, e.g. `local:vztmpl/name.tar`. */
  readonly volid: string;
  readonly [field: string]: unknown;
}

export interface LxcTemplate {
  readonly vmid: Vmid;
  readonly name: string;
  readonly [field: string]: unknown;
}

export interface PullOciImageOptions {
  readonly reference: string;
  readonly filename?: string;
}

export type LxcOptions = Readonly<Record<string, unknown>>;

/** Values in an LXC config as Proxmox returns them (numbers may come back as strings). */
export type LxcConfig = Readonly<Record<string, unknown>>;

/** A container's state as the node reports it (Proxmox: `running` or `stopped`). */
export interface LxcStatus {
  readonly status?: string;
  readonly [field: string]: unknown;
}

export interface NodeApi {
  nextId(): Promise<Vmid | null>;
  nodes(): Promise<unknown>;
  clusterResources(type?: string | null): Promise<unknown>;
  datastores(node: string, content?: string | null, enabled?: boolean): Promise<readonly Datastore[]>;
  storageContents(node: string, storage: string, content?: string | null): Promise<readonly StorageItem[]>;
  pullOciImage(node: string, storage: string, options: PullOciImageOptions): Promise<TaskId>;
  createLxc(node: string, options: LxcOptions): Promise<TaskId>;
  getLxcTemplates(node: string): Promise<readonly LxcTemplate[]>;
  cloneLxc(node: string, vmid: Vmid, newid: Vmid, options: LxcOptions): Promise<TaskId>;
  /** Proxmox resolves nothing useful; Manager's DockerApi returns the (new) container's task ID. */
  updateLxcConfig(node: string, vmid: Vmid, config: LxcOptions): Promise<TaskId | void>;
  lxcConfig(node: string, vmid: Vmid): Promise<LxcConfig>;
  startLxc(node: string, vmid: Vmid): Promise<TaskId>;
  stopLxc(node: string, vmid: Vmid): Promise<TaskId>;
  waitForTask(node: string, upid: TaskId): Promise<unknown>;
  getLxcMacAddress(node: string, vmid: Vmid): Promise<string | null>;
  getLxcIpAddress(node: string, vmid: Vmid): Promise<string | null>;
  updateAcl(
    path: string,
    roles: string,
    groups: string | null,
    propagate: boolean,
    tokens: string | null,
    users: string | null,
  ): Promise<unknown>;
  syncLdapRealm(realm: string): Promise<unknown>;
  getLxcStatus(node: string, vmid: Vmid): Promise<LxcStatus>;
  /** Resolves to a task to wait for (Proxmox, DockerApi), or nothing. */
  deleteContainer(node: string, vmid: Vmid): Promise<TaskId | void>;
}

/** What the Proxmox provider calls. */
export type ProxmoxCreateApi = Pick<
  NodeApi,
  | 'nextId'
  | 'datastores'
  | 'storageContents'
  | 'pullOciImage'
  | 'createLxc'
  | 'getLxcTemplates'
  | 'cloneLxc'
  | 'updateLxcConfig'
  | 'lxcConfig'
  | 'startLxc'
  | 'waitForTask'
  | 'getLxcMacAddress'
  | 'getLxcIpAddress'
  | 'updateAcl'
  | 'syncLdapRealm'
>;

/** What the Docker provider calls: the subset that does something on Manager's DockerApi. */
export type DockerCreateApi = Pick<
  NodeApi,
  'pullOciImage' | 'createLxc' | 'updateLxcConfig' | 'lxcConfig' | 'startLxc' | 'waitForTask' | 'getLxcMacAddress' | 'getLxcIpAddress'
>;

/** What the Proxmox and Docker lifecycles call (status, start, stop, restart, reconfigure, remove). */
export type LxcLifecycleApi = Pick<
  NodeApi,
  'getLxcStatus' | 'startLxc' | 'stopLxc' | 'waitForTask' | 'updateLxcConfig' | 'deleteContainer' | 'getLxcMacAddress' | 'getLxcIpAddress'
>;

/** Builds (or looks up) the client for one node; Manager passes `node.api()` behind it. */
export type NodeApiFactory<Api> = (node: NodeRecord) => Api | Promise<Api>;
