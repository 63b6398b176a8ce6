// The Service as the tracker's readiness gate ("ready means reachable"): serviceGate() over
// fixtures shaped like the real controllers' objects, the tracker's grace window for a
// pending LoadBalancer (explicit times, no scheduler), and workloadStatus reading its
// state and address off that one judgement.
import { describe, expect, it } from 'vitest';
import type { V1EndpointSlice, V1Pod, V1Service } from '../../../src/kube/objects.js';
import { DEFAULT_FAILURE_POLICY, resolveFailurePolicy } from '../../../src/rollout/failure-policy.js';
import { serviceGate } from '../../../src/rollout/service-gate.js';
import { INITIAL_TRACKER_STATE, trackRollout } from '../../../src/rollout/tracker.js';
import { workloadStatus } from '../../../src/rollout/workload-status.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL } from '../../../src/input/labels.js';
import { deployment, readyPod } from '../../support/fixtures.js';

const LABELS = { app: 'web', [MANAGED_LABEL]: 'true', [CONTAINER_ID_LABEL]: '42' };
const ours = (replicas = 1) => deployment({ labels: LABELS, replicas });

function service(type: 'ClusterIP' | 'LoadBalancer' = 'ClusterIP', ingress?: string): V1Service {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'service-uid' },
    spec: {
      type,
      clusterIP: '10.0.0.223',
      clusterIPs: ['10.0.0.223'],
      selector: { ...LABELS },
      ports: [{ name: 'tcp-22', port: 22, protocol: 'TCP', targetPort: 22 }],
    },
    status: { loadBalancer: ingress ? { ingress: [{ ip: ingress }] } : {} },
  };
}

function slice(pod: V1Pod, ready: boolean): V1EndpointSlice {
  return {
    addressType: 'IPv4',
    metadata: {
      name: 'web-6wj67',
      labels: { 'kubernetes.io/service-name': 'web' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'service-uid', controller: true }],
    },
    endpoints: [
      {
        addresses: [pod.status?.podIP ?? ''],
        conditions: { ready, serving: ready, terminating: false },
        targetRef: { kind: 'Pod', name: pod.metadata?.name ?? '', namespace: 'default', uid: pod.metadata?.uid ?? '' },
      },
    ],
    ports: [{ name: 'tcp-22', port: 22, protocol: 'TCP' }],
  };
}

describe('serviceGate', () => {
  it('Complete once the slices list the rollout’s ready Pod on every port; InProgress before; none without a Service', () => {
    const pod = readyPod({ nodeName: 'kwok-node-0' });
    expect(serviceGate(undefined, [], ours(), [pod], DEFAULT_FAILURE_POLICY)).toBeUndefined();
    expect(serviceGate(service(), [slice(pod, true)], ours(), [pod], DEFAULT_FAILURE_POLICY)).toMatchObject({
      kind: 'Service',
      name: 'web',
      status: { state: 'Complete', reason: 'Routed' },
    });
    const waiting = serviceGate(service(), [slice(pod, false)], ours(), [pod], DEFAULT_FAILURE_POLICY);
    expect(waiting).toMatchObject({ status: { state: 'InProgress', reason: 'EndpointNotReady' } });
    expect(waiting?.status.message).toMatch(/^waiting for the Service to route to the Pod/);
    expect(waiting?.graceMs).toBeUndefined();
  });

  it('a pending LoadBalancer is timed by the tracker and fails by name when the window ends; an address ends the wait', () => {
    const policy = resolveFailurePolicy({ loadBalancer: { graceMs: 1000 } });
    const pod = readyPod({ nodeName: 'kwok-node-0' });
    const input = (lb: V1Service, now: number) => ({
      deployment: ours(),
      pods: [pod],
      now,
      gates: [serviceGate(lb, [slice(pod, true)], ours(), [pod], policy)!],
    });
    const first = trackRollout(policy, INITIAL_TRACKER_STATE, input(service('LoadBalancer'), 5000));
    expect(first).toMatchObject({
      complete: false,
      failure: undefined,
      recheckAt: 6000,
      waitingFor: { status: { reason: 'LoadBalancerPending' } },
    });
    const before = trackRollout(policy, first.state, input(service('LoadBalancer'), 5999));
    expect(before).toMatchObject({ failure: undefined, recheckAt: 6000 });
    const ended = trackRollout(policy, before.state, input(service('LoadBalancer'), 6000));
    expect(ended.failure).toMatchObject({ source: 'gate', reason: 'LoadBalancerPending' });
    expect(ended.failure?.detail).toMatch(/^Service web: no load balancer gave it an address within 1000 ms/);
    const assigned = trackRollout(policy, before.state, input(service('LoadBalancer', '192.0.2.10'), 5999));
    expect(assigned).toMatchObject({ complete: true, failure: undefined, recheckAt: undefined });
  });

  it('graceMs Infinity never ends the LoadBalancer wait: no recheck time', () => {
    const policy = resolveFailurePolicy({ loadBalancer: { graceMs: Infinity } });
    const pod = readyPod({ nodeName: 'kwok-node-0' });
    const gate = serviceGate(service('LoadBalancer'), [], ours(), [pod], policy)!;
    const step = trackRollout(policy, INITIAL_TRACKER_STATE, { deployment: ours(), pods: [pod], now: 2 ** 31, gates: [gate] });
    expect(step).toMatchObject({ failure: undefined, recheckAt: undefined, complete: false });
  });
});

describe('workloadStatus with a Service: the gate decides running, the address stays', () => {
  it('routed: running at the ClusterIP; not routed yet: waiting for the Service; stopped: offline, same address', () => {
    const pod = readyPod({ nodeName: 'kwok-node-0' });
    const routed = workloadStatus(ours(), [pod], { service: service(), slices: [slice(pod, true)] });
    expect(routed).toMatchObject({ state: 'running', address: '10.0.0.223', podIp: '10.244.1.17', service: { routed: true } });
    const waiting = workloadStatus(ours(), [pod], { service: service(), slices: [slice(pod, false)] });
    expect(waiting).toMatchObject({ reason: 'EndpointNotReady', address: '10.0.0.223', service: { routed: false } });
    expect(waiting.state).not.toBe('running');
    expect(waiting.message).toMatch(/^waiting for the Service web: waiting for the Service to route to the Pod/);
    const stopped = workloadStatus(ours(0), [], { service: service(), slices: [] });
    expect(stopped).toMatchObject({ state: 'offline', address: '10.0.0.223', service: { routed: false } });
  });

  it('no Service: no gate, running as before, address null', () => {
    expect(workloadStatus(ours(), [readyPod({ nodeName: 'kwok-node-0' })])).toMatchObject({
      state: 'running',
      address: null,
      service: null,
    });
  });
});
