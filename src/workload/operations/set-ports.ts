// setPorts$() / setPorts(): change the ports a workload serves (the list replaces the old
// one; an empty list removes them) and, optionally, its Service's type. Only the Service is
// written: the Deployment keeps its generation and its Pod, so nothing restarts.
//
//   validate (the spec's port rules; nothing sent when invalid)
//   -> read the Deployment (ours?) and the Service (ours, if there is one?)
//   -> nothing differs: `portsSet` (changed: false) at once, no write
//   -> no Service yet: create it (owner reference to the Deployment); no ports left: delete
//      it; else patch its type, ports and selector (preconditioned on the version read)
//   -> `service` -> running: until the Service as written (that version or a newer one,
//      never the cached one before it) routes to the Pod on the new ports (the
//      endpoint slice controller lists them), a Service deleted: until it is gone
//   -> `portsSet`, with the address
import { concat, defer, first, ignoreElements, of, switchMap, tap, type Observable } from 'rxjs';
import type { V1Deployment, V1Service } from '../../kube/objects.js';
import { ConflictError, InvalidObjectError, NotFoundError } from '../../errors/api.js';
import { InvalidSpecError, type SpecIssue } from '../../errors/input.js';
import { CONTAINER_ID_LABEL, INSTANCE_LABEL, NODE_ADDRESS_ANNOTATION, NODE_ID_LABEL } from '../../input/labels.js';
import {
  normalisePort,
  portListIssues,
  portsSchema,
  serviceNameProblem,
  serviceTypeSchema,
  sortPorts,
  type ServiceType,
  type WorkloadPort,
} from '../../input/ports.js';
import type { KubernetesClient } from '../../kube/client.js';
import { awaitReady } from '../toolkit/await-ready.js';
import { serviceStatus, type ServiceStatusValue } from '../../rollout/service-status.js';
import type { ProgressEvent } from '../../rollout/events.js';
import { withGiven } from '../../input/given.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import { isReconfigurable, WorkloadDriftError } from '../../members/drift.js';
import type { LifecycleEvent, PortsSetEvent } from '../toolkit/lifecycle-events.js';
import {
  outcomeOf,
  resultBase,
  runOperation,
  type OperationContext,
  type OperationResult,
  type WorkloadOperationOptions,
} from '../toolkit/operation.js';
import { ownedContainerId, readOwned, type OwnedWorkload } from '../toolkit/ownership.js';
import { serviceRefusal } from './service-refusal.js';
import { serviceDrift } from '../../members/service/drift.js';
import { buildService } from '../../members/service/manifest.js';
import { serviceSnapshots } from '../../members/service/member.js';
import { withWorkloadStreams } from '../toolkit/workload-streams.js';

export interface SetPortsOptions extends WorkloadOperationOptions {
  /** The Service's type; absent: ClusterIP. */
  readonly serviceType?: ServiceType;
}

export interface SetPortsResult extends OperationResult {
  /** The Service's address now (null: no ports, so no Service). */
  readonly address: string | null;
  readonly service: ServiceStatusValue | null;
}

/** A validated change of ports: the list (empty: none) and the type. */
export interface PortsChange {
  readonly ports: readonly WorkloadPort[];
  readonly serviceType?: ServiceType;
}

/**
 * Validates ports and a Service type with the spec's rules, for the workload `name` (its
 * Service takes that name). Throws InvalidSpecError listing every problem.
 */
