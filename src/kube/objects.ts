// The Kubernetes objects this library builds, reads and hands out (apps/v1 Deployment,
// v1 Pod; for the cluster check v1 Node, Namespace, LimitRange, ResourceQuota, the
// self-subject reviews, rbac/v1 Role and /version), typed as the JSON the API server sends: only the fields the library sets or
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
  /** A create without a name: the API server adds a random suffix to this. */
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: V1Time;
  deletionTimestamp?: V1Time;
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  ownerReferences?: V1OwnerReference[];
  finalizers?: string[];
}

export interface V1LabelSelector {
  matchLabels?: { [key: string]: string };
}

export interface V1ObjectFieldSelector {
  fieldPath: string;
  apiVersion?: string;
}

export interface V1ResourceFieldSelector {
  resource: string;
  containerName?: string;
  divisor?: string;
}

export interface V1KeySelector {
  key: string;
  name?: string;
  optional?: boolean;
}

export interface V1EnvVarSource {
  fieldRef?: V1ObjectFieldSelector;
  resourceFieldRef?: V1ResourceFieldSelector;
  configMapKeyRef?: V1KeySelector;
  secretKeyRef?: V1KeySelector;
}

export interface V1EnvVar {
  name: string;
  value?: string;
  valueFrom?: V1EnvVarSource;
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
  /** Defaulted by the API server. */
  imagePullPolicy?: string;
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  volumeMounts?: V1VolumeMount[];
  securityContext?: V1SecurityContext;
  /** A terminal as the container's console (what systemd writes to). */
  tty?: boolean;
  stdin?: boolean;
  startupProbe?: V1Probe;
  readinessProbe?: V1Probe;
  lifecycle?: V1Lifecycle;
}

export interface V1Probe {
  tcpSocket?: { port: number | string; host?: string };
  periodSeconds?: number;
  failureThreshold?: number;
  successThreshold?: number;
  timeoutSeconds?: number;
  initialDelaySeconds?: number;
}

export interface V1Lifecycle {
  /** The signal the container is stopped with (the ContainerStopSignals feature; needs the Pod's `os.name`). */
  stopSignal?: string;
}

export interface V1PodSpec {
  containers: V1Container[];
  initContainers?: V1Container[];
  volumes?: V1Volume[];
  nodeName?: string;
  hostname?: string;
  enableServiceLinks?: boolean;
  automountServiceAccountToken?: boolean;
  runtimeClassName?: string;
  /** false: the Pod runs in a user namespace of its own. */
  hostUsers?: boolean;
  terminationGracePeriodSeconds?: number;
  os?: { name: string };
  /** Pod-level resources (the PodLevelResources feature). */
  resources?: V1ResourceRequirements;
  /** Resources the runtime class adds to each Pod. */
  overhead?: { [key: string]: string };
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
  podIP?: string;
  /** The address of the node the Pod runs on (its InternalIP). */
  hostIP?: string;
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

// The cluster check (src/cluster/): nodes, namespaces, their limits and quotas, who the
// credentials are and what they may do, and the server's version.

export interface V1Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: V1Time;
}

export interface V1NodeSpec {
  unschedulable?: boolean;
  taints?: V1Taint[];
  providerID?: string;
  podCIDR?: string;
}

export interface V1NodeCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: V1Time;
  lastTransitionTime?: V1Time;
}

export interface V1NodeSystemInfo {
  architecture: string;
  operatingSystem: string;
  kubeletVersion: string;
  containerRuntimeVersion: string;
  kernelVersion: string;
  osImage: string;
  kubeProxyVersion?: string;
  machineID?: string;
  systemUUID?: string;
  bootID?: string;
}

export interface V1NodeAddress {
  type: string;
  address: string;
}

export interface V1NodeStatus {
  addresses?: V1NodeAddress[];
  allocatable?: { [key: string]: string };
  capacity?: { [key: string]: string };
  conditions?: V1NodeCondition[];
  nodeInfo?: V1NodeSystemInfo;
  phase?: string;
}

