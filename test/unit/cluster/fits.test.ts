// fitsOnNodes(): the pure verdict behind fits(), node by node.
import { describe, expect, it } from 'vitest';
import { fitsOnNodes } from '../../../src/cluster/fits.js';
import { nodeInfo, requestedBy } from '../../../src/cluster/node-info.js';
import { node, pod } from './fixtures.js';

const Mi = 1024 ** 2;

describe('fitsOnNodes', () => {
  it('fits where a Ready, schedulable, untainted node has the CPU, memory and a Pod slot free', () => {
    const nodes = [
      nodeInfo(node('big'), requestedBy([pod('a', 'big', '3', '1Gi')])),
      nodeInfo(node('small', { cpu: '1' }), requestedBy([])),
    ];
    const verdict = fitsOnNodes(nodes, { cpuMillicores: 1000, memoryBytes: 512 * Mi });
    expect(verdict.fits).toBe(true);
    expect(verdict.nodes).toEqual([
      { name: 'big', fits: true, reasons: [] },
      { name: 'small', fits: true, reasons: [] },
    ]);
    expect(verdict.message).toBe('1 CPU and 512Mi memory fits on 2 of 2 node(s): big, small');
  });

  it('says why each node is out: not Ready, cordoned (without repeating its taint), tainted, full', () => {
    const nodes = [
      nodeInfo(node('down', { ready: false, taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }] }), requestedBy([])),
      nodeInfo(
        node('cordoned', { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] }),
        requestedBy([]),
      ),
      nodeInfo(node('gpu', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }), requestedBy([])),
      nodeInfo(node('busy', { pods: '1' }), requestedBy([pod('a', 'busy', '3500m', '7Gi')])),
    ];
    const verdict = fitsOnNodes(nodes, { cpuMillicores: 1000, memoryBytes: 2048 * Mi });
    expect(verdict.fits).toBe(false);
    expect(Object.fromEntries(verdict.nodes.map((fit) => [fit.name, fit.reasons]))).toEqual({
      down: ['not Ready (NodeStatusUnknown: Kubelet stopped posting node status.)'],
      cordoned: ['cordoned (unschedulable)'],
      gpu: ['tainted dedicated=gpu:NoSchedule'],
      busy: ['500m of 4 CPU free (needs 1)', '1Gi of 8Gi memory free (needs 2Gi)', 'already runs 1 Pods, its maximum'],
    });
    expect(verdict.message).toMatch(/^no Ready, schedulable node has room for 1 CPU and 2Gi memory: down: not Ready/);
  });

  it('a Ready node still carrying the not-ready taint is out for the taint', () => {
    const verdict = fitsOnNodes(
      [nodeInfo(node('n', { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] }), requestedBy([]))],
      {
        cpuMillicores: 1,
        memoryBytes: 1,
      },
    );
    expect(verdict.nodes[0]?.reasons).toEqual(['tainted node.kubernetes.io/not-ready:NoSchedule']);
  });

  it('no nodes: does not fit, and says the cluster has none', () => {
    expect(fitsOnNodes([], { cpuMillicores: 1, memoryBytes: 1 })).toMatchObject({
      fits: false,
      message: 'no node to run 1m CPU and 1 memory: the cluster has no nodes',
    });
  });
});
