// awaitRollout(): turns the informer's snapshots of one Deployment (and of its Pods) into
// progress events; completes when the rollout is Complete, errors when it Failed, when a
// Pod problem trips the failure policy, or when the Deployment disappears.
//
// Only the object with the UID we created (or adopted) counts: a cached object of the
// same name with another UID is an older, deleted Deployment whose status must never be
// read as ours. Each snapshot is evaluated as it arrives; the only timer is the failure
// policy's grace window, and only while a Pod problem or a create failure is open.
import type { V1Deployment, V1Pod } from '../kube/objects.js';
import { Observable, asyncScheduler, type Observer, type SchedulerLike, type Subscriber, type Subscription } from 'rxjs';
import { isoTime } from '../rx/clock-time.js';
import { scheduleAfter } from '../rx/long-timer.js';
import { RolloutFailedError } from '../errors/rollout.js';
import { describeProgress } from './describe-progress.js';
import type { PodDiagnosis, ProgressEvent, RolloutStatus } from './events.js';
import {
  DEFAULT_FAILURE_POLICY,
  INITIAL_POLICY_STATE,
  applyCreateFailurePolicy,
  applyFailurePolicy,
  type FailurePolicy,
  type PolicyState,
} from './failure-policy.js';
import { diagnosePod } from './pod-diagnosis.js';
import { rolloutStatus } from './rollout-status.js';
import { currentRolloutPods } from './rollout-pods.js';

export interface RolloutTarget {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly providerId: string;
}

export interface AwaitRolloutOptions {
  readonly scheduler?: SchedulerLike;
  readonly failurePolicy?: FailurePolicy;
}

/**
 * @param deployments$ the cached objects named like the target, per change (zero or one;
 *   another UID means an older object not yet removed from the cache)
 * @param pods$ the cached Pods carrying the target's container-id label, per change
 */
export function awaitRollout(
  target: RolloutTarget,
  deployments$: Observable<readonly V1Deployment[]>,
  pods$: Observable<readonly V1Pod[]>,
  options: AwaitRolloutOptions = {},
): Observable<ProgressEvent> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const policy = options.failurePolicy ?? DEFAULT_FAILURE_POLICY;

  return new Observable<ProgressEvent>((subscriber) => {
    const watch = new RolloutWatch(target, scheduler, policy, subscriber);
    // The watch is the Deployment stream's observer itself: no per-waiter closures.
    const deploymentSubscription = deployments$.subscribe(watch);
    const podSubscription = pods$.subscribe(new PodObserver(watch));
    return () => {
      watch.close();
      deploymentSubscription.unsubscribe();
      podSubscription.unsubscribe();
    };
  });
}

/**
 * One waiter's state, and the observer of its Deployment snapshots. A class rather than
 * closures: with thousands of waiters, an event reaches its waiter through one object
 * whose methods are shared, instead of a chain of per-waiter closures that are each a
 * cold cache line.
 */
class RolloutWatch implements Observer<readonly V1Deployment[]> {
  private deployment: V1Deployment | undefined;
  private currentPods: readonly V1Pod[] = [];
  private policyState: PolicyState = INITIAL_POLICY_STATE;
  private createFailureSince: number | undefined;
  private recheck: Subscription | undefined;
  private recheckAt: number | undefined;
  // The last progress line emitted, by parts: no string is built to compare them.
  private lastState: string | undefined;
  private lastReason: string | undefined;
  private lastMessage: string | undefined;

  constructor(
    private readonly target: RolloutTarget,
    private readonly scheduler: SchedulerLike,
    private readonly policy: FailurePolicy,
    private readonly subscriber: Subscriber<ProgressEvent>,
  ) {}

  next(objects: readonly V1Deployment[]): void {
    if (this.subscriber.closed) return;
    const ours = findByUid(objects, this.target.uid);
    if (ours) {
      this.deployment = ours;
      this.evaluate();
    } else if (this.deployment) {
      const replaced = objects.length > 0;
      this.fail(
        'Deleted',
        replaced
          ? 'the Deployment was deleted and replaced by another object of the same name while waiting'
          : 'the Deployment was deleted while waiting for its rollout',
      );
    }
    // Not seen yet: the cache has not caught up with our create. Keep waiting.
  }

  error(error: unknown): void {
    this.subscriber.error(error);
  }

