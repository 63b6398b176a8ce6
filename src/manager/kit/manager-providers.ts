// Everything Manager's job scripts share, built from Manager's own models: the store that
// reads a Container row with its node, site, approved resources and the admin's default
// variables; the registry with a provider for each node type (kubernetes, proxmox, docker,
// dummy); and the lifecycle over both. Each job script (bin/create-container.js,
// bin/reconfigure-container.js, bin/start-stop-container.js) is then one call on them.
import { InvalidOptionError } from '../../index.js';
import { containerLifecycle, type ContainerOperations } from '../lifecycle.js';
import { createDockerProvider } from '../providers/docker.js';
import { createDummyProvider } from '../providers/dummy.js';
import { createKubernetesProvider, type KubernetesProviderOptions } from '../providers/kubernetes.js';
import type { NodeApi } from '../providers/node-api.js';
import { createProxmoxProvider, type ImageDigestLookup } from '../providers/proxmox.js';
import { ProviderRegistry } from '../providers/registry.js';
import type { NodeRecord } from '../providers/types.js';
import type { ApprovedResources } from '../store/manager-row.js';
import { SequelizeContainerStore, type SequelizeContainerModel } from '../store/sequelize-store.js';

/** The part of Manager's models (`require('../models')`) the job scripts use. */
export interface ManagerModels {
  readonly Container: SequelizeContainerModel & { getSystemDefaultEnvVars(): Promise<Readonly<Record<string, string>>> };
  readonly Node: { findByPk(id: number | string): Promise<{ api(): unknown } | null> };
  readonly Site: unknown;
  /**
   * Manager's Service and TransportService models: a container's services become its
   * Kubernetes Service's ports (without them a row is read with no services loaded, and
   * setPorts refuses it rather than removing every port).
   */
  readonly Service?: unknown;
  readonly TransportService?: unknown;
  readonly ResourceRequest: {
    getApprovedResources(siteId: unknown, hostname: string, username: string): Promise<ApprovedResources>;
    readonly RESOURCE_DEFAULTS?: ApprovedResources;
  };
}

export interface ManagerProvidersOptions {
  /** This installation's ID (MANAGER_INSTANCE_ID), for its Kubernetes workloads' labels and selectors; empty or absent: none. */
  readonly instance?: string | undefined;
  /** Manager's `getImageDigest` (utils/docker-registry.js): a Proxmox node needs it to create from an image. */
  readonly imageDigest?: ImageDigestLookup;
  /** More options of the Kubernetes provider (timeoutMs, keepOnFailure, rollbackOnFailure). */
  readonly kubernetes?: Omit<KubernetesProviderOptions, 'instance' | 'nodeType'>;
}

export interface ManagerProviders {
  readonly store: SequelizeContainerStore;
  readonly providers: ProviderRegistry;
  /** containerLifecycle(providers, { store }): each operation takes a row or its id and saves its result. */
  readonly lifecycle: ContainerOperations;
}

export function managerProviders(models: ManagerModels, options: ManagerProvidersOptions = {}): ManagerProviders {
  for (const model of ['Container', 'Node', 'Site', 'ResourceRequest'] as const) {
    if (!models?.[model])
      throw new InvalidOptionError('models', `managerProviders needs Manager's models (require('../models')), with ${model}`);
  }
  const { Container, Node, Site, ResourceRequest } = models;
  const store = new SequelizeContainerStore({
    Container,
    findOptions: {
      include: [
        { model: Node, as: 'node', include: [{ model: Site, as: 'site' }] },
        ...(models.Service
          ? [
              {
                model: models.Service,
                as: 'services',
                ...(models.TransportService ? { include: [{ model: models.TransportService, as: 'transportService' }] } : {}),
              },
            ]
          : []),
      ],
    },
    // What the user was approved; Manager's defaults only for a resource never requested.
    approvedResources: (row) => ResourceRequest.getApprovedResources(row['siteId'], row.hostname, row.username),
    ...(ResourceRequest.RESOURCE_DEFAULTS ? { resourceDefaults: ResourceRequest.RESOURCE_DEFAULTS } : {}),
    // The admin's default variables, below the user's own.
    defaultEnvironment: () => Container.getSystemDefaultEnvVars(),
  });
  // Proxmox and Docker nodes go through Manager's own client for the node (node.api()).
  const nodeApiOf = async (node: NodeRecord): Promise<NodeApi> => {
    const row = await Node.findByPk(node.id);
    if (!row) throw new InvalidOptionError('node', `node ${node.id} is not in Manager's Nodes table`);
    return (await row.api()) as NodeApi;
  };
  const providers = new ProviderRegistry([
    createKubernetesProvider({ ...options.kubernetes, ...(options.instance ? { instance: options.instance } : {}) }),
    createProxmoxProvider({ clientFor: nodeApiOf, ...(options.imageDigest ? { imageDigest: options.imageDigest } : {}) }),
    createDockerProvider({ clientFor: nodeApiOf }),
    createDummyProvider(),
  ]);
  return { store, providers, lifecycle: containerLifecycle(providers, { store }) };
}
