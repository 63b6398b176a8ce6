// A container on a Kubernetes node is a Deployment: the library's own provisioner creates
// (or adopts) it and awaits its rollout. The record maps onto the workload spec; the
// image goes to Kubernetes as-is. No VMID, storage, image archive, LXC, hook script, ACL
// or MAC step exists on this path: there is no stable MAC, so the MAC is null.
import { concatMap, defer, from, switchMap } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import { DEFAULT_NAMESPACE, KubernetesApi, provision$ as libraryProvision$ } from '../../index.js';
import type { KubernetesClient, ProvisionEvent, ReadyEvent } from '../../index.js';
import { effectiveEntrypoint, effectiveEnvironment } from './environment.js';
import type { ContainerRecord, NodeRecord, Provider, ProviderContext, ProviderEvent, ProvisionedEvent } from './types.js';

/** The shape of the core's `provision$`, injected so tests need no cluster. */
export type ProvisionFunction = (
  api: KubernetesClient,
  input: unknown,
  options?: { timeoutMs?: number; signal?: AbortSignal; scheduler?: SchedulerLike },
) => Observable<ProvisionEvent>;

/** A kubernetes node's config, defaults applied (namespace `default`, TLS verified). */
export interface KubernetesNodeConfig {
  readonly kubeconfigPath: string | undefined;
  readonly kubeContext: string | undefined;
  readonly kubeNamespace: string;
  readonly tlsVerify: boolean;
}

export type KubernetesClientFactory = (config: KubernetesNodeConfig) => KubernetesClient | Promise<KubernetesClient>;

export interface KubernetesProviderOptions {
  /** Default: the core's `provision$`. */
  readonly provision$?: ProvisionFunction;
  /**
   * Default: `KubernetesApi.fromConfig`, one client per distinct node config for the
   * provider's lifetime, so every provisioning on a node shares its informers (one
   * Deployment watch and one Pod watch per namespace).
   */
  readonly clientFor?: KubernetesClientFactory;
  /** Bound on the rollout; default: provision$'s own (300 s). */
  readonly timeoutMs?: number;
  readonly nodeType?: string;
}

export function kubernetesNodeConfig(node: NodeRecord): KubernetesNodeConfig {
  return {
    kubeconfigPath: node.kubeconfigPath || undefined,
    kubeContext: node.kubeContext || undefined,
    kubeNamespace: node.kubeNamespace || DEFAULT_NAMESPACE,
    tlsVerify: node.tlsVerify !== false,
  };
}

/** The record as provision$'s input; parseWorkloadSpec validates it (image included). */
export function workloadInput(record: ContainerRecord, config: KubernetesNodeConfig): Record<string, unknown> {
  return {
    containerId: record.id,
    nodeId: record.node.id,
    hostname: record.hostname,
    image: record.template,
    cpus: record.resources.cpus,
    memoryMb: record.resources.memoryMb,
    env: effectiveEnvironment(record),
    entrypoint: effectiveEntrypoint(record.entrypoint, null),
    namespace: config.kubeNamespace,
  };
}

export function createKubernetesProvider(options: KubernetesProviderOptions = {}): Provider {
  const nodeType = options.nodeType ?? 'kubernetes';
  const clientFor = options.clientFor ?? sharedClientFactory();
  const provision$ = options.provision$ ?? libraryProvision$;
  return {
    nodeType,
    provision$: (record, context) => provisionDeployment(record, context, { ...options, clientFor, provision$ }, nodeType),
  };
}

function provisionDeployment(
  record: ContainerRecord,
  context: ProviderContext,
  options: KubernetesProviderOptions & { clientFor: KubernetesClientFactory; provision$: ProvisionFunction },
  nodeType: string,
): Observable<ProviderEvent> {
  const config = kubernetesNodeConfig(record.node);
  return defer(() => from(Promise.resolve(options.clientFor(config)))).pipe(
    switchMap((api) =>
      options.provision$(api, workloadInput(record, config), {
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(context.signal ? { signal: context.signal } : {}),
        scheduler: context.clock,
      }),
    ),
    // The library's events pass through unchanged; `ready` also yields the outcome.
    concatMap((event): ProviderEvent[] => (event.type === 'ready' ? [event, provisionedFrom(event, nodeType)] : [event])),
  );
}

/** One KubernetesApi per distinct node config (informers are shared per client). */
function sharedClientFactory(): KubernetesClientFactory {
  const clients = new Map<string, KubernetesClient>();
  return (config) => {
    const key = JSON.stringify([config.kubeconfigPath, config.kubeContext, config.kubeNamespace, config.tlsVerify]);
    let client = clients.get(key);
    if (!client) {
      client = KubernetesApi.fromConfig({
        ...(config.kubeconfigPath !== undefined ? { kubeconfigPath: config.kubeconfigPath } : {}),
        ...(config.kubeContext !== undefined ? { context: config.kubeContext } : {}),
        namespace: config.kubeNamespace,
        tlsVerify: config.tlsVerify,
      });
      clients.set(key, client);
    }
    return client;
  };
}

function provisionedFrom(ready: ReadyEvent, provider: string): ProvisionedEvent {
  return { type: 'provisioned', at: ready.at, provider, providerId: ready.providerId, macAddress: null, ipAddress: null };
}
