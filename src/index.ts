// kube-provisioner's public API, listed by name. Anything not here is internal and may
// change; test/unit/public-api.test.ts checks this list against test/public-api.json.

// Input: the workload spec and its parts.
export { parseWorkloadSpec, workloadSpecSchema, type WorkloadSpec } from './spec/workload-spec.js';
export { isValidImageReference } from './spec/image-reference.js';
export { cpuQuantity, memoryQuantity } from './spec/quantities.js';
export { formatProviderId, parseProviderId, type ProviderIdParts } from './spec/provider-id.js';
export { CONTAINER_ID_LABEL, LABEL_PREFIX, MANAGED_LABEL, MANAGED_SELECTOR, NODE_ID_LABEL, ownershipLabels } from './spec/labels.js';

// The client, and the interface a fake client implements.
export { KubernetesApi, DEFAULT_REQUEST_TIMEOUT_MS, type KubernetesApiOptions } from './kube/kubernetes-api.js';
export type {
  KindMap,
  KubernetesClient,
  ObjectList,
  RequestOptions,
  WatchEventType,
  WatchHandle,
  WatchHandlers,
  WatchParams,
  WatchedKind,
} from './kube/client.js';
// The Kubernetes objects as the API server sends them (only the fields the library uses).
export type {
  V1Container,
  V1ContainerState,
  V1ContainerStatus,
  V1Deployment,
  V1DeploymentCondition,
  V1ObjectMeta,
  V1OwnerReference,
  V1Pod,
  V1PodCondition,
  V1Time,
} from './kube/objects.js';

// Informers: one shared watch per client, kind, namespace and selector.
export { InformerRegistry, defaultInformerRegistry, type InformerRequest } from './informers/registry.js';
export type { SharedInformer, RoutingKey, ObjectTransform } from './informers/shared-informer.js';
export type { KubeObject, ReflectorOptions } from './informers/reflector.js';
export type { BackoffPolicy } from './rx/backoff.js';

// Rollout: pure status, diagnosis and failure policy; the event types.
export { rolloutStatus } from './rollout/rollout-status.js';
export { diagnosePod } from './rollout/pod-diagnosis.js';
export { DEFAULT_FAILURE_POLICY, resolveFailurePolicy, type FailurePolicy, type FailurePolicyOverrides } from './rollout/failure-policy.js';
export type {
  AdoptedEvent,
  CreatedEvent,
  PodDiagnosis,
  ProgressEvent,
  ProvisionEvent,
  ReadyEvent,
  ReplicaCounts,
  RolloutState,
  RolloutStatus,
} from './rollout/events.js';

// Operations on one workload.
export { buildDeployment, type BuildDeploymentOptions } from './workload/manifest.js';
export { DEFAULT_TIMEOUT_MS, provision, provision$, type ProvisionOptions, type ProvisionResult } from './workload/provision.js';

// Generic operators, for callers composing their own abortable flows.
export { abortOn } from './rx/abort-on.js';
export { fromAbortable } from './rx/from-abortable.js';

// Errors: one hierarchy under KubeProvisionerError, each with a constant `name`.
export {
  ApiError,
  ApiTimeoutError,
  ApiUnreachableError,
  ConflictError,
  ForbiddenError,
  InvalidObjectError,
  InvalidOptionError,
  InvalidSpecError,
  KubeProvisionerError,
  KubeconfigInvalidError,
  KubeconfigNotFoundError,
  NotFoundError,
  ProvisionAbortedError,
  ResourceExpiredError,
  RolloutFailedError,
  RolloutTimeoutError,
  ShellWordsError,
  TlsError,
  TooManyRequestsError,
  UnauthorizedError,
  UnknownContextError,
  UsageError,
  WatchInactiveError,
  type FieldCause,
  type SpecIssue,
} from './errors.js';