export interface V1Node {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: V1NodeSpec;
  status?: V1NodeStatus;
}

export interface V1NamespaceSpec {
  finalizers?: string[];
}

export interface V1NamespaceStatus {
  phase?: string;
}

export interface V1Namespace {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: V1NamespaceSpec;
  status?: V1NamespaceStatus;
}

export interface V1LimitRangeItem {
  type: string;
  _default?: { [key: string]: string };
  defaultRequest?: { [key: string]: string };
  max?: { [key: string]: string };
  min?: { [key: string]: string };
  maxLimitRequestRatio?: { [key: string]: string };
}

export interface V1LimitRangeSpec {
  limits: V1LimitRangeItem[];
}

export interface V1LimitRange {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: V1LimitRangeSpec;
}

export interface V1ScopedResourceSelectorRequirement {
  scopeName: string;
  operator: string;
  values?: string[];
}

export interface V1ScopeSelector {
  matchExpressions?: V1ScopedResourceSelectorRequirement[];
}

export interface V1ResourceQuotaSpec {
  hard?: { [key: string]: string };
  scopes?: string[];
  scopeSelector?: V1ScopeSelector;
}

export interface V1ResourceQuotaStatus {
  hard?: { [key: string]: string };
  used?: { [key: string]: string };
}

export interface V1ResourceQuota {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: V1ResourceQuotaSpec;
  status?: V1ResourceQuotaStatus;
}

export interface V1UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: { [key: string]: string[] };
}

export interface V1SelfSubjectReviewStatus {
  userInfo?: V1UserInfo;
}

export interface V1SelfSubjectReview {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  status?: V1SelfSubjectReviewStatus;
}

export interface V1ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

export interface V1NonResourceAttributes {
  path?: string;
  verb?: string;
}

export interface V1SelfSubjectAccessReviewSpec {
  resourceAttributes?: V1ResourceAttributes;
  nonResourceAttributes?: V1NonResourceAttributes;
}

export interface V1SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export interface V1SelfSubjectAccessReview {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec: V1SelfSubjectAccessReviewSpec;
  status?: V1SubjectAccessReviewStatus;
}

export interface V1PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface V1Role {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  rules?: V1PolicyRule[];
}

/** The API server's /version. */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit?: string;
  gitTreeState?: string;
  buildDate?: string;
  goVersion?: string;
  compiler?: string;
  platform?: string;
  emulationMajor?: string;
  emulationMinor?: string;
  minCompatibilityMajor?: string;
  minCompatibilityMinor?: string;
}

// Storage (v1 PersistentVolumeClaim, storage.k8s.io/v1 StorageClass), a Pod's volumes and
// mounts, and core v1 Events.

export interface V1PersistentVolumeClaimSpec {
  accessModes?: string[];
  resources?: { requests?: { [key: string]: string }; limits?: { [key: string]: string } };
  storageClassName?: string;
  volumeName?: string;
  volumeMode?: string;
}

export interface V1PersistentVolumeClaimCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: V1Time;
  lastTransitionTime?: V1Time;
}

export interface V1PersistentVolumeClaimStatus {
  /** Pending, Bound or Lost. */
  phase?: string;
  accessModes?: string[];
  /** What the bound volume actually has. */
  capacity?: { [key: string]: string };
  /** Resizing, FileSystemResizePending, ControllerResizeError, NodeResizeError. */
  conditions?: V1PersistentVolumeClaimCondition[];
  /** What a resize has allocated so far (RecoverVolumeExpansionFailure). */
  allocatedResources?: { [key: string]: string };
  /** Per resource: ControllerResizeInProgress, ControllerResizeInfeasible, NodeResizePending, NodeResizeInProgress, NodeResizeInfeasible. */
  allocatedResourceStatuses?: { [key: string]: string };
}

