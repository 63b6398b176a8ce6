// awaitRollout(): turns the informer's snapshots of one Deployment (and of its Pods, and
// the gates of the workload's other objects) into progress events; completes when the
// rollout and every gate are Complete, errors when it Failed, when a gate failed, when a
// Pod problem trips the failure policy, or when the Deployment disappears.
//
// Only the object with the UID we created (or adopted) counts: a cached object of the
// same name with another UID is an older, deleted Deployment whose status must never be
// read as ours. Each snapshot is judged as it arrives, by the tracker's one step
// (tracker.ts); the only timer is the grace window it names, armed through the long-timer
// helper, and only while a Pod problem, a create failure or a gate's grace is open.
//
// When the step names a crash, its last log lines are read (readCrashLog, at most once per
// crash): a progress event says the crash at once and again with the lines once they are
// in; a failure is decided at once and ends the wait when its lines are in (the read is
// bounded), its RolloutFailedError carrying them.
import type { V1Deployment, V1Pod } from '../kube/objects.js';
import { Observable, asyncScheduler, type Observer, type SchedulerLike, type Subscriber } from 'rxjs';
import { isoTime } from '../rx/clock-time.js';
import { RecheckTimer } from '../rx/recheck-timer.js';
import { RolloutFailedError } from '../errors/rollout.js';
import { CrashLogReads, withCrashLines, type CrashLogReader } from './crash-lines.js';
import { describeProgress } from './describe-progress.js';
import type { GateProgress, PodDiagnosis, ProgressEvent, RolloutStatus } from './events.js';
import { DEFAULT_FAILURE_POLICY, type FailurePolicy } from './failure-policy.js';
import { INITIAL_TRACKER_STATE, trackRollout, type TrackedGate, type TrackerState } from './tracker.js';

export interface RolloutTarget {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly providerId: string;
}

export interface AwaitRolloutOptions {
  readonly scheduler?: SchedulerLike;
  readonly failurePolicy?: FailurePolicy;
  /**
   * The readiness gates of the workload's other objects (its claim, its Service), per
   * change: each must be Complete too, and the wait completes only once they have come.
   */
  readonly gates$?: Observable<readonly TrackedGate[]>;
  /** Reads a crashed container's last lines; without it, failures carry none. */
  readonly readCrashLog?: CrashLogReader;
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
    const watch = new RolloutWatch(target, scheduler, policy, subscriber, options.readCrashLog, options.gates$ !== undefined);
    // The watch is the Deployment stream's observer itself: no per-waiter closures.
    const deploymentSubscription = deployments$.subscribe(watch);
    const podSubscription = pods$.subscribe(new PodObserver(watch));
    const gateSubscription = options.gates$?.subscribe({ next: (gates) => watch.onGates(gates), error: (error) => watch.error(error) });
    return () => {
      watch.close();
      deploymentSubscription.unsubscribe();
      podSubscription.unsubscribe();
      gateSubscription?.unsubscribe();
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
  private gates: readonly TrackedGate[] | undefined;
  private state: TrackerState = INITIAL_TRACKER_STATE;
  private readonly recheck: RecheckTimer;
  // The last progress line emitted, by parts: no string is built to compare them.
  private lastState: string | undefined;
  private lastReason: string | undefined;
  private lastMessage: string | undefined;
  private readonly crashLogs: CrashLogReads | undefined;
  /** A failure is decided; its crash's lines are being read. */
  private ending = false;

  constructor(
    private readonly target: RolloutTarget,
    private readonly scheduler: SchedulerLike,
    private readonly policy: FailurePolicy,
    private readonly subscriber: Subscriber<ProgressEvent>,
    readCrashLog: CrashLogReader | undefined,
    private readonly gated: boolean,
  ) {
    this.crashLogs = readCrashLog && new CrashLogReads(readCrashLog);
    this.recheck = new RecheckTimer(scheduler, () => this.evaluate());
  }

  next(objects: readonly V1Deployment[]): void {
    if (this.subscriber.closed || this.ending) return;
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

  onGates(gates: readonly TrackedGate[]): void {
    this.gates = gates;
    this.evaluate();
  }

  close(): void {
    this.recheck.stop();
    this.crashLogs?.stop();
  }

  /** `kind`: the object at fault, when it is not the Deployment (a gate's). */
  private fail(reason: string, detail: string, pod?: PodDiagnosis, kind?: string): void {
    const { namespace, name } = this.target;
    this.subscriber.error(
      new RolloutFailedError(
        { namespace, name, ...(kind ? { kind } : {}) },
        reason,
        detail,
        pod ? { pod: pod.pod, ...(pod.container ? { container: pod.container } : {}), ...(pod.logs ? { logs: pod.logs } : {}) } : {},
      ),
    );
  }

  private emit(
    status: RolloutStatus,
    pod: PodDiagnosis | undefined,
    podsReady = false,
    words?: string,
    gates?: readonly TrackedGate[],
  ): void {
    const resourceVersion = this.deployment?.metadata?.resourceVersion;
    const message = words ?? describeProgress(status, pod, { podsReady });
    const progress = gates && gateProgress(gates);
    if (status.state === this.lastState && status.reason === this.lastReason && message === this.lastMessage && !progress?.routedTo) return;
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
      ...progress,
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
    if (!deployment || this.subscriber.closed || this.ending) return;
    const step = trackRollout(this.policy, this.state, {
      deployment,
      pods: this.currentPods,
      now: this.scheduler.now(),
      ...(this.gates ? { gates: this.gates } : {}),
      ...(this.crashLogs?.lines ? { logs: this.crashLogs.lines } : {}),
    });
    this.state = step.state;
    const { failure, crash } = step;
    if (failure) {
      if (crash && this.crashLogs && failure.pod) {
        // The verdict stands as it is now (the Pod may look fine a moment later); only its
        // lines are awaited, within the read's bound.
        const pod = failure.pod;
        const logs = this.crashLogs;
        this.ending = true;
        logs.request(crash, deployment, () => this.fail(failure.reason, failure.detail, withCrashLines(pod, logs.lines)));
        return;
      }
      this.fail(failure.reason, failure.detail, failure.pod, failure.kind);
      return;
    }
    if (step.complete && (this.gates || !this.gated)) {
      this.emit(step.rollout, undefined, false, undefined, this.gates);
      this.subscriber.complete();
      return;
    }
    this.recheck.set(step.recheckAt);
    const gate = step.waitingFor;
    if (gate) this.emit(step.rollout, undefined, false, `waiting for the ${gate.kind} ${gate.name}: ${gate.status.message}`, this.gates);
    else this.emit(step.rollout, step.pod, step.podsReady);
    // Said at once; once the crash's lines are in, said again with them (if still so).
    if (crash && this.crashLogs) this.crashLogs.request(crash, deployment, () => this.evaluate());
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

/** What the gates add to a progress event (GateProgress), merged; undefined: nothing. */
function gateProgress(gates: readonly TrackedGate[]): GateProgress | undefined {
  let progress: GateProgress | undefined;
  for (const gate of gates) if (gate.progress) progress = { ...progress, ...gate.progress };
  return progress;
}

function findByUid(objects: readonly V1Deployment[], uid: string): V1Deployment | undefined {
  for (const object of objects) if (object.metadata?.uid === uid) return object;
  return undefined;
}