export function parsePortsChange(name: string, ports: unknown, serviceType: unknown): PortsChange {
  const issues: SpecIssue[] = [];
  const parsedPorts = portsSchema.safeParse(ports);
  const parsedType = serviceTypeSchema.safeParse(serviceType);
  if (ports === undefined || ports === null) issues.push({ path: 'ports', message: 'is required: a list of ports, [] to remove them all' });
  if (!parsedPorts.success)
    issues.push(
      ...parsedPorts.error.issues.map((issue) => ({
        path: ['ports', ...issue.path].join('.'),
        message: withGiven(issue.message, ports, issue.path),
      })),
    );
  if (!parsedType.success)
    issues.push({ path: 'serviceType', message: withGiven(parsedType.error.issues[0]?.message ?? 'is invalid', serviceType, []) });
  if (issues.length > 0) throw new InvalidSpecError(issues);
  const list = sortPorts((parsedPorts.data ?? []).map(normalisePort));
  const type = parsedType.success ? parsedType.data : undefined;
  const listIssues = portListIssues(parsedPorts.data, type).map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  const nameProblem = list.length > 0 ? serviceNameProblem(name) : undefined;
  if (nameProblem) listIssues.unshift({ path: 'hostname', message: nameProblem });
  if (listIssues.length > 0) throw new InvalidSpecError(listIssues);
  return { ports: list, ...(type !== undefined ? { serviceType: type } : {}) };
}

/** The Service `deployment`'s workload gets for `change` (undefined: no ports, no Service), owned by it. */
export function serviceForDeployment(deployment: V1Deployment, change: PortsChange): V1Service | undefined {
  if (change.ports.length === 0) return undefined;
  const labels = deployment.metadata?.labels ?? {};
  const name = deployment.metadata?.name ?? '';
  const instance = labels[INSTANCE_LABEL];
  const service = buildService(
    {
      containerId: labels[CONTAINER_ID_LABEL] ?? '',
      nodeId: labels[NODE_ID_LABEL] ?? '',
      hostname: name,
      ...(instance !== undefined ? { instance } : {}),
      ...(deployment.metadata?.namespace ? { namespace: deployment.metadata.namespace } : {}),
      ports: [...change.ports],
      ...(change.serviceType !== undefined ? { serviceType: change.serviceType } : {}),
    },
    { ...(deployment.metadata?.uid ? { owner: { name, uid: deployment.metadata.uid } } : {}) },
  );
  return service;
}

/** What writeService() did. */
export interface ServiceWrite {
  readonly action: 'created' | 'patched' | 'deleted' | 'unchanged';
  /** The Service as stored now; undefined when there is none (deleted, or none wanted). */
  readonly service: V1Service | undefined;
  /** What changed, in the spec's words: `ports`, `serviceType`, `selector`, `owner`. */
  readonly fields: readonly string[];
}

/**
 * On the Deployment: the address its Service had when the last port went. A port that comes
 * back asks for it again, so a container keeps one address through a time without ports
 * (unless the cluster gave it to another Service meanwhile: then it gets a new one).
 */
export const SERVICE_ADDRESS_ANNOTATION = 'org.mieweb.opensource-server.service-address';

/** A write refused because the Service changed is read again and rebuilt this often. */
const MAX_WRITE_ATTEMPTS = 5;

/**
 * Makes the workload's Service what `desired` says (undefined: no Service): creates,
 * patches (type, ports, selector, owner reference) or deletes it, each write naming the
 * version or UID read. A Service of that name that is not this workload's (`containerId`:
 * its Deployment's container-id, whatever the caller named) is refused with
 * WorkloadOwnershipError and left untouched; a label difference is WorkloadDriftError
 * (labels are never rewritten); a refusal is a ServiceRejectedError naming the field.
 */
