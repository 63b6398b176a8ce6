// The check report: its shape, and how the answers gathered by check() become items.
// Pure: assembleReport() turns outcomes (a value, an error, or no answer in time) into
// one item each, and names a root cause once: when TLS, the connection or the
// credentials fail, that item fails and the items it prevented are skipped, not failed.
import type {
  V1LimitRange,
  V1Namespace,
  V1Node,
  V1ResourceQuota,
  V1RuntimeClass,
  V1SelfSubjectAccessReview,
  V1SelfSubjectReview,
  V1StorageClass,
  VersionInfo,
} from '../kube/objects.js';
import { defaultStorageClass, describeStorageClass, summarizeStorageClass, type StorageClassSummary } from '../rollout/storage-class.js';
import { ApiTimeoutError, ApiUnreachableError, ForbiddenError, NotFoundError, TlsError, UnauthorizedError } from '../errors/api.js';
import { KubeProvisionerError } from '../errors/base.js';
import { ExecPluginError, KubeconfigInvalidError } from '../errors/kubeconfig.js';
import type { ConnectionInfo } from '../kube/client.js';
import { oneLine } from '../text.js';
import { formatBytes, formatMillicores, quantityUnits } from '../input/parse-quantity.js';
import { limitRangeRefusals, resourceQuotaRefusals, type PodRequest } from './namespace-limits.js';
import { CLUSTER_PERMISSIONS, OPERATION_NAMES, OPERATION_PERMISSIONS, permissionLabel, type OperationName } from './permissions.js';
import type { StreamingListSupport } from './watch-list-probe.js';
import type { StopSignalSupport } from '../kube/stop-signal-probe.js';

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

/** In report order. */
export const CHECK_ITEM_IDS = [
  'kubeconfig',
  'tls',
  'api',
  'identity',
  'watch-list',
  'namespace',
  'permissions:create',
  'permissions:lifecycle',
  'resources',
  'gpus',
  'storage',
  'runtime-class',
  'stop-signal',
] as const;
export type CheckItemId = (typeof CHECK_ITEM_IDS)[number];

export interface PermissionAnswer {
  /** kubectl's spelling, e.g. `create deployments.apps`. */
  readonly permission: string;
  readonly allowed: boolean;
  /** The authorizer's reason, when it gave one. */
  readonly reason?: string;
  /** The authorizer could not evaluate every rule (the answer may then be incomplete). */
  readonly evaluationError?: string;
}

export interface CheckItem {
  /** `system-boot`: an image's boot, when asked for (boot-check.ts). */
  readonly id: CheckItemId | 'system-boot';
  /**
   * `fail` only for a needed item (the report is then not ok); `warn` for a problem that
   * does not stop provisioning or an answer that could not be had; `skip` when not checked.
   */
  readonly status: CheckStatus;
  /** Whether provisioning (or the operations asked for) depends on this item. */
  readonly needed: boolean;
  /** One line, for a person; never a credential. */
  readonly message: string;
  /** From the start of the check until this item's last answer. */
  readonly durationMs: number;
  /** The error class behind a fail or warn (e.g. `TlsError`, `ForbiddenError`), when there is one. */
  readonly error?: string;
  /** api: the server's gitVersion. */
  readonly serverVersion?: string;
  /** identity: who the API server takes us for. */
  readonly user?: { readonly username: string; readonly groups: readonly string[] };
  /** permissions:*: every permission of the operation with its answer, and the missing ones. */
  readonly permissions?: readonly PermissionAnswer[];
  readonly missing?: readonly string[];
  /** resources: each way a LimitRange or ResourceQuota would refuse the spec. */
  readonly refusals?: readonly string[];
  /** storage: the cluster's default StorageClass (null: there is none), when the classes could be listed. */
  readonly defaultStorageClass?: StorageClassSummary | null;
  /** storage: every class of the cluster, by name. */
  readonly storageClasses?: readonly string[];
  /** gpus: the cluster's allocatable of the GPU resource, in total and on each node that offers it. */
  readonly gpus?: GpuCapacityReport;
  /** runtime-class: the handler of the RuntimeClass checked, when it exists. */
  readonly runtimeClassHandler?: string;
  /** stop-signal: whether the API server keeps a Pod's `lifecycle.stopSignal`, when it could be asked. */
  readonly stopSignal?: StopSignalSupport;
}

