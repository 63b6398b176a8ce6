// reconfigure$() / reconfigure(): change env, entrypoint/args, CPU, memory, GPUs, the
// RuntimeClass or the image of a workload by rewriting the pod template of the same Deployment: the provider ID never
// changes, and the replica count is never touched (a stopped workload stays stopped).
//
//   validate the changes (creation's field rules; nothing sent when invalid)
//   -> read (ours?) -> nothing differs: `reconfigured` at once, no write
//   -> write the containers, preconditioned on the resourceVersion read (a concurrent
//      change refuses the write; it is read again and the changes applied on top)
//   -> `patched` -> running: the new generation's rollout, failing fast with the
//      kubelet's words; stopped: the controller has observed the new generation
//   -> `reconfigured`
//
// rollbackOnFailure: when that rollout fails, the containers read before the change are
// written back (what `kubectl rollout undo` restores from the previous ReplicaSet) and
// their rollout awaited; the error, a ReconfigureFailedError, says whether that worked.
import type { V1Container, V1Deployment } from '../../kube/objects.js';
import { EMPTY, catchError, concat, concatMap, defer, map, of, switchMap, throwError, type Observable } from 'rxjs';
import { ConflictError } from '../../errors/api.js';
import { RolloutFailedError } from '../../errors/rollout.js';
import type { KubernetesClient } from '../../kube/client.js';
import type { WorkloadSpec } from '../../input/workload-spec.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import { awaitObserved } from '../toolkit/await-workload.js';
import { WorkloadSupersededError, guardGeneration, type Supersession } from '../toolkit/guard-generation.js';
import type { WorkloadOperation } from '../toolkit/operation.js';
import type { LifecycleEvent, ReconfiguredEvent } from '../toolkit/lifecycle-events.js';
import {
  GATE_WATCHES,
  awaitGenerationRollout,
  podsBefore,
  fromWritten,
  withWorkloadStreams,
  type WorkloadStreams,
} from '../toolkit/workload-streams.js';
import { writtenVersionOf, type WrittenVersion } from '../../rollout/written-version.js';
import {
  outcomeOf,
  resultBase,
  runOperation,
  type OperationContext,
  type OperationResult,
  type WorkloadOperationOptions,
} from '../toolkit/operation.js';
import { ownedWorkload, readOwned, type OwnedWorkload } from '../toolkit/ownership.js';
import { patchLive } from '../toolkit/patch-live.js';
import { applyChanges, parseWorkloadChanges, type ParsedChanges, type WorkloadChanges } from './workload-changes.js';
import { workloadContainer } from '../../members/deployment/container.js';
import { planResize, writeResize, type ResizePlan } from './resize-claim.js';
import { SEED_CONTAINER_NAME } from '../../input/storage.js';
import { applyPorts, parsePortsChange, serviceForDeployment, writeService, type PortsChange } from './set-ports.js';
import { NotFoundError } from '../../errors/api.js';
import { servicePorts } from '../../rollout/service-status.js';

/**
 * A reconfiguration's rollout failed and `rollbackOnFailure` was asked for: says whether
 * the previous pod template was restored (and rolled out), or why not. The failure itself
 * is in `reason`, `detail`, `pod` and `container`, as for RolloutFailedError.
 */
export class ReconfigureFailedError extends RolloutFailedError {
  override readonly name = 'ReconfigureFailedError';
  /** The previous pod template is back and its rollout completed (or, stopped, was observed). */
  readonly restored: boolean;
  /** Why the restore failed or was not attempted, when it was not restored. */
  readonly restoreError: Error | undefined;
  /** `restore`: the generation restored, or the error that kept it from being restored. */
  constructor(failure: RolloutFailedError, restore: { readonly generation: number } | Error) {
    super({ namespace: failure.namespace, name: failure.object, kind: failure.kind }, failure.reason, failure.detail, {
      ...(failure.pod !== undefined ? { pod: failure.pod } : {}),
      ...(failure.container !== undefined ? { container: failure.container } : {}),
      cause: failure,
    });
    const restored = !(restore instanceof Error);
    this.message = restored
      ? `${failure.message}; the previous pod template was restored (generation ${restore.generation})`
      : `${failure.message}; restoring the previous pod template failed: ${restore.message}`;
    this.restored = restored;
    this.restoreError = restored ? undefined : restore;
  }
}

