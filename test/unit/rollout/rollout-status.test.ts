// rolloutStatus(): one test per rule of the readiness predicate and per Deployment failure
// signal in docs/readiness.md. The Deployments come from test/support/fixtures.ts,
// shaped and worded as the deployment controller writes them (no fakes of any service).
import { describe, expect, it } from 'vitest';
import { hasProgressDeadline, rolloutStatus } from '../../../src/rollout/rollout-status.js';
import { conditions, deployment, progressingDeployment, quotaMessage, replicaSetName } from '../../support/fixtures.js';

const RS = replicaSetName();

describe('rolloutStatus: the observed generation gate', () => {
  it('is InProgress, not Complete, when observedGeneration is behind even though the old status looks complete', () => {
    const status = rolloutStatus(deployment({ generation: 3, observedGeneration: 2, replicas: 2 }));
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('ObservedGenerationBehind');
    expect(status.message).toContain('generation 3');
    expect(status.generation).toBe(3);
    expect(status.observedGeneration).toBe(2);
  });

  it('is InProgress, not Failed, when observedGeneration is behind and the stale status says ProgressDeadlineExceeded', () => {
    const status = rolloutStatus(
      deployment({
        generation: 2,
        observedGeneration: 1,
        readyReplicas: 0,
        availableReplicas: 0,
        conditions: [conditions.unavailable(), conditions.progressDeadlineExceeded(replicaSetName('web', '5b6d8c'))],
      }),
    );
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('ObservedGenerationBehind');
  });

  it('is InProgress, not Failed, when observedGeneration is behind and the stale status has ReplicaFailure', () => {
    const status = rolloutStatus(
      deployment({
        generation: 2,
        observedGeneration: 1,
        conditions: [conditions.available(), conditions.replicaSetUpdated(RS), conditions.replicaFailure()],
      }),
    );
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('ObservedGenerationBehind');
  });

  it('is InProgress when the controller has written no status at all yet (just created)', () => {
    const status = rolloutStatus(deployment({ observedGeneration: null }));
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('ObservedGenerationBehind');
    expect(status.observedGeneration).toBe(0);
  });
});

describe('rolloutStatus: replica counts', () => {
  it('is InProgress while updatedReplicas < spec.replicas', () => {
    const status = rolloutStatus(
      deployment({ replicas: 3, statusReplicas: 3, updatedReplicas: 1, readyReplicas: 3, availableReplicas: 3 }),
    );
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('WaitingForUpdatedReplicas');
    expect(status.message).toBe('waiting for the new pods to be created (1/3 updated)');
  });

  it('is InProgress while old replicas are still counted (status.replicas > updatedReplicas)', () => {
    const status = rolloutStatus(
      deployment({ replicas: 2, statusReplicas: 3, updatedReplicas: 2, readyReplicas: 3, availableReplicas: 3 }),
    );
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('WaitingForOldReplicas');
    expect(status.message).toContain('1 old replica');
  });

  it('is InProgress while readyReplicas < spec.replicas', () => {
    const status = rolloutStatus(deployment({ replicas: 2, readyReplicas: 1, availableReplicas: 1 }));
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('WaitingForReady');
    expect(status.message).toBe('1/2 ready');
  });

  it('is InProgress when pods are ready but not yet available (minReadySeconds not elapsed)', () => {
    const status = rolloutStatus(
      deployment({
        replicas: 2,
        minReadySeconds: 30,
        readyReplicas: 2,
        availableReplicas: 0,
        conditions: [conditions.unavailable(), conditions.replicaSetUpdated(RS)],
      }),
    );
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('WaitingForAvailable');
    expect(status.message).toBe('0/2 available');
  });

  it('returns the desired, total, updated, ready and available counts from spec and status', () => {
    const status = rolloutStatus(
      deployment({ replicas: 4, statusReplicas: 5, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 1 }),
    );
    expect(status.replicas).toEqual({ desired: 4, total: 5, updated: 3, ready: 2, available: 1 });
  });

  it('treats absent spec.replicas as the API default of 1 and absent status counts as 0', () => {
    const d = deployment({ observedGeneration: null });
    delete d.spec!.replicas;
    expect(rolloutStatus(d).replicas).toEqual({ desired: 1, total: 0, updated: 0, ready: 0, available: 0 });
  });
});

