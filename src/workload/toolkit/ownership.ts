// Whether a workload is the expected Manager container's: one read of its Deployment
// that proves it (managed=true, the expected container-id and instance), and the errors
// when it is not there or not ours.
import type { V1Deployment } from '../../kube/objects.js';
import { KINDS, type WatchedKind } from '../../kube/kinds.js';
import { ConflictError, NotFoundError } from '../../errors/api.js';
import { WORKLOAD_KIND, type FailureContext } from '../../errors/rollout.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL, belongsToInstance } from '../../input/labels.js';
import type { OperationContext, WorkloadOperation } from './operation.js';

/** No Deployment of that name: the workload to start, stop, restart or reconfigure is missing. */
export class WorkloadNotFoundError extends NotFoundError {
  override readonly name = 'WorkloadNotFoundError';
  readonly namespace: string;
  /** The kind of the object looked for: `Deployment`. */
  readonly kind: string;
  /** The name of the object looked for. */
  readonly object: string;
  constructor(where: FailureContext, options: { cause?: unknown } = {}) {
    super(`no ${WORKLOAD_KIND} ${where.namespace}/${where.name}: the workload does not exist`, {
      target: { verb: 'get', resource: 'deployments', namespace: where.namespace, name: where.name },
      reason: 'NotFound',
      cause: options.cause,
    });
    this.namespace = where.namespace;
    this.kind = WORKLOAD_KIND;
    this.object = where.name;
  }

  /** @deprecated The object's name: use `object` (and `kind`). */
  get deployment(): string {
    return this.object;
  }
}

/**
 * The Deployment of that name is not the expected Manager container's: no managed=true
 * label, or another container-id. Nothing was changed.
 */
export class WorkloadOwnershipError extends ConflictError {
  override readonly name = 'WorkloadOwnershipError';
  readonly namespace: string;
  /** The kind of the object refused: `Deployment`. */
  readonly kind: string;
  /** The name of the object refused. */
  readonly object: string;
  /** The container-id the caller expected, if it named one. */
  readonly expectedContainerId: string | undefined;
  /** The container-id label the Deployment carries, if any. */
  readonly actualContainerId: string | undefined;
  constructor(
    operation: WorkloadOperation | 'exec' | 'logs',
    where: FailureContext,
    facts: { expectedContainerId?: string | undefined; actualContainerId?: string | undefined; managed: boolean },
  ) {
    const kind = where.kind ?? WORKLOAD_KIND;
    const whose = !facts.managed
      ? `is not managed by Manager (no ${MANAGED_LABEL}=true label)`
      : facts.actualContainerId === undefined
        ? 'carries no container-id label'
        : `belongs to container-id ${facts.actualContainerId}` +
          (facts.expectedContainerId !== undefined ? `, not container-id ${facts.expectedContainerId}` : '');
    super(`${kind} ${where.namespace}/${where.name} ${whose}; the ${operation} was refused and nothing was changed`, {
      reason: 'NotOwned',
      target: { verb: 'get', resource: 'deployments', namespace: where.namespace, name: where.name },
    });
    this.namespace = where.namespace;
    this.kind = kind;
    this.object = where.name;
    this.expectedContainerId = facts.expectedContainerId;
    this.actualContainerId = facts.actualContainerId;
  }

  /** @deprecated The object's name: use `object` (and `kind`). */
  get deployment(): string {
    return this.object;
  }
}

/** A Deployment read and found to be the expected Manager container's. */
export interface OwnedWorkload {
  readonly deployment: V1Deployment;
  readonly uid: string;
  readonly containerId: string;
  readonly generation: number;
  /** spec.replicas (the API's default, 1, when absent). */
  readonly replicas: number;
  readonly resourceVersion: string;
}

/**
 * The container-id an object of the workload carries, when it is the expected Manager
 * container's (managed=true, the expected container-id, this installation); otherwise
 * throws WorkloadOwnershipError naming the object's kind.
 */
export function ownedContainerId(context: OwnershipContext, kind: WatchedKind, object: KubeObjectWithLabels): string {
  const labels = object.metadata?.labels ?? {};
  const managed = labels[MANAGED_LABEL] === 'true';
  const containerId = labels[CONTAINER_ID_LABEL];
  const expected = context.expectedContainerId;
  if (
    !managed ||
    containerId === undefined ||
    (expected !== undefined && containerId !== expected) ||
    !belongsToInstance(object, context.instance)
  ) {
    throw new WorkloadOwnershipError(
      context.operation,
      { namespace: context.namespace, name: object.metadata?.name ?? context.name, kind: KINDS[kind].kind },
      { expectedContainerId: expected, actualContainerId: containerId, managed },
    );
  }
  return containerId;
}

/** What ownership is judged by: the operation (for the message), where, and whose it must be. */
export type OwnershipContext = Pick<OperationContext, 'namespace' | 'name' | 'expectedContainerId' | 'instance'> & {
  readonly operation: WorkloadOperation | 'exec' | 'logs';
};

interface KubeObjectWithLabels {
  readonly metadata?: { readonly name?: string; readonly labels?: Record<string, string> };
}

/** Throws WorkloadOwnershipError unless `deployment` is the expected Manager container's. */
export function ownedWorkload(context: OwnershipContext, deployment: V1Deployment): OwnedWorkload {
  const containerId = ownedContainerId(context, 'deployments', deployment);
  return {
    deployment,
    uid: deployment.metadata?.uid ?? '',
    containerId,
    generation: deployment.metadata?.generation ?? 0,
    replicas: deployment.spec?.replicas ?? 1,
    resourceVersion: deployment.metadata?.resourceVersion ?? '',
  };
}

/** Reads the Deployment: WorkloadNotFoundError when missing, WorkloadOwnershipError when not ours. */
export async function readOwned(context: OperationContext, signal: AbortSignal): Promise<OwnedWorkload> {
  let deployment: V1Deployment;
  try {
    deployment = await context.client.read('deployments', context.namespace, context.name, { signal });
  } catch (error) {
    if (error instanceof NotFoundError) throw new WorkloadNotFoundError(context, { cause: error });
    throw error;
  }
  return ownedWorkload(context, deployment);
}
