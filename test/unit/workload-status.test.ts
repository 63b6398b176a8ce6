// Unit tests for the pure status mapping (workloadStatus, unknownStatus, sameWorkloadStatus):
// every row of the table, on Deployments and Pods shaped as the controllers and the kubelet
// write them (test/support/fixtures.ts). No API server is involved.
import type { V1Deployment, V1Pod } from '../../src/kube/objects.js';
import { describe, expect, it } from 'vitest';
import { sameWorkloadStatus } from '../../src/rollout/same-workload-status.js';
import { unknownStatus } from '../../src/rollout/unknown-status.js';
import { REVISION_ANNOTATION } from '../../src/kube/objects.js';
import { workloadStatus, type WorkloadStatusValue } from '../../src/rollout/workload-status.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL, NODE_ID_LABEL } from '../../src/input/labels.js';
import {
  IMAGE,
  OLD_HASH,
  T0,
  UNSCHEDULABLE_MESSAGE,
  conditions,
  containerCreatingPod,
  deployment,
  kubeletMessages,
  pendingPod,
  progressingDeployment,
  quotaMessage,
  readyPod,
  runningPod,
  states,
  unschedulablePod,
  waitingPod,
  type DeploymentOptions,
} from '../support/fixtures.js';

const OURS = { [MANAGED_LABEL]: 'true', [NODE_ID_LABEL]: '7', [CONTAINER_ID_LABEL]: '42', app: 'web' };

/** A Deployment of ours: ownership labels, a container with resources, the given revision. */
function ours(options: DeploymentOptions = {}, revision = '1'): V1Deployment {
  const built = deployment({ labels: OURS, ...options });
  built.metadata!.annotations = { [REVISION_ANNOTATION]: revision };
  built.spec!.template.spec!.containers[0]!.resources = {
    requests: { cpu: '500m', memory: '256Mi' },
    limits: { cpu: '500m', memory: '256Mi' },
  };
  return built;
}

/** Scaled to 0 and settled: the controller may drop every replica count (only observedGeneration left). */
function scaledToZero(generation = 2): V1Deployment {
  const built = ours({ generation, replicas: 0 });
  built.status = { observedGeneration: generation, conditions: [conditions.available(), conditions.newReplicaSetAvailable()] };
  return built;
}

const status = (d: V1Deployment | undefined, pods: readonly V1Pod[] = [], options = {}) => workloadStatus(d, pods, options);

describe('workloadStatus: not ours', () => {
  it('no Deployment: missing (NotFound), with no detail', () => {
    expect(status(undefined)).toEqual({
      state: 'missing',
      reason: 'NotFound',
      message: 'no such Deployment',
      podIp: null,
      nodeName: null,
      restarts: 0,
      address: null,
      service: null,
      image: null,
      resources: { cpu: null, memory: null },
      generation: 0,
      observedGeneration: 0,
      replicas: { desired: 0, total: 0, updated: 0, ready: 0, available: 0 },
    });
  });

  it('a Deployment without managed=true is never ours, however healthy', () => {
    const foreign = deployment({ labels: { app: 'web', [CONTAINER_ID_LABEL]: '42' } });
    const value = status(foreign, [readyPod()]);
    expect(value).toMatchObject({ state: 'missing', reason: 'NotManaged', podIp: null, image: null });
    expect(value.message).toContain(`${MANAGED_LABEL}=true`);
  });

  it('managed=true without a container-id label is not ours either', () => {
    const value = status(deployment({ labels: { [MANAGED_LABEL]: 'true' } }), [readyPod()]);
    expect(value).toMatchObject({ state: 'missing', reason: 'NotManaged' });
    expect(value.message).toContain(CONTAINER_ID_LABEL);
  });

  it('another container-id than the expected one: missing (OtherContainer), the other workload untouched', () => {
    const value = status(ours(), [readyPod()], { containerId: '43' });
    expect(value).toMatchObject({ state: 'missing', reason: 'OtherContainer', podIp: null });
    expect(value.message).toBe('the Deployment belongs to container 42, not 43');
    expect(status(ours(), [readyPod()], { containerId: '42' }).state).toBe('running');
  });
});