export interface GpuCapacityReport {
  /** The extended resource counted (`nvidia.com/gpu` unless configured). */
  readonly resource: string;
  /** Allocatable on every node together. */
  readonly total: number;
  /** How many nodes the cluster has (offering the resource or not). */
  readonly nodeCount: number;
  /** The nodes that offer it (allocatable above 0), by name; empty: no node offers it. */
  readonly nodes: readonly {
    readonly name: string;
    readonly allocatable: number;
    readonly ready: boolean;
    readonly schedulable: boolean;
  }[];
}

export interface CheckReport {
  /** No item failed: every needed item passed, warned or was skipped for a stated reason. */
  readonly ok: boolean;
  readonly namespace: string | null;
  readonly server: string | null;
  readonly context: string | null;
  readonly kubeconfigPath: string | null;
  /** False when TLS verification was turned off explicitly; null when unknown. */
  readonly tlsVerify: boolean | null;
  /** The operation whose permissions are needed (the others' are reported as warnings). */
  readonly needs: OperationName;
  readonly checkedAt: string;
  readonly durationMs: number;
  readonly items: readonly CheckItem[];
}

// ---- what check() gathers --------------------------------------------------------------

export type Outcome<T> =
  | { readonly kind: 'value'; readonly value: T; readonly atMs: number }
  | { readonly kind: 'error'; readonly error: unknown; readonly atMs: number }
  | { readonly kind: 'timeout'; readonly atMs: number };

export interface Gathered {
  readonly version: Outcome<VersionInfo>;
  readonly identity: Outcome<V1SelfSubjectReview>;
  readonly streamingLists: Outcome<StreamingListSupport>;
  readonly namespace: Outcome<V1Namespace>;
  /** By permission label. */
  readonly reviews: ReadonlyMap<string, Outcome<V1SelfSubjectAccessReview>>;
  /** The StorageClasses, and the cluster-wide reviews of CLUSTER_PERMISSIONS by label. */
  readonly storage: {
    readonly classes: Outcome<readonly V1StorageClass[]>;
    readonly reviews: ReadonlyMap<string, Outcome<V1SelfSubjectAccessReview>>;
  };
  /** Present when a spec was given. */
  readonly limits?: { readonly limitRanges: Outcome<readonly V1LimitRange[]>; readonly quotas: Outcome<readonly V1ResourceQuota[]> };
  /** The cluster's nodes, for their GPU capacity. */
  readonly nodes: Outcome<readonly V1Node[]>;
  /** The RuntimeClass named (option or spec), when one was. */
  readonly runtimeClass?: Outcome<V1RuntimeClass>;
  /** Whether a dry-run Deployment keeps its Pod's stop signal. */
  readonly stopSignal: Outcome<StopSignalSupport>;
}

export interface ReportContext {
  readonly namespace: string;
  readonly server: string;
  /** Absent for a client passed in without one (a fake, say). */
  readonly connection: ConnectionInfo | undefined;
  readonly needs: OperationName;
  readonly request: PodRequest | undefined;
  /** The GPU resource whose capacity is reported (the spec's, the option's, else nvidia.com/gpu). */
  readonly gpuResource: string;
  /** The resource was named (option or spec), so a cluster without it is worth a warning. */
  readonly gpuResourceNamed: boolean;
  /** The RuntimeClass the containers will run with (option or spec); undefined: the cluster's default. */
  readonly runtimeClass?: string | undefined;
  readonly timeoutMs: number;
  readonly startedAtMs: number;
  readonly checkedAt: string;
  readonly finishedAtMs: number;
}

// ---- assembly --------------------------------------------------------------------------

interface RootCause {
  readonly item: 'tls' | 'api' | 'identity';
  readonly why: string;
}

/** A failure that keeps every request from getting anywhere, and the item it belongs to. */
function rootCauseOf(outcome: Outcome<unknown>, timeoutMs: number): RootCause | undefined {
  if (outcome.kind === 'timeout') return { item: 'api', why: `no answer within ${timeoutMs} ms` };
  if (outcome.kind !== 'error') return undefined;
  const error = outcome.error;
  if (error instanceof TlsError) return { item: 'tls', why: 'TLS verification failed' };
  if (error instanceof ApiUnreachableError) return { item: 'api', why: 'the API server is unreachable' };
  if (error instanceof ApiTimeoutError) return { item: 'api', why: 'the API server did not answer in time' };
  if (error instanceof UnauthorizedError) return { item: 'identity', why: 'the credentials were rejected' };
  if (sentNothing(outcome)) return { item: 'identity', why: 'no credentials to send, so no request was sent' };
  return undefined;
}

/**
 * The credentials could not be had (the exec plugin failed, the TLS material was refused):
 * the request never left, so nothing can be said of the server.
 */
