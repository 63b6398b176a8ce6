// diagnosePod(): every waiting/failure reason the kubelet and scheduler report. The Pods
// come from test/support/fixtures.ts, shaped as the kubelet writes pod status (no fakes
// of any service).
import { describe, expect, it } from 'vitest';
import { diagnosePod } from '../../src/rollout/pod-diagnosis.js';
import { cachedPodFields } from '../../src/informers/transforms/pod.js';
import type { V1Pod } from '../../src/kube/objects.js';
import {
  EVICTION_MESSAGE,
  UNSCHEDULABLE_MESSAGE,
  containerCreatingPod,
  containerStatus,
  evictedPod,
  kubeletMessages,
  pendingPod,
  pod,
  podConditions,
  readyPod,
  runningPod,
  states,
  terminatedPod,
  unschedulablePod,
  waitingPod,
} from '../support/fixtures.js';

describe('diagnosePod: container waiting reasons that mean a failure', () => {
  it.each([
    ['ErrImagePull', kubeletMessages.imageNotFound()],
    ['ImagePullBackOff', kubeletMessages.backOffPulling()],
    ['InvalidImageName', kubeletMessages.invalidImageName()],
    ['CreateContainerConfigError', kubeletMessages.secretNotFound()],
    ['CreateContainerError', kubeletMessages.createContainerError()],
    ['RunContainerError', kubeletMessages.runContainerError()],
  ])('reports %s as failed with the kubelet message, the container and its restart count', (reason, message) => {
    const p = waitingPod(reason, message, { container: 'manager', restartCount: 2 });
    expect(diagnosePod(p)).toEqual({
      severity: 'failed',
      reason,
      message,
      pod: p.metadata!.name,
      container: 'manager',
      restartCount: 2,
    });
  });

  it('uses the reason as message when the kubelet gave none', () => {
    expect(diagnosePod(waitingPod('ErrImagePull'))?.message).toBe('ErrImagePull');
  });

  it('reports CrashLoopBackOff with the last exit OOMKilled (exit code 137) in the message', () => {
    const p = waitingPod('CrashLoopBackOff', kubeletMessages.crashLoop('web-7c9f5d-abcde'), {
      restartCount: 4,
      lastState: states.terminated(137, 'OOMKilled'),
    });
    const d = diagnosePod(p);
    expect(d).toMatchObject({ severity: 'failed', reason: 'CrashLoopBackOff', container: 'manager', restartCount: 4 });
    expect(d?.message).toContain('back-off 10s restarting failed container=manager');
    expect(d?.message).toContain('OOMKilled');
    expect(d?.message).toContain('exit code 137');
  });
});

/** `pod` with its container's memory limit set, as buildDeployment sets it. */
function withMemoryLimit(p: V1Pod, memory: string): V1Pod {
  const container = p.spec!.containers[0]!;
  return { ...p, spec: { ...p.spec!, containers: [{ ...container, resources: { limits: { memory }, requests: { memory } } }] } };
}

describe('diagnosePod: an OOM kill, in every form the runtime reports it', () => {
  const crashLoop = (lastState: ReturnType<typeof states.terminated>) =>
    waitingPod('CrashLoopBackOff', kubeletMessages.crashLoop('web-7c9f5d-abcde'), { restartCount: 2, lastState });

  it('reason OOMKilled: named as the runtime says it', () => {
    const d = diagnosePod(withMemoryLimit(crashLoop(states.terminated(137, 'OOMKilled')), '256Mi'));
    expect(d?.message).toMatch(/; last exit: OOMKilled \(exit code 137\)$/);
  });

  it('exit 137 with reason Error under a memory limit: most likely out of memory at that limit', () => {
    const d = diagnosePod(withMemoryLimit(crashLoop(states.terminated(137, 'Error')), '256Mi'));
    expect(d).toMatchObject({ severity: 'failed', reason: 'CrashLoopBackOff' });
    expect(d?.message).toMatch(/; last exit: killed \(exit 137\), most likely out of memory at its 256Mi limit$/);
  });

  it('the memory limit survives the informer projection (cachedPodFields)', () => {
    const full = withMemoryLimit(crashLoop(states.terminated(137, 'Error')), '256Mi');
    expect(diagnosePod(cachedPodFields(full))).toEqual(diagnosePod(full));
    expect(diagnosePod(cachedPodFields(full))?.message).toContain('most likely out of memory at its 256Mi limit');
  });

  it('exit 137 without a memory limit: killed, and no guess at the cause', () => {
    const d = diagnosePod(crashLoop(states.terminated(137, 'Error')));
    expect(d?.message).toMatch(/; last exit: killed \(exit 137\)$/);
    expect(d?.message).not.toContain('memory');
  });

  it('a container terminated with exit 137 under a limit, not restarted yet; and a restarted one, running but not ready', () => {
    const terminated = diagnosePod(withMemoryLimit(terminatedPod(137, 'Error'), '64Mi'));
    expect(terminated).toMatchObject({ severity: 'failed', reason: 'Error' });
    expect(terminated?.message).toBe('the container was killed (exit 137), most likely out of memory at its 64Mi limit');
    const running = diagnosePod(withMemoryLimit(runningPod({ restartCount: 1, lastState: states.terminated(137, 'Error') }), '64Mi'));
    expect(running?.message).toBe(
      'running, not ready yet (restarted after last exit: killed (exit 137), most likely out of memory at its 64Mi limit)',
    );
  });

  it("another exit code keeps the runtime's words, limit or not", () => {
    const d = diagnosePod(withMemoryLimit(crashLoop(states.terminated(1, 'Error')), '256Mi'));
    expect(d?.message).toMatch(/; last exit: Error \(exit code 1\)$/);
  });
});

