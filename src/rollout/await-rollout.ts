// awaitRollout(): turns the informer's snapshots of one Deployment (and of its Pods) into
// progress events; completes when the rollout is Complete, errors when it Failed, when a
// Pod problem trips the failure policy, or when the Deployment disappears.
//
// Only the object with the UID we created (or adopted) counts: a cached object of the
// same name with another UID is an older, deleted Deployment whose status must never be
// read as ours. Each snapshot is judged as it arrives, by the tracker's one step
// (tracker.ts); the only timer is the grace window it names, armed through the long-timer
// helper, and only while a Pod problem or a create failure is open.
import type { V1Deployment, V1Pod } from '../kube/objects.js';
import { Observable, asyncScheduler, type Observer, type SchedulerLike, type Subscriber, type Subscription } from 'rxjs';
import { isoTime } from '../rx/clock-time.js';
import { scheduleAfter } from '../rx/long-timer.js';
import { RolloutFailedError } from '../errors/rollout.js';
import { describeProgress } from './describe-progress.js';
import type { PodDiagnosis, ProgressEvent, RolloutStatus } from './events.js';
import { DEFAULT_FAILURE_POLICY, type FailurePolicy } from './failure-policy.js';
import { INITIAL_TRACKER_STATE, trackRollout, type TrackerState } from './tracker.js';

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
 * closures, so that thousands of waiters share one set of methods and an event reaches
 * its waiter through one object (bench/results/micro.md has the cost per event by the
 * number of waiters).
 */
class RolloutWatch implements Observer<readonly V1Deployment[]> {
  private deployment: V1Deployment | undefined;
  private currentPods: readonly V1Pod[] = [];
  private state: TrackerState = INITIAL_TRACKER_STATE;
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

  private emit(status: RolloutStatus, pod: PodDiagnosis | undefined, podsReady = false, words?: string): void {
    const resourceVersion = this.deployment?.metadata?.resourceVersion;
    const message = words ?? describeProgress(status, pod, { podsReady });
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
    const step = trackRollout(this.policy, this.state, { deployment, pods: this.currentPods, now: this.scheduler.now() });
    this.state = step.state;
    if (step.failure) {
      this.fail(step.failure.reason, step.failure.detail, step.failure.pod);
      return;
    }
    if (step.complete) {
      this.emit(step.rollout, undefined);
      this.subscriber.complete();
      return;
    }
    this.scheduleRecheck(step.recheckAt);
    const gate = step.waitingFor;
    if (gate) this.emit(step.rollout, undefined, false, `waiting for the ${gate.kind} ${gate.name}: ${gate.status.message}`);
    else this.emit(step.rollout, step.pod, step.podsReady);
  }
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

function findByUid(objects: readonly V1Deployment[], uid: string): V1Deployment | undefined {
  for (const object of objects) if (object.metadata?.uid === uid) return object;
  return undefined;
}
