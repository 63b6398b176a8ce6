// A container on a Kubernetes node is a Deployment: the library's own provisioner creates
// (or adopts) it and awaits its rollout. The record maps onto the workload spec; the
// image goes to Kubernetes as-is. No VMID, storage, image archive, LXC, hook script, ACL
// or MAC step exists on this path: there is no stable MAC, so the MAC is null. The IP is
// the Service's address, from the container's Manager services as ports.
// The cluster comes from the node record and nowhere else (kubernetes-client.ts).
import { catchError, concatMap, defer, from, switchMap, throwError } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import { InvalidOptionError, provision$ as libraryProvision$ } from '../../index.js';
import { portsOfRecord } from './service-ports.js';
import type { KubernetesClient, ProvisionEvent, ReadyEvent } from '../../index.js';
import { runtimeRequest } from './runtime-request.js';
import { credentialsOf, withNodeColumn } from '../node-column-failures.js';
import { nodePersistPaths } from '../node-config.js';
import { effectiveEntrypoint, effectiveEnvironment } from './environment.js';
import { nodeClientFactory, type KubernetesClientFactory } from './kubernetes-client.js';
import { kubernetesLifecycle, type KubernetesOperations } from './kubernetes-lifecycle.js';
import type { ContainerRecord, Provider, ProviderContext, ProviderEvent, ProvisionedEvent } from './types.js';

/** The shape of the core's `provision$`, injected so tests need no cluster. */
export type ProvisionFunction = (
  api: KubernetesClient,
  input: unknown,
  options?: { timeoutMs?: number; signal?: AbortSignal; scheduler?: SchedulerLike; keepOnFailure?: boolean },
) => Observable<ProvisionEvent>;

export interface KubernetesProviderOptions {
  /** Default: the core's `provision$`. */
  readonly provision$?: ProvisionFunction;
  /**
   * Default: the node's own columns (`kubernetesNodeConfig`), one client per distinct
   * node config for the provider's lifetime, so every provisioning on a node shares its
   * informers (one Deployment watch and one Pod watch per namespace).
   */
  readonly clientFor?: KubernetesClientFactory;
  /** Bound on the rollout; default: provision$'s own (300 s). */
  readonly timeoutMs?: number;
  /**
   * This Manager installation's ID (a label value), set as the instance label on every
   * workload and added to every selector, so Managers sharing a namespace never see or
   * touch each other's workloads. Without it, give each Manager a namespace of its own.
   */
  readonly instance?: string;
  /** Keep a failed container's Deployment for debugging; default: delete it (see provision$). */
  readonly keepOnFailure?: boolean;
  /**
   * A reconfigure whose rollout fails restores the previous pod template and waits for it
   * (the library's `rollbackOnFailure`), so the container keeps running on its old settings;
   * the error says whether the restore succeeded. Default: leave the failed template.
   */
  readonly rollbackOnFailure?: boolean;
  readonly nodeType?: string;
  /**
   * The type of each container's Service (a container with Manager services gets one, at
   * one address that lasts its whole life): `ClusterIP` (the default; the site's agent
   * runs in the cluster or the service network is routed to it) or `LoadBalancer` (a load
   * balancer gives each container an address of its own). `NodePort` is refused: it gives
   * every container the same node address, which Manager's unique (siteId, ipv4Address)
   * index refuses for the second container.
   */
  readonly serviceType?: 'ClusterIP' | 'LoadBalancer';
  /** The library's lifecycle operations; tests inject recording ones. */
  readonly operations?: KubernetesOperations;
}

/** The record as provision$'s input; parseWorkloadSpec validates it (image included). */
export function workloadInput(record: ContainerRecord, instance?: string, serviceType?: string): Record<string, unknown> {
  const ports = portsOfRecord(record);
  return {
    containerId: record.id,
    nodeId: record.node.id,
    hostname: record.hostname,
    image: record.template,
    cpus: record.resources.cpus,
    memoryMb: record.resources.memoryMb,
    env: effectiveEnvironment(record),
    entrypoint: effectiveEntrypoint(record.entrypoint, null),
    // Unset: the client's namespace (the default factory's is kubeNamespace or `default`).
    ...(record.node.kubeNamespace ? { namespace: record.node.kubeNamespace } : {}),
    ...(instance !== undefined ? { instance } : {}),
    ...(ports.length > 0 ? { ports, ...(serviceType !== undefined ? { serviceType } : {}) } : {}),
    ...runtimeInput(record),
    ...storageInput(record),
  };
}

/**
 * The container's volume, as its node configures it: sized by the approved rootfs (a
 * Proxmox LXC's root filesystem), on the node's class or the cluster's default, keeping
 * the node's paths or the default set. Only a node that says `kubePersistence: off` gets none.
 */
