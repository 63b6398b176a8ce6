// currentRolloutPods() / newReplicaSetName(): which Pods belong to the rollout being
// awaited. Deployments and Pods come from test/support/fixtures.ts (controller-shaped
// objects, no fakes of any service).
import { describe, expect, it } from 'vitest';
import { currentRolloutPods, newReplicaSetName } from '../../../src/rollout/rollout-pods.js';
import {
  HASH,
  OLD_HASH,
  conditions,
  deployment,
  progressingDeployment,
  readyPod,
  replicaSetName,
  waitingPod,
} from '../../support/fixtures.js';

const NEW_RS = replicaSetName('web', HASH);
const OLD_RS = replicaSetName('web', OLD_HASH);

function names(pods: readonly { metadata?: { name?: string } }[]): string[] {
  return pods.map((p) => p.metadata!.name!).sort();
}

describe('newReplicaSetName', () => {
  it.each([
    ['NewReplicaSetCreated', conditions.newReplicaSetCreated(NEW_RS)],
    ['FoundNewReplicaSet', conditions.foundNewReplicaSet(NEW_RS)],
    ['ReplicaSetUpdated', conditions.replicaSetUpdated(NEW_RS)],
    ['NewReplicaSetAvailable', conditions.newReplicaSetAvailable(NEW_RS)],
    ['ProgressDeadlineExceeded', conditions.progressDeadlineExceeded(NEW_RS)],
    ['ReplicaSetCreateError', conditions.replicaSetCreateError(NEW_RS)],
  ])('reads the ReplicaSet name from the Progressing message of reason %s', (_reason, condition) => {
    expect(newReplicaSetName(deployment({ conditions: [conditions.unavailable(), condition] }))).toBe(NEW_RS);
  });

  it('is undefined while observedGeneration is behind (the condition may name the previous ReplicaSet)', () => {
    const d = deployment({ generation: 2, observedGeneration: 1, conditions: [conditions.newReplicaSetAvailable(OLD_RS)] });
    expect(newReplicaSetName(d)).toBeUndefined();
  });

  it('is undefined without a Progressing condition', () => {
    expect(newReplicaSetName(deployment({ conditions: [conditions.available()] }))).toBeUndefined();
  });

  it('is undefined when the Progressing message names no ReplicaSet (DeploymentPaused)', () => {
    expect(newReplicaSetName(deployment({ conditions: [conditions.deploymentPaused()] }))).toBeUndefined();
  });
});