describe('workloadStatus: stopped and stopping', () => {
  it('replicas 0, no Pod left, no replica counts at all: offline (missing counts mean 0)', () => {
    const value = status(scaledToZero());
    expect(value).toMatchObject({
      state: 'offline',
      reason: 'ScaledToZero',
      message: 'scaled to 0, no pod left',
      podIp: null,
      nodeName: null,
      replicas: { desired: 0, total: 0, updated: 0, ready: 0, available: 0 },
      generation: 2,
      observedGeneration: 2,
    });
  });

  it('replicas 0 and no status at all: offline', () => {
    const bare = ours({ replicas: 0, observedGeneration: null });
    expect(status(bare).state).toBe('offline');
  });

  it('replicas 0, a Pod still terminating: stopping, and the Pod IP is gone at once', () => {
    const terminating = readyPod({ deletionTimestamp: T0 });
    const value = status(scaledToZero(), [terminating]);
    expect(value).toMatchObject({ state: 'stopping', reason: 'PodsTerminating', message: 'scaled to 0, 1 pod left', podIp: null });
  });

  it('replicas 0 just set, the controller has not acted yet (Pod still Ready): stopping', () => {
    const justScaled = ours({ generation: 3, observedGeneration: 2, replicas: 0, statusReplicas: 1 });
    expect(status(justScaled, [readyPod()]).state).toBe('stopping');
  });

  it('replicas 0, the Pods are gone but the controller still counts one: stopping until it counts 0', () => {
    const counted = ours({ generation: 3, replicas: 0, statusReplicas: 1 });
    expect(status(counted, [])).toMatchObject({ state: 'stopping', message: 'scaled to 0, 1 pod left' });
  });

  it('a Deployment being deleted: stopping (Deleting)', () => {
    expect(status(ours({ deletionTimestamp: T0 }), [readyPod()])).toMatchObject({ state: 'stopping', reason: 'Deleting' });
  });
});

describe('workloadStatus: running', () => {
  it('rollout complete and available: running, with the Ready Pod, its node, image and resources', () => {
    const value = status(ours(), [readyPod({ nodeName: 'kwok-node-0' })]);
    expect(value).toEqual({
      state: 'running',
      reason: 'NewReplicaSetAvailable',
      message: '1/1 ready',
      podIp: '10.244.1.17',
      nodeName: 'kwok-node-0',
      restarts: 0,
      address: null,
      service: null,
      image: IMAGE,
      resources: { cpu: '500m', memory: '256Mi' },
      generation: 1,
      observedGeneration: 1,
      replicas: { desired: 1, total: 1, updated: 1, ready: 1, available: 1 },
    });
  });

  it('counts the restarts of the Pod shown', () => {
    const restarted = readyPod();
    restarted.status!.containerStatuses![0]!.restartCount = 2;
    expect(status(ours(), [restarted]).restarts).toBe(2);
  });

  it('no Ready Pod: no IP (a terminating Ready Pod does not count)', () => {
    const value = status(ours(), [readyPod({ deletionTimestamp: T0 })]);
    expect(value.podIp).toBeNull();
  });

  it('shares one frozen copy of the resources and replica counts many workloads have alike', () => {
    const [one, other] = [status(ours(), [readyPod()]), status(ours(), [readyPod()])];
    expect(one.resources).toBe(other.resources);
    expect(one.replicas).toBe(other.replicas);
    expect(Object.isFrozen(one.replicas)).toBe(true);
    expect(status(ours({ replicas: 2 }), [readyPod()]).replicas).toMatchObject({ desired: 2 });
  });
});