describe('diagnosePod: container waiting reasons that mean a failure (exit codes)', () => {
  it('reports CrashLoopBackOff after a non-zero exit with that exit code in the message', () => {
    const p = waitingPod('CrashLoopBackOff', kubeletMessages.crashLoop('web-7c9f5d-abcde', 'manager', 40), {
      restartCount: 3,
      lastState: states.terminated(2, 'Error'),
    });
    const d = diagnosePod(p);
    expect(d?.reason).toBe('CrashLoopBackOff');
    expect(d?.message).toMatch(/last exit: Error \(exit code 2\)/);
    expect(d?.restartCount).toBe(3);
  });

  it('joins a multi-line kubelet message into one line', () => {
    const d = diagnosePod(waitingPod('CreateContainerError', 'first line\n  second line\n'));
    expect(d?.message).toBe('first line second line');
  });
});

describe('diagnosePod: init containers', () => {
  it('reports a failing init container before a failing app container', () => {
    const p = pod({
      phase: 'Pending',
      initContainerStatuses: [
        containerStatus({
          name: 'migrate',
          restartCount: 5,
          state: states.waiting('CrashLoopBackOff', kubeletMessages.crashLoop('web-7c9f5d-abcde', 'migrate')),
          lastState: states.terminated(1, 'Error'),
        }),
      ],
      containerStatuses: [containerStatus({ state: states.waiting('ImagePullBackOff', kubeletMessages.backOffPulling()) })],
    });
    const d = diagnosePod(p);
    expect(d).toMatchObject({ severity: 'failed', reason: 'CrashLoopBackOff', container: 'migrate', restartCount: 5 });
  });

  it('skips an init container that completed (exit 0) and diagnoses the app container', () => {
    const p = pod({
      initContainerStatuses: [containerStatus({ name: 'migrate', state: states.terminated(0, 'Completed') })],
      containerStatuses: [containerStatus({ state: states.waiting('ImagePullBackOff', kubeletMessages.backOffPulling()) })],
    });
    expect(diagnosePod(p)).toMatchObject({ reason: 'ImagePullBackOff', container: 'manager' });
  });

  it('skips completed init containers and returns undefined when the app container is running and ready', () => {
    const p = pod({
      initContainerStatuses: [containerStatus({ name: 'migrate', state: states.terminated(0, 'Completed') })],
      containerStatuses: [containerStatus({ ready: true })],
    });
    expect(diagnosePod(p)).toBeUndefined();
  });

  it('reports an init container that exited non-zero as failed with its exit code', () => {
    const p = pod({
      phase: 'Pending',
      initContainerStatuses: [containerStatus({ name: 'migrate', state: states.terminated(3, 'Error') })],
      containerStatuses: [containerStatus({ state: states.waiting('PodInitializing') })],
    });
    expect(diagnosePod(p)).toMatchObject({
      severity: 'failed',
      reason: 'Error',
      container: 'migrate',
      message: 'the container exited with code 3',
    });
  });

  it('reports a running init container as PodInitializing (waiting)', () => {
    const p = pod({
      phase: 'Pending',
      initContainerStatuses: [containerStatus({ name: 'migrate', state: states.running() })],
      containerStatuses: [containerStatus({ state: states.waiting('PodInitializing') })],
    });
    expect(diagnosePod(p)).toMatchObject({ severity: 'waiting', reason: 'PodInitializing', container: 'migrate' });
  });

  it('returns undefined for a ready pod whose native sidecar (restartable init container) keeps running', () => {
    // Kubernetes >= 1.29: an init container with restartPolicy Always runs for the Pod's
    // whole life; once it started, the app containers run and the Pod becomes Ready.
    const p = pod({
      initContainers: [{ name: 'proxy', restartPolicy: 'Always' }],
      initContainerStatuses: [containerStatus({ name: 'proxy', ready: true, state: states.running() })],
      containerStatuses: [containerStatus({ ready: true })],
    });
    expect(diagnosePod(p)).toBeUndefined();
  });
});

