// Errors of the create flow, its registry, store and non-Kubernetes providers. Each has a
// const `name` and a message naming the container; a client's own error is attached as
// `cause` and never copied into the message (it may embed request headers or bodies).
import { KubeProvisionerError, escapeControlCharacters } from '../index.js';
import type { ContainerId } from './providers/types.js';

// ---- the record --------------------------------------------------------------------

export class ContainerNotFoundError extends KubeProvisionerError {
  override readonly name = 'ContainerNotFoundError';
  readonly containerId: ContainerId;
  constructor(containerId: ContainerId, options?: { cause?: unknown }) {
    super(`Container ${containerId} was not found`, options);
    this.containerId = containerId;
  }
}

/** The store failed to read the record (its own error is the cause). */
export class ContainerLoadError extends KubeProvisionerError {
  override readonly name = 'ContainerLoadError';
  readonly containerId: ContainerId;
  constructor(containerId: ContainerId, options?: { cause?: unknown }) {
    super(`Container ${containerId} could not be loaded from the store`, options);
    this.containerId = containerId;
  }
}

/** Manager's double-provisioning guard: a record with a provider ID was created already. */
export class AlreadyProvisionedError extends KubeProvisionerError {
  override readonly name = 'AlreadyProvisionedError';
  readonly containerId: ContainerId;
  readonly providerId: string;
  constructor(containerId: ContainerId, providerId: string) {
    super(`Container ${containerId} already has provider ID ${providerId}; refusing to create it again`);
    this.containerId = containerId;
    this.providerId = providerId;
  }
}

/**
 * The record lacks something a provider needs, or the stored row holds what Manager's rules
 * refuse (a variable name, a value): the operation stops before any call to the node, and
 * the row is left as it is. `problems` names each column at fault.
 */
export class InvalidContainerRecordError extends KubeProvisionerError {
  override readonly name = 'InvalidContainerRecordError';
  readonly containerId: ContainerId;
  readonly problems: readonly string[];
  constructor(containerId: ContainerId, problems: readonly string[], options?: { cause?: unknown }) {
    super(`Container ${containerId} cannot be used as it is: ${problems.join('; ')}`, options);
    this.containerId = containerId;
    this.problems = problems;
  }
}

/** The operations a container row goes through after creation, as the errors name them. */
export type ContainerOperationName = 'status' | 'start' | 'stop' | 'restart' | 'reconfigure' | 'remove' | 'setPorts';

/** The operation as the first word of a message ("Stop of container 7 was aborted"), as the core words its own. */
export const OPERATION_NOUNS: Readonly<Record<ContainerOperationName, string>> = {
  status: 'Status',
  start: 'Start',
  stop: 'Stop',
  restart: 'Restart',
  reconfigure: 'Reconfiguration',
  remove: 'Removal',
  setPorts: 'Port change',
};

const OPERATION_WORDS: Readonly<Record<ContainerOperationName, string>> = {
  status: 'has no status on its node',
  start: 'cannot be started',
  stop: 'cannot be stopped',
  restart: 'cannot be restarted',
  reconfigure: 'cannot be reconfigured',
  remove: 'cannot be removed from its node',
  setPorts: 'cannot have its ports changed',
};

/**
 * The row has no provider ID (Manager's `containerId` column): it was never provisioned,
 * or its create job has not finished. Nothing is asked of its node.
 */
export class ContainerNotProvisionedError extends KubeProvisionerError {
  override readonly name = 'ContainerNotProvisionedError';
  readonly containerId: ContainerId;
  readonly operation: ContainerOperationName;
  constructor(containerId: ContainerId, operation: ContainerOperationName) {
    super(
      `Container ${containerId} ${OPERATION_WORDS[operation]}: it has no provider ID (containerId), ` +
        'so it was never provisioned or its create job has not finished',
    );
    this.containerId = containerId;
    this.operation = operation;
  }
}

/**
 * The operation succeeded on the node but its result (provider ID, MAC, address) could not
 * be written to the row: the row was deleted, or changed its provider ID, meanwhile, or the
 * store failed (`cause`). `providerId` names what now runs on the node.
 */
