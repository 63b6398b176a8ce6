// status(): one workload's status now, by provider ID, in Manager's words (see
// workloadStatus), with its Service's address and, when its Pods mount one, its claim
// (`storage`). The Deployment and the Service at once, then the Pods by container-id and
// the Service's EndpointSlices (the Pods at once too when the caller names the expected
// container id), and the claim. Point-in-time, so the failure
// policy judges this one snapshot: the reasons that fail at once and a crash loop's
// restart count; statuses$ and status$ also apply the grace windows over time.
//
// An API server that cannot be reached, does not answer within `timeoutMs`, or answers
// 5xx/429 gives `unknown` with the reason: never a throw. What needs the caller to act
// (401, 403, an untrusted certificate, a bad provider ID or option) is thrown as a typed
// error; an aborted signal rejects with OperationAbortedError (at once if already aborted).
import type { V1Deployment, V1EndpointSlice, V1PersistentVolumeClaim, V1Pod, V1Service, V1StorageClass } from '../../kube/objects.js';
import { SERVICE_NAME_LABEL } from '../../kube/objects.js';
import { asyncScheduler, catchError, lastValueFrom, map, of, race, throwError, type SchedulerLike } from 'rxjs';
import { ForbiddenError, NotFoundError } from '../../errors/api.js';
import { OperationAbortedError } from '../../errors/operation.js';
import type { KubernetesClient } from '../../kube/client.js';
import { resolveFailurePolicy, type FailurePolicyOverrides } from '../../rollout/failure-policy.js';
import { unknownStatus } from '../../rollout/unknown-status.js';
import { claimStatus, storageCompare, type ClaimStatusValue } from '../../rollout/claim-status.js';
import { workloadStatus, type WorkloadStatusValue } from '../../rollout/workload-status.js';
import { claimNameOf } from '../../members/claim/manifest.js';
import { abortOn } from '../../rx/abort-on.js';
import { maskOutput } from '../../rx/mask-output.js';
import { maskOf } from '../../mask.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import { longTimer } from '../../rx/long-timer.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL, NODE_ID_LABEL, belongsToInstance, containerIdOf, managedSelector } from '../../input/labels.js';
import { parseProviderId, type ProviderIdParts } from '../../input/provider-id.js';
import { checkReadOptions, containerIdOption, timeoutOption } from '../toolkit/read-options.js';
import { isUnreachable, unreachableStatus } from './unreachable.js';

export interface StatusOptions {
  /** Manager's container id: a Deployment carrying another one is reported `missing`. */
  readonly containerId?: string | number;
  /** Bound on the whole read; default 30000. Past it the status is `unknown` (reason Timeout). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** When a Pod problem makes the workload `failed` (see failure-policy.ts). */
  readonly failurePolicy?: FailurePolicyOverrides;
  /** Clock and timers (tests). */
  readonly scheduler?: SchedulerLike;
  /**
   * The Manager installation (instance label) whose workloads are ours; a Deployment of
   * another installation is reported `missing`. Default: workloads without an instance label.
   */
  readonly instance?: string;
}

/** A status with the labels it was read from (the CLI prints them). */
export interface StatusReading {
  readonly namespace: string;
  readonly name: string;
  readonly providerId: string;
  readonly containerId: string;
  readonly nodeId: string;
  readonly resourceVersion: string;
  readonly status: WorkloadStatusValue;
}

export async function status(client: KubernetesClient, providerId: string, options: StatusOptions = {}): Promise<WorkloadStatusValue> {
  return (await readStatus(client, providerId, options)).status;
}

