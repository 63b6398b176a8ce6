// kube-provisioner/manager: Manager's create flow and container lifecycle over every node type. It is built only
// on the core's public API (../index.js), which never imports it back.

export {
  createContainer,
  createContainer$,
  createContainerAsync,
  type CreateContainerOptions,
  type CreateContainerResult,
  type CreateFlowEvent,
  type SavedEvent,
} from './create-flow.js';
export {
  containerLifecycle,
  type ContainerLifecycleOptions,
  type ContainerOperationEvent,
  type ContainerOperations,
  type ContainerTarget,
  type LifecycleCallOptions,
  type LifecycleSavedEvent,
} from './lifecycle.js';
export { describeFlowEvent, eventPrinter, type EventPrinterOptions } from './event-printer.js';
export {
  AlreadyProvisionedError,
  ContainerLoadError,
  ContainerMissingError,
  ContainerNotFoundError,
  ContainerNotProvisionedError,
  DuplicateProviderError,
  InvalidContainerRecordError,
  LifecycleResultNotSavedError,
  LifecycleUnsupportedError,
  KubernetesNodeConfigError,
  NetworkIdentityMissingError,
  NoStorageError,
  ProviderIdNotSavedError,
  ProviderOutcomeMissingError,
  ProviderStepError,
  TemplateNotFoundError,
  UnknownNodeTypeError,
  ContainerStillOnNodeError,
  NodeSettingError,
  UnsupportedNodeCallError,
  UnsupportedTemplateError,
  type ContainerOperationName,
  type NodeConfigIssue,
} from './errors.js';
export { kubernetesNodeConfig, type KubernetesNodeConfig } from './node-config.js';
export { checkKubernetesNode, type KubernetesNodeCheck, type KubernetesNodeCheckOptions } from './node-check.js';
export { ProviderRegistry } from './providers/registry.js';
export { createKubernetesProvider, type KubernetesProviderOptions } from './providers/kubernetes.js';
export { nodeClientFactory, type KubernetesClientFactory } from './providers/kubernetes-client.js';
export type { KubernetesOperations } from './providers/kubernetes-lifecycle.js';
export { createProxmoxProvider, type ImageDigestLookup, type ProxmoxProviderOptions } from './providers/proxmox.js';
export { createDockerProvider, type DockerProviderOptions } from './providers/docker.js';
export { createDummyProvider, type DummyProviderOptions } from './providers/dummy.js';
export type {
  ActualResources,
  ContainerId,
  ContainerLifecycle,
  ContainerLifecycleEvent,
  ContainerState,
  ContainerStatus,
  LifecycleCompletedEvent,
  LifecycleOperation,
  ContainerRecord,
  ContainerResources,
  NodeRecord,
  Provider,
  ProviderContext,
  ProviderEvent,
  ProvisionedEvent,
  ProvisionedIdentity,
  SiteRecord,
  StepEvent,
  TemplateDefaults,
} from './providers/types.js';
export type { DockerCreateApi, LxcLifecycleApi, LxcStatus, NodeApi, NodeApiFactory, ProxmoxCreateApi } from './providers/node-api.js';
export type { ContainerStore, OperationResult } from './store/container-store.js';
export { MemoryContainerStore } from './store/memory-store.js';
export {
  SequelizeContainerStore,
  type SequelizeContainerModel,
  type SequelizeContainerStoreOptions,
  type SequelizeRow,
} from './store/sequelize-store.js';
export type { ApprovedResources } from './store/manager-row.js';
export {
  SessionOptionError,
  SessionRefusedError,
  type AuthorizeContainerAccess,
  type ContainerAccess,
  type ContainerRouteParams,
  type ContainerSessionOptions,
} from './web/container-access.js';
export { containerTerminal, type ContainerTerminalOptions, type ContainerTerminalServer } from './web/container-terminal.js';
export { containerLogs, type ContainerLogsOptions, type LogsRequest } from './web/container-logs.js';
