// kube-provisioner's public API, listed by name. Anything not here is internal and may
// change; test/unit/public-api.test.ts checks this list against test/public-api.json.

// Input: the workload spec and its parts.
export { parseWorkloadSpec, workloadSpecSchema, type WorkloadSpec } from './input/workload-spec.js';
export { SYSTEM_INIT_COMMANDS, SYSTEMD_STOP_SIGNAL, isSystemCommand, isSystemContainer } from './input/system-container.js';
export {
  SYSTEM_BOOT_FAILED_REASON,
  SYSTEM_BOOT_FAILURE_KINDS,
  classifySystemdBoot,
  type SystemBootFailure,
  type SystemBootFailureKind,
} from './rollout/systemd-boot.js';
export { STARTUP_PROBE_FAILED_REASON } from './rollout/startup-probe.js';
export { isValidImageReference, parseImageReference, type ImageReferenceParts } from './input/image-reference.js';
export { DEFAULT_NAMESPACE, dns1123LabelProblem, isEnvVarName } from './input/names.js';
export { DEFAULT_GPU_RESOURCE, MAX_GPUS, dns1123SubdomainProblem, gpuResourceProblem } from './input/gpus.js';
export { persistedPathsIssues } from './input/storage.js';
export { cpuQuantity, memoryQuantity } from './input/quantities.js';
export { formatProviderId, parseProviderId, type ProviderIdParts } from './input/provider-id.js';
export {
  CONTAINER_ID_LABEL,
  INSTANCE_LABEL,
  LABEL_PREFIX,
  MANAGED_LABEL,
  MANAGED_SELECTOR,
  NODE_ID_LABEL,
  belongsToInstance,
  managedSelector,
  ownershipLabels,
} from './input/labels.js';
export { MAX_DURATION_MS } from './input/duration.js';
export {
  DEFAULT_SERVICE_TYPE,
  MAX_PORTS,
  PORT_PROTOCOLS,
  SERVICE_TYPES,
  portNameProblem,
  servicePortName,
  type PortProtocol,
  type ServiceType,
  type WorkloadPort,
} from './input/ports.js';

// The client, and the interface a fake client implements.
export {
  KubernetesApi,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type ConnectionOptions,
  type KubernetesApiOptions,
  type KubernetesServerOptions,
} from './kube/kubernetes-api.js';
export { ALL_NAMESPACES } from './kube/client.js';
export type {
  ConnectionInfo,
  DeleteOptions,
  DeploymentMergePatch,
  KindMap,
  KubernetesClient,
  ListRequestOptions,
  ObjectList,
  PodLogParams,
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
  V1Endpoint,
  V1EndpointSlice,
  V1EnvVar,
  V1LimitRange,
  V1Namespace,
  V1Node,
  V1ObjectMeta,
  V1OwnerReference,
  V1Pod,
  V1PodCondition,
  V1ResourceAttributes,
  V1ResourceQuota,
  V1ResourceRequirements,
  V1SelfSubjectAccessReview,
  V1SelfSubjectReview,
  V1Service,
  V1ServicePort,
  V1Taint,
  V1Time,
  VersionInfo,
} from './kube/objects.js';

// Informers: one shared watch per client, kind, namespace and selector.
export { InformerRegistry, defaultInformerRegistry, type InformerRequest, type InformerSummary } from './informers/registry.js';
export type { InformerNotice, SharedInformer, RoutingKey, ObjectIdentity, ObjectTransform } from './informers/shared-informer.js';
export type { KubeObject, ReflectorOptions } from './informers/reflector.js';
export type { BackoffPolicy } from './rx/backoff.js';

// Rollout: pure status, diagnosis and failure policy; the event types.
export { hasProgressDeadline, rolloutStatus } from './rollout/rollout-status.js';
export { diagnosePod } from './rollout/pod-diagnosis.js';
export { NODE_ADDRESS_ANNOTATION } from './input/labels.js';
export {
  podEndpoint,
  serviceAddress,
  servicePorts,
  serviceStatus,
  type EndpointValue,
  type RoutedPod,
  type ServicePortValue,
  type ServiceReachability,
  type ServiceStatusValue,
} from './rollout/service-status.js';
export { DEFAULT_FAILURE_POLICY, resolveFailurePolicy, type FailurePolicy, type FailurePolicyOverrides } from './rollout/failure-policy.js';
export type {
  AdoptedEvent,
  CreatedEvent,
  PodDiagnosis,
  ProgressEvent,
  ProvisionEvent,
  ProvisionWarnedEvent,
  ReadyEvent,
  ReplicaCounts,
  RolloutState,
  RolloutStatus,
} from './rollout/events.js';