export interface ReconfigureOptions extends WorkloadOperationOptions {
  /**
   * When the new template's rollout fails, write the previous one back and wait for it;
   * the error (ReconfigureFailedError) says whether that restore succeeded. Default false.
   */
  readonly rollbackOnFailure?: boolean;
}

export interface ReconfigureResult extends OperationResult {
  /** What changed, in the spec's words (`image`, `env.NAME`, `cpus`, ...); empty when nothing did. */
  readonly fields: readonly string[];
  /** The replica count, untouched: 0 means it stays stopped. */
  readonly replicas: number;
}

/** Cold: nothing happens until subscribed (the changes are validated then, before any request). */
export function reconfigure$(
  client: KubernetesClient,
  providerId: string,
  changes: WorkloadChanges,
  options: ReconfigureOptions = {},
): Observable<LifecycleEvent> {
  return runOperation('reconfigure', client, providerId, options, (context) => {
    const parsed = parseWorkloadChanges(changes);
    const { storageGb } = parsed;
    // Checked before any request, as every other field.
    const portsGiven = parsed.service?.ports !== undefined;
    const portsChange = portsGiven ? parsePortsChange(context.name, parsed.service?.ports, parsed.service?.serviceType) : undefined;
    // What the Service write changed, for the outcome's fields.
    let serviceFields: readonly string[] | undefined;
    return fromAbortable((signal) => readOwned(context, signal)).pipe(
      switchMap((owned) => {
        // Every refusal (no claim, a smaller size, a class without expansion) comes before any write.
        const plan$: Observable<ResizePlan | undefined> =
          storageGb === undefined ? of(undefined) : fromAbortable((signal) => planResize(context, owned.containerId, storageGb, signal));
        const change$: Observable<PortsChange | undefined> =
          parsed.service && !portsChange
            ? fromAbortable((signal) => typeOnlyChange(context, parsed.service?.serviceType, signal))
            : of(portsChange);
        return plan$.pipe(
          switchMap((resize) =>
            change$.pipe(
              switchMap((change) => {
                const grown = resize?.grow === true && storageGb !== undefined;
                const resized$: Observable<LifecycleEvent> = grown
                  ? fromAbortable((signal) => writeResize(context, resize, storageGb, signal)).pipe(
                      map(({ claim, status }): LifecycleEvent => ({
                        type: 'resized',
                        ...context.base(),
                        object: status.name,
                        previous: resize.claim.spec?.resources?.requests?.storage ?? '',
                        requested: claim.spec?.resources?.requests?.storage ?? status.requested ?? '',
                        capacity: status.capacity,
                        resize: status.resize,
                        message: status.message,
                      })),
                    )
                  : EMPTY;
                const storageFields = grown ? ['storage.sizeGb'] : [];
                const withStorage = (event: LifecycleEvent): LifecycleEvent =>
                  event.type === 'reconfigured' && grown ? { ...event, changed: true, fields: [...storageFields, ...event.fields] } : event;
                const templateChanged = plannedContainers(context, owned, parsed).fields.length > 0;
                if (change && !templateChanged) {
                  // Only the Service (and the claim): the Deployment keeps its generation and its Pod.
                  return concat(
                    resized$,
                    applyPorts(context, owned, change).pipe(
                      map((event): LifecycleEvent => {
                        if (event.type === 'service') serviceFields = event.fields;
                        if (event.type !== 'portsSet') return event;
                        return reconfigured(context, event.changed ? (serviceFields ?? ['ports']) : [], owned.replicas, event.changed);
                      }),
                      map(withStorage),
                    ),
                  );
                }
                if (!templateChanged) {
                  return concat(
                    resized$,
                    defer(() => of(reconfigured(context, storageFields, owned.replicas, grown))),
                  );
                }
                // The Service as written: the route is judged from that version on.
                let written: WrittenVersion | undefined;
                const write$ = change
                  ? fromAbortable((signal) =>
                      writeService(context, owned.containerId, serviceForDeployment(owned.deployment, change), signal),
                    ).pipe(
                      concatMap((write) => {
                        written = writtenVersionOf(write.service);
                        if (write.action === 'unchanged') return of<LifecycleEvent>();
                        serviceFields = write.fields;
                        return of<LifecycleEvent>({
                          type: 'service',
                          ...context.base(),
                          action: write.action,
                          fields: write.fields,
                          uid: write.service?.metadata?.uid ?? '',
                        });
                      }),
                    )
                  : of<LifecycleEvent>();
                return concat(
                  resized$,
                  write$,
                  withWorkloadStreams(
                    context,
                    owned.containerId,
                    (streams) =>
                      rewriteTemplate(
                        context,
                        owned,
                        (live) => plannedContainers(context, live, parsed),
                        fromWritten(streams, 'services', written),
                        {
                          rollbackOnFailure: options.rollbackOnFailure === true,
                          scaleUp: false,
                          awaitWhenUnchanged: false,
                        },
                      ),
                    GATE_WATCHES,
                  ).pipe(
                    map((event) =>
                      event.type === 'reconfigured' && serviceFields ? { ...event, fields: [...event.fields, ...serviceFields] } : event,
                    ),
                    map(withStorage),
                  ),
                );
              }),
            ),
          ),
        );
      }),
    );
  });
}

