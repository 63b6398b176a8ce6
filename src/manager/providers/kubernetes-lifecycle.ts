// The lifecycle of a container on a Kubernetes node, through the library's own operations
// on its Deployment and Service (addressed by the saved provider ID `namespace/name`, and
// only when they carry this container's id). Start, restart and reconfigure end by reading
// the status once for the container's address: its Service's, the same through its whole
// life (the Pod IP, which changes with every Pod, is in the status as podIp). The MAC is null.
import { catchError, concatMap, defer, from, of, switchMap, throwError } from 'rxjs';
import type { Observable } from 'rxjs';
import {
  NotFoundError,
  claimHolds,
  claimNameOf,
  parseProviderId,
  reconfigure$ as libraryReconfigure$,
  remove$ as libraryRemove$,
  restart$ as libraryRestart$,
  setPorts$ as librarySetPorts$,
  start$ as libraryStart$,
  status as libraryStatus,
  stop$ as libraryStop$,
} from '../../index.js';
import type { KubernetesClient, LifecycleEvent, WorkloadChanges, WorkloadOperationOptions } from '../../index.js';
import { isoTime } from '../../index.js';
import { runtimeRequest } from './runtime-request.js';
import { credentialsOf, withNodeColumn } from '../node-column-failures.js';
import { effectiveEntrypoint, effectiveEnvironment } from './environment.js';
import { requireProviderId } from './lifecycle-record.js';
import { requiredPortsOfRecord, portsOfRecord } from './service-ports.js';
import type {
  ContainerLifecycle,
  ContainerLifecycleEvent,
  ContainerRecord,
  ContainerStatus,
  LifecycleOperation,
  ProviderContext,
} from './types.js';
import type { KubernetesClientFactory } from './kubernetes-client.js';

type OperationOptions = WorkloadOperationOptions & { readonly containerId: string };
type Operation$ = (api: KubernetesClient, providerId: string, options: OperationOptions) => Observable<LifecycleEvent>;

/** The library's operations, injectable so unit tests can record the calls. */
export interface KubernetesOperations {
  readonly status: typeof libraryStatus;
  readonly start$: typeof libraryStart$;
  readonly stop$: typeof libraryStop$;
  readonly restart$: typeof libraryRestart$;
  readonly reconfigure$: typeof libraryReconfigure$;
  readonly remove$: typeof libraryRemove$;
  readonly setPorts$: typeof librarySetPorts$;
}

export const LIBRARY_OPERATIONS: KubernetesOperations = {
  status: libraryStatus,
  start$: libraryStart$,
  stop$: libraryStop$,
  restart$: libraryRestart$,
  reconfigure$: libraryReconfigure$,
  remove$: libraryRemove$,
  setPorts$: librarySetPorts$,
};

export interface KubernetesLifecycleOptions {
  readonly nodeType: string;
  readonly clientFor: KubernetesClientFactory;
  /** Bound on each operation; default: the library's (300 s; 30 s for status). */
  readonly timeoutMs?: number;
  /** The installation's instance label, as the provider created with (see KubernetesProviderOptions). */
  readonly instance?: string;
  /** Passed to the library's reconfigure (see KubernetesProviderOptions). */
  readonly rollbackOnFailure?: boolean;
  /** The type of each container's Service (see KubernetesProviderOptions). */
  readonly serviceType?: 'ClusterIP' | 'LoadBalancer';
  readonly operations?: KubernetesOperations;
}

const OUTCOME_TYPES: ReadonlySet<string> = new Set(['started', 'stopped', 'restarted', 'reconfigured', 'removed', 'portsSet']);