describe('rolloutStatus: conditions', () => {
  it('is InProgress when the counts are met but Available is False', () => {
    const status = rolloutStatus(deployment({ conditions: [conditions.unavailable(), conditions.newReplicaSetAvailable(RS)] }));
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('WaitingForAvailableCondition');
  });

  it('is InProgress when the counts are met but there is no Available condition', () => {
    const status = rolloutStatus(deployment({ conditions: [conditions.newReplicaSetAvailable(RS)] }));
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('WaitingForAvailableCondition');
  });

  it('is InProgress when a progress deadline is set and Progressing is still ReplicaSetUpdated', () => {
    const status = rolloutStatus(deployment({ conditions: [conditions.available(), conditions.replicaSetUpdated(RS)] }));
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('WaitingForNewReplicaSetAvailable');
  });

  it('is InProgress when a progress deadline is set and there is no Progressing condition', () => {
    const status = rolloutStatus(deployment({ conditions: [conditions.available()] }));
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('WaitingForNewReplicaSetAvailable');
  });

  it('completes without NewReplicaSetAvailable when progressDeadlineSeconds is absent (the controller keeps no Progressing)', () => {
    const status = rolloutStatus(deployment({ progressDeadlineSeconds: null, conditions: [conditions.available()] }));
    expect(status.state).toBe('Complete');
  });
});

describe('rolloutStatus: failure signals', () => {
  it('is Failed with the controller message on Progressing ProgressDeadlineExceeded', () => {
    const status = rolloutStatus(
      progressingDeployment({ conditions: [conditions.unavailable(), conditions.progressDeadlineExceeded(RS)] }),
    );
    expect(status).toMatchObject({
      state: 'Failed',
      reason: 'ProgressDeadlineExceeded',
      message: `ReplicaSet "${RS}" has timed out progressing.`,
    });
  });

  it('is InProgress with a createFailure on Progressing=False ReplicaSetCreateError: the failure policy decides', () => {
    const condition = conditions.replicaSetCreateError(RS);
    const status = rolloutStatus(
      deployment({
        statusReplicas: 0,
        updatedReplicas: 0,
        readyReplicas: 0,
        availableReplicas: 0,
        conditions: [conditions.unavailable(), condition],
      }),
    );
    expect(status).toMatchObject({
      state: 'InProgress',
      reason: 'ReplicaSetCreateError',
      createFailure: { reason: 'ReplicaSetCreateError', message: condition.message },
    });
    expect(status.message).toContain('exceeded quota');
  });

  it('is InProgress with createFailure FailedCreate and the quota message on ReplicaFailure=True', () => {
    const status = rolloutStatus(
      progressingDeployment({
        statusReplicas: 0,
        updatedReplicas: 0,
        conditions: [conditions.unavailable(), conditions.replicaSetUpdated(RS), conditions.replicaFailure()],
      }),
    );
    expect(status).toMatchObject({
      state: 'InProgress',
      reason: 'ReplicaFailure',
      createFailure: { reason: 'FailedCreate', message: quotaMessage() },
    });
    expect(status.message).toBe(`the ReplicaSet cannot create pods yet (FailedCreate): ${quotaMessage()}`);
  });

  it('is never Complete while ReplicaFailure=True, even when every count looks complete', () => {
    const status = rolloutStatus(
      deployment({
        conditions: [conditions.available(), conditions.newReplicaSetAvailable(RS), conditions.replicaFailure('Internal error occurred')],
      }),
    );
    expect(status.state).toBe('InProgress');
    expect(status.createFailure?.message).toBe('Internal error occurred');
  });

  it('has no createFailure on a healthy rollout in progress or complete', () => {
    expect(rolloutStatus(progressingDeployment({})).createFailure).toBeUndefined();
    expect(rolloutStatus(deployment({})).createFailure).toBeUndefined();
  });

  it('is Complete when the ReplicaFailure condition is False (the controller cleared it)', () => {
    const cleared = { ...conditions.replicaFailure(), status: 'False' };
    const status = rolloutStatus(deployment({ conditions: [conditions.available(), conditions.newReplicaSetAvailable(RS), cleared] }));
    expect(status.state).toBe('Complete');
  });

  it('falls back to a generic message when the controller gave none', () => {
    const condition = { ...conditions.progressDeadlineExceeded(RS), message: '  ' };
    const status = rolloutStatus(progressingDeployment({ conditions: [condition] }));
    expect(status.state).toBe('Failed');
    expect(status.message).toBe('progress deadline exceeded');
  });

  it('is never Complete while paused: InProgress, and the message says paused', () => {
    const status = rolloutStatus(deployment({ paused: true, conditions: [conditions.available(), conditions.deploymentPaused()] }));
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('DeploymentPaused');
    expect(status.message).toMatch(/paused/);
  });

  it('is paused, not Complete, even when every count and the stale conditions look complete', () => {
    const status = rolloutStatus(deployment({ paused: true }));
    expect(status.state).toBe('InProgress');
    expect(status.reason).toBe('DeploymentPaused');
  });

  it('is Failed with reason Deleting when the Deployment has a deletionTimestamp, even if otherwise complete', () => {
    const status = rolloutStatus(deployment({ deletionTimestamp: new Date('2025-01-15T10:05:00Z') }));
    expect(status).toMatchObject({ state: 'Failed', reason: 'Deleting' });
    expect(status.message).toMatch(/deleted/);
  });
});

