// status(): one workload's status now, by provider ID, in Manager's words (see
// workloadStatus), with what its other members add (member-status.ts): its Service's
// address and, when its Pods mount one, its claim (`storage`). The Deployment first, then
// its Pods by container-id (at once too when the caller names the expected container id)
// and each member read once. Point-in-time, so the failure
// policy judges this one snapshot: the reasons that fail at once and a crash loop's
// restart count; statuses$ and status$ also apply the grace windows over time.
//
// An API server that cannot be reached, does not answer within `timeoutMs`, or answers
// 5xx/429 gives `unknown` with the reason: never a throw. What needs the caller to act
// (401, 403, an untrusted certificate, a bad provider ID or option) is thrown as a typed
// error; an aborted signal rejects with OperationAbortedError (at once if already aborted).
import type { V1Deployment, V1Pod } from '../../kube/objects.js';
import { asyncScheduler, catchError, lastValueFrom, map, of, race, throwError, type SchedulerLike } from 'rxjs';
import { NotFoundError } from '../../errors/api.js';
import { OperationAbortedError } from '../../errors/operation.js';
import type { KubernetesClient } from '../../kube/client.js';
import { resolveFailurePolicy, type FailurePolicyOverrides } from '../../rollout/failure-policy.js';
import { unknownStatus } from '../../rollout/unknown-status.js';
import { workloadStatus, type WorkloadStatusValue } from '../../rollout/workload-status.js';
import { MEMBERS, type MemberTable } from '../../members/set.js';
import { judgeMembers, readMemberView, statusMembers } from './member-status.js';
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
  /** The member kinds of a workload; default MEMBERS (claim, Deployment, Service). */
  readonly members?: MemberTable;
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

  const members = statusMembers(options.members ?? MEMBERS);
  const read$ = fromAbortable(async (signal) => {
    const [read, podsOfExpected] = await Promise.all([
      readDeploymentIfAny(client, target, signal),
      expected !== undefined ? podsOf(client, target.namespace, expected, options.instance, signal) : undefined,
    ]);
    // Another installation's Deployment of the same name is not ours: as if there were none.
    const otherInstance = read?.metadata?.labels?.[MANAGED_LABEL] === 'true' && !belongsToInstance(read, options.instance);
    const deployment = otherInstance ? undefined : read;
    const containerId = deployment && deployment.metadata?.labels?.[MANAGED_LABEL] === 'true' ? containerIdOf(deployment) : undefined;
    const scope = { client, namespace: target.namespace, instance: options.instance };
    const [pods, views] = await Promise.all([
      podsOfExpected ?? (containerId !== undefined ? podsOf(client, target.namespace, containerId, options.instance, signal) : []),
      deployment && containerId !== undefined
        ? Promise.all(members.map((member) => readMemberView(scope, member, target.name, deployment, signal)))
        : [],
    ]);
    return { deployment, pods, views: views.flatMap((view) => (view ? [view] : [])) };
  });

  const read = read$.pipe(
    map(({ deployment, pods, views }) => {
      const status = workloadStatus(deployment, pods, {
        failurePolicy: policy,
        ...(expected !== undefined ? { containerId: expected } : {}),
        ...(deployment ? { members: judgeMembers(views, deployment, pods, policy) } : {}),
      });
      return reading(deployment, status);
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