function sentNothing(outcome: Outcome<unknown>): boolean {
  return outcome.kind === 'error' && (outcome.error instanceof ExecPluginError || outcome.error instanceof KubeconfigInvalidError);
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'Error';
}

function errorMessage(error: unknown): string {
  // Project errors carry short messages without credentials; anything else is named only.
  return error instanceof KubeProvisionerError ? error.message : `unexpected ${errorName(error)}`;
}

export function assembleReport(gathered: Gathered, context: ReportContext): CheckReport {
  const elapsed = (outcome: { atMs: number }): number => Math.max(0, outcome.atMs - context.startedAtMs);
  const rootCause = rootCauseOf(gathered.version, context.timeoutMs) ?? rootCauseOf(gathered.identity, context.timeoutMs);
  /** The item an outcome blocked by the root cause becomes, or undefined to judge it on its own. */
  const blocked = (id: CheckItemId, needed: boolean, outcome: Outcome<unknown>): CheckItem | undefined => {
    if (!rootCause || rootCause.item === id || outcome.kind === 'value') return undefined;
    return { id, status: 'skip', needed, message: `not checked: ${rootCause.why} (see ${rootCause.item})`, durationMs: elapsed(outcome) };
  };

  const items: CheckItem[] = [
    kubeconfigItem(context),
    tlsItem(gathered, context, rootCause, elapsed),
    apiItem(gathered.version, context, rootCause, elapsed),
    blocked('identity', true, gathered.identity) ?? identityItem(gathered.identity, context, elapsed),
    blocked('watch-list', false, gathered.streamingLists) ?? watchListItem(gathered.streamingLists, context, elapsed),
    blocked('namespace', true, gathered.namespace) ?? namespaceItem(gathered.namespace, context, elapsed),
    ...OPERATION_NAMES.map((operation) => {
      const id = `permissions:${operation}` as const;
      const needed = operationNeeded(operation, context.needs);
      const outcomes = OPERATION_PERMISSIONS[operation].map((permission) => gathered.reviews.get(permissionLabel(permission))!);
      const firstFailure = outcomes.find((outcome) => outcome.kind !== 'value');
      return (firstFailure && blocked(id, needed, firstFailure)) ?? permissionsItem(operation, outcomes, needed, context, elapsed);
    }),
    resourcesItem(gathered, context, rootCause, elapsed),
    blocked('gpus', gpusNeeded(context.request), gathered.nodes) ?? gpusItem(gathered.nodes, context, elapsed),
    blocked('storage', false, gathered.storage.classes) ?? storageItem(gathered.storage, context, elapsed),
    runtimeClassItem(gathered.runtimeClass, context, rootCause, elapsed),
    blocked('stop-signal', false, gathered.stopSignal) ?? stopSignalItem(gathered.stopSignal, context, elapsed),
  ];
  return {
    ok: items.every((item) => item.status !== 'fail'),
    namespace: context.namespace,
    server: context.server,
    context: context.connection?.context ?? null,
    kubeconfigPath: context.connection?.kubeconfigPath ?? null,
    tlsVerify: context.connection?.tlsVerify ?? null,
    needs: context.needs,
    checkedAt: context.checkedAt,
    durationMs: Math.max(0, context.finishedAtMs - context.startedAtMs),
    items,
  };
}

/** An operation is needed when the operation asked for covers every permission it has. */
function operationNeeded(operation: OperationName, needs: OperationName): boolean {
  const asked = new Set(OPERATION_PERMISSIONS[needs].map(permissionLabel));
  return OPERATION_PERMISSIONS[operation].every((permission) => asked.has(permissionLabel(permission)));
}

/** Whether an item's failure means the report is not ok (watch-list and storage never; permissions per operation; gpus when the spec asks some). */
export function itemNeeded(id: CheckItemId, needs: OperationName, request?: PodRequest, runtimeClass?: string): boolean {
  if (id === 'watch-list' || id === 'storage' || id === 'stop-signal') return false;
  if (id === 'runtime-class') return runtimeClass !== undefined;
  if (id === 'gpus') return gpusNeeded(request);
  if (id.startsWith('permissions:')) return operationNeeded(id.slice('permissions:'.length) as OperationName, needs);
  return true;
}

function kubeconfigItem(context: ReportContext): CheckItem {
  const connection = context.connection;
  if (!connection) {
    return { id: 'kubeconfig', status: 'skip', needed: true, message: 'a client was passed in: no kubeconfig loaded here', durationMs: 0 };
  }
  return {
    id: 'kubeconfig',
    status: 'pass',
    needed: true,
    message: `context "${connection.context}" from ${connection.kubeconfigPath} (server ${connection.server})`,
    durationMs: 0,
  };
}