export function kubernetesLifecycle(options: KubernetesLifecycleOptions): ContainerLifecycle {
  const ops = options.operations ?? LIBRARY_OPERATIONS;
  // async: a factory that throws (a kubeconfig gone since the node was saved) rejects, so the
  // operation's catchError names the node's column instead of the error escaping it.
  const client = async (record: ContainerRecord) => options.clientFor(record.node);
  // Every read and write names the installation: without it, a workload created with an
  // instance label would be missing to the reads and refused by the writes.
  const instance = options.instance !== undefined ? { instance: options.instance } : {};
  const operationOptions = (record: ContainerRecord, context: ProviderContext): OperationOptions => ({
    containerId: String(record.id),
    ...instance,
    scheduler: context.clock,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(context.signal ? { signal: context.signal } : {}),
  });

  // The address after an operation: the Service's (null without ports), never the Pod IP.
  const address = async (api: KubernetesClient, providerId: string, record: ContainerRecord, context: ProviderContext) =>
    (await ops.status(api, providerId, { containerId: String(record.id), ...instance, scheduler: context.clock, ...signalOf(context) }))
      .address;
  const serviceType = options.serviceType !== undefined ? { serviceType: options.serviceType } : {};

  const run = (operation: LifecycleOperation, record: ContainerRecord, context: ProviderContext, operation$: Operation$) =>
    defer(() => {
      const providerId = requireProviderId(record, operation);
      return from(client(record)).pipe(
        switchMap((api) =>
          operation$(api, providerId, operationOptions(record, context)).pipe(
            concatMap((event): Observable<ContainerLifecycleEvent> => {
              if (!OUTCOME_TYPES.has(event.type)) return of(event);
              const changed = 'changed' in event && event.changed === true;
              const completed = (network?: { macAddress: null; ipAddress: string | null }): ContainerLifecycleEvent => ({
                type: 'completed',
                at: isoTime(context.clock),
                provider: options.nodeType,
                operation,
                providerId,
                changed,
                ...(network ? { network } : {}),
              });
              if (operation === 'stop' || operation === 'remove') return of(event, completed());
              return from(address(api, providerId, record, context)).pipe(
                concatMap((ipAddress) => of(event, completed({ macAddress: null, ipAddress }))),
              );
            }),
          ),
        ),
        // A failure a node column fixes names the column (node-column-failures.ts).
        catchError((error: unknown) => throwError(() => withNodeColumn(error, record.node, credentialsOf(record.node)))),
      );
    });

  return {
    async status(record, context): Promise<ContainerStatus> {
      const providerId = requireProviderId(record, 'status');
      const api = await client(record);
      const value = await ops.status(api, providerId, {
        containerId: String(record.id),
        ...instance,
        scheduler: context.clock,
        ...signalOf(context),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      });
      // The library already speaks Manager's words; the address is the Service's, the Pod IP only shown.
      return { state: value.state, reason: value.reason, message: value.message, ipAddress: value.address, podIp: value.podIp };
    },
    start$: (record, context) => run('start', record, context, ops.start$),
    stop$: (record, context) => run('stop', record, context, ops.stop$),
    restart$: (record, context) => run('restart', record, context, ops.restart$),
    remove$: (record, context) => run('remove', record, context, ops.remove$),
    // The one call for a change of the container's services: only its Service is written.
    setPorts$: (record, context) =>
      run('setPorts', record, context, (api, providerId, operationOptions) =>
        defer(() => ops.setPorts$(api, providerId, requiredPortsOfRecord(record), { ...operationOptions, ...serviceType })),
      ),
    reconfigure$: (record, context) =>
      run('reconfigure', record, context, (api, providerId, operationOptions) =>
        from(changesFor(api, providerId, record, context, options.serviceType)).pipe(
          switchMap((changes) =>
            ops.reconfigure$(api, providerId, changes, {
              ...operationOptions,
              ...(options.rollbackOnFailure !== undefined ? { rollbackOnFailure: options.rollbackOnFailure } : {}),
            }),
          ),
        ),
      ),
  };
}

/**
 * The record as it now is, as changes: its whole environment (variables the Deployment
 * has and the record no longer has are unset), its entrypoint (null: the image's own),
 * CPU, memory, its GPU (nvidiaRequested), its services' ports, and, when its Pods mount a
 * claim that asks for less than the approved rootfs, that rootfs as the volume's size (an
 * approval of a larger rootfs is a resize). The approved rootfs is the least the volume
 * has, as at the create: a claim already as large or larger (kept data re-attached by a
 * create with a smaller rootfs, a claim an admin grew) is no change, never a shrink the
 * library would refuse. The image is left as it is.
 */
async function changesFor(
  api: KubernetesClient,
  providerId: string,
  record: ContainerRecord,
  context: ProviderContext,
  serviceType: 'ClusterIP' | 'LoadBalancer' | undefined,
): Promise<WorkloadChanges> {
  // A record read without its services leaves the Service's ports as they are.
  const ports = record.services === undefined ? undefined : portsOfRecord(record);
  const env = effectiveEnvironment(record);
  const { namespace, name } = parseProviderId(providerId);
  const deployment = await api.read('deployments', namespace, name, signalOf(context));
  const live = deployment.spec?.template.spec?.containers[0]?.env ?? [];
  const unsetEnv = live.map((variable) => variable.name).filter((variableName) => !(variableName in env));
  // A container created without a volume (persistence off then) has none to grow.
  const claim = record.node.kubePersistence !== 'off' ? claimNameOf(deployment) : undefined;
  const grow = claim !== undefined && !(await claimHoldsRootfs(api, namespace, claim, record.resources.rootfsGb, context));
  return {
    env,
    unsetEnv,
    entrypoint: effectiveEntrypoint(record.entrypoint, null),
    cpus: record.resources.cpus,
    memoryMb: record.resources.memoryMb,
    ...(grow ? { storageGb: record.resources.rootfsGb } : {}),
    // The services too: the Service follows the row (only it is written when they alone changed).
    ...(ports !== undefined ? { ports } : {}),
    ...(ports !== undefined && ports.length > 0 && serviceType !== undefined ? { serviceType } : {}),
    ...gpuChanges(record),
  };
}

/** Whether the claim asks for the approved rootfs or more; a claim missing is the library's to name (NoClaim). */
async function claimHoldsRootfs(
  api: KubernetesClient,
  namespace: string,
  claim: string,
  rootfsGb: number,
  context: ProviderContext,
): Promise<boolean> {
  try {
    return claimHolds(await api.read('persistentvolumeclaims', namespace, claim, signalOf(context)), rootfsGb);
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}

/**
 * nvidiaRequested as it now is: one GPU of the node's resource with its RuntimeClass, as at
 * creation; not requested: none, and the RuntimeClass the container gets without one (a
 * system container's, else the cluster's default).
 */
function gpuChanges(record: ContainerRecord): Pick<WorkloadChanges, 'gpus' | 'gpuResource' | 'runtimeClass'> {
  const request = runtimeRequest(record);
  return {
    gpus: request.gpus,
    ...(request.gpuResource !== undefined ? { gpuResource: request.gpuResource } : {}),
    runtimeClass: request.runtimeClass,
  };
}

function signalOf(context: ProviderContext): { signal?: AbortSignal } {
  return context.signal ? { signal: context.signal } : {};
}
