// The real node beside the KWOK node: KWOK leaves it to its kubelet (KWOK manages only the
// nodes annotated as its own), its taint keeps every ordinary workload on KWOK, and a
// namespace annotated for it (PodNodeSelector, PodTolerationRestriction) runs its workloads
// there, in real containers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { provision } from '../../src/index.js';
import { clusterEnv } from '../support/cluster-env.js';
import { apiFor, createNamespace, kubectl, kubectlJson, sampleSpec } from '../support/kube.js';
import { createRealNodeNamespace, podsOf, realNodeEnv, realSpec, shellEntrypoint } from '../support/real-node.js';
import { pinnedVersions } from '../../scripts/control-plane/binaries.js';

let kwokNamespace: string;
let realNamespace: string;
beforeAll(() => {
  kwokNamespace = createNamespace('rn-kwok');
  realNamespace = createRealNodeNamespace('rn-place');
});
afterAll(() => {
  kubectl(['delete', 'namespace', kwokNamespace, realNamespace, '--wait=false']);
});

interface NodeJson {
  readonly spec: { readonly taints?: readonly { key: string; effect: string }[] };
  readonly status: {
    readonly nodeInfo: { readonly kubeletVersion: string; readonly containerRuntimeVersion: string };
    readonly addresses: readonly { type: string; address: string }[];
  };
}

describe('the real node beside KWOK', () => {
  it('is run by its own kubelet, not by KWOK', () => {
    const { nodeName, nodeIp } = realNodeEnv();
    const node = kubectlJson<NodeJson>(['get', 'node', nodeName]);
    expect(node.status.nodeInfo.kubeletVersion).toBe(pinnedVersions().kubernetes);
    expect(node.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\/1\.6\./);
    expect(node.status.addresses).toContainEqual({ type: 'InternalIP', address: nodeIp });
    expect(node.spec.taints).toContainEqual(expect.objectContaining({ key: 'kube-provisioner.dev/real-node', effect: 'NoSchedule' }));
    // The kubelet renews its own lease; KWOK would hold it under its own identity.
    const lease = kubectlJson<{ spec: { holderIdentity: string } }>(['get', 'lease', '-n', 'kube-node-lease', nodeName]);
    expect(lease.spec.holderIdentity).toBe(nodeName);
    const kwok = kubectlJson<NodeJson>(['get', 'node', clusterEnv().nodeName]);
    expect(kwok.status.nodeInfo.containerRuntimeVersion).toMatch(/^kwok/);
  });

  it('keeps an ordinary workload on the KWOK node, and runs a real-node namespace’s workload in a real container', async () => {
    const ordinary = sampleSpec();
    const real = realSpec({ entrypoint: shellEntrypoint('sleep 3600') });
    await Promise.all([
      provision(apiFor(), { namespace: kwokNamespace, ...ordinary }, { timeoutMs: 60_000 }),
      provision(apiFor(), { namespace: realNamespace, ...real }, { timeoutMs: 60_000 }),
    ]);
    const [kwokPod] = podsOf(kwokNamespace, Number(ordinary.containerId));
    expect(kwokPod?.spec.nodeName).toBe(clusterEnv().nodeName);

    const [realPod] = podsOf(realNamespace, Number(real.containerId));
    expect(realPod?.spec.nodeName).toBe(realNodeEnv().nodeName);
    expect(realPod?.status.containerStatuses?.[0]?.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    // An address of the node's bridge network (a /24), given by the CNI plugins.
    expect(realPod?.status.podIP?.replace(/\.\d+$/, '.0/24')).toBe(realNodeEnv().podSubnet);
    // A real process, seen through the API server, the kubelet and containerd (exec).
    const processes = kubectl(['exec', '-n', realNamespace, realPod?.metadata.name ?? '', '--', 'ps', '-o', 'args']);
    expect(processes.split('\n').map((line) => line.trim())).toContain('sleep 3600');
  });
});