function tlsItem(
  gathered: Gathered,
  context: ReportContext,
  rootCause: RootCause | undefined,
  elapsed: (o: { atMs: number }) => number,
): CheckItem {
  const connection = context.connection;
  const outcome = gathered.version;
  if (rootCause?.item === 'tls') {
    const failed = [outcome, gathered.identity].find((candidate) => candidate.kind === 'error' && candidate.error instanceof TlsError);
    const error = failed?.kind === 'error' ? failed.error : undefined;
    return {
      id: 'tls',
      status: 'fail',
      needed: true,
      message: errorMessage(error),
      error: errorName(error),
      durationMs: elapsed(failed ?? outcome),
    };
  }
  if (!connection) {
    return { id: 'tls', status: 'skip', needed: true, message: 'unknown for a client passed in', durationMs: 0 };
  }
  if (!connection.tlsVerify) {
    const plain = connection.server.startsWith('http:');
    return {
      id: 'tls',
      status: 'warn',
      needed: true,
      message: plain
        ? 'OFF: the server is plain http (allowed because TLS verification was turned off explicitly)'
        : "OFF: TLS verification was turned off explicitly; the API server's identity is not verified",
      durationMs: 0,
    };
  }
  const against = connection.customCa ? "the kubeconfig's certificate authority" : "the system's certificate authorities";
  if (sentNothing(outcome))
    return {
      id: 'tls',
      status: 'skip',
      needed: true,
      message: `on, not tried: ${rootCause?.why ?? ''} (see identity)`,
      durationMs: elapsed(outcome),
    };
  if (rootCause?.item === 'api') {
    return { id: 'tls', status: 'skip', needed: true, message: `on, not tried: ${rootCause.why}`, durationMs: elapsed(outcome) };
  }
  return {
    id: 'tls',
    status: 'pass',
    needed: true,
    message: `on: the server's certificate verified against ${against}`,
    durationMs: elapsed(outcome),
  };
}

function apiItem(
  outcome: Outcome<VersionInfo>,
  context: ReportContext,
  rootCause: RootCause | undefined,
  elapsed: (o: { atMs: number }) => number,
): CheckItem {
  const base = { id: 'api', needed: true, durationMs: elapsed(outcome) } as const;
  if (outcome.kind === 'value') {
    const version = outcome.value.gitVersion ?? `${outcome.value.major}.${outcome.value.minor}`;
    return { ...base, status: 'pass', message: `Kubernetes ${version} answers at ${context.server}`, serverVersion: version };
  }
  if (outcome.kind === 'timeout')
    return {
      ...base,
      status: 'fail',
      message: `${context.server} gave no answer within ${context.timeoutMs} ms`,
      error: 'DiscoveryTimeoutError',
    };
  const error = outcome.error;
  if (rootCause?.item === 'tls') return { ...base, status: 'skip', message: `no TLS connection to ${context.server} (see tls)` };
  if (rootCause?.item === 'api') return { ...base, status: 'fail', message: errorMessage(error), error: errorName(error) };
  if (sentNothing(outcome))
    return { ...base, status: 'skip', message: `not checked: ${rootCause?.why ?? 'no request was sent'} (see identity)` };
  if (error instanceof UnauthorizedError) {
    return {
      ...base,
      status: 'pass',
      message: `${context.server} answers (version not shown: the credentials were rejected, see identity)`,
    };
  }
  return {
    ...base,
    status: 'warn',
    message: `${context.server} answers, but not its version: ${errorMessage(error)}`,
    error: errorName(error),
  };
}

function identityItem(outcome: Outcome<V1SelfSubjectReview>, context: ReportContext, elapsed: (o: { atMs: number }) => number): CheckItem {
  const base = { id: 'identity', needed: true, durationMs: elapsed(outcome) } as const;
  if (outcome.kind === 'value') {
    const info = outcome.value.status?.userInfo;
    const username = info?.username ?? '(anonymous)';
    const groups = info?.groups ?? [];
    return {
      ...base,
      status: 'pass',
      message: `user "${username}"${groups.length ? ` (groups ${groups.join(', ')})` : ''}`,
      user: { username, groups },
    };
  }
  if (outcome.kind === 'timeout') return { ...base, status: 'warn', message: `no answer within ${context.timeoutMs} ms` };
  const error = outcome.error;
  if (error instanceof UnauthorizedError || sentNothing(outcome))
    return { ...base, status: 'fail', message: errorMessage(error), error: errorName(error) };
  if (error instanceof NotFoundError) {
    return { ...base, status: 'skip', message: 'SelfSubjectReview is not served (Kubernetes before 1.28): identity not shown' };
  }
  return { ...base, status: 'warn', message: `cannot tell: ${errorMessage(error)}`, error: errorName(error) };
}