/** Resolves once the new template is rolled out (or, when stopped, observed by the controller). */
export function reconfigure(
  client: KubernetesClient,
  providerId: string,
  changes: WorkloadChanges,
  options: ReconfigureOptions = {},
): Promise<ReconfigureResult> {
  return outcomeOf(reconfigure$(client, providerId, changes, options), 'reconfigured', (event: ReconfiguredEvent) => ({
    ...resultBase(event),
    fields: event.fields,
    replicas: event.replicas,
  }));
}

interface PlannedContainers {
  readonly containers: V1Container[];
  /** Written with the containers when the seeding init container follows a new image or resources. */
  readonly initContainers?: V1Container[];
  /** Written when the Pod's RuntimeClass changes; null removes it. */
  readonly runtimeClassName?: string | null;
  readonly fields: readonly string[];
}

/** The template part a plan writes: the containers, and the init containers and RuntimeClass when they change. */
function templateSpec(planned: {
  readonly containers: readonly V1Container[];
  readonly initContainers?: readonly V1Container[] | undefined;
  readonly runtimeClassName?: string | null | undefined;
}) {
  return {
    containers: planned.containers,
    ...(planned.initContainers ? { initContainers: planned.initContainers } : {}),
    ...(planned.runtimeClassName !== undefined ? { runtimeClassName: planned.runtimeClassName } : {}),
  };
}

type Plan = (live: OwnedWorkload) => PlannedContainers;

/**
 * Writes the containers `plan` makes from the live object (and, with `scaleUp`, replicas 1
 * when stopped), then waits: `patched` ... `reconfigured`. The write's precondition is the
 * resourceVersion read; a refused write is planned again from what is there now.
 */
export function rewriteTemplate(
  context: OperationContext,
  owned: OwnedWorkload,
  plan: Plan,
  streams: WorkloadStreams,
  options: {
    readonly rollbackOnFailure: boolean;
    /** Also write replicas 1 when it is stopped (adoption: a create asks for a running workload). */
    readonly scaleUp: boolean;
    /** When another writer made the write unnecessary, still wait for the live generation. */
    readonly awaitWhenUnchanged: boolean;
  },
): Observable<LifecycleEvent> {
  let planned: PlannedContainers = { containers: [], fields: [] };
  return podsBefore(streams).pipe(
    switchMap((olderPods) =>
      fromAbortable((signal) =>
        patchLive(
          context,
          owned,
          (live) => {
            planned = plan(live);
            const scaleUp = options.scaleUp && live.replicas === 0;
            if (planned.fields.length === 0 && !scaleUp) return undefined;
            return { spec: { ...(scaleUp ? { replicas: 1 } : {}), template: { spec: templateSpec(planned) } } };
          },
          signal,
          { exact: true },
        ),
      ).pipe(map((outcome) => ({ ...outcome, olderPods }))),
    ),
    switchMap(({ written, live, olderPods }) => {
      if (!written) {
        const done = of(reconfigured(context, [], live.replicas, false));
        if (!options.awaitWhenUnchanged) return done;
        return concat(awaitTemplate(context, live, { generation: live.generation, replicas: live.replicas }, streams), done);
      }
      const target = { generation: written.metadata?.generation ?? live.generation, replicas: written.spec?.replicas ?? live.replicas };
      const fields = [...planned.fields, ...(target.replicas !== live.replicas ? ['replicas'] : [])];
      const previous = {
        containers: live.deployment.spec?.template.spec?.containers ?? [],
        ...(planned.initContainers ? { initContainers: live.deployment.spec?.template.spec?.initContainers ?? [] } : {}),
        ...(planned.runtimeClassName !== undefined
          ? { runtimeClassName: live.deployment.spec?.template.spec?.runtimeClassName ?? null }
          : {}),
      };
      return concat(
        of<LifecycleEvent>({ type: 'patched', ...context.base(), fields, ...target }),
        awaitTemplate(context, live, target, streams, olderPods).pipe(
          catchError((error: unknown) =>
            options.rollbackOnFailure && error instanceof RolloutFailedError
              ? rollback(context, target, previous, error, streams)
              : throwError(() => error),
          ),
        ),
        defer(() => of(reconfigured(context, fields, target.replicas, true))),
      );
    }),
  );
}