export async function writeService(
  context: OperationContext,
  containerId: string,
  desired: V1Service | undefined,
  signal: AbortSignal,
  /** The address to ask for when the Service is created (the one it had before its last port went). */
  requestedAddress?: string,
): Promise<ServiceWrite> {
  const { client, namespace, name } = context;
  for (let attempt = 1; ; attempt += 1) {
    const live = await readService(client, namespace, name, signal);
    if (live) ownedContainerId({ ...context, expectedContainerId: containerId }, 'services', live);
    if (live?.metadata?.deletionTimestamp) {
      throw new ConflictError(`Service ${namespace}/${name} is being deleted; retry once it is gone`, {
        reason: 'AlreadyExists',
        target: { verb: 'patch', resource: 'services', namespace, name },
      });
    }
    try {
      if (!desired) {
        if (!live) return { action: 'unchanged', service: undefined, fields: [] };
        await rememberAddress(context, live, signal);
        await client.delete('services', namespace, name, { preconditions: { uid: live.metadata?.uid ?? '' }, signal });
        return { action: 'deleted', service: undefined, fields: ['ports'] };
      }
      if (!live) return { action: 'created', service: await createService(context, desired, requestedAddress, signal), fields: ['ports'] };
      const drift = serviceDrift(desired, live);
      if (drift.length === 0) return { action: 'unchanged', service: live, fields: [] };
      const fixed = drift.filter(isReconfigurable);
      if (fixed.length < drift.length) {
        throw new WorkloadDriftError(
          { namespace, name, kind: 'Service' },
          drift.filter((field) => !isReconfigurable(field)),
          'labels cannot be reconfigured; nothing was changed',
        );
      }
      const patch = servicePatch(desired, live);
      const patched = await client.patch('services', namespace, name, patch, { signal });
      return { action: 'patched', service: patched, fields: fixed.map((field) => field.field) };
    } catch (error) {
      if (error instanceof NotFoundError && attempt < MAX_WRITE_ATTEMPTS) continue;
      if (error instanceof ConflictError && error.reason === 'Conflict' && attempt < MAX_WRITE_ATTEMPTS) continue;
      throw (desired ? serviceRefusal(error, { namespace, name }, desired) : undefined) ?? error;
    }
  }
}

/** The merge patch from `live` to `desired`: the whole spec's type, ports and selector, and the owner. */
function servicePatch(desired: V1Service, live: V1Service): Record<string, unknown> {
  const type = desired.spec?.type ?? 'ClusterIP';
  const dropAddress = type !== 'NodePort' && live.metadata?.annotations?.[NODE_ADDRESS_ANNOTATION] !== undefined;
  return {
    metadata: {
      uid: live.metadata?.uid,
      resourceVersion: live.metadata?.resourceVersion,
      ...(desired.metadata?.ownerReferences ? { ownerReferences: desired.metadata.ownerReferences } : {}),
      // The node address is a NodePort Service's; another type drops it.
      ...(dropAddress ? { annotations: { [NODE_ADDRESS_ANNOTATION]: null } } : {}),
    },
    spec: { type, ports: desired.spec?.ports ?? [], selector: desired.spec?.selector ?? {} },
  };
}

/** Keeps the Service's address on the Deployment before the Service goes (its last port went). */
async function rememberAddress(context: OperationContext, live: V1Service, signal: AbortSignal): Promise<void> {
  const address = live.spec?.clusterIP;
  if (!address || address === 'None') return;
  await context.client.patch(
    'deployments',
    context.namespace,
    context.name,
    { metadata: { annotations: { [SERVICE_ADDRESS_ANNOTATION]: address } } },
    { signal },
  );
}

/** Creates the Service with the address asked for; one the cluster refuses (taken meanwhile) gives way to a new one. */
async function createService(
  context: OperationContext,
  desired: V1Service,
  requestedAddress: string | undefined,
  signal: AbortSignal,
): Promise<V1Service> {
  const { client, namespace } = context;
  if (requestedAddress === undefined) return client.create('services', namespace, desired, { signal });
  try {
    return await client.create('services', namespace, { ...desired, spec: { ...desired.spec, clusterIP: requestedAddress } }, { signal });
  } catch (error) {
    if (!(error instanceof InvalidObjectError && error.causes.some((cause) => cause.field.startsWith('spec.clusterIP')))) throw error;
    return client.create('services', namespace, desired, { signal });
  }
}