function watchListItem(
  outcome: Outcome<StreamingListSupport>,
  context: ReportContext,
  elapsed: (o: { atMs: number }) => number,
): CheckItem {
  const base = { id: 'watch-list', needed: false, durationMs: elapsed(outcome) } as const;
  if (outcome.kind === 'value') {
    return outcome.value === 'served'
      ? { ...base, status: 'pass', message: 'streaming lists are served: each informer starts with one request' }
      : { ...base, status: 'warn', message: 'streaming lists are not served: each informer starts with a list and a watch instead' };
  }
  if (outcome.kind === 'timeout') return { ...base, status: 'warn', message: `cannot tell: no answer within ${context.timeoutMs} ms` };
  const error = outcome.error;
  if (error instanceof ForbiddenError) {
    return {
      ...base,
      status: 'warn',
      message: `cannot tell: may not watch deployments in namespace ${context.namespace}`,
      error: error.name,
    };
  }
  return { ...base, status: 'warn', message: `cannot tell: ${errorMessage(error)}`, error: errorName(error) };
}

/**
 * Whether the API server keeps a Pod's `lifecycle.stopSignal` (ContainerStopSignals): where
 * it does, a system container's Pod names systemd's stop signal. Never needed: without it,
 * the image's STOPSIGNAL is what halts systemd at once.
 */
function stopSignalItem(outcome: Outcome<StopSignalSupport>, context: ReportContext, elapsed: (o: { atMs: number }) => number): CheckItem {
  const base = { id: 'stop-signal', needed: false, durationMs: elapsed(outcome) } as const;
  if (outcome.kind === 'value') {
    return outcome.value === 'kept'
      ? {
          ...base,
          status: 'pass',
          message: "lifecycle.stopSignal is kept: a system container's Pod names systemd's stop signal (SIGRTMIN+3)",
          stopSignal: outcome.value,
        }
      : {
          ...base,
          status: 'pass',
          message:
            "lifecycle.stopSignal is dropped (the ContainerStopSignals feature gate is off): a system container's Pod goes without it, " +
            'so only an image with STOPSIGNAL SIGRTMIN+3 stops in seconds',
          stopSignal: outcome.value,
        };
  }
  const after = "; a system container's Pod goes without lifecycle.stopSignal, with a warning";
  if (outcome.kind === 'timeout')
    return { ...base, status: 'warn', message: `cannot tell: no answer within ${context.timeoutMs} ms${after}` };
  const error = outcome.error;
  if (error instanceof NotFoundError) {
    return { ...base, status: 'skip', message: `not checked: namespace ${context.namespace} does not exist (see namespace)` };
  }
  const why =
    error instanceof ForbiddenError
      ? `may not create deployments.apps in namespace ${context.namespace} (asked with a dry run, which stores nothing)`
      : errorMessage(error);
  return { ...base, status: 'warn', message: `cannot tell: ${why}${after}`, error: errorName(error) };
}

function namespaceItem(outcome: Outcome<V1Namespace>, context: ReportContext, elapsed: (o: { atMs: number }) => number): CheckItem {
  const base = { id: 'namespace', needed: true, durationMs: elapsed(outcome) } as const;
  const name = context.namespace;
  if (outcome.kind === 'value') {
    if (outcome.value.metadata?.deletionTimestamp || outcome.value.status?.phase === 'Terminating') {
      return { ...base, status: 'fail', message: `namespace ${name} is being deleted: nothing new can be created in it` };
    }
    return { ...base, status: 'pass', message: `namespace ${name} exists` };
  }
  if (outcome.kind === 'timeout') return { ...base, status: 'fail', message: `no answer within ${context.timeoutMs} ms` };
  const error = outcome.error;
  if (error instanceof NotFoundError) {
    return { ...base, status: 'fail', message: `namespace ${name} does not exist (create it, or choose another)`, error: error.name };
  }
  if (error instanceof ForbiddenError) {
    return { ...base, status: 'warn', message: `cannot tell whether namespace ${name} exists: may not get namespaces`, error: error.name };
  }
  return { ...base, status: 'fail', message: errorMessage(error), error: errorName(error) };
}