function storageInput(record: ContainerRecord): { storage?: Record<string, unknown> } {
  const { kubePersistence, kubeStorageClass, kubePersistPaths } = record.node;
  if (kubePersistence === 'off') return {};
  const paths = nodePersistPaths(kubePersistPaths);
  return {
    storage: {
      sizeGb: record.resources.rootfsGb,
      ...(kubeStorageClass ? { storageClass: kubeStorageClass } : {}),
      ...(paths ? { paths } : {}),
    },
  };
}

/** NodePort is refused up front, before any container is created. */
function checkServiceType(serviceType: unknown): void {
  if (serviceType === undefined || serviceType === 'ClusterIP' || serviceType === 'LoadBalancer') return;
  if (serviceType === 'NodePort') {
    throw new InvalidOptionError(
      'serviceType',
      "serviceType NodePort gives every container the node's address, and Manager keeps one container per (siteId, ipv4Address): " +
        'the second container could not be saved. Use ClusterIP (the site agent in the cluster, or a routed service network) or LoadBalancer',
    );
  }
  throw new InvalidOptionError(
    'serviceType',
    `serviceType must be "ClusterIP" or "LoadBalancer" (got ${JSON.stringify(serviceType) ?? typeof serviceType})`,
  );
}

/**
 * The GPU, the RuntimeClass and the user namespace as the node's columns give them
 * (runtime-request.ts). A system container is detected from the entrypoint by the library.
 */
function runtimeInput(record: ContainerRecord): Record<string, unknown> {
  const request = runtimeRequest(record);
  return {
    ...(request.gpus > 0 ? { gpus: request.gpus, gpuResource: request.gpuResource } : {}),
    ...(request.runtimeClass !== null ? { runtimeClass: request.runtimeClass } : {}),
    ...(request.hostUsers !== undefined ? { hostUsers: request.hostUsers } : {}),
  };
}

export function createKubernetesProvider(options: KubernetesProviderOptions = {}): Provider {
  checkServiceType(options.serviceType);
  const nodeType = options.nodeType ?? 'kubernetes';
  const clientFor = options.clientFor ?? nodeClientFactory();
  const provision$ = options.provision$ ?? libraryProvision$;
  return {
    nodeType,
    provision$: (record, context) => provisionDeployment(record, context, { ...options, clientFor, provision$ }, nodeType),
    lifecycle: kubernetesLifecycle({
      nodeType,
      clientFor,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.instance !== undefined ? { instance: options.instance } : {}),
      ...(options.rollbackOnFailure !== undefined ? { rollbackOnFailure: options.rollbackOnFailure } : {}),
      ...(options.serviceType !== undefined ? { serviceType: options.serviceType } : {}),
      ...(options.operations ? { operations: options.operations } : {}),
    }),
  };
}

function provisionDeployment(
  record: ContainerRecord,
  context: ProviderContext,
  options: KubernetesProviderOptions & { clientFor: KubernetesClientFactory; provision$: ProvisionFunction },
  nodeType: string,
): Observable<ProviderEvent> {
  return defer(() => from(Promise.resolve(options.clientFor(record.node)))).pipe(
    switchMap((api) =>
      options.provision$(api, workloadInput(record, options.instance, options.serviceType), {
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.keepOnFailure !== undefined ? { keepOnFailure: options.keepOnFailure } : {}),
        ...(context.signal ? { signal: context.signal } : {}),
        scheduler: context.clock,
      }),
    ),
    // The library's events pass through unchanged; `ready` also yields the outcome, with
    // the address Manager's agent reaches the container at from the start.
    concatMap((event): ProviderEvent[] => (event.type === 'ready' ? [event, provisionedFrom(event, nodeType, record)] : [event])),
    // A failure a node column fixes names the column (node-column-failures.ts).
    catchError((error: unknown) => throwError(() => withNodeColumn(error, record.node, credentialsOf(record.node)))),
  );
}

function provisionedFrom(ready: ReadyEvent, provider: string, record: ContainerRecord): ProvisionedEvent {
  return {
    type: 'provisioned',
    at: ready.at,
    provider,
    providerId: ready.providerId,
    macAddress: null,
    // The Service's address (null without ports): Manager's ipv4Address, stable for the container's life.
    ipAddress: ready.address ?? null,
    // What the Deployment reserves (requests equal limits) and its volume asks, for Manager's NetBox record.
    resources: {
      cores: record.resources.cpus,
      memoryMb: record.resources.memoryMb,
      diskGb: record.node.kubePersistence === 'off' ? null : record.resources.rootfsGb,
    },
  };
}