/** Running: the rollout of `target`; stopped: the controller has seen it. */
function awaitTemplate(
  context: OperationContext,
  owned: OwnedWorkload,
  target: { readonly generation: number; readonly replicas: number },
  streams: WorkloadStreams,
  olderPods?: ReadonlySet<string>,
): Observable<LifecycleEvent> {
  if (target.replicas > 0) return awaitGenerationRollout(context, owned, target, streams, olderPods);
  return awaitObserved(
    context,
    streams.deployments$.pipe(guardGeneration(context.operation, { ...context, uid: owned.uid, ...target })),
    context,
  );
}

/**
 * Writes `previous` back, unless the Deployment has moved past the failed generation (a
 * newer change must not be undone), and waits for it. Always ends in ReconfigureFailedError.
 */
function rollback(
  context: OperationContext,
  failed: { readonly generation: number; readonly replicas: number },
  previous: {
    readonly containers: readonly V1Container[];
    readonly initContainers?: readonly V1Container[];
    readonly runtimeClassName?: string | null;
  },
  failure: RolloutFailedError,
  streams: WorkloadStreams,
): Observable<LifecycleEvent> {
  return podsBefore(streams).pipe(
    switchMap((olderPods) =>
      fromAbortable(async (signal) => {
        const current = await readOwned(context, signal);
        return patchLive(
          context,
          current,
          (live) => {
            if (live.generation !== failed.generation || live.deployment.metadata?.deletionTimestamp) {
              throw new WorkloadSupersededError(context.operation, context, failed.generation, supersessionOf(live, failed.replicas));
            }
            return { spec: { template: { spec: templateSpec(previous) } } };
          },
          signal,
          { exact: true },
        );
      }).pipe(map((outcome) => ({ ...outcome, olderPods }))),
    ),
    concatMap(({ written, live, olderPods }) => {
      const target = { generation: written?.metadata?.generation ?? live.generation, replicas: written?.spec?.replicas ?? live.replicas };
      return concat(
        of<LifecycleEvent>({ type: 'rollback', ...context.base(), reason: failure.reason, generation: target.generation }),
        awaitTemplate(context, live, target, streams, written ? olderPods : undefined),
        defer(() => throwError(() => new ReconfigureFailedError(failure, { generation: target.generation }))),
      );
    }),
    catchError((error: unknown) =>
      throwError(() => (error instanceof ReconfigureFailedError ? error : new ReconfigureFailedError(failure, asError(error)))),
    ),
  );
}