function permissionsItem(
  operation: OperationName,
  outcomes: readonly Outcome<V1SelfSubjectAccessReview>[],
  needed: boolean,
  context: ReportContext,
  elapsed: (o: { atMs: number }) => number,
): CheckItem {
  const id = `permissions:${operation}` as const;
  const durationMs = Math.max(0, ...outcomes.map(elapsed));
  const problem = needed ? 'fail' : 'warn';
  const unanswered = outcomes.find((outcome) => outcome.kind !== 'value');
  if (unanswered) {
    const why =
      unanswered.kind === 'timeout' ? `no answer within ${context.timeoutMs} ms` : errorMessage((unanswered as { error: unknown }).error);
    return {
      id,
      status: problem,
      needed,
      message: `could not review the permissions: ${why}`,
      durationMs,
      ...(unanswered.kind === 'error' ? { error: errorName(unanswered.error) } : {}),
    };
  }
  const answers = OPERATION_PERMISSIONS[operation].map((permission, index): PermissionAnswer => {
    const status = (outcomes[index] as { value: V1SelfSubjectAccessReview }).value.status;
    return {
      permission: permissionLabel(permission),
      allowed: status?.allowed === true && status.denied !== true,
      ...(status?.reason ? { reason: oneLine(status.reason) } : {}),
      ...(status?.evaluationError ? { evaluationError: oneLine(status.evaluationError) } : {}),
    };
  });
  const missing = answers.filter((answer) => !answer.allowed).map((answer) => answer.permission);
  const where = `in namespace ${context.namespace}`;
  if (missing.length === 0) {
    return {
      id,
      status: 'pass',
      needed,
      message: `${operation}: all ${answers.length} permissions granted ${where}`,
      durationMs,
      permissions: answers,
      missing,
    };
  }
  return {
    id,
    status: problem,
    needed,
    message: `${operation}: missing ${missing.length} of ${answers.length} ${where}: ${missing.join(', ')}`,
    durationMs,
    permissions: answers,
    missing,
  };
}

function resourcesItem(
  gathered: Gathered,
  context: ReportContext,
  rootCause: RootCause | undefined,
  elapsed: (o: { atMs: number }) => number,
): CheckItem {
  const base = { id: 'resources', needed: true } as const;
  const request = context.request;
  if (!request || !gathered.limits) {
    return {
      ...base,
      status: 'skip',
      message: 'no spec given: pass one ({ cpus, memoryMb }) to check LimitRanges and ResourceQuotas',
      durationMs: 0,
    };
  }
  const { limitRanges, quotas } = gathered.limits;
  const durationMs = Math.max(elapsed(limitRanges), elapsed(quotas));
  if (rootCause && (limitRanges.kind !== 'value' || quotas.kind !== 'value')) {
    return { ...base, status: 'skip', message: `not checked: ${rootCause.why} (see ${rootCause.item})`, durationMs };
  }
  if (gathered.namespace.kind === 'error' && gathered.namespace.error instanceof NotFoundError) {
    return { ...base, status: 'skip', message: `not checked: namespace ${context.namespace} does not exist`, durationMs };
  }
  for (const [outcome, resource] of [
    [limitRanges, 'limitranges'],
    [quotas, 'resourcequotas'],
  ] as const) {
    if (outcome.kind === 'timeout')
      return { ...base, status: 'warn', message: `cannot tell: no answer within ${context.timeoutMs} ms`, durationMs };
    if (outcome.kind === 'error') {
      const message =
        outcome.error instanceof ForbiddenError
          ? `cannot tell: may not list ${resource} in namespace ${context.namespace}`
          : `cannot tell: ${errorMessage(outcome.error)}`;
      return { ...base, status: 'warn', message, error: errorName(outcome.error), durationMs };
    }
  }
  const ranges = (limitRanges as { value: readonly V1LimitRange[] }).value;
  const quotaList = (quotas as { value: readonly V1ResourceQuota[] }).value;
  const refusals = [...limitRangeRefusals(request, ranges), ...resourceQuotaRefusals(request, quotaList)];
  const asked = `${formatMillicores(request.cpuMillicores)} CPU and ${formatBytes(request.memoryBytes)} memory`;
  if (refusals.length > 0) {
    return { ...base, status: 'fail', message: `${asked} would be refused: ${refusals.join('; ')}`, refusals, durationMs };
  }
  const checked =
    ranges.length + quotaList.length === 0
      ? `no LimitRange or ResourceQuota in namespace ${context.namespace}`
      : `within ${ranges.length} LimitRange(s) and ${quotaList.length} ResourceQuota(s) in namespace ${context.namespace}`;
  return { ...base, status: 'pass', message: `${asked}: ${checked}`, refusals, durationMs };
}

