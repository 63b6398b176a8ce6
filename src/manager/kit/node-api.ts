// What Manager's `node.api()` answers for a kubernetes node: the calls Manager makes on a
// node outside the job scripts, on its Deployments. utils/container-status.js reads one
// `clusterResources('lxc')` per node (entries `{ vmid, status }`, `vmid` the provider ID
// its rows store); the DELETE route reads `lxcConfig()` to compare the hostname, then calls
// `deleteContainer()`. The other methods of Manager's node API are Proxmox's (templates,
// storages, VMIDs, tasks): each fails, naming where that work happens for Kubernetes.
import {
  CONTAINER_ID_LABEL,
  NotFoundError,
  WorkloadOwnershipError,
  list,
  parseProviderId,
  remove,
  type KubernetesClient,
  type WorkloadSnapshot,
} from '../../index.js';
import { ContainerStillOnNodeError, UnsupportedNodeCallError } from '../errors.js';
import { kubernetesNodeConfig } from '../node-config.js';
import { nodeClientFactory, type KubernetesClientFactory } from '../providers/kubernetes-client.js';
import type { NodeRecord } from '../providers/types.js';

export interface NodeApiOptions {
  /** This Manager's installation ID, as the job scripts pass it (MANAGER_INSTANCE_ID); empty or absent: none. */
  readonly instance?: string | undefined;
  /** Bound on each call; default: the library's (30 s for a list, 300 s for a removal). */
  readonly timeoutMs?: number;
  /**
   * Default: one client per distinct node configuration for the life of the process, so
   * Manager's server keeps its connections to a cluster between requests.
   */
  readonly clientFor?: KubernetesClientFactory;
}

/** A container as Manager's node snapshot has it; the rest of the library's snapshot rides along. */
export type ClusterResource = WorkloadSnapshot;

export interface KubernetesNodeApi {
  /**
   * The node's containers, one list of its Deployments and Pods: `vmid` is the provider ID
   * (`namespace/name`), `status` Manager's word (running, offline, creating, failed, ...).
   * `type` other than `lxc` (Proxmox's VMs, storages, nodes): none.
   */
  clusterResources(type?: string | null): Promise<ClusterResource[]>;
  /** The container's settings Manager's DELETE route reads: its hostname. */
  lxcConfig(nodeName: string, providerId: string): Promise<{ readonly hostname: string }>;
  /** Deletes the Deployment (only one of Manager's, of this installation) and waits until it and its Pods are gone. */
  deleteContainer(nodeName: string, providerId: string): Promise<void>;
}

const LIFECYCLE =
  'a container on a Kubernetes node is a Deployment, created and changed by the job scripts (createContainer, containerLifecycle)';
const UNSUPPORTED: Readonly<Record<string, string>> = {
  nextId: 'a Kubernetes container has no VMID: its provider ID is namespace/name',
  nodes: 'the cluster nodes are checkKubernetesNode() and kube-provision nodes',
  datastores: 'a Kubernetes node has no Proxmox storages',
  storageContents: 'a Kubernetes node has no Proxmox storages',
  pullOciImage: 'the kubelet pulls the image',
  createLxc: LIFECYCLE,
  getLxcTemplates: 'a Kubernetes container runs an OCI image, not an LXC template',
  cloneLxc: LIFECYCLE,
  updateLxcConfig: LIFECYCLE,
  startLxc: LIFECYCLE,
  stopLxc: LIFECYCLE,
  getLxcStatus: 'the status is containerLifecycle().status(), or clusterResources() for the whole node',
  waitForTask: 'a Kubernetes node has no tasks: each operation waits for its own outcome',
  getLxcMacAddress: 'a Kubernetes container has no stable MAC address',
  getLxcIpAddress: "the address is in the container's row, saved by the job scripts",
  updateAcl: 'access to a Kubernetes container is not granted per user on the node',
  syncLdapRealm: 'a Kubernetes node has no LDAP realm',
};

const sharedClients = nodeClientFactory();

/**
 * The node API of one kubernetes node (Manager's `node.api()` for `nodeType` kubernetes).
 * `node` is Manager's Node (a Sequelize instance or a plain row). Throws
 * KubernetesNodeConfigError, before any request, when its columns do not say how to reach
 * its cluster, as Manager's Proxmox branch throws for a node without credentials.
 */
export function nodeApi(node: unknown, options: NodeApiOptions = {}): KubernetesNodeApi & Record<string, unknown> {
  const record = plainNode(node);
  kubernetesNodeConfig(record);
  const clientFor = options.clientFor ?? sharedClients;
  const client = (): Promise<KubernetesClient> => Promise.resolve(clientFor(record));
  const instance = options.instance ? { instance: options.instance } : {};
  const timeout = options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {};

  const api: KubernetesNodeApi = {
    async clusterResources(type) {
      if (type !== undefined && type !== null && type !== 'lxc') return [];
      return list(await client(), { ...instance, ...timeout });
    },
    // Manager's DELETE route calls these two, and deletes the row unless the error says to
    // keep it: a Deployment that is not there (404) is gone, anything else may still run.
    async lxcConfig(_nodeName, providerId) {
      const { namespace, name } = parseProviderId(providerId);
      const deployment = await keepRowUnlessGone(record.name, providerId, async () =>
        (await client()).read('deployments', namespace, name),
      );
      return { hostname: deployment.spec?.template.spec?.hostname ?? name };
    },
    async deleteContainer(_nodeName, providerId) {
      const { namespace, name } = parseProviderId(providerId);
      await keepRowUnlessGone(record.name, providerId, async () => {
        const api = await client();
        // The container-id the Deployment carries; remove() deletes it only with managed=true
        // and this installation's instance label, and checks the same id again.
        const deployment = await api.read('deployments', namespace, name).catch((error: unknown) => {
          if (error instanceof NotFoundError) return undefined;
          throw error;
        });
        if (!deployment) return;
        const containerId = deployment.metadata?.labels?.[CONTAINER_ID_LABEL] ?? '';
        await remove(api, providerId, { containerId, ...instance, ...timeout });
      });
    },
  };
  const unsupported = Object.fromEntries(
    Object.entries(UNSUPPORTED).map(([method, hint]) => [
      method,
      async (): Promise<never> => {
        throw new UnsupportedNodeCallError(record.name, method, hint);
      },
    ]),
  );
  return { ...unsupported, ...api };
}

/**
 * The call's own error when the container is not there (404) or the Deployment is another's
 * (nothing of this container to orphan); ContainerStillOnNodeError, which keeps Manager's
 * row, for any other failure.
 */
async function keepRowUnlessGone<T>(nodeName: string | undefined, providerId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof WorkloadOwnershipError) throw error;
    throw new ContainerStillOnNodeError(nodeName ?? '(unnamed)', providerId, { cause: error });
  }
}

/** Manager's Node, a Sequelize instance or a plain row, as a plain record. */
export function plainNode(node: unknown): NodeRecord {
  const candidate = node as { get?: (options: { plain: true }) => unknown } | null;
  const plain = candidate && typeof candidate.get === 'function' ? candidate.get({ plain: true }) : node;
  return (typeof plain === 'object' && plain !== null ? plain : {}) as NodeRecord;
}
