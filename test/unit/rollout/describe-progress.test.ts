// describeProgress(): the plain-words line for each pod reason and for status-only
// cases. Statuses and diagnoses are computed by rolloutStatus()/diagnosePod() from the
// controller- and kubelet-shaped objects of test/support/fixtures.ts (no fakes).
import { describe, expect, it } from 'vitest';
import type { PodDiagnosis, RolloutStatus } from '../../../src/rollout/events.js';
import { describeProgress } from '../../../src/rollout/describe-progress.js';
import { diagnosePod } from '../../../src/rollout/pod-diagnosis.js';
import { rolloutStatus } from '../../../src/rollout/rollout-status.js';
import {
  UNSCHEDULABLE_MESSAGE,
  conditions,
  containerCreatingPod,
  containerStatus,
  deployment,
  evictedPod,
  kubeletMessages,
  pendingPod,
  pod,
  progressingDeployment,
  readyPod,
  runningPod,
  states,
  unschedulablePod,
  waitingPod,
} from '../../support/fixtures.js';
import type { V1Pod } from '../../../src/kube/objects.js';

const inProgress: RolloutStatus = rolloutStatus(progressingDeployment({ replicas: 2, readyReplicas: 1, availableReplicas: 1 }));

function diagnosis(p: V1Pod): PodDiagnosis {
  const d = diagnosePod(p);
  if (!d) throw new Error('expected a diagnosis');
  return d;
}

describe('describeProgress: status only', () => {
  it('says how many are ready and that the rollout is complete', () => {
    expect(describeProgress(rolloutStatus(deployment({ replicas: 3 })), undefined)).toBe('3/3 ready: rollout complete');
  });

  it('ignores a pod diagnosis once the rollout is complete', () => {
    const status = rolloutStatus(deployment({ replicas: 1 }));
    expect(describeProgress(status, diagnosis(runningPod()))).toBe('1/1 ready: rollout complete');
  });

  it('uses the status message when no pod has anything to say', () => {
    expect(describeProgress(inProgress, undefined)).toBe('1/2 ready');
  });

  it('says the container is ready when its pods are but the Deployment has not counted them yet', () => {
    expect(describeProgress(inProgress, undefined, { podsReady: true })).toBe(
      'container ready, waiting for the Deployment to count it available',
    );
  });

  it('uses the status message for a paused Deployment', () => {
    const paused = rolloutStatus(deployment({ paused: true, conditions: [conditions.deploymentPaused()] }));
    expect(describeProgress(paused, undefined)).toMatch(/paused/);
  });

  it('uses the controller message for a failed rollout', () => {
    const failed = rolloutStatus(progressingDeployment({ conditions: [conditions.progressDeadlineExceeded()] }));
    expect(describeProgress(failed, undefined)).toBe('ReplicaSet "web-7c9f5d" has timed out progressing.');
  });

  it('says the controller has not observed the new generation yet', () => {
    const behind = rolloutStatus(deployment({ generation: 2, observedGeneration: 1 }));
    expect(describeProgress(behind, undefined)).toBe('waiting for the deployment controller to observe generation 2');
  });
});

describe('describeProgress: pod reasons', () => {
  it('Pending: waiting to be scheduled', () => {
    expect(describeProgress(inProgress, diagnosis(pendingPod()))).toBe('waiting to be scheduled');
  });

  it("Unschedulable: says so and quotes the scheduler's message", () => {
    expect(describeProgress(inProgress, diagnosis(unschedulablePod()))).toBe(
      `cannot be scheduled yet (Unschedulable): ${UNSCHEDULABLE_MESSAGE}`,
    );
  });

  it('ContainerCreating: pulling the image and starting the container', () => {
    expect(describeProgress(inProgress, diagnosis(containerCreatingPod()))).toBe('pulling the image and starting the container');
  });

  it('PodInitializing: running init containers, naming the running one', () => {
    const p = pod({
      phase: 'Pending',
      initContainerStatuses: [containerStatus({ name: 'migrate', state: states.running() })],
      containerStatuses: [containerStatus({ state: states.waiting('PodInitializing') })],
    });
    expect(describeProgress(inProgress, diagnosis(p))).toBe('running init containers: init container migrate is running');
  });

  it('ContainerNotReady: container started, with the ready count', () => {
    expect(describeProgress(inProgress, diagnosis(runningPod()))).toBe('container started, 1/2 ready');
  });

  it('Terminating: waiting for an old pod to terminate', () => {
    expect(describeProgress(inProgress, diagnosis(readyPod({ deletionTimestamp: new Date('2025-01-15T10:01:00Z') })))).toBe(
      'waiting for an old pod to terminate',
    );
  });

  it.each([
    ['ErrImagePull', kubeletMessages.registryUnavailable()],
    ['ImagePullBackOff', kubeletMessages.backOffPulling()],
  ])('%s: cannot pull the image yet, with the kubelet message', (reason, message) => {
    expect(describeProgress(inProgress, diagnosis(waitingPod(reason, message)))).toBe(`cannot pull the image yet (${reason}): ${message}`);
  });

  it('CrashLoopBackOff: the container keeps crashing, with the restart count and the last exit', () => {
    const line = describeProgress(
      inProgress,
      diagnosis(
        waitingPod('CrashLoopBackOff', kubeletMessages.crashLoop('web-7c9f5d-abcde'), {
          restartCount: 4,
          lastState: states.terminated(137, 'OOMKilled'),
        }),
      ),
    );
    expect(line).toMatch(/^the container keeps crashing \(CrashLoopBackOff, 4 restarts\): back-off 10s/);
    expect(line).toContain('OOMKilled (exit code 137)');
  });

  it.each([
    ['InvalidImageName', kubeletMessages.invalidImageName()],
    ['CreateContainerConfigError', kubeletMessages.secretNotFound()],
    ['CreateContainerError', kubeletMessages.createContainerError()],
    ['RunContainerError', kubeletMessages.runContainerError()],
  ])('%s: "problem:" with the reason and the kubelet message', (reason, message) => {
    expect(describeProgress(inProgress, diagnosis(waitingPod(reason, message)))).toBe(`problem: ${reason}: ${message}`);
  });

  it('Evicted: "problem:" with the eviction message', () => {
    expect(describeProgress(inProgress, diagnosis(evictedPod('The node was low on resource: memory.')))).toBe(
      'problem: Evicted: The node was low on resource: memory.',
    );
  });

  it('an unknown waiting reason: "waiting:" with the reason', () => {
    const d: PodDiagnosis = { severity: 'waiting', reason: 'SchedulingGated', message: 'SchedulingGated', pod: 'web-7c9f5d-abcde' };
    expect(describeProgress(inProgress, d)).toBe('waiting: SchedulingGated');
  });

  it('does not repeat the reason when the message is just the reason', () => {
    expect(describeProgress(inProgress, diagnosis(waitingPod('ErrImagePull')))).toBe('cannot pull the image yet (ErrImagePull)');
  });
});