export class LifecycleResultNotSavedError extends KubeProvisionerError {
  override readonly name = 'LifecycleResultNotSavedError';
  readonly containerId: ContainerId;
  readonly operation: ContainerOperationName;
  readonly providerId: string;
  constructor(
    containerId: ContainerId,
    operation: ContainerOperationName,
    providerId: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Container ${containerId}: the ${operation} of ${providerId} succeeded but its result was not saved: ${reason}`, options);
    this.containerId = containerId;
    this.operation = operation;
    this.providerId = providerId;
  }
}

/** One column of a Kubernetes node at fault, and the rule it breaks. */
export interface NodeConfigIssue {
  /** The Node column, as Manager names it: kubeconfigPath, kubeContext, apiUrl, secret, kubeNamespace, tlsVerify. */
  readonly field: string;
  readonly message: string;
}

/**
 * A Kubernetes node's columns do not say how to reach its cluster (or say it twice, or break
 * a rule). Raised before any file is read or request sent: a node never falls back to the
 * process's $KUBECONFIG or ~/.kube/config, which on a Manager host would be whatever cluster
 * the shell points at. Lists every problem at once and never quotes a value.
 */
export class KubernetesNodeConfigError extends KubeProvisionerError {
  override readonly name = 'KubernetesNodeConfigError';
  /** The node's name and id, when the record has them (a form not yet saved may not). */
  readonly nodeName: string | undefined;
  readonly nodeId: number | string | undefined;
  /** The first column to set (or clear), e.g. `kubeconfigPath` or `secret`. */
  readonly field: string;
  readonly issues: readonly NodeConfigIssue[];
  constructor(node: { readonly id?: unknown; readonly name?: unknown }, issues: readonly NodeConfigIssue[]) {
    const nodeName = typeof node.name === 'string' && node.name ? escapeControlCharacters(node.name).slice(0, 253) : undefined;
    const nodeId = typeof node.id === 'number' || (typeof node.id === 'string' && node.id) ? node.id : undefined;
    const label = [nodeName, nodeId !== undefined ? `(id ${escapeControlCharacters(String(nodeId)).slice(0, 64)})` : undefined]
      .filter(Boolean)
      .join(' ');
    super(`Kubernetes node${label ? ` ${label}` : ''}: ${issues.map((issue) => `${issue.field} ${issue.message}`).join('; ')}`);
    this.nodeName = nodeName;
    this.nodeId = nodeId;
    this.field = issues[0]?.field ?? '(node)';
    this.issues = issues;
  }
}

/**
 * The node has no container under the row's provider ID any more (it was removed): the
 * operation is refused rather than bringing it back.
 */
export class ContainerMissingError extends KubeProvisionerError {
  override readonly name = 'ContainerMissingError';
  readonly containerId: ContainerId;
  readonly operation: ContainerOperationName;
  readonly providerId: string;
  constructor(containerId: ContainerId, operation: ContainerOperationName, providerId: string, nodeName: string) {
    super(
      `Container ${containerId} ${OPERATION_WORDS[operation]}: node ${escapeControlCharacters(nodeName)} has no container ${providerId} (it was removed)`,
    );
    this.containerId = containerId;
    this.operation = operation;
    this.providerId = providerId;
  }
}

// ---- choosing and running a provider -----------------------------------------------

export class UnknownNodeTypeError extends KubeProvisionerError {
  override readonly name = 'UnknownNodeTypeError';
  readonly nodeType: string;
  readonly knownTypes: readonly string[];
  constructor(nodeType: string, knownTypes: readonly string[]) {
    super(`No provider for node type "${nodeType}" (known: ${knownTypes.length ? knownTypes.join(', ') : 'none'})`);
    this.nodeType = nodeType;
    this.knownTypes = knownTypes;
  }
}

export class LifecycleUnsupportedError extends KubeProvisionerError {
  override readonly name = 'LifecycleUnsupportedError';
  readonly nodeType: string;
  constructor(nodeType: string) {
    super(`The provider for node type "${nodeType}" can only create containers (it has no lifecycle)`);
    this.nodeType = nodeType;
  }
}

export class DuplicateProviderError extends KubeProvisionerError {
  override readonly name = 'DuplicateProviderError';
  readonly nodeType: string;
  constructor(nodeType: string) {
    super(`Two providers were registered for node type "${nodeType}"`);
    this.nodeType = nodeType;
  }
}

/** A provider completed without reporting what it provisioned (a provider bug). */
export class ProviderOutcomeMissingError extends KubeProvisionerError {
  override readonly name = 'ProviderOutcomeMissingError';
  readonly containerId: ContainerId;
  readonly provider: string;
  constructor(containerId: ContainerId, provider: string) {
    super(`The ${provider} provider finished container ${containerId} without reporting a provider ID`);
    this.containerId = containerId;
    this.provider = provider;
  }
}

/**
 * The provider succeeded but its ID could not be stored: the resource exists and nothing
 * points at it. `providerId` names it so the caller can clean it up.
 */
export class ProviderIdNotSavedError extends KubeProvisionerError {
  override readonly name = 'ProviderIdNotSavedError';
  readonly containerId: ContainerId;
  readonly providerId: string;
  constructor(containerId: ContainerId, providerId: string, reason: string, options?: { cause?: unknown }) {
    super(`Container ${containerId} was provisioned as ${providerId} but the ID was not stored: ${reason}`, options);
    this.containerId = containerId;
    this.providerId = providerId;
  }
}

/**
 * A job on a kubernetes node failed for a reason one of the node's columns fixes (a missing
 * namespace, no default StorageClass, a kubeconfig that does not load, a refused token):
 * the message names the node and the column to change, and how; the library's error is
 * the cause.
 */
export class NodeSettingError extends KubeProvisionerError {
  override readonly name = 'NodeSettingError';
  readonly nodeName: string | undefined;
  readonly nodeId: unknown;
  /** The Node column to change. */
  readonly column: string;
  constructor(node: { readonly id?: unknown; readonly name?: unknown }, column: string, message: string, options: { cause: unknown }) {
    const nodeName = typeof node.name === 'string' && node.name ? escapeControlCharacters(node.name).slice(0, 253) : undefined;
    const nodeId = typeof node.id === 'number' || (typeof node.id === 'string' && node.id) ? node.id : undefined;
    const label = [nodeName, nodeId !== undefined ? `(id ${escapeControlCharacters(String(nodeId)).slice(0, 64)})` : undefined]
      .filter(Boolean)
      .join(' ');
    super(`Kubernetes node${label ? ` ${label}` : ''}: ${column} ${escapeControlCharacters(message)}`, options);
    this.nodeName = nodeName;
    this.nodeId = nodeId;
    this.column = column;
  }
}

/**
 * A kubernetes node could not tell, through Manager's `node.api()`, that a container is gone
 * from it (the API unreachable, a refusal, a time bound): the container may still run there.
 * `keepRow` tells Manager's DELETE route to answer with this error and keep the row, so the
 * user can retry, instead of deleting the row and orphaning the workload. The node's own
 * error is the cause, named in the message.
 */
export class ContainerStillOnNodeError extends KubeProvisionerError {
  override readonly name = 'ContainerStillOnNodeError';
  /** Manager's DELETE route keeps the container's row. */
  readonly keepRow = true;
  readonly nodeName: string;
  readonly providerId: string;
  constructor(nodeName: string, providerId: string, options: { cause: unknown }) {
    const cause = options.cause;
    const what = cause instanceof Error ? `${cause.name}: ${cause.message}` : 'an unknown failure';
    super(
      `Kubernetes node ${escapeControlCharacters(nodeName)} could not delete container ${escapeControlCharacters(providerId)}, ` +
        `so it may still run there and its row is kept: retry the delete once the node answers (${escapeControlCharacters(what)})`,
      options,
    );
    this.nodeName = nodeName;
    this.providerId = providerId;
  }
}

/**
 * Manager called a method of its node API (`node.api()`) that a Kubernetes node does not
 * have: LXC templates, storages, VMIDs, tasks. `hint` says where that work happens instead.
 */
export class UnsupportedNodeCallError extends KubeProvisionerError {
  override readonly name = 'UnsupportedNodeCallError';
  readonly nodeName: string;
  readonly method: string;
  constructor(nodeName: string, method: string, hint: string) {
    super(`Kubernetes node ${escapeControlCharacters(nodeName)} has no ${method}(): ${hint}`);
    this.nodeName = nodeName;
    this.method = method;
  }
}

// ---- Proxmox / Docker steps --------------------------------------------------------

/**
 * A client call of a provider step failed. `providerId` is set once the resource exists
 * (VMID or engine ID), so a caller can find what was left behind.
 */
export class ProviderStepError extends KubeProvisionerError {
  override readonly name = 'ProviderStepError';
  readonly provider: string;
  readonly step: string;
  readonly containerId: ContainerId;
  readonly providerId: string | undefined;
  constructor(
    provider: string,
    step: string,
    containerId: ContainerId,
    options: { providerId?: string | undefined; cause?: unknown } = {},
  ) {
    super(
      `The ${provider} step "${step}" failed for container ${containerId}` +
        (options.providerId ? ` (provider ID ${options.providerId})` : ''),
      { cause: options.cause },
    );
    this.provider = provider;
    this.step = step;
    this.containerId = containerId;
    this.providerId = options.providerId;
  }
}

export class TemplateNotFoundError extends KubeProvisionerError {
  override readonly name = 'TemplateNotFoundError';
  readonly template: string;
  readonly nodeName: string;
  constructor(template: string, nodeName: string) {
    super(`Template "${template}" not found on node ${nodeName}`);
    this.template = template;
    this.nodeName = nodeName;
  }
}

export class UnsupportedTemplateError extends KubeProvisionerError {
  override readonly name = 'UnsupportedTemplateError';
  readonly provider: string;
  readonly template: string;
  constructor(provider: string, template: string, requirement: string) {
    super(`The ${provider} provider cannot use template "${template}": ${requirement}`);
    this.provider = provider;
    this.template = template;
  }
}

export class NoStorageError extends KubeProvisionerError {
  override readonly name = 'NoStorageError';
  readonly nodeName: string;
  readonly contentType: string;
  constructor(nodeName: string, contentType: string) {
    super(`No enabled storage on node ${nodeName} supports content type "${contentType}"`);
    this.nodeName = nodeName;
    this.contentType = contentType;
  }
}

/** Manager's rule on LXC-style nodes: a started container without a MAC or IP is a failure. */
export class NetworkIdentityMissingError extends KubeProvisionerError {
  override readonly name = 'NetworkIdentityMissingError';
  readonly provider: string;
  readonly missing: 'MAC address' | 'IP address';
  readonly providerId: string;
  constructor(provider: string, missing: 'MAC address' | 'IP address', providerId: string) {
    super(`The ${provider} container ${providerId} started but reported no ${missing}`);
    this.provider = provider;
    this.missing = missing;
    this.providerId = providerId;
  }
}
