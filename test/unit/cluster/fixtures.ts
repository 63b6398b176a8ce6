// Nodes and Pods as the API server returns them, for the cluster unit tests.
import type { V1Node, V1Pod, V1Taint } from '../../../src/kube/objects.js';

/** A node with two InternalIPs (dual stack), no ExternalIP, 4 CPUs, 8Gi and 110 Pods unless told. */
export function node(
  name: string,
  overrides: {
    ready?: boolean;
    unschedulable?: boolean;
    taints?: V1Taint[];
    cpu?: string;
    memory?: string;
    pods?: string;
  } = {},
): V1Node {
  return {
    metadata: { name, resourceVersion: '1' },
    spec: { ...(overrides.unschedulable ? { unschedulable: true } : {}), ...(overrides.taints ? { taints: overrides.taints } : {}) },
    status: {
      conditions: [
        { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: new Date('2026-01-01T00:01:00Z') },
        {
          type: 'Ready',
          status: overrides.ready === false ? 'Unknown' : 'True',
          reason: overrides.ready === false ? 'NodeStatusUnknown' : 'KubeletReady',
          message: overrides.ready === false ? 'Kubelet stopped posting node status.' : 'kubelet is posting ready status',
          lastTransitionTime: new Date('2026-01-01T00:00:00Z'),
          lastHeartbeatTime: new Date('2026-01-01T00:01:00Z'),
        },
      ],
      addresses: [
        { type: 'Hostname', address: name },
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'InternalIP', address: 'fd00::5' },
      ],
      allocatable: { cpu: overrides.cpu ?? '4', memory: overrides.memory ?? '8Gi', pods: overrides.pods ?? '110' },
      nodeInfo: { kubeletVersion: 'v1.36.3' } as NonNullable<V1Node['status']>['nodeInfo'],
    },
  };
}

/** A Pod bound to `nodeName`, with one container requesting `cpu` and `memory`. */
export function pod(
  name: string,
  nodeName: string,
  cpu: string,
  memory: string,
  extra: Partial<V1Pod['spec']> & { phase?: string; namespace?: string } = {},
): V1Pod {
  const { phase, namespace, ...spec } = extra;
  return {
    metadata: { name, namespace: namespace ?? 'default' },
    spec: { nodeName, containers: [{ name: 'main', resources: { requests: { cpu, memory } } }], ...spec },
    status: { phase: phase ?? 'Running' },
  };
}