// Workload status: the pure mapping to Manager's words.
export { REVISION_ANNOTATION } from './kube/objects.js';
export {
  workloadStatus,
  type FailureJudgement,
  type WorkloadResources,
  type WorkloadState,
  type WorkloadStatusOptions,
  type WorkloadStatusValue,
} from './rollout/workload-status.js';
export { unknownStatus } from './rollout/unknown-status.js';
export { sameWorkloadStatus } from './rollout/same-workload-status.js';
// Lines for people: the CLI's output and Manager's job log, one line per event or error.
export { clockTime, describeEvent, errorRecord, formatErrorLine, formatEventLine } from './workload/toolkit/event-lines.js';
export { describeLifecycleEvent } from './workload/toolkit/lifecycle-words.js';
export { escapeControlCharacters } from './text.js';
// Masking credentials (their shapes: JWTs, Bearer values, token=, PEM bodies, ...) in any text that leaves the process.
export { maskCredentials } from './mask.js';

// Operations on one workload.
export { MAX_MANIFEST_BYTES, buildDeployment, type BuildDeploymentOptions } from './members/deployment/manifest.js';
export { buildService, type BuildServiceOptions, type ServiceSpec } from './members/service/manifest.js';
export { claimNameOf } from './members/claim/manifest.js';
export { provision, provision$, type ProvisionOptions, type ProvisionResult } from './workload/operations/provision.js';
export { DEFAULT_CLEANUP_TIMEOUT_MS } from './workload/operations/cleanup.js';
// The lifecycle after creation: the writes (addressed by provider ID "namespace/name").
export { start, start$, type StartOptions, type StartResult } from './workload/operations/start.js';
export { stop, stop$, type StopOptions, type StopResult } from './workload/operations/stop.js';
export { restart, restart$, type RestartOptions, type RestartResult } from './workload/operations/restart.js';
export { reconfigure, reconfigure$, type ReconfigureOptions, type ReconfigureResult } from './workload/operations/reconfigure.js';
export { remove, remove$, type RemoveOptions, type RemoveResult } from './workload/operations/remove.js';
export { setPorts, setPorts$, type SetPortsOptions, type SetPortsResult } from './workload/operations/set-ports.js';
export { parseWorkloadChanges, type ParsedChanges, type WorkloadChanges } from './workload/operations/workload-changes.js';
export { workloadDrift } from './members/drift.js';
export { RESTARTED_AT_ANNOTATION } from './workload/operations/restart.js';
export { DEFAULT_TIMEOUT_MS, type OperationResult, type WorkloadOperationOptions } from './workload/toolkit/operation.js';
// Inside the workload's container: a terminal or a command (pods/exec), its log (pods/log).
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  execCommand,
  openTerminal,
  type ExecCommandOptions,
  type ExecExit,
  type ExecResult,
  type Terminal,
  type TerminalOptions,
} from './workload/reads/terminal.js';
export { logs$, type LogLine, type LogsOptions } from './workload/reads/logs.js';
export type {
  DeletedEvent,
  DiagnosedEvent,
  LifecycleEvent,
  OutcomeEvent,
  PatchedEvent,
  PortsSetEvent,
  ReconfiguredEvent,
  RemovedEvent,
  RestartedEvent,
  RollbackEvent,
  ScaledEvent,
  ServiceEvent,
  StartedEvent,
  StoppedEvent,
  WaitingEvent,
  WarnedEvent,
} from './workload/toolkit/lifecycle-events.js';

// Reading workloads: one status, the list, and live statuses.
export { DEFAULT_READ_TIMEOUT_MS } from './workload/toolkit/read-options.js';
export { status, type StatusOptions } from './workload/reads/status.js';
export { list, type ListOptions, type WorkloadSnapshot } from './workload/reads/list.js';
export { status$, statuses$, type StatusesOptions, type StatusStreamOptions } from './workload/reads/statuses.js';
export type { StatusEvent } from './workload/reads/status-board.js';

