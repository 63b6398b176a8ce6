// The Deployment as its informer caches it: what rolloutStatus(), newReplicaSetName(),
// awaitRollout() and workloadStatus() read. Most of a watched Deployment is managedFields
// and the pod template, which nothing reads; each object stays cached until its next
// event, so whatever is kept is paid in memory per waiter (bench/results/cluster.md).
import type { V1Container, V1Deployment, V1LabelSelector, V1PodTemplateSpec } from '../../kube/objects.js';
import { REVISION_ANNOTATION } from '../../kube/objects.js';
import { STORAGE_VOLUME_NAME } from '../../input/storage.js';
import { sharedValue } from '../../interning.js';
import { Fields, annotationOf, cachedCondition, deletionOf, pathsOf, readLabels, type Json } from './fields.js';

/**
 * Of the pod template, only each container's name, image and resources, and the claim its
 * storage volume mounts (statuses$ shows it); of the annotations, only the revision.
 */
export function cachedDeploymentFields(deployment: V1Deployment): V1Deployment {
  const f = new Fields('Deployment', deployment);
  const root = f.root(deployment);
  const metadata = f.object(root.metadata, 'metadata');
  const spec = f.object(root.spec, 'spec');
  const status = f.object(root.status, 'status');
  const revision = annotationOf(f, metadata, REVISION_ANNOTATION);
  return {
    metadata: {
      name: f.string(metadata?.name, 'metadata.name'),
      namespace: f.common(metadata?.namespace, 'metadata.namespace'),
      uid: f.string(metadata?.uid, 'metadata.uid'),
      resourceVersion: f.string(metadata?.resourceVersion, 'metadata.resourceVersion'),
      generation: f.number(metadata?.generation, 'metadata.generation'),
      deletionTimestamp: deletionOf(metadata),
      labels: readLabels(f, metadata?.labels),
      annotations: revision === undefined ? undefined : sharedValue('annotations', { [REVISION_ANNOTATION]: revision }),
    },
    spec: spec && {
      replicas: f.number(spec.replicas, 'spec.replicas'),
      paused: f.boolean(spec.paused, 'spec.paused'),
      progressDeadlineSeconds: f.number(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'),
      // Its labels only: a Service gate checks the Service selects the same Pods (service-gate.ts).
      selector: selectorOf(f, spec.selector),
      template: templateContainers(f, spec.template),
    },
    status: status && {
      observedGeneration: f.number(status.observedGeneration, 'status.observedGeneration'),
      replicas: f.number(status.replicas, 'status.replicas'),
      updatedReplicas: f.number(status.updatedReplicas, 'status.updatedReplicas'),
      readyReplicas: f.number(status.readyReplicas, 'status.readyReplicas'),
      availableReplicas: f.number(status.availableReplicas, 'status.availableReplicas'),
      conditions: f.each(status.conditions, 'status.conditions', (item) => cachedCondition(f, item)),
    },
  };
}

const NO_SELECTOR = Object.freeze({});

function selectorOf(f: Fields, value: unknown): V1LabelSelector {
  const matchLabels = f.strings(f.object(value, 'spec.selector')?.matchLabels, 'spec.selector.matchLabels');
  return matchLabels === undefined ? NO_SELECTOR : { matchLabels };
}

const TEMPLATE_CONTAINER = pathsOf('spec.template.spec.containers', ['name', 'image', 'resources'] as const);

function templateContainers(f: Fields, value: unknown): V1PodTemplateSpec {
  const template = f.object(value, 'spec.template');
  const podSpec = f.object(template?.spec, 'spec.template.spec');
  const containers = f.each(podSpec?.containers, 'spec.template.spec.containers', (container) => templateContainer(f, container));
  const claimName = storageClaimName(f, podSpec?.volumes);
  return {
    spec: {
      containers: containers ?? [],
      ...(claimName === undefined ? {} : { volumes: [{ name: STORAGE_VOLUME_NAME, persistentVolumeClaim: { claimName } }] }),
    },
  };
}

/** Of the template's volumes, only the container's own (the claim its status shows); every one is checked. */
function storageClaimName(f: Fields, value: unknown): string | undefined {
  let claimName: string | undefined;
  for (const item of f.list(value, 'spec.template.spec.volumes') ?? []) {
    const volume = f.object(item, 'spec.template.spec.volumes[]');
    if (volume?.name !== STORAGE_VOLUME_NAME || claimName !== undefined) continue;
    const claim = f.object(volume.persistentVolumeClaim, 'spec.template.spec.volumes[].persistentVolumeClaim');
    claimName = f.string(claim?.claimName, 'spec.template.spec.volumes[].persistentVolumeClaim.claimName');
  }
  return claimName;
}

function templateContainer(f: Fields, container: Json): V1Container {
  const resources = f.object(container.resources, TEMPLATE_CONTAINER.resources);
  return {
    name: f.string(container.name, TEMPLATE_CONTAINER.name) ?? f.fail(TEMPLATE_CONTAINER.name, 'is missing'),
    image: f.common(container.image, TEMPLATE_CONTAINER.image),
    resources:
      resources && sharedValue('resources', { limits: copy(resources.limits, 'limits'), requests: copy(resources.requests, 'requests') }),
  };

  /** A copy: the shared value is frozen, and the input stays untouched. */
  function copy(value: unknown, field: string): Record<string, string> | undefined {
    const map = f.strings(value, `${TEMPLATE_CONTAINER.resources}.${field}`);
    return map && { ...map };
  }
}
