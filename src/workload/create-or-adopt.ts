// createOrAdopt(): creates the Deployment; when one of that name already exists, adopts it
// only if it is the same Manager container's (our container-id, managed and instance
// labels) and not being deleted, and otherwise fails with ConflictError. It never
// overwrites or patches an existing object: what it adopts is compared with the manifest
// (`drift`), and the caller decides.
import type { V1Deployment } from '../kube/objects.js';
import type { Observable } from 'rxjs';
import { ConflictError } from '../errors/api.js';
import type { DriftField } from './drift.js';
import type { KubernetesClient } from '../kube/client.js';
import { fromAbortable } from '../rx/from-abortable.js';
import { CONTAINER_ID_LABEL, INSTANCE_LABEL, MANAGED_LABEL, belongsToInstance, describeInstance } from '../input/labels.js';
import { workloadDrift } from './drift.js';

export interface CreatedOrAdopted {
  readonly deployment: V1Deployment;
  readonly adopted: boolean;
  /** Adopted: where the live Deployment differs from the manifest (empty: it is as asked). */
  readonly drift: readonly DriftField[];
}

export function createOrAdopt(client: KubernetesClient, manifest: V1Deployment): Observable<CreatedOrAdopted> {
  const namespace = manifest.metadata!.namespace!;
  const name = manifest.metadata!.name!;
  const containerId = manifest.metadata!.labels![CONTAINER_ID_LABEL]!;
  const instance = manifest.metadata!.labels![INSTANCE_LABEL];
  return fromAbortable(async (signal): Promise<CreatedOrAdopted> => {
    try {
      return { deployment: await client.create('deployments', namespace, manifest, { signal }), adopted: false, drift: [] };
    } catch (error) {
      if (!(error instanceof ConflictError) || error.reason !== 'AlreadyExists') throw error;
      const existing = await client.read('deployments', namespace, name, { signal });
      const labels = existing.metadata?.labels ?? {};
      if (labels[CONTAINER_ID_LABEL] !== containerId || labels[MANAGED_LABEL] !== 'true' || !belongsToInstance(existing, instance)) {
        const owner = labels[CONTAINER_ID_LABEL];
        throw new ConflictError(
          `Deployment ${namespace}/${name} already exists and belongs to ` +
            (owner ? `container-id ${owner}${describeInstance(labels[INSTANCE_LABEL])}` : 'something other than Manager') +
            `, not container-id ${containerId}${describeInstance(instance)}; it was left untouched`,
          { reason: 'AlreadyExists', target: { verb: 'create', resource: 'deployments', namespace, name }, cause: error },
        );
      }
      if (existing.metadata?.deletionTimestamp) {
        throw new ConflictError(
          `Deployment ${namespace}/${name} of container-id ${containerId} is being deleted (a failed run's cleanup, or someone else); ` +
            'retry once it is gone',
          { reason: 'AlreadyExists', target: { verb: 'create', resource: 'deployments', namespace, name }, cause: error },
        );
      }
      return { deployment: existing, adopted: true, drift: workloadDrift(manifest, existing) };
    }
  });
}
