// What the rollout streams keep of each watched object: the informers apply these
// projections before caching (client-go's SetTransform), so a cached Deployment or Pod
// holds only the fields rolloutStatus(), currentRolloutPods(), diagnosePod(),
// awaitRollout() and workloadStatus() read, plus what the informers route by (a
// Deployment's name, a Pod's container-id label). A Deployment as the watch
// delivers it is ~4 KB of JSON, mostly managedFields and the pod template; each one
// stays cached until the next event for it, long enough to be promoted to V8's old
// generation, so its size is paid in GC time on every event and in memory per waiter.
//
// Every field is always present (undefined when absent), so all cached objects of a kind
// share one hidden class and the readers' property loads stay monomorphic. Nested objects
// that are small and read as a whole (container states) are shared with the input, never
// modified: the projections are pure.
import type {
  V1Container,
  V1ContainerStatus,
  V1Deployment,
  V1DeploymentCondition,
  V1OwnerReference,
  V1Pod,
  V1PodCondition,
  V1PodTemplateSpec,
} from '../kube/objects.js';
import { REVISION_ANNOTATION } from '../rollout/workload-status.js';

const NOT_CACHED = Object.freeze({});

/**
 * A Deployment's fields that rolloutStatus(), newReplicaSetName(), awaitRollout() and
 * workloadStatus() read: of the pod template, only each container's name, image and
 * resources; of the annotations, only the revision.
 */
export function cachedDeploymentFields(deployment: V1Deployment): V1Deployment {
  const metadata = deployment.metadata;
  const spec = deployment.spec;
  const status = deployment.status;
  const revision = metadata?.annotations?.[REVISION_ANNOTATION];
  return {
    metadata: {
      name: metadata?.name,
      namespace: metadata?.namespace,
      uid: metadata?.uid,
      resourceVersion: metadata?.resourceVersion,
      generation: metadata?.generation,
      deletionTimestamp: metadata?.deletionTimestamp,
      // The ownership labels: shared with the input, never modified.
      labels: metadata?.labels,
      annotations: revision === undefined ? undefined : { [REVISION_ANNOTATION]: revision },
    },
    spec: spec && {
      replicas: spec.replicas,
      paused: spec.paused,
      progressDeadlineSeconds: spec.progressDeadlineSeconds,
      // Required by the type, never read: one shared empty value instead of a copy.
      selector: NOT_CACHED,
      template: templateContainers(spec.template),
    },
    status: status && {
      observedGeneration: status.observedGeneration,
      replicas: status.replicas,
      updatedReplicas: status.updatedReplicas,
      readyReplicas: status.readyReplicas,
      availableReplicas: status.availableReplicas,
      conditions: status.conditions?.map(deploymentCondition),
    },
  };
}

function templateContainers(template: V1PodTemplateSpec | undefined): V1PodTemplateSpec {
  return { spec: { containers: (template?.spec?.containers ?? []).map(templateContainer) } };
}

function templateContainer(container: V1Container): V1Container {
  return { name: container.name, image: container.image, resources: container.resources };
}

function deploymentCondition(condition: V1DeploymentCondition): V1DeploymentCondition {
  return { type: condition.type, status: condition.status, reason: condition.reason, message: condition.message };
}

/** A Pod's fields that diagnosePod(), currentRolloutPods() and workloadStatus() read, labels included. */
export function cachedPodFields(pod: V1Pod): V1Pod {
  const metadata = pod.metadata;
  const spec = pod.spec;
  const status = pod.status;
  return {
    metadata: {
      name: metadata?.name,
      namespace: metadata?.namespace,
      uid: metadata?.uid,
      resourceVersion: metadata?.resourceVersion,
      deletionTimestamp: metadata?.deletionTimestamp,
      labels: metadata?.labels,
      ownerReferences: metadata?.ownerReferences?.map(ownerReference),
    },
    spec: spec && {
      nodeName: spec.nodeName,
      // Only names and restart policies: a restartable init container is a sidecar.
      initContainers: spec.initContainers?.map((container) => ({ name: container.name, restartPolicy: container.restartPolicy })),
      containers: spec.containers.map((container) => ({ name: container.name })),
    },
    status: status && {
      phase: status.phase,
      reason: status.reason,
      message: status.message,
      podIP: status.podIP,
      conditions: status.conditions?.map(podCondition),
      initContainerStatuses: status.initContainerStatuses?.map(containerStatus),
      containerStatuses: status.containerStatuses?.map(containerStatus),
    },
  };
}

function ownerReference(owner: V1OwnerReference): V1OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid, controller: owner.controller };
}

function podCondition(condition: V1PodCondition): V1PodCondition {
  return { type: condition.type, status: condition.status, reason: condition.reason, message: condition.message };
}

function containerStatus(container: V1ContainerStatus): V1ContainerStatus {
  return {
    name: container.name,
    image: container.image,
    imageID: container.imageID,
    ready: container.ready,
    restartCount: container.restartCount,
    state: container.state,
    lastState: container.lastState,
  };
}