/** status() with the labels and resourceVersion it read. */
export async function readStatus(client: KubernetesClient, providerId: string, options: StatusOptions = {}): Promise<StatusReading> {
  const target = parseProviderId(providerId);
  checkReadOptions('status', options);
  const expected = containerIdOption(options.containerId);
  const timeoutMs = timeoutOption(options.timeoutMs);
  const policy = resolveFailurePolicy(options.failurePolicy);
  const reading = (deployment: V1Deployment | undefined, status: WorkloadStatusValue): StatusReading => {
    const labels = status.state === 'missing' ? undefined : deployment?.metadata?.labels;
    return {
      namespace: target.namespace,
      name: target.name,
      providerId: `${target.namespace}/${target.name}`,
      containerId: labels?.[CONTAINER_ID_LABEL] ?? expected ?? '',
      nodeId: labels?.[NODE_ID_LABEL] ?? '',
      resourceVersion: deployment?.metadata?.resourceVersion ?? '',
      status,
    };
  };

  const read$ = fromAbortable(async (signal) => {
    const [read, podsOfExpected, service] = await Promise.all([
      readDeploymentIfAny(client, target, signal),
      expected !== undefined ? podsOf(client, target.namespace, expected, options.instance, signal) : undefined,
      readServiceIfOurs(client, target, options.instance, signal),
    ]);
    // Another installation's Deployment of the same name is not ours: as if there were none.
    const otherInstance = read?.metadata?.labels?.[MANAGED_LABEL] === 'true' && !belongsToInstance(read, options.instance);
    const deployment = otherInstance ? undefined : read;
    const containerId = deployment && deployment.metadata?.labels?.[MANAGED_LABEL] === 'true' ? containerIdOf(deployment) : undefined;
    const [pods, slices, storage] = await Promise.all([
      podsOfExpected ?? (containerId !== undefined ? podsOf(client, target.namespace, containerId, options.instance, signal) : []),
      service ? slicesOf(client, target, options.instance, signal) : [],
      deployment && containerId !== undefined ? storageOf(client, target.namespace, deployment, signal) : undefined,
    ]);
    return { deployment, pods, service, slices, storage };
  });

  const read = read$.pipe(
    map(({ deployment, pods, service, slices, storage }) => {
      const status = workloadStatus(deployment, pods, {
        failurePolicy: policy,
        ...(expected !== undefined ? { containerId: expected } : {}),
        ...(service ? { service, slices } : {}),
      });
      return reading(deployment, storage && status.state !== 'missing' ? { ...status, storage } : status);
    }),
  );
  // No answer within the bound is a status too; the read still in flight is aborted.
  const silence = longTimer(timeoutMs, options.scheduler ?? asyncScheduler).pipe(
    map(() => reading(undefined, unknownStatus('Timeout', `the API server at ${client.server} did not answer within ${timeoutMs} ms`))),
  );
  return lastValueFrom(
    race(read, silence).pipe(
      catchError((error: unknown) => (isUnreachable(error) ? of(reading(undefined, unreachableStatus(error))) : throwError(() => error))),
      abortOn(options.signal, (reason) => new OperationAbortedError('status', target, reason)),
      maskOutput(maskOf(client)),
    ),
  );
}

async function readDeploymentIfAny(
  client: KubernetesClient,
  target: ProviderIdParts,
  signal: AbortSignal,
): Promise<V1Deployment | undefined> {
  try {
    return await client.read('deployments', target.namespace, target.name, { signal });
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** The claim the Deployment's Pods mount, as a status; undefined without one, or when the caller may not read claims. */
async function storageOf(
  client: KubernetesClient,
  namespace: string,
  deployment: V1Deployment,
  signal: AbortSignal,
): Promise<ClaimStatusValue | undefined> {
  const name = claimNameOf(deployment);
  if (name === undefined) return undefined;
  let claim: V1PersistentVolumeClaim;
  try {
    claim = await client.read('persistentvolumeclaims', namespace, name, { signal });
  } catch (error) {
    if (error instanceof NotFoundError) return claimStatus(undefined, name);
    if (error instanceof ForbiddenError) return undefined;
    throw error;
  }
  return claimStatus(claim, name, await classIfResizing(client, claim, signal));
}

/**
 * The claim's StorageClass, read only while the claim asks for more than its volume has
 * (whether that resize can happen at all is the class's to say); unreadable: none.
 */
async function classIfResizing(
  client: KubernetesClient,
  claim: V1PersistentVolumeClaim,
  signal: AbortSignal,
): Promise<V1StorageClass | undefined> {
  const className = claim.spec?.storageClassName;
  if (!className || storageCompare(claim.spec?.resources?.requests?.storage, claim.status?.capacity?.storage) !== 1) return undefined;
  try {
    return await client.read('storageclasses', '', className, { signal });
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof ForbiddenError) return undefined;
    throw error;
  }
}

/** The workload's Service, when it is this installation's (a foreign one of the name is not the workload's). */
async function readServiceIfOurs(
  client: KubernetesClient,
  target: ProviderIdParts,
  instance: string | undefined,
  signal: AbortSignal,
): Promise<V1Service | undefined> {
  try {
    const service = await client.read('services', target.namespace, target.name, { signal });
    return belongsToInstance(service, instance) ? service : undefined;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

async function slicesOf(
  client: KubernetesClient,
  target: ProviderIdParts,
  instance: string | undefined,
  signal: AbortSignal,
): Promise<readonly V1EndpointSlice[]> {
  const list = await client.list('endpointslices', target.namespace, `${managedSelector(instance)},${SERVICE_NAME_LABEL}=${target.name}`, {
    signal,
  });
  return list.items;
}

async function podsOf(
  client: KubernetesClient,
  namespace: string,
  containerId: string,
  instance: string | undefined,
  signal: AbortSignal,
): Promise<readonly V1Pod[]> {
  const list = await client.list('pods', namespace, `${managedSelector(instance)},${CONTAINER_ID_LABEL}=${containerId}`, { signal });
  return list.items;
}