describe('workloadStatus: in progress (creating / starting / updating)', () => {
  it('a new Deployment (generation 1), Pod creating: creating, with the kubelet state', () => {
    const value = status(progressingDeployment({ labels: OURS }), [containerCreatingPod()]);
    expect(value).toMatchObject({
      state: 'creating',
      reason: 'ContainerCreating',
      message: 'pulling the image and starting the container',
      podIp: null,
      nodeName: 'worker-1',
      pod: { severity: 'waiting', reason: 'ContainerCreating' },
    });
  });

  it('just created: no status yet, replica counts absent: creating', () => {
    const created = ours({ observedGeneration: null });
    expect(status(created)).toMatchObject({ state: 'creating', reason: 'ObservedGenerationBehind', replicas: { desired: 1, ready: 0 } });
  });

  it('scaled up from 0 (template unchanged since revision 1): starting', () => {
    const scaledUp = ours({
      generation: 3,
      readyReplicas: 0,
      availableReplicas: 0,
      updatedReplicas: 0,
      statusReplicas: 0,
      conditions: [conditions.unavailable(), conditions.replicaSetUpdated()],
    });
    expect(status(scaledUp, [pendingPod()])).toMatchObject({ state: 'starting', reason: 'Pending', message: 'waiting to be scheduled' });
  });

  it('the controller still reports the template available (NewReplicaSetAvailable) while a Pod comes up: starting', () => {
    const comingBack = ours(
      {
        generation: 4,
        readyReplicas: 0,
        availableReplicas: 0,
        conditions: [conditions.unavailable(), conditions.newReplicaSetAvailable()],
      },
      '2',
    );
    expect(status(comingBack, [runningPod()]).state).toBe('starting');
  });

  it('a new pod template (revision 2): updating', () => {
    const update = ours(
      { generation: 2, readyReplicas: 0, availableReplicas: 0, conditions: [conditions.unavailable(), conditions.newReplicaSetCreated()] },
      '2',
    );
    expect(status(update, [containerCreatingPod()]).state).toBe('updating');
  });

  it('with the previous status, an episode keeps its word until it ends', () => {
    const scaledUp = ours(
      { generation: 5, readyReplicas: 0, availableReplicas: 0, conditions: [conditions.unavailable(), conditions.replicaSetUpdated()] },
      '2',
    );
    // One snapshot of a revision-2 Deployment reads as an update ...
    expect(status(scaledUp, [runningPod()]).state).toBe('updating');
    // ... but after offline it is a start, and stays one for the same generation.
    const offline = status(scaledToZero(4));
    const first = status(scaledUp, [pendingPod()], { previous: offline });
    expect(first.state).toBe('starting');
    expect(status(scaledUp, [runningPod()], { previous: first }).state).toBe('starting');
  });

  it('with the previous status: running then a new generation with the same replicas is an update', () => {
    const running = status(ours({ generation: 1 }), [readyPod()]);
    const behind = ours({ generation: 2, observedGeneration: 1 });
    expect(status(behind, [readyPod()], { previous: running }).state).toBe('updating');
  });

  it('with the previous status: running then the same generation losing its Pod is a start (the Pod is coming back)', () => {
    const running = status(ours({ generation: 1 }), [readyPod()]);
    const lost = ours({
      generation: 1,
      readyReplicas: 0,
      availableReplicas: 0,
      conditions: [conditions.unavailable(), conditions.newReplicaSetAvailable()],
    });
    expect(status(lost, [pendingPod()], { previous: running }).state).toBe('starting');
  });

  it('a missing or unknown previous status says nothing: the snapshot decides', () => {
    const created = progressingDeployment({ labels: OURS });
    expect(status(created, [pendingPod()], { previous: status(undefined) }).state).toBe('creating');
    expect(status(created, [pendingPod()], { previous: unknownStatus('ApiUnreachable', 'down') }).state).toBe('creating');
  });

  it('a Pod of an older revision never speaks for the new one', () => {
    const old = waitingPod('CrashLoopBackOff', 'back-off', { hash: OLD_HASH, restartCount: 9 });
    const value = status(progressingDeployment({ labels: OURS }), [old, containerCreatingPod()]);
    expect(value).toMatchObject({ state: 'creating', reason: 'ContainerCreating' });
  });
});