export interface V1PersistentVolumeClaim {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: V1PersistentVolumeClaimSpec;
  status?: V1PersistentVolumeClaimStatus;
}

/** node.k8s.io/v1 RuntimeClass: a name for a runtime handler the nodes are configured with. */
export interface V1RuntimeClass {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  /** The CRI handler (a containerd runtime's name). */
  handler?: string;
}

export interface V1StorageClass {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  provisioner?: string;
  /** Immediate (the default) or WaitForFirstConsumer. */
  volumeBindingMode?: string;
  allowVolumeExpansion?: boolean;
  /** Delete (the default) or Retain. */
  reclaimPolicy?: string;
  parameters?: { [key: string]: string };
}

export interface V1Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  emptyDir?: { medium?: string; sizeLimit?: string };
}

export interface V1VolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
  readOnly?: boolean;
}

export interface V1SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
}

export interface V1ObjectReference {
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  apiVersion?: string;
}

/** A core v1 Event (what `kubectl get events` lists; the scheduler's events.k8s.io ones appear here too). */
export interface CoreV1Event {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  involvedObject?: V1ObjectReference;
  reason?: string;
  message?: string;
  /** Normal or Warning. */
  type?: string;
  count?: number;
  firstTimestamp?: V1Time;
  lastTimestamp?: V1Time;
  eventTime?: V1Time;
  reportingComponent?: string;
  source?: { component?: string; host?: string };
  series?: { count?: number; lastObservedTime?: V1Time };
}

// A container's network objects: its v1 Service and the discovery.k8s.io/v1 EndpointSlices
// the controller manager writes for it.

export interface V1ServicePort {
  name?: string;
  /** `TCP`, `UDP` or `SCTP`; the API server defaults it to TCP. */
  protocol?: string;
  port: number;
  /** A number or a container port's name; the API server defaults it to `port`. */
  targetPort?: number | string;
  /** Allocated by the API server for NodePort and LoadBalancer Services (unless given). */
  nodePort?: number;
  appProtocol?: string;
}

export interface V1ServiceSpec {
  /** `ClusterIP` (the API server's default), `NodePort`, `LoadBalancer` or `ExternalName`. */
  type?: string;
  selector?: { [key: string]: string };
  ports?: V1ServicePort[];
  /** Allocated by the API server from its service range; `None` for a headless Service. */
  clusterIP?: string;
  clusterIPs?: string[];
  loadBalancerClass?: string;
  externalTrafficPolicy?: string;
  publishNotReadyAddresses?: boolean;
}

export interface V1LoadBalancerIngress {
  ip?: string;
  hostname?: string;
}

export interface V1ServiceStatus {
  loadBalancer?: { ingress?: V1LoadBalancerIngress[] };
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

/** Keys and values a workload's objects may hold beside it (a member kind of tests, and any a caller adds). */
export interface V1ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  data?: { [key: string]: string };
}

export interface V1Service {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: V1ServiceSpec;
  status?: V1ServiceStatus;
}

export interface V1EndpointConditions {
  /** The Pod is ready (and not terminating, unless the Service publishes unready addresses). */
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

export interface V1Endpoint {
  addresses: string[];
  conditions?: V1EndpointConditions;
  targetRef?: V1ObjectReference;
  nodeName?: string;
}

export interface V1EndpointPort {
  name?: string;
  protocol?: string;
  port?: number;
}

export interface V1EndpointSlice {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  /** `IPv4`, `IPv6` or `FQDN`. */
  addressType?: string;
  /** Absent (not an empty list) when the Service selects no Pod: the API omits empty lists. */
  endpoints?: V1Endpoint[];
  ports?: V1EndpointPort[];
}

/** The label the EndpointSlice controller puts on each slice: the name of its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** The deployment controller's count of pod templates a Deployment has had ("1", "2", ...). */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';

/** Set by the deployment controller on each ReplicaSet's Pods. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** Set by the scheduler on a WaitForFirstConsumer claim: the node its volume must be provisioned for. */
export const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node';
