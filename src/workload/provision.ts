// provision$() and provision(): from a Manager container description to a rolled-out
// Deployment and its provider ID "namespace/name".
//
//   validate -> build manifest -> create (or adopt on 409) -> created/adopted event
//   -> progress events from the shared informers until the rollout completes -> ready
//
// The whole of it, the create included, races one deadline (`timeoutMs`) and the caller's
// AbortSignal; on every way out the informer subscriptions, timers and any request in
// flight are released. When it fails after creating the Deployment, the error (with its
// diagnosis) is held while that Deployment is deleted (cleanup.ts), for at most
// `cleanupTimeoutMs`, unless the caller keeps it; `error.cleanup` and the message say which
// happened. So the whole call settles within timeoutMs + cleanupTimeoutMs. An abort deletes
// nothing.
import {
  asyncScheduler,
  catchError,
  concat,
  defer,
  filter,
  lastValueFrom,
  map,
  of,
  switchMap,
  tap,
  throwError,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { isoTime } from '../rx/clock-time.js';
import {
  InvalidOptionError,
  ProvisionAbortedError,
  RolloutTimeoutError,
  WAITING_FOR_CREATE,
  WAITING_FOR_ROLLOUT,
  WorkloadDriftError,
} from '../errors.js';
import { DURATION_RULES, progressDeadlineProblem, requireDuration } from '../spec/duration.js';
import { defaultInformerRegistry, type InformerRegistry } from '../informers/registry.js';
import type { KubernetesClient } from '../kube/client.js';
import { parseWorkloadSpec } from '../spec/workload-spec.js';
import { abortOn } from '../rx/abort-on.js';
import { awaitRollout } from '../rollout/await-rollout.js';
import { deadline } from '../rx/deadline.js';
import { maskOutput } from '../rx/mask-output.js';
import { maskOf } from '../mask.js';
import type { ProgressEvent, ProvisionEvent, ReadyEvent, RolloutStatus } from '../rollout/events.js';
import { resolveFailurePolicy, type FailurePolicyOverrides } from '../rollout/failure-policy.js';
import { DEFAULT_CLEANUP_TIMEOUT_MS, deleteCreated, withCleanup, type CreatedDeployment } from './cleanup.js';
import { createOrAdopt } from './create-or-adopt.js';
import { buildDeployment, checkManifestSize } from './manifest.js';
import { formatProviderId } from '../spec/provider-id.js';
import { deploymentSnapshots, podSnapshots } from './rollout-sources.js';
import { isReconfigurable } from './drift.js';
import { operationContext } from './lifecycle.js';
import { reconfigureAdopted } from './reconfigure.js';

export const DEFAULT_TIMEOUT_MS = 300_000;

export interface ProvisionOptions {
  /**
   * Bound on the whole provisioning, create included, in whole milliseconds from 1 to 365
   * days; `Infinity` means no bound (the rollout's own outcome, or the signal, ends it).
   * Default 300000 (5 minutes).
   */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /**
   * The Deployment's own progress deadline, in whole seconds from 1 to 2147483647 (which the
   * deployment controller reads as "no deadline"); default 600 s (Kubernetes' default).
   */
  readonly progressDeadlineSeconds?: number;
  /** When a Pod problem fails the provisioning (see failure-policy.ts). */
  readonly failurePolicy?: FailurePolicyOverrides;
  /** Clock and timers (tests inject a TestScheduler or a virtual-time scheduler). */
  readonly scheduler?: SchedulerLike;
  /** Shared informers; default: one registry for the process. */
  readonly informers?: InformerRegistry;
  /**
   * On failure, keep the Deployment this run created, for debugging. Default false: it is
   * deleted with its Pods once the failure is diagnosed (an adopted one is never deleted).
   */
  readonly keepOnFailure?: boolean;
  /**
   * Bound on that deletion, its delete request included, in whole milliseconds from 0 to 365
   * days; past it `error.cleanup` says how far it got (`deleting`: accepted, not confirmed
   * gone; `unconfirmed`: sent, not answered). Default 5000. The whole call settles within
   * `timeoutMs` plus this.
   */
  readonly cleanupTimeoutMs?: number;
  /**
   * When a Deployment of this container-id exists already but differs from the request
   * (image, resources, env, entrypoint, args, replicas, labels): `fail` (default) with
   * WorkloadDriftError listing the fields, nothing changed; `reconfigure` rewrites its
   * containers to the request (and replicas to 1) and waits for that rollout. Labels are
   * never rewritten: a label difference fails either way.
   */
  readonly onDrift?: 'fail' | 'reconfigure';
}

export interface ProvisionResult {
  readonly providerId: string;
  readonly namespace: string;
  readonly name: string;
  readonly adopted: boolean;
  readonly durationMs: number;
}

const OPTION_NAMES: readonly string[] = [
  'timeoutMs',
  'signal',
  'progressDeadlineSeconds',
  'failurePolicy',
  'scheduler',
  'informers',
  'onDrift',
  'keepOnFailure',
  'cleanupTimeoutMs',
];

/** Every option, checked before anything is sent; an unknown key is a typo, never ignored. */
function checkProvisionOptions(options: ProvisionOptions): void {
  if (options === null || typeof options !== 'object') throw new InvalidOptionError('options', 'provision options must be an object');
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.includes(key)) {
      throw new InvalidOptionError(key, `${key} is not a provision option (allowed: ${OPTION_NAMES.join(', ')})`);
    }
  }
  if (options.timeoutMs !== undefined) requireDuration('timeoutMs', options.timeoutMs, DURATION_RULES.timeoutMs);
  if (options.progressDeadlineSeconds !== undefined) {
    const problem = progressDeadlineProblem(options.progressDeadlineSeconds);
    if (problem) throw new InvalidOptionError('progressDeadlineSeconds', `progressDeadlineSeconds ${problem}`);
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new InvalidOptionError('signal', 'signal must be an AbortSignal');
  }
  if (options.onDrift !== undefined && options.onDrift !== 'fail' && options.onDrift !== 'reconfigure') {
    throw new InvalidOptionError('onDrift', `onDrift must be "fail" or "reconfigure" (got ${String(options.onDrift)})`);
  }
  if (options.keepOnFailure !== undefined && typeof options.keepOnFailure !== 'boolean') {
    throw new InvalidOptionError('keepOnFailure', 'keepOnFailure must be true or false');
  }
  if (options.cleanupTimeoutMs !== undefined)
    requireDuration('cleanupTimeoutMs', options.cleanupTimeoutMs, DURATION_RULES.cleanupTimeoutMs);
}