describe('diagnosePod: scheduling and start-up', () => {
  it("reports PodScheduled=False Unschedulable as waiting with the scheduler's message", () => {
    const p = unschedulablePod();
    expect(diagnosePod(p)).toEqual({
      severity: 'waiting',
      reason: 'Unschedulable',
      message: UNSCHEDULABLE_MESSAGE,
      pod: p.metadata!.name,
    });
  });

  it('reports a pod not yet bound to a node and without conditions as Pending', () => {
    expect(diagnosePod(pendingPod())).toMatchObject({ severity: 'waiting', reason: 'Pending', message: 'waiting to be scheduled' });
  });

  it('reports a pod bound to a node whose container is being created as ContainerCreating', () => {
    const d = diagnosePod(containerCreatingPod());
    expect(d).toMatchObject({ severity: 'waiting', reason: 'ContainerCreating', container: 'manager', restartCount: 0 });
    expect(d?.message).toMatch(/pulling the image/);
  });

  it('reports a scheduled pod without container statuses yet as ContainerCreating', () => {
    const p = pod({ phase: 'Pending', conditions: [podConditions.scheduled()], containerStatuses: [] });
    expect(diagnosePod(p)).toMatchObject({ severity: 'waiting', reason: 'ContainerCreating' });
  });

  it('reports a running container that is not ready as ContainerNotReady (waiting)', () => {
    expect(diagnosePod(runningPod())).toMatchObject({
      severity: 'waiting',
      reason: 'ContainerNotReady',
      message: 'running, not ready yet',
      container: 'manager',
      restartCount: 0,
    });
  });

  it('mentions the previous OOMKilled exit when a restarted container is running but not ready', () => {
    const d = diagnosePod(runningPod({ restartCount: 1, lastState: states.terminated(137, 'OOMKilled') }));
    expect(d).toMatchObject({ severity: 'waiting', reason: 'ContainerNotReady', restartCount: 1 });
    expect(d?.message).toMatch(/OOMKilled \(exit code 137\)/);
  });

  it('returns undefined for a running and ready pod', () => {
    expect(diagnosePod(readyPod())).toBeUndefined();
  });

  it('reports only the not-ready container of a pod with one ready and one unready container', () => {
    const p = pod({
      containerStatuses: [containerStatus({ name: 'manager', ready: true }), containerStatus({ name: 'agent', ready: false })],
    });
    expect(diagnosePod(p)).toMatchObject({ reason: 'ContainerNotReady', container: 'agent' });
  });
});

describe('diagnosePod: terminated and failed pods', () => {
  it('reports phase Failed reason Evicted as failed with the kubelet eviction message', () => {
    const p = evictedPod();
    expect(diagnosePod(p)).toEqual({
      severity: 'failed',
      reason: 'Evicted',
      message: EVICTION_MESSAGE.trim(),
      pod: p.metadata!.name,
    });
  });

  it('reports a container that terminated with a non-zero exit as failed, with the exit code', () => {
    expect(diagnosePod(terminatedPod(1))).toMatchObject({
      severity: 'failed',
      reason: 'Error',
      message: 'the container exited with code 1',
      container: 'manager',
    });
  });

  it('reports a container terminated by OOMKilled with that reason', () => {
    expect(diagnosePod(terminatedPod(137, 'OOMKilled'))).toMatchObject({ severity: 'failed', reason: 'OOMKilled' });
  });

  it('reports a pod with a deletionTimestamp as Terminating (waiting)', () => {
    expect(diagnosePod(readyPod({ deletionTimestamp: new Date('2025-01-15T10:01:00Z') }))).toMatchObject({
      severity: 'waiting',
      reason: 'Terminating',
    });
  });
});
