// What nodes() reports of a Node and how Pod requests add up on it (pure functions).
import { describe, expect, it } from 'vitest';
import { cachedNodeFields, cachedPodRequestFields, nodeInfo, podRequests, requestedBy } from '../../../src/cluster/node-info.js';
import { node, pod } from './fixtures.js';

describe('nodeInfo', () => {
  it('reports Ready since the last transition, the first InternalIP, no ExternalIP, allocatable and requested', () => {
    const info = nodeInfo(node('n1'), requestedBy([pod('a', 'n1', '500m', '1Gi'), pod('b', 'n1', '250m', '512Mi')]));
    expect(info).toEqual({
      name: 'n1',
      ready: true,
      readySince: '2026-01-01T00:00:00.000Z',
      notReadyReason: null,
      schedulable: true,
      taints: [],
      internalIP: '10.0.0.5',
      externalIP: null,
      gpus: {},
      kubeletVersion: 'v1.36.3',
      allocatable: { cpuMillicores: 4000, memoryBytes: 8 * 1024 ** 3, pods: 110 },
      requested: { cpuMillicores: 750, memoryBytes: 1.5 * 1024 ** 3, pods: 2 },
    });
  });

  it('a cordoned, not-Ready node says so, with the condition reason, and keeps only taints that repel Pods', () => {
    const info = nodeInfo(
      node('n2', {
        ready: false,
        unschedulable: true,
        taints: [
          { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
          { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
          { key: 'soft', effect: 'PreferNoSchedule' },
        ],
      }),
      requestedBy([]),
    );
    expect(info.ready).toBe(false);
    expect(info.notReadyReason).toBe('NodeStatusUnknown: Kubelet stopped posting node status.');
    expect(info.schedulable).toBe(false);
    expect(info.taints).toEqual([
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
    ]);
    expect(nodeInfo({ metadata: { name: 'bare' } }, requestedBy([]))).toMatchObject({
      ready: false,
      readySince: null,
      notReadyReason: 'no Ready condition',
    });
  });
});

describe('podRequests and requestedBy', () => {
  it('adds containers and sidecars, takes the larger of that and each init container with the sidecars before it, plus overhead', () => {
    const withInit = pod('p', 'n1', '100m', '100Mi', {
      initContainers: [
        { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { cpu: '50m', memory: '10Mi' } } },
        { name: 'migrate', resources: { requests: { cpu: '1', memory: '50Mi' } } },
      ],
      overhead: { cpu: '10m', memory: '1Mi' },
    });
    // cpu: max(100 + 50, 50 + 1000) + 10; memory: max(100 + 10, 10 + 50) + 1
    expect(podRequests(withInit)).toEqual({ cpuMillicores: 1060, memoryBytes: 111 * 1024 ** 2 });
  });

  it('a pod-level request replaces the sum of its containers; missing requests count as nothing', () => {
    expect(podRequests(pod('p', 'n1', '100m', '100Mi', { resources: { requests: { cpu: '2' } } }))).toEqual({
      cpuMillicores: 2000,
      memoryBytes: 100 * 1024 ** 2,
    });
    expect(podRequests({ metadata: { name: 'x' }, spec: { containers: [{ name: 'c' }] } })).toEqual({ cpuMillicores: 0, memoryBytes: 0 });
  });

  it('finished Pods hold nothing', () => {
    expect(
      requestedBy([
        pod('a', 'n', '1', '1Gi', { phase: 'Succeeded' }),
        pod('b', 'n', '1', '1Gi', { phase: 'Failed' }),
        pod('c', 'n', '1', '1Gi'),
      ]),
    ).toEqual({
      cpuMillicores: 1000,
      memoryBytes: 1024 ** 3,
      pods: 1,
    });
  });

  it('the informer projections keep what nodeInfo and requestedBy read, and drop heartbeats', () => {
    const full = node('n1');
    expect(nodeInfo(cachedNodeFields(full), requestedBy([]))).toEqual(nodeInfo(full, requestedBy([])));
    expect(JSON.stringify(cachedNodeFields(full))).not.toContain('lastHeartbeatTime');
    const p = pod('a', 'n1', '100m', '64Mi', {
      namespace: 'ns',
      initContainers: [{ name: 'i', image: 'busybox', resources: { requests: { cpu: '1' } } }],
    });
    const cached = cachedPodRequestFields(p);
    expect(podRequests(cached)).toEqual(podRequests(p));
    expect(cached.metadata).toMatchObject({ name: 'a', namespace: 'ns' });
    expect(JSON.stringify(cached)).not.toContain('busybox');
  });
});
