// Whether a workload is the expected Manager container's, and the errors when it is not
// there or not ours.
import { ConflictError, NotFoundError } from '../errors/api.js';
import { WORKLOAD_KIND, type FailureContext } from '../errors/rollout.js';
import { MANAGED_LABEL } from '../input/labels.js';
import type { WorkloadOperation } from './operation.js';

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
    operation: WorkloadOperation,
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