describe('workloadStatus: failed', () => {
  it('ProgressDeadlineExceeded: failed, with the Pod diagnosis in the kubelet words', () => {
    const stuck = ours({
      readyReplicas: 0,
      availableReplicas: 0,
      conditions: [conditions.unavailable(), conditions.progressDeadlineExceeded()],
    });
    const message = kubeletMessages.backOffPulling();
    const value = status(stuck, [waitingPod('ImagePullBackOff', message)]);
    expect(value).toMatchObject({
      state: 'failed',
      reason: 'ProgressDeadlineExceeded',
      pod: { severity: 'failed', reason: 'ImagePullBackOff', message },
    });
  });

  it('an image that does not exist (ErrImagePull, "not found"): failed at once, naming pod and container', () => {
    const value = status(progressingDeployment({ labels: OURS }), [waitingPod('ErrImagePull', kubeletMessages.imageNotFound())]);
    expect(value.state).toBe('failed');
    expect(value.reason).toBe('ErrImagePull');
    expect(value.message).toMatch(/^ErrImagePull \(container manager in pod web-7c9f5d-\w+\): rpc error: .* not found$/);
    expect(value.pod?.reason).toBe('ErrImagePull');
  });

  it('a crash loop past its restart count: failed; before it: still creating, with the diagnosis', () => {
    const crashing = (restartCount: number) =>
      waitingPod('CrashLoopBackOff', kubeletMessages.crashLoop('web-7c9f5d-x'), { restartCount, lastState: states.terminated(1) });
    expect(status(progressingDeployment({ labels: OURS }), [crashing(3)])).toMatchObject({ state: 'failed', reason: 'CrashLoopBackOff' });
    expect(status(progressingDeployment({ labels: OURS }), [crashing(1)])).toMatchObject({
      state: 'creating',
      reason: 'CrashLoopBackOff',
      pod: { severity: 'failed', restartCount: 1 },
    });
  });

  it('a registry that fails now (ImagePullBackOff) needs a history: one snapshot says creating; the judgement of a tracker says failed', () => {
    const pulling = waitingPod('ImagePullBackOff', kubeletMessages.registryUnavailable());
    const d = progressingDeployment({ labels: OURS });
    expect(status(d, [pulling])).toMatchObject({ state: 'creating', reason: 'ImagePullBackOff' });
    const judged = status(d, [pulling], {
      judgement: { podFailure: { severity: 'failed', reason: 'ImagePullBackOff', message: 'x', pod: 'p' } },
    });
    expect(judged).toMatchObject({ state: 'failed', reason: 'ImagePullBackOff', pod: { pod: 'p' } });
  });

  it('unschedulable in one snapshot: in progress with the scheduler words (the grace window needs a history)', () => {
    const value = status(progressingDeployment({ labels: OURS }), [unschedulablePod()]);
    expect(value).toMatchObject({ state: 'creating', reason: 'Unschedulable', pod: { message: UNSCHEDULABLE_MESSAGE } });
  });

  it('a create refused for good (quota): failed; a transient create failure: in progress', () => {
    const quota = ours({
      readyReplicas: 0,
      conditions: [conditions.unavailable(), conditions.replicaFailure(), conditions.replicaSetUpdated()],
    });
    expect(status(quota)).toMatchObject({ state: 'failed', reason: 'FailedCreate', message: quotaMessage() });
    const transient = ours({
      readyReplicas: 0,
      conditions: [
        conditions.unavailable(),
        conditions.replicaFailure('Post "https://127.0.0.1:6443/api/v1/pods": connection refused'),
        conditions.replicaSetUpdated(),
      ],
    });
    expect(status(transient).state).toBe('creating');
    expect(status(transient, [], { judgement: { createFailureFatal: true } })).toMatchObject({ state: 'failed', reason: 'FailedCreate' });
  });
});

describe('unknownStatus', () => {
  it('keeps what the Deployment asks for, drops what only a live answer tells', () => {
    const running = status(ours(), [readyPod()]);
    expect(unknownStatus('ApiUnreachable', 'Kubernetes API at https://x is unreachable:\n connect ECONNREFUSED', running)).toEqual({
      state: 'unknown',
      reason: 'ApiUnreachable',
      message: 'Kubernetes API at https://x is unreachable: connect ECONNREFUSED',
      podIp: null,
      nodeName: null,
      restarts: 0,
      address: null,
      service: null,
      image: IMAGE,
      resources: { cpu: '500m', memory: '256Mi' },
      generation: 1,
      observedGeneration: 1,
      replicas: running.replicas,
    });
    expect(unknownStatus('Timeout', 'no answer')).toMatchObject({ state: 'unknown', image: null, generation: 0 });
  });
});

describe('sameWorkloadStatus', () => {
  const base = status(ours(), [readyPod()]);
  const variants: [string, WorkloadStatusValue][] = [
    ['state', { ...base, state: 'starting' }],
    ['message', { ...base, message: '0/1 ready' }],
    ['podIp', { ...base, podIp: '10.0.0.9' }],
    ['restarts', { ...base, restarts: 1 }],
    ['image', { ...base, image: 'nginx:2' }],
    ['cpu', { ...base, resources: { ...base.resources, cpu: '1' } }],
    ['generation', { ...base, generation: 2 }],
    ['replicas', { ...base, replicas: { ...base.replicas, ready: 0 } }],
    ['pod', { ...base, pod: { severity: 'waiting', reason: 'Pending', message: 'm', pod: 'p' } }],
  ];
  it('equal values, built apart, are the same', () => {
    expect(sameWorkloadStatus(base, status(ours(), [readyPod()]))).toBe(true);
  });
  it.each(variants)('a different %s is a change', (_, changed) => {
    expect(sameWorkloadStatus(base, changed)).toBe(false);
    expect(sameWorkloadStatus(changed, base)).toBe(false);
  });
});