// The cluster: preflight check, nodes, and whether a workload fits.
export { DEFAULT_CHECK_TIMEOUT_MS, check, type CheckOptions, type CheckTarget } from './cluster/check.js';
export {
  CHECK_ITEM_IDS,
  type CheckItem,
  type CheckItemId,
  type GpuCapacityReport,
  type CheckReport,
  type CheckStatus,
  type PermissionAnswer,
} from './cluster/check-report.js';
export {
  OPERATION_NAMES,
  OPERATION_PERMISSIONS,
  permissionLabel,
  policyRules,
  roleFor,
  type OperationName,
  type Permission,
} from './cluster/permissions.js';
export { DEFAULT_NODES_TIMEOUT_MS, nodes, nodes$, type NodesLiveOptions, type NodesOptions } from './cluster/nodes.js';
export type { NodeInfo, NodeResources, NodeTaint } from './cluster/node-info.js';
export { fits, fitsOnNodes, type FitsResult, type NodeFit } from './cluster/fits.js';
export type { PodRequest } from './cluster/namespace-limits.js';

// Server-Sent Events: any of the library's event streams to a browser, one subscription
// shared by every viewer, resumable after Last-Event-ID, bounded for slow clients.
export {
  END_EVENT,
  ERROR_EVENT,
  EventChannel,
  GAP_EVENT,
  SNAPSHOT_EVENT,
  type ChannelFrame,
  type ChannelViewer,
  type EventChannelOptions,
  type ViewerStart,
} from './sse/event-channel.js';
export { toEventStream, type EventStreamOptions } from './sse/to-event-stream.js';

// Generic operators, for callers composing their own abortable flows.
export { abortOn } from './rx/abort-on.js';
export { fromAbortable } from './rx/from-abortable.js';
export { isoTime } from './rx/clock-time.js';

// Errors: one hierarchy under KubeProvisionerError, each with a constant `name`.
export { KubeProvisionerError } from './errors/base.js';
export { InvalidOptionError, InvalidSpecError, ShellWordsError, UsageError, type SpecIssue } from './errors/input.js';
export { ExecPluginError, KubeconfigInvalidError, KubeconfigNotFoundError, UnknownContextError } from './errors/kubeconfig.js';
export {
  ApiError,
  ApiTimeoutError,
  ApiUnreachableError,
  ConflictError,
  ExpansionRefusedError,
  ForbiddenError,
  InvalidObjectError,
  MalformedObjectError,
  MalformedResponseError,
  NotFoundError,
  QuotaExceededError,
  ResourceExpiredError,
  TlsError,
  TooManyRequestsError,
  UnauthorizedError,
  WatchInactiveError,
  type FieldCause,
} from './errors/api.js';
export { ProvisionAbortedError, RolloutFailedError, RolloutTimeoutError } from './errors/rollout.js';
export { DiscoveryTimeoutError, OperationAbortedError } from './errors/operation.js';
export {
  ExecConnectionLostError,
  ExecFailedError,
  ExecSessionTimeoutError,
  KubeletUnreachableError,
  NoRunningContainerError,
  ShellNotFoundError,
} from './errors/exec.js';
export { OperationTimeoutError, type WorkloadOperation } from './workload/toolkit/operation.js';
export { WorkloadNotFoundError, WorkloadOwnershipError } from './workload/toolkit/ownership.js';
export { WorkloadSupersededError, type Supersession } from './workload/toolkit/guard-generation.js';
export { WorkloadDriftError, type DriftField } from './members/drift.js';
export type { WorkloadCleanup } from './workload/operations/cleanup.js';
export { ReconfigureFailedError } from './workload/operations/reconfigure.js';
export { StorageResizeError, claimHolds, type StorageResizeRefusal } from './workload/operations/resize-claim.js';
export { NoDefaultStorageClassError, StorageClassNotFoundError } from './workload/operations/storage-class-choice.js';
export { ServiceRejectedError, type ServiceRefusal } from './workload/operations/service-refusal.js';