describe('rolloutStatus: complete', () => {
  it('is Complete when generation is observed, all counts meet spec.replicas, Available=True and NewReplicaSetAvailable', () => {
    const status = rolloutStatus(deployment({ generation: 4, observedGeneration: 4, replicas: 3 }));
    expect(status).toEqual({
      state: 'Complete',
      reason: 'NewReplicaSetAvailable',
      message: '3/3 available, rollout complete',
      generation: 4,
      observedGeneration: 4,
      replicas: { desired: 3, total: 3, updated: 3, ready: 3, available: 3 },
    });
  });

  it('is Complete when observedGeneration is ahead of a stale generation read (observed >= generation)', () => {
    expect(rolloutStatus(deployment({ generation: 2, observedGeneration: 3 })).state).toBe('Complete');
  });
});

// The deployment controller maintains the Progressing condition only when
// spec.progressDeadlineSeconds is set and is not math.MaxInt32 (its HasProgressDeadline);
// otherwise it removes the condition on every sync. rolloutStatus must follow exactly:
// require NewReplicaSetAvailable when the controller will write it, and never wait for it
// (or read a leftover Progressing) when it will not. The API server holds the field as an
// int32 that must exceed minReadySeconds (so 1 to 2147483647, defaulted to 600); 0 and
// "absent" come only from objects that did not pass through it, and are covered as well.
describe('rolloutStatus: progressDeadlineSeconds, every value the API can hold', () => {
  const MAX_INT32 = 2147483647;
  const tracked = [
    ['0 (refused by API validation; the controller would still track it)', 0],
    ['1 (the smallest value validation allows)', 1],
    ['600 (the default)', 600],
    ['MaxInt32 - 1', MAX_INT32 - 1],
  ] as const;
  const untracked = [
    ['absent', null],
    ['MaxInt32 (the controller\'s "no deadline")', MAX_INT32],
  ] as const;

  it.each(tracked)('%s: the controller tracks progress, so Complete waits for NewReplicaSetAvailable', (_label, seconds) => {
    expect(hasProgressDeadline(deployment({ progressDeadlineSeconds: seconds }))).toBe(true);
    const waiting = rolloutStatus(
      deployment({ progressDeadlineSeconds: seconds, conditions: [conditions.available(), conditions.replicaSetUpdated(RS)] }),
    );
    expect(waiting).toMatchObject({ state: 'InProgress', reason: 'WaitingForNewReplicaSetAvailable' });
    const done = rolloutStatus(
      deployment({ progressDeadlineSeconds: seconds, conditions: [conditions.available(), conditions.newReplicaSetAvailable(RS)] }),
    );
    expect(done).toMatchObject({ state: 'Complete', reason: 'NewReplicaSetAvailable' });
  });

  it.each(tracked)('%s: ProgressDeadlineExceeded fails the rollout', (_label, seconds) => {
    const status = rolloutStatus(
      deployment({
        progressDeadlineSeconds: seconds,
        readyReplicas: 0,
        availableReplicas: 0,
        conditions: [conditions.unavailable(), conditions.progressDeadlineExceeded(RS)],
      }),
    );
    expect(status).toMatchObject({ state: 'Failed', reason: 'ProgressDeadlineExceeded' });
  });

  it.each(untracked)('%s: the controller never writes NewReplicaSetAvailable, so Complete does not wait for it', (_label, seconds) => {
    expect(hasProgressDeadline(deployment({ progressDeadlineSeconds: seconds }))).toBe(false);
    // Exactly what the controller leaves: no Progressing condition at all.
    const status = rolloutStatus(deployment({ progressDeadlineSeconds: seconds, conditions: [conditions.available()] }));
    expect(status).toMatchObject({ state: 'Complete', reason: 'NewReplicaSetAvailable' });
  });

  it.each(untracked)('%s: a leftover Progressing condition is not read (neither as progress nor as failure)', (_label, seconds) => {
    const leftoverFailure = rolloutStatus(
      deployment({ progressDeadlineSeconds: seconds, conditions: [conditions.available(), conditions.progressDeadlineExceeded(RS)] }),
    );
    expect(leftoverFailure.state).toBe('Complete');
    const leftoverProgress = rolloutStatus(
      deployment({ progressDeadlineSeconds: seconds, conditions: [conditions.available(), conditions.replicaSetUpdated(RS)] }),
    );
    expect(leftoverProgress.state).toBe('Complete');
  });

  it.each(untracked)('%s: still InProgress while the replica counts or Available are not there', (_label, seconds) => {
    expect(rolloutStatus(deployment({ progressDeadlineSeconds: seconds, availableReplicas: 0, conditions: [] })).state).toBe('InProgress');
    expect(rolloutStatus(deployment({ progressDeadlineSeconds: seconds, conditions: [conditions.unavailable()] })).reason).toBe(
      'WaitingForAvailableCondition',
    );
  });
});