function gpusNeeded(request: PodRequest | undefined): boolean {
  return (request?.gpus?.count ?? 0) > 0;
}

/** The GPU resource's allocatable on each node (nodes() reads it the same way), and whether the spec's GPUs can be placed. */
function gpusItem(outcome: Outcome<readonly V1Node[]>, context: ReportContext, elapsed: (o: { atMs: number }) => number): CheckItem {
  const resource = context.gpuResource;
  const wanted = context.request?.gpus?.count ?? 0;
  const needed = wanted > 0;
  const base = { id: 'gpus', needed, durationMs: elapsed(outcome) } as const;
  if (outcome.kind === 'timeout') return { ...base, status: 'warn', message: `cannot tell: no answer within ${context.timeoutMs} ms` };
  if (outcome.kind === 'error') {
    const message =
      outcome.error instanceof ForbiddenError
        ? `cannot tell: may not list nodes (a cluster-wide permission), so the ${resource} capacity is unknown`
        : `cannot tell: ${errorMessage(outcome.error)}`;
    return { ...base, status: 'warn', message, error: errorName(outcome.error) };
  }
  const offering = outcome.value
    .map((node) => ({
      name: node.metadata?.name ?? '',
      allocatable: quantityUnits(node.status?.allocatable?.[resource] ?? '0') ?? 0,
      ready: node.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') === true,
      schedulable: node.spec?.unschedulable !== true,
    }))
    .filter((node) => node.allocatable > 0)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const gpus: GpuCapacityReport = {
    resource,
    total: offering.reduce((sum, node) => sum + node.allocatable, 0),
    nodeCount: outcome.value.length,
    nodes: offering,
  };
  if (offering.length === 0) {
    const message =
      `no node offers ${resource} (0 of ${gpus.nodeCount} node${gpus.nodeCount === 1 ? '' : 's'}): ` +
      `a container that requests one stays Pending, Unschedulable: Insufficient ${resource}`;
    // Not asked for: said plainly, without failing; a resource named explicitly and missing is a warning.
    return { ...base, status: needed ? 'fail' : context.gpuResourceNamed ? 'warn' : 'pass', message, gpus };
  }
  const perNode = offering
    .map((node) => `${node.name} ${node.allocatable}${node.ready ? '' : ', not Ready'}${node.schedulable ? '' : ', cordoned'}`)
    .join('; ');
  const capacity = `${resource}: ${gpus.total} allocatable on ${offering.length} of ${gpus.nodeCount} node${gpus.nodeCount === 1 ? '' : 's'} (${perNode})`;
  if (!needed) return { ...base, status: 'pass', message: capacity, gpus };
  const usable = offering.filter((node) => node.ready && node.schedulable && node.allocatable >= wanted);
  if (usable.length === 0) {
    return {
      ...base,
      status: 'fail',
      message: `${capacity}: no Ready, schedulable node has ${wanted}, so such a container stays Pending, Unschedulable: Insufficient ${resource}`,
      gpus,
    };
  }
  return {
    ...base,
    status: 'pass',
    message: `${capacity}: ${wanted} fit on ${usable.map((node) => node.name).join(', ')} (before other Pods' requests)`,
    gpus,
  };
}

/**
 * What a container with storage meets: the default StorageClass (its binding mode, whether
 * it allows expansion) and the cluster-wide verbs on StorageClasses. Never needed: storage
 * is per container, and a spec may name its class; a problem is a warning.
 */
