// The Kubernetes objects this library builds, reads and hands out (apps/v1 Deployment,
// v1 Pod), typed as the JSON the API server sends: only the fields the library sets or
// reads, named as in the Kubernetes API. They are our own so that the published type
// declarations need nothing from @kubernetes/client-node (which the build bundles and does
// not install). An object typed by client-node's models of the same name is assignable to
// these, so a caller may pass either.

/** RFC 3339 text as the API server sends it; client-node's generated API turns it into a Date. */
export type V1Time = string | Date;

export interface V1OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface V1ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: V1Time;
  deletionTimestamp?: V1Time;
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  ownerReferences?: V1OwnerReference[];
}

export interface V1LabelSelector {
  matchLabels?: { [key: string]: string };
}

export interface V1EnvVar {
  name: string;
  value?: string;
}

export interface V1ResourceRequirements {
  limits?: { [key: string]: string };
  requests?: { [key: string]: string };
}

export interface V1Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: V1EnvVar[];
  resources?: V1ResourceRequirements;
  /** `Always` on an init container makes it a sidecar. */
  restartPolicy?: string;
}

export interface V1PodSpec {
  containers: V1Container[];
  initContainers?: V1Container[];
  nodeName?: string;
  hostname?: string;
  enableServiceLinks?: boolean;
  automountServiceAccountToken?: boolean;
}

export interface V1PodTemplateSpec {
  metadata?: V1ObjectMeta;
  spec?: V1PodSpec;
}

export interface V1DeploymentStrategy {
  type?: string;
}

export interface V1DeploymentSpec {
  replicas?: number;
  selector: V1LabelSelector;
  template: V1PodTemplateSpec;
  strategy?: V1DeploymentStrategy;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
  minReadySeconds?: number;
  paused?: boolean;
}

export interface V1DeploymentCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: V1Time;
  lastTransitionTime?: V1Time;
}

export interface V1DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: V1DeploymentCondition[];
}

export interface V1Deployment {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: V1DeploymentSpec;
  status?: V1DeploymentStatus;
}

export interface V1ContainerStateWaiting {
  reason?: string;
  message?: string;
}

export interface V1ContainerStateRunning {
  startedAt?: V1Time;
}

export interface V1ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason?: string;
  message?: string;
  startedAt?: V1Time;
  finishedAt?: V1Time;
  containerID?: string;
}

export interface V1ContainerState {
  waiting?: V1ContainerStateWaiting;
  running?: V1ContainerStateRunning;
  terminated?: V1ContainerStateTerminated;
}

export interface V1ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  ready: boolean;
  restartCount: number;
  started?: boolean;
  containerID?: string;
  state?: V1ContainerState;
  lastState?: V1ContainerState;
}

export interface V1PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: V1Time;
  lastTransitionTime?: V1Time;
}

export interface V1PodStatus {
  phase?: string;
  reason?: string;
  message?: string;
  startTime?: V1Time;
  conditions?: V1PodCondition[];
  initContainerStatuses?: V1ContainerStatus[];
  containerStatuses?: V1ContainerStatus[];
}

export interface V1Pod {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: V1PodSpec;
  status?: V1PodStatus;
}