describe('currentRolloutPods', () => {
  it('excludes the pods of an older ReplicaSet once the controller names the new one', () => {
    const oldPod = waitingPod('CrashLoopBackOff', 'back-off 40s restarting failed container', { hash: OLD_HASH, restartCount: 6 });
    const newPod = waitingPod('ContainerCreating', undefined, { hash: HASH });
    const d = progressingDeployment({ generation: 2, conditions: [conditions.unavailable(), conditions.replicaSetUpdated(NEW_RS)] });
    expect(names(currentRolloutPods(d, [oldPod, newPod]))).toEqual([newPod.metadata!.name]);
  });

  it('keeps every pod owned by the named ReplicaSet', () => {
    const pods = [readyPod({ hash: HASH }), readyPod({ hash: HASH }), readyPod({ hash: OLD_HASH })];
    const d = progressingDeployment({ replicas: 2, conditions: [conditions.replicaSetUpdated(NEW_RS)] });
    expect(names(currentRolloutPods(d, pods))).toEqual(names(pods.slice(0, 2)));
  });

  it('matches on the ReplicaSet ownerReference, not on the pod-template-hash label', () => {
    const stray = readyPod({ hash: HASH });
    stray.metadata!.ownerReferences = [];
    const owned = readyPod({ hash: HASH });
    const d = progressingDeployment({ conditions: [conditions.replicaSetUpdated(NEW_RS)] });
    expect(names(currentRolloutPods(d, [stray, owned]))).toEqual([owned.metadata!.name]);
  });

  it('returns no pods while observedGeneration is behind, even when all pods share one (old) hash', () => {
    // generation 2 was just written; the controller has not created its ReplicaSet yet,
    // so every pod present belongs to the previous revision.
    const oldPods = [waitingPod('CrashLoopBackOff', 'back-off', { hash: OLD_HASH, restartCount: 5 })];
    const d = deployment({ generation: 2, observedGeneration: 1, conditions: [conditions.newReplicaSetAvailable(OLD_RS)] });
    expect(currentRolloutPods(d, oldPods)).toEqual([]);
  });

  it('returns all pods when the controller has not named a ReplicaSet yet and the pods share one hash', () => {
    const pods = [waitingPod('ContainerCreating'), waitingPod('ContainerCreating')];
    const d = progressingDeployment({ conditions: [conditions.unavailable()] });
    expect(names(currentRolloutPods(d, pods))).toEqual(names(pods));
  });

  it('returns no pods when the controller has not named a ReplicaSet and the pods carry two hashes', () => {
    const pods = [waitingPod('ContainerCreating', undefined, { hash: HASH }), readyPod({ hash: OLD_HASH })];
    const d = progressingDeployment({ conditions: [conditions.unavailable()] });
    expect(currentRolloutPods(d, pods)).toEqual([]);
  });

  it('a template rolled out before: the condition still names the previous, complete ReplicaSet; its one new Pod is the rollout', () => {
    // A reconfiguration undone by a rollback, then asked again: the controller scales the old
    // ReplicaSet up and leaves NewReplicaSetAvailable naming the one it replaced.
    const pending = waitingPod('Pending', undefined, { hash: HASH });
    const stale = progressingDeployment({
      generation: 4,
      conditions: [conditions.unavailable(), conditions.newReplicaSetAvailable(OLD_RS)],
    });
    expect(names(currentRolloutPods(stale, [pending]))).toEqual([pending.metadata!.name]);
  });

  it("a Recreate start or reconfiguration completed under the replaced ReplicaSet's name: the Pod that stays is the rollout", () => {
    // Seen on the real controller: stop, then a start whose new ReplicaSet's "created"
    // condition was not written; the rollout passed through zero replicas, and the complete
    // condition kept naming the previous ReplicaSet.
    const current = readyPod({ hash: HASH });
    const complete = deployment({ generation: 3, conditions: [conditions.available(), conditions.newReplicaSetAvailable(OLD_RS)] });
    expect(names(currentRolloutPods(complete, [current]))).toEqual([current.metadata!.name]);
    // The replaced ReplicaSet's Pod on its way out changes nothing.
    const leaving = readyPod({ hash: OLD_HASH, deletionTimestamp: new Date('2026-01-01T00:00:00Z') });
    expect(names(currentRolloutPods(complete, [leaving, current]))).toEqual([current.metadata!.name]);
    // Two revisions that both stay: no way to tell, so none.
    expect(currentRolloutPods(complete, [readyPod({ hash: '7c9d8e6f5a' }), current])).toEqual([]);
  });

  it('NewReplicaSetAvailable naming a ReplicaSet that owns a Pod that stays: its Pods only', () => {
    const named = readyPod({ hash: OLD_HASH });
    const other = readyPod({ hash: HASH });
    const complete = deployment({ conditions: [conditions.available(), conditions.newReplicaSetAvailable(OLD_RS)] });
    expect(names(currentRolloutPods(complete, [named, other]))).toEqual([named.metadata!.name]);
    // Stopping: its only Pod is deleted, nothing else stays; the named ReplicaSet's Pod is still the one to follow.
    const stopping = readyPod({ hash: OLD_HASH, deletionTimestamp: new Date('2026-01-01T00:00:00Z') });
    expect(names(currentRolloutPods(complete, [stopping]))).toEqual([stopping.metadata!.name]);
  });

  it('another reason naming a ReplicaSet that owns no Pod yet: none (its Pods are still to come)', () => {
    const old = readyPod({ hash: OLD_HASH });
    const d = progressingDeployment({ generation: 2, conditions: [conditions.unavailable(), conditions.newReplicaSetCreated(NEW_RS)] });
    expect(currentRolloutPods(d, [old])).toEqual([]);
  });

  it('returns an empty list for no pods', () => {
    expect(currentRolloutPods(progressingDeployment(), [])).toEqual([]);
  });
});