  complete(): void {}

  onPods(objects: readonly V1Pod[]): void {
    this.currentPods = objects;
    this.evaluate();
  }

  close(): void {
    this.recheck?.unsubscribe();
  }

  private fail(reason: string, detail: string, pod?: PodDiagnosis): void {
    this.subscriber.error(
      new RolloutFailedError(
        this.target,
        reason,
        detail,
        pod ? { pod: pod.pod, ...(pod.container ? { container: pod.container } : {}) } : {},
      ),
    );
  }

  private emit(status: RolloutStatus, pod: PodDiagnosis | undefined, podsReady = false): void {
    const resourceVersion = this.deployment?.metadata?.resourceVersion;
    const message = describeProgress(status, pod, { podsReady });
    if (status.state === this.lastState && status.reason === this.lastReason && message === this.lastMessage) return;
    this.lastState = status.state;
    this.lastReason = status.reason;
    this.lastMessage = message;
    const { target } = this;
    this.subscriber.next({
      type: 'progress',
      at: isoTime(this.scheduler),
      namespace: target.namespace,
      name: target.name,
      providerId: target.providerId,
      status,
      ...(resourceVersion ? { resourceVersion } : {}),
      message,
      ...(pod ? { pod } : {}),
    });
  }

  private scheduleRecheck(at: number | undefined): void {
    if (at === this.recheckAt) return;
    this.recheck?.unsubscribe();
    this.recheckAt = at;
    this.recheck =
      at === undefined
        ? undefined
        : scheduleAfter(this.scheduler, Math.max(0, at - this.scheduler.now()), () => {
            this.recheckAt = undefined;
            this.evaluate();
          });
  }

  /**
   * Evaluates the latest snapshots. Runs inside the informer's event delivery: whatever it
   * throws ends this waiter with the error, never the informer or the process.
   */
  private evaluate(): void {
    try {
      this.evaluateNow();
    } catch (error) {
      this.subscriber.error(error);
    }
  }

  private evaluateNow(): void {
    const deployment = this.deployment;
    if (!deployment || this.subscriber.closed) return;
    const status = rolloutStatus(deployment);
    if (status.state === 'Failed') {
      this.fail(status.reason, status.message);
      return;
    }
    if (status.state === 'Complete') {
      this.emit(status, undefined);
      this.subscriber.complete();
      return;
    }
    const now = this.scheduler.now();
    const createVerdict = applyCreateFailurePolicy(this.policy, this.createFailureSince, status.createFailure, now);
    this.createFailureSince = createVerdict.since;
    if (createVerdict.fatal && status.createFailure) {
      this.fail(status.createFailure.reason, status.createFailure.message);
      return;
    }
    const current = currentRolloutPods(deployment, this.currentPods);
    const diagnoses =
      current.length === 0
        ? NO_DIAGNOSES
        : current.map(diagnosePod).filter((diagnosis): diagnosis is PodDiagnosis => diagnosis !== undefined);
    const verdict = applyFailurePolicy(this.policy, this.policyState, diagnoses, now);
    this.policyState = verdict.state;
    if (verdict.failure) {
      this.fail(verdict.failure.reason, verdict.failure.message, verdict.failure);
      return;
    }
    this.scheduleRecheck(earliest(verdict.recheckAt, createVerdict.recheckAt));
    this.emit(status, mostTelling(diagnoses), current.length > 0 && diagnoses.length === 0);
  }
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

class PodObserver implements Observer<readonly V1Pod[]> {
  constructor(private readonly watch: RolloutWatch) {}

  next(objects: readonly V1Pod[]): void {
    this.watch.onPods(objects);
  }

  error(error: unknown): void {
    this.watch.error(error);
  }

  complete(): void {}
}

const NO_DIAGNOSES: readonly PodDiagnosis[] = Object.freeze([]);

function findByUid(objects: readonly V1Deployment[], uid: string): V1Deployment | undefined {
  for (const object of objects) if (object.metadata?.uid === uid) return object;
  return undefined;
}

/** The diagnosis a user most needs to see first: failures before waits. */
function mostTelling(diagnoses: readonly PodDiagnosis[]): PodDiagnosis | undefined {
  return diagnoses.find((diagnosis) => diagnosis.severity === 'failed') ?? diagnoses[0];
}
