// kube-provisioner's public API. Everything else is internal and may change.
export { parseWorkloadSpec, workloadSpecSchema, type WorkloadSpec } from './spec.js';
export { isValidImageReference } from './image-reference.js';
export { buildDeployment, type BuildDeploymentOptions } from './provisioner/manifest.js';
export { cpuQuantity, memoryQuantity } from './provisioner/quantities.js';
export { formatProviderId, parseProviderId, type ProviderIdParts } from './provisioner/provider-id.js';
export {
  CONTAINER_ID_LABEL,
  LABEL_PREFIX,
  MANAGED_LABEL,
  MANAGED_SELECTOR,
  NODE_ID_LABEL,
  ownershipLabels,
} from './provisioner/labels.js';
export {
  DEFAULT_TIMEOUT_MS,
  provision,
  provision$,
  type ProvisionOptions,
  type ProvisionResult,
} from './provisioner/provision.js';
export { rolloutStatus } from './streams/rollout-status.js';
export { diagnosePod } from './streams/pod-diagnosis.js';
export {
  DEFAULT_FAILURE_POLICY,
  resolveFailurePolicy,
  type FailurePolicy,
  type FailurePolicyOverrides,
} from './streams/failure-policy.js';
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
} from './streams/events.js';
export { KubernetesApi, DEFAULT_REQUEST_TIMEOUT_MS, type KubernetesApiOptions } from './kube/kubernetes-api.js';
export type { KubernetesClient, WatchedKind } from './kube/client.js';
export { InformerRegistry, defaultInformerRegistry } from './informers/registry.js';
export type { ReflectorOptions } from './informers/reflector.js';
export * from './errors.js';

// The shared create flow (one provider per node type; Kubernetes never runs Proxmox steps).
export {
  createContainer,
  createContainerAsync,
  type CreateContainerOptions,
  type CreateContainerResult,
  type CreateFlowEvent,
  type SavedEvent,
} from './provisioner/create-flow.js';
export * from './provisioner/create-flow-errors.js';
export { ProviderRegistry } from './provisioner/providers/registry.js';
export { createKubernetesProvider, type KubernetesProviderOptions, type KubernetesNodeConfig } from './provisioner/providers/kubernetes.js';
export { createProxmoxProvider, type ProxmoxProviderOptions } from './provisioner/providers/proxmox.js';
export { createDockerProvider, type DockerProviderOptions } from './provisioner/providers/docker.js';
export { createDummyProvider, type DummyProviderOptions } from './provisioner/providers/dummy.js';
export type {
  ContainerId,
  ContainerRecord,
  NodeRecord,
  Provider,
  ProviderContext,
  ProviderEvent,
  ProvisionedEvent,
  StepEvent,
} from './provisioner/providers/types.js';
export type { NodeApi, ProxmoxCreateApi, DockerCreateApi } from './provisioner/providers/node-api.js';
export type { ContainerStore } from './provisioner/store/container-store.js';
export { MemoryContainerStore } from './provisioner/store/memory-store.js';
export { SequelizeContainerStore, type SequelizeContainerStoreOptions } from './provisioner/store/sequelize-store.js';
