// The claim as its informer caches it: what claimStatus() and the storage diagnosis read:
// its identity and labels, the class, the request and the bound volume, and the status a
// resize shows.
import type { V1PersistentVolumeClaim } from '../../kube/objects.js';
import { SELECTED_NODE_ANNOTATION } from '../../kube/objects.js';
import { sharedValue } from '../../interning.js';
import { Fields, annotationOf, cachedCondition, deletionOf, readLabels } from './fields.js';

export function cachedClaimFields(claim: V1PersistentVolumeClaim): V1PersistentVolumeClaim {
  const f = new Fields('PersistentVolumeClaim', claim);
  const root = f.root(claim);
  const metadata = f.object(root.metadata, 'metadata');
  const spec = f.object(root.spec, 'spec');
  const status = f.object(root.status, 'status');
  const requests = f.strings(f.object(spec?.resources, 'spec.resources')?.requests, 'spec.resources.requests');
  const capacity = f.strings(status?.capacity, 'status.capacity');
  const allocated = f.strings(status?.allocatedResourceStatuses, 'status.allocatedResourceStatuses');
  const selectedNode = annotationOf(f, metadata, SELECTED_NODE_ANNOTATION);
  return {
    metadata: {
      name: f.string(metadata?.name, 'metadata.name'),
      namespace: f.common(metadata?.namespace, 'metadata.namespace'),
      uid: f.string(metadata?.uid, 'metadata.uid'),
      resourceVersion: f.string(metadata?.resourceVersion, 'metadata.resourceVersion'),
      deletionTimestamp: deletionOf(metadata),
      labels: readLabels(f, metadata?.labels),
      annotations: selectedNode === undefined ? undefined : sharedValue('annotations', { [SELECTED_NODE_ANNOTATION]: selectedNode }),
    },
    spec: spec && {
      storageClassName: f.common(spec.storageClassName, 'spec.storageClassName'),
      volumeName: f.string(spec.volumeName, 'spec.volumeName'),
      resources: sharedValue('claim-resources', { requests: requests?.storage === undefined ? undefined : { storage: requests.storage } }),
    },
    status: status && {
      phase: f.string(status.phase, 'status.phase'),
      capacity: capacity?.storage === undefined ? undefined : sharedValue('capacity', { storage: capacity.storage }),
      conditions: f.each(status.conditions, 'status.conditions', (item) => cachedCondition(f, item)),
      allocatedResourceStatuses: allocated?.storage === undefined ? undefined : { storage: allocated.storage },
    },
  };
}