function storageItem(gathered: Gathered['storage'], context: ReportContext, elapsed: (o: { atMs: number }) => number): CheckItem {
  const outcomes = [gathered.classes, ...gathered.reviews.values()];
  const base = { id: 'storage', needed: false, durationMs: Math.max(0, ...outcomes.map(elapsed)) } as const;
  const answers = CLUSTER_PERMISSIONS.map((permission): PermissionAnswer | undefined => {
    const outcome = gathered.reviews.get(permissionLabel(permission));
    if (outcome?.kind !== 'value') return undefined;
    const status = outcome.value.status;
    return {
      permission: permissionLabel(permission),
      allowed: status?.allowed === true && status.denied !== true,
      ...(status?.reason ? { reason: oneLine(status.reason) } : {}),
      ...(status?.evaluationError ? { evaluationError: oneLine(status.evaluationError) } : {}),
    };
  });
  const reviewed = answers.every((answer) => answer !== undefined);
  const missing = reviewed ? answers.filter((answer) => !answer.allowed).map((answer) => answer.permission) : [];
  const verbs = reviewed
    ? missing.length === 0
      ? 'may get and list storageclasses cluster-wide'
      : `missing cluster-wide: ${missing.join(', ')} (a ClusterRole grants them: docs/rbac.md)`
    : 'could not review the cluster-wide storageclasses verbs';
  const permissions = reviewed ? { permissions: answers, missing } : {};

  const classes = gathered.classes;
  if (classes.kind !== 'value') {
    const why =
      classes.kind === 'timeout'
        ? `no answer within ${context.timeoutMs} ms`
        : classes.error instanceof ForbiddenError
          ? 'may not list storageclasses'
          : errorMessage(classes.error);
    return {
      ...base,
      status: 'warn',
      message: `cannot tell which StorageClass is the default: ${why}; ${verbs}`,
      ...(classes.kind === 'error' ? { error: errorName(classes.error) } : {}),
      ...permissions,
    };
  }
  const names = classes.value.map((each) => each.metadata?.name ?? '').filter(Boolean);
  const { chosen, defaults } = defaultStorageClass(classes.value);
  const found = { storageClasses: names, defaultStorageClass: chosen ? summarizeStorageClass(chosen) : null, ...permissions };
  if (!chosen) {
    const have = names.length > 0 ? `the cluster has ${names.join(', ')}` : 'the cluster has no StorageClass at all';
    return {
      ...base,
      status: 'warn',
      message: `no default StorageClass: a container with storage must name one (storage.storageClass, --storage-class); ${have}; ${verbs}`,
      ...found,
    };
  }
  const others =
    defaults.length > 1
      ? `; also marked default: ${defaults
          .slice(1)
          .map((each) => each.metadata?.name ?? '')
          .join(', ')}`
      : '';
  const grows = chosen.allowVolumeExpansion === true ? '' : ' (reconfigure cannot grow its volumes)';
  const problem = missing.length > 0 || !reviewed || chosen.allowVolumeExpansion !== true || defaults.length > 1;
  return {
    ...base,
    status: problem ? 'warn' : 'pass',
    message: `default StorageClass ${describeStorageClass(chosen)}${grows}${others}; ${verbs}`,
    ...found,
  };
}

/**
 * Whether the RuntimeClass the containers name exists: the API server refuses every Pod of a
 * class it does not know. Needed only when one is named; the handler behind it (writable
 * cgroups for a system container, say) is the node's, and only a boot shows it.
 */
function runtimeClassItem(
  outcome: Outcome<V1RuntimeClass> | undefined,
  context: ReportContext,
  rootCause: RootCause | undefined,
  elapsed: (o: { atMs: number }) => number,
): CheckItem {
  const name = context.runtimeClass;
  if (outcome === undefined || name === undefined) {
    return {
      id: 'runtime-class',
      status: 'skip',
      needed: false,
      message: "no RuntimeClass named (runtimeClass, --runtime-class): containers run with the cluster's default runtime",
      durationMs: 0,
    };
  }
  const base = { id: 'runtime-class', needed: true, durationMs: elapsed(outcome) } as const;
  if (outcome.kind === 'value') {
    const handler = outcome.value.handler ?? '';
    return {
      ...base,
      status: 'pass',
      message: `RuntimeClass ${name} exists (handler ${handler || 'not given'})`,
      runtimeClassHandler: handler,
    };
  }
  if (rootCause) return { ...base, status: 'skip', message: `not checked: ${rootCause.why} (see ${rootCause.item})` };
  if (outcome.kind === 'timeout') return { ...base, status: 'warn', message: `cannot tell: no answer within ${context.timeoutMs} ms` };
  const error = outcome.error;
  if (error instanceof NotFoundError) {
    return {
      ...base,
      status: 'fail',
      message: `RuntimeClass ${name} does not exist: the API server refuses every Pod that names it (a cluster admin creates it for a configured runtime handler)`,
      error: error.name,
    };
  }
  if (error instanceof ForbiddenError) {
    return {
      ...base,
      status: 'warn',
      message: `cannot tell whether RuntimeClass ${name} exists: may not get runtimeclasses.node.k8s.io`,
      error: error.name,
    };
  }
  return { ...base, status: 'warn', message: `cannot tell: ${errorMessage(error)}`, error: errorName(error) };
}
