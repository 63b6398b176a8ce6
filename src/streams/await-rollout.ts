// awaitRollout(): turns the informer's snapshots of one Deployment (and of its Pods) into
// progress events; completes when the rollout is Complete, errors when it Failed, when a
// Pod problem trips the failure policy, or when the Deployment disappears.
//
// Only the object with the UID we created (or adopted) counts: a cached object of the
// same name with another UID is an older, deleted Deployment whose status must never be
// read as ours. Each snapshot is evaluated as it arrives; the only timer is the failure
// policy's grace window, and only while a Pod problem is open.
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { Observable, asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import { RolloutFailedError } from '../errors.js';
import { describeProgress } from './describe-progress.js';
import type { PodDiagnosis, ProgressEvent, RolloutStatus } from './events.js';
import {
  DEFAULT_FAILURE_POLICY,
  INITIAL_POLICY_STATE,
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
    let deployment: V1Deployment | undefined;
    let pods: readonly V1Pod[] = [];
    let policyState: PolicyState = INITIAL_POLICY_STATE;
    let recheck: Subscription | undefined;
    let recheckAt: number | undefined;
    let lastLine = '';

    const fail = (reason: string, detail: string, pod?: PodDiagnosis): void =>
      subscriber.error(
        new RolloutFailedError(target, reason, detail, pod ? { pod: pod.pod, ...(pod.container ? { container: pod.container } : {}) } : {}),
      );

    const emit = (status: RolloutStatus, pod: PodDiagnosis | undefined, podsReady = false): void => {
      const resourceVersion = deployment?.metadata?.resourceVersion;
      const message = describeProgress(status, pod, { podsReady });
      const line = `${status.state}|${status.reason}|${message}`;
      if (line === lastLine) return;
      lastLine = line;
      subscriber.next({
        type: 'progress',
        at: new Date(scheduler.now()).toISOString(),
        namespace: target.namespace,
        name: target.name,
        providerId: target.providerId,
        status,
        ...(resourceVersion ? { resourceVersion } : {}),
        message,
        ...(pod ? { pod } : {}),
      });
    };

    const scheduleRecheck = (at: number | undefined): void => {
      if (at === recheckAt) return;
      recheck?.unsubscribe();
      recheckAt = at;
      recheck = at === undefined ? undefined : scheduler.schedule(() => {
        recheckAt = undefined;
        evaluate();
      }, Math.max(0, at - scheduler.now()));
    };

    const evaluate = (): void => {
      if (!deployment || subscriber.closed) return;
      const status = rolloutStatus(deployment);
      if (status.state === 'Failed') {
        fail(status.reason, status.message);
        return;
      }
      if (status.state === 'Complete') {
        emit(status, undefined);
        subscriber.complete();
        return;
      }
      const current = currentRolloutPods(deployment, pods);
      const diagnoses = current
        .map(diagnosePod)
        .filter((diagnosis): diagnosis is PodDiagnosis => diagnosis !== undefined);
      const verdict = applyFailurePolicy(policy, policyState, diagnoses, scheduler.now());
      policyState = verdict.state;
      if (verdict.failure) {
        fail(verdict.failure.reason, verdict.failure.message, verdict.failure);
        return;
      }
      scheduleRecheck(verdict.recheckAt);
      emit(status, mostTelling(diagnoses), current.length > 0 && diagnoses.length === 0);
    };

    const deploymentSubscription = deployments$.subscribe({
      next: (objects) => {
        const ours = objects.find((object) => object.metadata?.uid === target.uid);
        if (ours) {
          deployment = ours;
          evaluate();
        } else if (deployment) {
          const replaced = objects.length > 0;
          fail(
            'Deleted',
            replaced
              ? 'the Deployment was deleted and replaced by another object of the same name while waiting'
              : 'the Deployment was deleted while waiting for its rollout',
          );
        }
        // Not seen yet: the cache has not caught up with our create. Keep waiting.
      },
      error: (error: unknown) => subscriber.error(error),
    });
    const podSubscription = pods$.subscribe({
      next: (objects) => {
        pods = objects;
        evaluate();
      },
      error: (error: unknown) => subscriber.error(error),
    });

    return () => {
      recheck?.unsubscribe();
      deploymentSubscription.unsubscribe();
      podSubscription.unsubscribe();
    };
  });
}

/** The diagnosis a user most needs to see first: failures before waits. */
function mostTelling(diagnoses: readonly PodDiagnosis[]): PodDiagnosis | undefined {
  return diagnoses.find((diagnosis) => diagnosis.severity === 'failed') ?? diagnoses[0];
}
