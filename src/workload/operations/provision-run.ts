// One provisioning's state, which its steps (provision.ts) share: the request as checked,
// the set it builds, the informer streams it holds, what it found or made member by
// member, and what it last saw (for the timeout's message). Made at subscription time, so
// every subscription of provision$ is a run of its own.
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { RolloutTimeoutError, WAITING_FOR_CREATE } from '../../errors/rollout.js';
import { defaultInformerRegistry, type InformerRegistry } from '../../informers/registry.js';
import { parseWorkloadSpec, type WorkloadSpec } from '../../input/workload-spec.js';
import type { KubernetesClient } from '../../kube/client.js';
import { checkManifestSize } from '../../members/deployment/manifest.js';
import { buildWorkload, deploymentOf, type BuildWorkloadOptions, type MemberTable, type WorkloadSet } from '../../members/set.js';
import type { ProgressEvent, ReadyEvent, RolloutStatus } from '../../rollout/events.js';
import { resolveFailurePolicy, type FailurePolicy, type WaitDeadline } from '../../rollout/failure-policy.js';
import type { ServiceStatusValue } from '../../rollout/service-status.js';
import { isoTime } from '../../rx/clock-time.js';
import { HeldConnections, heldGateWatches, heldWorkload } from '../toolkit/workload-streams.js';
import { DEFAULT_TIMEOUT_MS } from '../toolkit/operation.js';
import type { MemberOutcome } from './create-or-adopt.js';
import type { FailurePolicyOverrides } from '../../rollout/failure-policy.js';
import type { StorageClassChoice } from './storage-class-choice.js';

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
  /**
   * How long a new Pod must be Ready without a crash to count as running, in whole seconds
   * from 0, less than progressDeadlineSeconds; default 3 (DEFAULT_MIN_READY_SECONDS in
   * manifest.ts says why). 0 is Kubernetes' default: the first moment of readiness counts.
   */
  readonly minReadySeconds?: number;
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
  /** The member kinds of a workload; default MEMBERS (claim, Deployment, Service). */
  readonly members?: MemberTable;
}

export class ProvisionRun {
  readonly scheduler: SchedulerLike;
  readonly registry: InformerRegistry;
  readonly timeoutMs: number;
  readonly spec: WorkloadSpec;
  readonly failurePolicy: FailurePolicy;
  /** The set as first built: its names, owner and members (the claim's class not yet chosen). */
  readonly set: WorkloadSet;
  readonly target: { readonly namespace: string; readonly name: string };
  readonly startedAt: number;
  /** The run's own deadline, which a pending load balancer fails by name before. */
  readonly deadline: WaitDeadline;
  /** What this run found or made, member by member; a failure before any leaves nothing to clean up. */
  readonly outcomes: MemberOutcome[] = [];
  /** Released when the run ends, however it ends. */
  readonly held = new HeldConnections();
  /**
   * The Deployment's and Pods' streams, held from the moment the Deployment exists through
   * the writes after it: a provisioning whose Service create is slow then keeps them
   * running for the next, instead of the last to finish stopping them and the next listing
   * everything again.
   */
  readonly workload: ReturnType<typeof heldWorkload>;
  /** The informers its members' gates read (its Service's), from the start: synced by the time the wait judges them. */
  readonly gateWatches: ReturnType<typeof heldGateWatches>;
  /** A system container's Pod names systemd's stop signal where the cluster keeps it: asked before the build. */
  stopSignals = false;
  waitingFor = WAITING_FOR_CREATE;
  /** The Service as last seen routing (or not) during the wait. */
  service: ServiceStatusValue | null = null;
  private lastStatus: RolloutStatus | undefined;
  // Every build of the set takes these (the one with the chosen class too): one list, none left out.
  private readonly buildOptions: BuildWorkloadOptions;

  constructor(
    readonly client: KubernetesClient,
    input: unknown,
    readonly options: ProvisionOptions,
  ) {
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.registry = options.informers ?? defaultInformerRegistry;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.spec = parseWorkloadSpec(input);
    this.failurePolicy = resolveFailurePolicy(options.failurePolicy);
    this.buildOptions = {
      namespace: client.namespace,
      ...(options.progressDeadlineSeconds !== undefined ? { progressDeadlineSeconds: options.progressDeadlineSeconds } : {}),
      ...(options.minReadySeconds !== undefined ? { minReadySeconds: options.minReadySeconds } : {}),
    };
    this.set = buildWorkload(this.spec, this.buildOptions, options.members);
    // Before any request: the API server (or etcd behind it) would refuse it after.
    checkManifestSize(deploymentOf(this.set), this.spec);
    this.target = { namespace: this.set.namespace, name: this.set.name };
    this.startedAt = this.scheduler.now();
    this.deadline = { at: this.startedAt + this.timeoutMs, timeoutMs: this.timeoutMs };
    const scope = this.scope;
    this.workload = heldWorkload(scope, this.spec.containerId);
    this.gateWatches = heldGateWatches(scope, this.set.table, this.set.members);
  }

  get providerId(): string {
    return this.set.providerId;
  }

  /** Where the workload's informers watch. */
  get scope(): { informers: InformerRegistry; client: KubernetesClient; namespace: string; name: string; instance: string | undefined } {
    return {
      informers: this.registry,
      client: this.client,
      namespace: this.set.namespace,
      name: this.set.name,
      instance: this.spec.instance,
    };
  }

  /** The set to create: as first built, with the stop signal answer and the claim's chosen class. */
  build(choice: StorageClassChoice | undefined): WorkloadSet {
    const chosen = { ...this.buildOptions, stopSignals: this.stopSignals, ...(choice ? { storageClass: choice.name } : {}) };
    return buildWorkload(this.spec, chosen, this.set.table);
  }

  now(): string {
    return isoTime(this.scheduler);
  }

  /** Remembers what the wait saw: while the Service is awaited, its state is what the provisioning waits for. */
  track(event: ProgressEvent): void {
    this.lastStatus =
      event.service && !event.service.routed
        ? { ...event.status, state: 'InProgress', reason: event.service.reason, message: event.service.message }
        : event.status;
    if (event.service) this.service = event.service;
  }

  ready(adopted: boolean): ReadyEvent {
    const { namespace, name } = this.target;
    return {
      type: 'ready',
      at: this.now(),
      namespace,
      name,
      providerId: this.providerId,
      adopted,
      durationMs: this.scheduler.now() - this.startedAt,
      address: this.service?.address ?? null,
      service: this.service,
    };
  }

  timeoutError(): RolloutTimeoutError {
    return new RolloutTimeoutError(this.target, this.timeoutMs, this.lastStatus, this.waitingFor);
  }
}