async function readService(client: KubernetesClient, namespace: string, name: string, signal: AbortSignal): Promise<V1Service | undefined> {
  try {
    return await client.read('services', namespace, name, { signal });
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** Cold: nothing happens until subscribed; each subscription sets the ports once. */
export function setPorts$(
  client: KubernetesClient,
  providerId: string,
  ports: unknown,
  options: SetPortsOptions = {},
): Observable<LifecycleEvent> {
  const { serviceType, ...operationOptions } = options;
  return runOperation('setPorts', client, providerId, operationOptions, (context) =>
    defer(() => {
      const change = parsePortsChange(context.name, ports, serviceType);
      return fromAbortable((signal) => readOwned(context, signal)).pipe(switchMap((owned) => applyPorts(context, owned, change)));
    }),
  );
}

/** Resolves once the Service carries the ports (and, running, routes to the Pod on them). */
export function setPorts(
  client: KubernetesClient,
  providerId: string,
  ports: unknown,
  options: SetPortsOptions = {},
): Promise<SetPortsResult> {
  return outcomeOf(setPorts$(client, providerId, ports, options), 'portsSet', (event: PortsSetEvent) => ({
    ...resultBase(event),
    address: event.address,
    service: event.service,
  }));
}

/**
 * Writes the Service for `change` and waits as setPorts does; ends with `portsSet`. Also
 * the part of reconfigure that changes ports, and of adoption with onDrift: 'reconfigure'.
 */
export function applyPorts(context: OperationContext, owned: OwnedWorkload, change: PortsChange): Observable<LifecycleEvent> {
  return defer(() => {
    const desired = serviceForDeployment(owned.deployment, change);
    const remembered = owned.deployment.metadata?.annotations?.[SERVICE_ADDRESS_ANNOTATION];
    return fromAbortable((signal) => writeService(context, owned.containerId, desired, signal, remembered)).pipe(
      switchMap((write) => {
        const written: Observable<LifecycleEvent> =
          write.action === 'unchanged'
            ? of()
            : of({
                type: 'service',
                ...context.base(),
                action: write.action,
                fields: write.fields,
                uid: write.service?.metadata?.uid ?? '',
              });
        let last: ServiceStatusValue | null = write.service ? serviceStatus(write.service, [], undefined) : null;
        const wait$: Observable<LifecycleEvent> =
          write.action === 'deleted'
            ? awaitServiceGone(context)
            : write.service && owned.replicas > 0
              ? awaitWritten(context, owned, write.service).pipe(tap((event) => (last = event.service ?? last)))
              : of();
        return concat(
          written,
          wait$,
          defer(() =>
            of<LifecycleEvent>({
              type: 'portsSet',
              ...context.base(),
              changed: write.action !== 'unchanged',
              durationMs: context.elapsed(),
              address: last?.address ?? null,
              service: last,
            }),
          ),
        );
      }),
    );
  });
}

/** The one wait, with the Service as written as its gate (the Deployment keeps its Pod). */
function awaitWritten(context: OperationContext, owned: OwnedWorkload, service: V1Service): Observable<ProgressEvent> {
  return withWorkloadStreams(context, owned.containerId, (streams) =>
    awaitReady({
      client: context.client,
      informers: context.informers,
      instance: context.instance,
      scheduler: context.scheduler,
      failurePolicy: context.failurePolicy,
      target: { namespace: context.namespace, name: context.name, uid: owned.uid, providerId: context.providerId },
      deadline: context.deadline,
      deployments$: streams.deployments$,
      pods$: streams.pods$,
      table: context.members,
      members: [{ kind: 'services', object: service }],
    }),
  );
}

/** Until the informer no longer holds the workload's Service. */
function awaitServiceGone(context: OperationContext): Observable<LifecycleEvent> {
  return serviceSnapshots(context.informers, context.client, context.namespace, context.name, context.instance).pipe(
    first((services) => services.length === 0),
    ignoreElements(),
  );
}
