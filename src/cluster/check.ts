// check(): will provisioning work with this kubeconfig, context and namespace? One report,
// every item pass, warn, fail or skip with its reason. The kubeconfig is loaded first
// (no request before it loads); then every question goes to the API server at once and
// the whole check races one time bound, so a silent server costs `timeoutMs`, not the
// sum of its requests' timeouts. Nothing is thrown for what the cluster answers: only bad
// input (InvalidSpecError, InvalidOptionError) and an abort reject.
import {
  asyncScheduler,
  defer,
  forkJoin,
  last,
  lastValueFrom,
  map,
  of,
  catchError,
  takeUntil,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { KubeconfigInvalidError, KubeconfigNotFoundError, UnknownContextError } from '../errors/kubeconfig.js';
import { OperationAbortedError } from '../errors/operation.js';
import { ALL_NAMESPACES, type KubernetesClient } from '../kube/client.js';
import { InvalidOptionError } from '../errors/input.js';
import { DEFAULT_GPU_RESOURCE, dns1123SubdomainProblem, gpuResourceProblem } from '../input/gpus.js';
import { KubernetesApi, type KubernetesApiOptions } from '../kube/kubernetes-api.js';
import { resolveKubeconfigPath } from '../kube/kubeconfig.js';
import { abortOn } from '../rx/abort-on.js';
import { maskOutput } from '../rx/mask-output.js';
import { maskOf } from '../mask.js';
import { isoTime } from '../rx/clock-time.js';
import { fromAbortable } from '../rx/from-abortable.js';
import { DURATION_RULES } from '../input/duration.js';
import { namespaceProblem } from '../input/fields.js';
import { abortSignal, checkOptions, checkedLater, duration, type OptionTable } from '../input/options.js';
import { longTimer } from '../rx/long-timer.js';

import {
  CHECK_ITEM_IDS,
  assembleReport,
  itemNeeded,
  type CheckItem,
  type CheckReport,
  type Gathered,
  type Outcome,
} from './check-report.js';
import {
  CLUSTER_PERMISSIONS,
  OPERATION_NAMES,
  OPERATION_PERMISSIONS,
  permissionLabel,
  type OperationName,
  type Permission,
} from './permissions.js';
import { parseResourceRequest } from './resource-request.js';
import type { PodRequest } from './namespace-limits.js';
import { probeStreamingLists } from './watch-list-probe.js';
import { probeStopSignal } from '../kube/stop-signal-probe.js';

export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

export interface CheckOptions {
  /** Namespace to check; default: the client's. */
  readonly namespace?: string;
  /** `{ cpus, memoryMb }` (or a whole workload spec): also check the namespace's LimitRanges and ResourceQuotas. */
  readonly spec?: unknown;
  /**
   * The extended resource whose capacity the `gpus` item reports; default: the spec's
   * `gpuResource`, else nvidia.com/gpu. Named and offered by no node: a warning.
   */
  readonly gpuResource?: string;
  /**
   * The RuntimeClass the containers run with (a system container's, say): the
   * `runtime-class` item says whether it exists. Default: the spec's `runtimeClass`; neither:
   * the item is skipped.
   */
  readonly runtimeClass?: string;
  /** Whose permissions are needed: `create` (provisioning only) or `lifecycle` (default: everything). */
  readonly needs?: OperationName;
  /** Bound on the whole check; items without an answer by then are reported as such. Default 10000. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Clock and timers (tests pass a virtual-time scheduler). */
  readonly scheduler?: SchedulerLike;
}

const CHECK_OPTIONS: OptionTable = {
  needs: (value) =>
    (OPERATION_NAMES as readonly unknown[]).includes(value)
      ? undefined
      : `must be one of ${OPERATION_NAMES.join(', ')} (got ${String(value)})`,
  timeoutMs: duration(DURATION_RULES.readTimeoutMs),
  namespace: namespaceProblem,
  gpuResource: (value) => (typeof value === 'string' ? gpuResourceProblem(value) : 'must be a string such as nvidia.com/gpu'),
  signal: abortSignal,
  runtimeClass: (value) => (typeof value === 'string' ? dns1123SubdomainProblem(value) : 'must be a string (a RuntimeClass name)'),
  spec: checkedLater,
  scheduler: checkedLater,
};

/** A client, or the options to load one (then a kubeconfig that does not load is a failing item). */
export type CheckTarget = KubernetesClient | KubernetesApiOptions;

export async function check(target: CheckTarget, options: CheckOptions = {}): Promise<CheckReport> {
  const scheduler = options.scheduler ?? asyncScheduler;
  checkOptions(options, CHECK_OPTIONS, { noun: 'check options' });
  const needs = options.needs ?? 'lifecycle';
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const request = options.spec === undefined ? undefined : parseResourceRequest(withGpuResource(options.spec, options.gpuResource));
  const specResource = request?.gpus?.resource;
  if (options.gpuResource !== undefined && specResource !== undefined && options.gpuResource !== specResource) {
    throw new InvalidOptionError(
      'gpuResource',
      `gpuResource ${options.gpuResource} differs from the spec's ${specResource}: give one (the spec's gpuResource is the one checked)`,
    );
  }
  const gpuResource = options.gpuResource ?? specResource ?? DEFAULT_GPU_RESOURCE;
  const runtimeClass = options.runtimeClass ?? specRuntimeClass(options.spec);
  if (options.signal?.aborted) throw new OperationAbortedError('check', undefined, options.signal.reason);

  const startedAtMs = scheduler.now();
  const checkedAt = isoTime(scheduler);
  let api: KubernetesClient;
  try {
    api = isClient(target) ? target : KubernetesApi.fromConfig(target);
  } catch (error) {
    if (error instanceof KubeconfigNotFoundError || error instanceof KubeconfigInvalidError || error instanceof UnknownContextError) {
      return unloadedReport(error, target, { needs, checkedAt, namespace: options.namespace, request, runtimeClass });
    }
    throw error;
  }
  const namespace = options.namespace ?? api.namespace;

  const deadline$ = longTimer(timeoutMs, scheduler);
  const ask = <T>(job: (signal: AbortSignal) => Promise<T>): Observable<Outcome<T>> =>
    fromAbortable(job).pipe(
      map((value): Outcome<T> => ({ kind: 'value', value, atMs: scheduler.now() })),
      catchError((error: unknown) => of<Outcome<T>>({ kind: 'error', error, atMs: scheduler.now() })),
      takeUntil(deadline$),
      last(undefined, undefined),
      map((outcome): Outcome<T> => outcome ?? { kind: 'timeout', atMs: scheduler.now() }),
    );

  const permissions = uniquePermissions();
  const gathered$ = forkJoin({
    version: ask((signal) => api.version({ signal })),
    identity: ask((signal) => api.selfSubjectReview({ signal })),
    streamingLists: ask((signal) => probeStreamingLists(api, namespace, signal)),
    namespace: ask((signal) => api.readNamespace(namespace, { signal })),
    nodes: ask(async (signal) => (await api.list('nodes', ALL_NAMESPACES, undefined, { signal })).items),
    reviews: forkJoin(
      permissions.map((permission) =>
        ask((signal) =>
          api.selfSubjectAccessReview(
            {
              namespace,
              verb: permission.verb,
              group: permission.group,
              resource: permission.resource,
              ...(permission.subresource ? { subresource: permission.subresource } : {}),
            },
            { signal },
          ),
        ),
      ),
    ).pipe(map((outcomes) => new Map(outcomes.map((outcome, index) => [permissionLabel(permissions[index]!), outcome])))),
    storage: forkJoin({
      classes: ask(async (signal) => (await api.list('storageclasses', '', undefined, { signal })).items),
      // Cluster-scoped: reviewed without a namespace, as `kubectl auth can-i list storageclasses` asks.
      reviews: forkJoin(
        CLUSTER_PERMISSIONS.map((permission) =>
          ask((signal) =>
            api.selfSubjectAccessReview({ verb: permission.verb, group: permission.group, resource: permission.resource }, { signal }),
          ),
        ),
      ).pipe(map((outcomes) => new Map(outcomes.map((outcome, index) => [permissionLabel(CLUSTER_PERMISSIONS[index]!), outcome])))),
    }),
    runtimeClass: runtimeClass !== undefined ? ask((signal) => api.read('runtimeclasses', '', runtimeClass, { signal })) : of(undefined),
    stopSignal: ask((signal) => probeStopSignal(api, namespace, signal)),
    limits: request
      ? forkJoin({
          limitRanges: ask((signal) => api.listLimitRanges(namespace, { signal })),
          quotas: ask((signal) => api.listResourceQuotas(namespace, { signal })),
        })
      : of(undefined),
  });

  const report$ = defer(() => gathered$).pipe(
    map(({ limits, runtimeClass: runtimeClassOutcome, ...rest }): Gathered => ({
      ...rest,
      ...(limits ? { limits } : {}),
      ...(runtimeClassOutcome ? { runtimeClass: runtimeClassOutcome } : {}),
    })),
    map((gathered) =>
      assembleReport(gathered, {
        namespace,
        server: api.server,
        connection: api.connection,
        needs,
        request,
        gpuResource,
        gpuResourceNamed: options.gpuResource !== undefined || specResource !== undefined,
        runtimeClass,
        timeoutMs,
        startedAtMs,
        checkedAt,
        finishedAtMs: scheduler.now(),
      }),
    ),
    abortOn(options.signal, (reason) => new OperationAbortedError('check', undefined, reason)),
    maskOutput(maskOf(api)),
  );
  return lastValueFrom(report$);
}

/** The spec's runtimeClass, when it names a valid one (the spec's other fields are not this check's). */
function specRuntimeClass(spec: unknown): string | undefined {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return undefined;
  const value = (spec as Record<string, unknown>).runtimeClass;
  if (value === undefined || value === null) return undefined;
  const problem = typeof value === 'string' ? dns1123SubdomainProblem(value) : 'must be a string (a RuntimeClass name)';
  if (problem) throw new InvalidOptionError('spec.runtimeClass', `spec.runtimeClass ${problem}`);
  return value as string;
}

/** A spec that asks for GPUs without naming their resource counts the option's. */
function withGpuResource(spec: unknown, gpuResource: string | undefined): unknown {
  if (gpuResource === undefined || spec === null || typeof spec !== 'object' || Array.isArray(spec)) return spec;
  const fields = spec as Record<string, unknown>;
  return fields.gpus !== undefined && fields.gpuResource === undefined ? { ...fields, gpuResource } : spec;
}

function isClient(target: CheckTarget): target is KubernetesClient {
  return typeof (target as Partial<KubernetesClient>).list === 'function';
}

/** Every permission of every operation, once. */
function uniquePermissions(): Permission[] {
  const byLabel = new Map<string, Permission>();
  for (const operation of OPERATION_NAMES) {
    for (const permission of OPERATION_PERMISSIONS[operation]) byLabel.set(permissionLabel(permission), permission);
  }
  return [...byLabel.values()];
}

/** The kubeconfig did not load: that item fails, nothing else was asked. */
function unloadedReport(
  error: KubeconfigNotFoundError | KubeconfigInvalidError | UnknownContextError,
  options: KubernetesApiOptions,
  context: {
    needs: OperationName;
    checkedAt: string;
    namespace: string | undefined;
    request: PodRequest | undefined;
    runtimeClass: string | undefined;
  },
): CheckReport {
  const items = CHECK_ITEM_IDS.map((id): CheckItem =>
    id === 'kubeconfig'
      ? { id, status: 'fail', needed: true, message: error.message, error: error.name, durationMs: 0 }
      : {
          id,
          status: 'skip',
          needed: itemNeeded(id, context.needs, context.request, context.runtimeClass),
          message: 'not checked: the kubeconfig did not load (see kubeconfig)',
          durationMs: 0,
        },
  );
  return {
    ok: false,
    namespace: context.namespace ?? options.namespace ?? null,
    server: null,
    context: options.context ?? null,
    kubeconfigPath: error instanceof UnknownContextError ? resolveKubeconfigPath(options.kubeconfigPath) : error.path,
    tlsVerify: options.tlsVerify === false ? false : null,
    needs: context.needs,
    checkedAt: context.checkedAt,
    durationMs: 0,
    items,
  };
}
