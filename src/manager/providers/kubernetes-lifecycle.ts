// The lifecycle of a container on a Kubernetes node, through the library's own operations
// on its Deployment (addressed by the saved provider ID `namespace/name`, and only when it
// carries this container's id). Start, restart and reconfigure end by reading the status
// once for the current Ready Pod's IP: shown to users, never an identity. The MAC is null.
import { concatMap, defer, from, of, switchMap } from 'rxjs';
import type { Observable } from 'rxjs';
import {
  parseProviderId,
  reconfigure$ as libraryReconfigure$,
  remove$ as libraryRemove$,
  restart$ as libraryRestart$,
  start$ as libraryStart$,
  status as libraryStatus,
  stop$ as libraryStop$,
} from '../../index.js';
import type { KubernetesClient, LifecycleEvent, WorkloadChanges, WorkloadOperationOptions } from '../../index.js';
import { eventTime } from '../event-time.js';
import { effectiveEntrypoint, effectiveEnvironment } from './environment.js';
import { requireProviderId } from './lifecycle-record.js';
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
}

export const LIBRARY_OPERATIONS: KubernetesOperations = {
  status: libraryStatus,
  start$: libraryStart$,
  stop$: libraryStop$,
  restart$: libraryRestart$,
  reconfigure$: libraryReconfigure$,
  remove$: libraryRemove$,
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
  readonly operations?: KubernetesOperations;
}

const OUTCOME_TYPES: ReadonlySet<string> = new Set(['started', 'stopped', 'restarted', 'reconfigured', 'removed']);

export function kubernetesLifecycle(options: KubernetesLifecycleOptions): ContainerLifecycle {
  const ops = options.operations ?? LIBRARY_OPERATIONS;
  const client = (record: ContainerRecord) => Promise.resolve(options.clientFor(record.node));
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

  const podIp = (api: KubernetesClient, providerId: string, record: ContainerRecord, context: ProviderContext) =>
    currentAddress(ops, api, providerId, record, options.instance, context);

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
                at: eventTime(context.clock),
                provider: options.nodeType,
                operation,
                providerId,
                changed,
                ...(network ? { network } : {}),
              });
              // A stopped container's Pod, and its address, are gone: the row's address is cleared.
              if (operation === 'stop') return of(event, completed({ macAddress: null, ipAddress: null }));
              if (operation === 'remove') return of(event, completed());
              // The Pod IP changes with every new Pod: read it after the operation.
              return from(podIp(api, providerId, record, context)).pipe(
                concatMap((ipAddress) => of(event, completed({ macAddress: null, ipAddress }))),
              );
            }),
          ),
        ),
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
      // The library already speaks Manager's words.
      return { state: value.state, reason: value.reason, message: value.message, ipAddress: value.podIp };
    },
    start$: (record, context) => run('start', record, context, ops.start$),
    stop$: (record, context) => run('stop', record, context, ops.stop$),
    restart$: (record, context) => run('restart', record, context, ops.restart$),
    remove$: (record, context) => run('remove', record, context, ops.remove$),
    reconfigure$: (record, context) =>
      run('reconfigure', record, context, (api, providerId, operationOptions) =>
        from(changesFor(api, providerId, record, context)).pipe(
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
 * CPU and memory. The image is left as it is.
 */
async function changesFor(
  api: KubernetesClient,
  providerId: string,
  record: ContainerRecord,
  context: ProviderContext,
): Promise<WorkloadChanges> {
  const env = effectiveEnvironment(record);
  const { namespace, name } = parseProviderId(providerId);
  const deployment = await api.read('deployments', namespace, name, signalOf(context));
  const live = deployment.spec?.template.spec?.containers[0]?.env ?? [];
  const unsetEnv = live.map((variable) => variable.name).filter((variableName) => !(variableName in env));
  return {
    env,
    unsetEnv,
    entrypoint: effectiveEntrypoint(record.entrypoint, null),
    cpus: record.resources.cpus,
    memoryMb: record.resources.memoryMb,
  };
}

/** The address the container has now: the Ready Pod's IP, read once (null when none is Ready). */
export async function currentAddress(
  ops: Pick<KubernetesOperations, 'status'>,
  api: KubernetesClient,
  providerId: string,
  record: ContainerRecord,
  instance: string | undefined,
  context: ProviderContext,
): Promise<string | null> {
  const value = await ops.status(api, providerId, {
    containerId: String(record.id),
    ...(instance !== undefined ? { instance } : {}),
    scheduler: context.clock,
    ...signalOf(context),
  });
  return value.podIp;
}

function signalOf(context: ProviderContext): { signal?: AbortSignal } {
  return context.signal ? { signal: context.signal } : {};
}