/** What moved the Deployment past the failed generation. */
function supersessionOf(live: OwnedWorkload, failedReplicas: number): Supersession {
  if (live.deployment.metadata?.deletionTimestamp) return { by: 'deletion' };
  if (live.replicas !== failedReplicas) return { by: 'scale', replicas: live.replicas, generation: live.generation };
  return { by: 'spec', generation: live.generation };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** The live containers with the changes applied to the workload's own container. */
function plannedContainers(context: OperationContext, owned: OwnedWorkload, changes: ParsedChanges): PlannedContainers {
  const containers = owned.deployment.spec?.template.spec?.containers ?? [];
  const container = workloadContainer(owned.deployment);
  if (!container) throw noContainer(context.operation, context, owned.deployment);
  const applied = applyChanges(container, changes);
  const initContainers = followingSeed(owned.deployment.spec?.template.spec?.initContainers, applied.container);
  const liveRuntimeClass = owned.deployment.spec?.template.spec?.runtimeClassName ?? null;
  const runtimeClassName =
    changes.runtimeClass !== undefined && changes.runtimeClass !== liveRuntimeClass ? changes.runtimeClass : undefined;
  return {
    containers: containers.map((each) => (each === container ? applied.container : each)),
    ...(initContainers ? { initContainers } : {}),
    ...(runtimeClassName !== undefined ? { runtimeClassName } : {}),
    fields: [...applied.fields, ...(runtimeClassName !== undefined ? ['runtimeClass'] : [])],
  };
}

/**
 * The init containers with the seeding one on the container's image and resources (a path
 * added later is seeded from the image the container runs, and the Pod's requests stay the
 * container's), or undefined when nothing changes.
 */
function followingSeed(initContainers: readonly V1Container[] | undefined, container: V1Container): V1Container[] | undefined {
  const seed = initContainers?.find((each) => each.name === SEED_CONTAINER_NAME);
  if (!initContainers || !seed) return undefined;
  const same = seed.image === container.image && JSON.stringify(seed.resources ?? {}) === JSON.stringify(container.resources ?? {});
  if (same) return undefined;
  return initContainers.map((each) =>
    each === seed
      ? {
          ...structuredClone(seed),
          image: container.image,
          ...(container.resources ? { resources: structuredClone(container.resources) } : {}),
        }
      : each,
  );
}

function noContainer(operation: WorkloadOperation, where: { namespace: string; name: string }, deployment: V1Deployment): ConflictError {
  const names = (deployment.spec?.template.spec?.containers ?? []).map((container) => container.name).join(', ') || 'none';
  return new ConflictError(
    `Deployment ${where.namespace}/${where.name} has no container named ${where.name} (containers: ${names}); the ${operation} was refused and nothing was changed`,
    { reason: 'NotOwned', target: { verb: 'patch', resource: 'deployments', namespace: where.namespace, name: where.name } },
  );
}

function reconfigured(context: OperationContext, fields: readonly string[], replicas: number, changed: boolean): ReconfiguredEvent {
  return { type: 'reconfigured', ...context.base(), changed, fields, replicas, durationMs: context.elapsed() };
}

/** The changes that turn the live container into the one `spec` asks for (adoption with onDrift: 'reconfigure'). */
export function changesToSpec(spec: WorkloadSpec, live: V1Container | undefined): ParsedChanges {
  const liveNames = (live?.env ?? []).map((variable) => variable.name);
  return {
    image: spec.image,
    env: spec.env,
    unsetEnv: liveNames.filter((name) => !Object.hasOwn(spec.env, name)),
    entrypoint: spec.entrypoint ?? null,
    args: spec.args ?? null,
    cpus: spec.cpus,
    memoryMb: spec.memoryMb,
    gpus:
      spec.gpus !== undefined
        ? { count: spec.gpus, ...(spec.gpuResource !== undefined ? { resource: spec.gpuResource } : {}) }
        : { count: 0 },
    runtimeClass: spec.runtimeClass ?? null,
  };
}

/**
 * Adoption with onDrift: 'reconfigure': rewrites the adopted Deployment's containers to
 * the requested spec (and replicas to 1 if it was stopped), then waits for that rollout.
 */
export function reconfigureAdopted(
  context: OperationContext,
  deployment: V1Deployment,
  spec: WorkloadSpec,
  /** The Service as the adoption rewrote it: the route is judged from that version on. */
  service?: WrittenVersion,
): Observable<LifecycleEvent> {
  return defer(() => {
    const owned = ownedWorkload(context, deployment);
    const plan: Plan = (live) => plannedContainers(context, live, changesToSpec(spec, workloadContainer(live.deployment)));
    return withWorkloadStreams(
      context,
      owned.containerId,
      (streams) =>
        rewriteTemplate(context, owned, plan, fromWritten(streams, 'services', service), {
          rollbackOnFailure: false,
          scaleUp: true,
          awaitWhenUnchanged: true,
        }),
      GATE_WATCHES,
    );
  });
}

/** A new type for the ports the Service has now (`serviceType` without `ports`). */
async function typeOnlyChange(context: OperationContext, serviceType: unknown, signal: AbortSignal): Promise<PortsChange> {
  let ports: unknown[] = [];
  try {
    const live = await context.client.read('services', context.namespace, context.name, { signal });
    ports = servicePorts(live).map((port) => ({
      port: port.port,
      protocol: port.protocol,
      ...(port.name && port.name !== `${port.protocol}-${port.port}` ? { name: port.name } : {}),
    }));
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  return parsePortsChange(context.name, ports, serviceType);
}