/** Cold: nothing happens until subscribed; each subscription provisions once. */
export function provision$(client: KubernetesClient, input: unknown, options: ProvisionOptions = {}): Observable<ProvisionEvent> {
  return defer(() => {
    checkProvisionOptions(options);
    const scheduler = options.scheduler ?? asyncScheduler;
    const registry = options.informers ?? defaultInformerRegistry;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const spec = parseWorkloadSpec(input);
    const failurePolicy = resolveFailurePolicy(options.failurePolicy);
    const manifest = buildDeployment(spec, {
      namespace: client.namespace,
      ...(options.progressDeadlineSeconds !== undefined ? { progressDeadlineSeconds: options.progressDeadlineSeconds } : {}),
    });
    // Before any request: the API server (or etcd behind it) would refuse it after.
    checkManifestSize(manifest, spec);
    const namespace = manifest.metadata!.namespace!;
    const name = manifest.metadata!.name!;
    const providerId = formatProviderId(namespace, name);
    const target = { namespace, name };
    const startedAt = scheduler.now();
    const at = (): string => isoTime(scheduler);
    let lastStatus: RolloutStatus | undefined;
    let waitingFor = WAITING_FOR_CREATE;
    // What this run found or made; a failure before it existed leaves nothing to clean up.
    let workload: { readonly adopted: boolean; readonly deployment: CreatedDeployment } | undefined;

    const onDrift = options.onDrift ?? 'fail';
    if (onDrift !== 'fail' && onDrift !== 'reconfigure') {
      throw new InvalidOptionError('onDrift', `onDrift must be "fail" or "reconfigure" (got ${JSON.stringify(onDrift)})`);
    }

    const work$ = createOrAdopt(client, manifest).pipe(
      switchMap(({ deployment, adopted, drift }) => {
        waitingFor = WAITING_FOR_ROLLOUT;
        const uid = deployment.metadata?.uid ?? '';
        workload = { adopted, deployment: { namespace, name, uid, providerId, instance: spec.instance } };
        if (drift.length > 0) {
          const fixed = onDrift === 'reconfigure' && drift.every(isReconfigurable);
          if (!fixed) {
            const hint =
              onDrift === 'reconfigure'
                ? 'labels cannot be reconfigured; nothing was changed'
                : "nothing was changed (onDrift: 'reconfigure', or --on-drift reconfigure, applies the requested spec)";
            throw new WorkloadDriftError(target, drift, hint);
          }
          const context = operationContext('create', client, target, { ...options, containerId: spec.containerId });
          return concat(
            of<ProvisionEvent>({
              type: 'adopted',
              at: at(),
              namespace,
              name,
              providerId,
              uid,
              reconfigured: drift.map((each) => each.field),
            }),
            reconfigureAdopted(context, deployment, spec).pipe(
              filter((event): event is ProgressEvent => event.type === 'progress'),
              tap((event) => (lastStatus = event.status)),
            ),
            defer(() =>
              of<ReadyEvent>({ type: 'ready', at: at(), namespace, name, providerId, adopted, durationMs: scheduler.now() - startedAt }),
            ),
          );
        }
        return concat(
          of<ProvisionEvent>({ type: adopted ? 'adopted' : 'created', at: at(), namespace, name, providerId, uid }),
          awaitRollout(
            { namespace, name, uid, providerId },
            deploymentSnapshots(registry, client, namespace, name, spec.instance),
            podSnapshots(registry, client, namespace, spec.containerId, spec.instance),
            { scheduler, failurePolicy },
          ).pipe(tap((event) => (lastStatus = event.status))),
          defer(() =>
            of<ReadyEvent>({ type: 'ready', at: at(), namespace, name, providerId, adopted, durationMs: scheduler.now() - startedAt }),
          ),
        );
      }),
    );

    return work$.pipe(
      deadline(timeoutMs, () => new RolloutTimeoutError(target, timeoutMs, lastStatus, waitingFor), scheduler),
      catchError((error: unknown) => {
        if (!workload) return throwError(() => error);
        const { adopted, deployment } = workload;
        if (adopted || options.keepOnFailure) {
          const outcome = adopted ? 'adopted' : 'kept';
          return throwError(() => withCleanup(error, { outcome, providerId, uid: deployment.uid }));
        }
        return deleteCreated(client, deployment, {
          registry,
          scheduler,
          timeoutMs: options.cleanupTimeoutMs ?? DEFAULT_CLEANUP_TIMEOUT_MS,
        }).pipe(switchMap((cleanup) => throwError(() => withCleanup(error, cleanup))));
      }),
      abortOn(options.signal, (reason) => new ProvisionAbortedError(target, reason)),
    );
  }).pipe(maskOutput(maskOf(client)));
}

/** The Promise form: resolves with the provider ID once the rollout is complete. */
export function provision(client: KubernetesClient, input: unknown, options: ProvisionOptions = {}): Promise<ProvisionResult> {
  return lastValueFrom(
    provision$(client, input, options).pipe(
      filter((event): event is ReadyEvent => event.type === 'ready'),
      map(({ providerId, namespace, name, adopted, durationMs }) => ({ providerId, namespace, name, adopted, durationMs })),
    ),
  );
}
