// GPUs end to end without a cluster: the spec's gpus, gpuResource and runtimeClass, the
// Deployment they make, drift on adoption, the CLI's flags, the node's GPU capacity and
// fits(), and Manager's nvidiaRequested on a kubernetes node. Pure functions, no fakes.
import { describe, expect, it } from 'vitest';
import { parseCreateArgs } from '../../src/cli/args.js';
import { formatNodes } from '../../src/cli/commands/nodes.js';
import { fitsOnNodes } from '../../src/cluster/fits.js';
import { nodeInfo, requestedBy } from '../../src/cluster/node-info.js';
import { parseResourceRequest } from '../../src/cluster/resource-request.js';
import { InvalidSpecError } from '../../src/errors/input.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import { KubernetesNodeConfigError } from '../../src/manager/errors.js';
import { kubernetesNodeConfig } from '../../src/manager/node-config.js';
import { workloadInput } from '../../src/manager/providers/kubernetes.js';
import { isReconfigurable, workloadDrift } from '../../src/workload/drift.js';
import { buildDeployment } from '../../src/workload/manifest.js';
import { node, pod } from './cluster/fixtures.js';
import { containerRecord } from './manager/providers/fixtures.js';

const base = { containerId: 42, nodeId: 7, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 512 };
const Mi = 1024 ** 2;

function issuesOf(input: unknown): unknown {
  try {
    parseWorkloadSpec(input);
  } catch (error) {
    if (error instanceof InvalidSpecError) return error.issues;
    throw error;
  }
  return [];
}

describe('the spec: gpus, gpuResource, runtimeClass', () => {
  it('gpus requests that many of nvidia.com/gpu by default, as request and limit; runtimeClass names the RuntimeClass', () => {
    const deployment = buildDeployment(parseWorkloadSpec({ ...base, gpus: 2, runtimeClass: 'nvidia' }));
    const pod = deployment.spec?.template.spec;
    expect(pod?.runtimeClassName).toBe('nvidia');
    expect(pod?.containers[0]?.resources).toEqual({
      limits: { cpu: '1000m', memory: '512Mi', 'nvidia.com/gpu': '2' },
      requests: { cpu: '1000m', memory: '512Mi', 'nvidia.com/gpu': '2' },
    });
  });

  it('gpuResource names another extended resource; gpus 0 or absent requests none and sets no runtime class', () => {
    const amd = buildDeployment(parseWorkloadSpec({ ...base, gpus: 1, gpuResource: 'amd.com/gpu' }));
    expect(amd.spec?.template.spec?.containers[0]?.resources?.limits).toEqual({ cpu: '1000m', memory: '512Mi', 'amd.com/gpu': '1' });
    for (const input of [base, { ...base, gpus: 0 }, { ...base, gpus: null }]) {
      const plain = buildDeployment(parseWorkloadSpec(input));
      expect(plain.spec?.template.spec?.containers[0]?.resources?.limits).toEqual({ cpu: '1000m', memory: '512Mi' });
      expect(plain.spec?.template.spec).not.toHaveProperty('runtimeClassName');
    }
  });

  it('refuses, by field and rule, what it would otherwise change or drop', () => {
    expect(issuesOf({ ...base, gpus: 1.5 })).toEqual([{ path: 'gpus', message: 'must be a whole number of GPUs, e.g. 1' }]);
    expect(issuesOf({ ...base, gpus: '1' })).toEqual([{ path: 'gpus', message: 'must be a whole number of GPUs, e.g. 1' }]);
    expect(issuesOf({ ...base, gpus: -1 })).toEqual([{ path: 'gpus', message: 'must be 0 or more' }]);
    expect(issuesOf({ ...base, gpus: 65 })).toEqual([{ path: 'gpus', message: 'must be at most 64' }]);
    expect(issuesOf({ ...base, gpuResource: 'amd.com/gpu' })).toEqual([
      { path: 'gpuResource', message: 'needs gpus of 1 or more (it names what gpus counts)' },
    ]);
    expect(issuesOf({ ...base, gpus: 1, gpuResource: 'gpu' })).toEqual([
      { path: 'gpuResource', message: expect.stringMatching(/^must be an extended resource name.*\(it has no '\/'\)$/) },
    ]);
    expect(issuesOf({ ...base, gpus: 1, gpuResource: 'kubernetes.io/gpu' })).toEqual([
      { path: 'gpuResource', message: expect.stringMatching(/\(kubernetes\.io is reserved for Kubernetes\)$/) },
    ]);
    expect(issuesOf({ ...base, runtimeClass: 'Nvidia' })).toEqual([
      { path: 'runtimeClass', message: expect.stringMatching(/^must be a DNS-1123 subdomain/) },
    ]);
  });

  it('adoption sees a GPU or runtime class difference, and never rewrites it (the containers are all reconfigure writes)', () => {
    const live = buildDeployment(parseWorkloadSpec(base));
    const desired = buildDeployment(parseWorkloadSpec({ ...base, gpus: 1, runtimeClass: 'nvidia' }));
    const drift = workloadDrift(desired, live);
    expect(drift).toEqual([
      { field: 'gpus.nvidia.com/gpu', live: '(none)', desired: '1' },
      { field: 'runtimeClass', live: '(none)', desired: 'nvidia' },
    ]);
    expect(drift.some(isReconfigurable)).toBe(false);
    expect(workloadDrift(desired, desired)).toEqual([]);
  });
});

describe('the CLI', () => {
  it('--gpus N, --gpu-resource and --runtime-class become the spec fields', () => {
    const command = parseCreateArgs([
      ...['--container-id', '1', '--node-id', '2', '--hostname', 'web', '--image', 'nginx', '--cpus', '1', '--memory-mb', '64'],
      ...['--gpus', '2', '--gpu-resource', 'amd.com/gpu', '--runtime-class', 'rocm'],
    ]);
    expect(command).not.toBe('help');
    expect(command !== 'help' && command.spec).toMatchObject({ gpus: 2, gpuResource: 'amd.com/gpu', runtimeClass: 'rocm' });
  });
});

describe("a node's GPU capacity, and fits()", () => {
  const gpuNode = (name: string, gpus: string) => {
    const base = node(name);
    return { ...base, status: { ...base.status, allocatable: { ...base.status?.allocatable, 'nvidia.com/gpu': gpus } } };
  };
  const withGpu = (name: string, nodeName: string, count: string) => {
    const base = pod(name, nodeName, '1', '1Gi');
    const container = base.spec!.containers[0]!;
    return {
      ...base,
      spec: {
        ...base.spec!,
        containers: [{ ...container, resources: { requests: { ...container.resources!.requests, 'nvidia.com/gpu': count } } }],
      },
    };
  };

  it('nodeInfo reports each GPU resource allocatable and requested; a node without one reports none', () => {
    expect(nodeInfo(gpuNode('g', '4'), requestedBy([withGpu('a', 'g', '1'), withGpu('b', 'g', '2')])).gpus).toEqual({
      'nvidia.com/gpu': { allocatable: 4, requested: 3 },
    });
    expect(nodeInfo(node('plain'), requestedBy([pod('a', 'plain', '1', '1Gi')])).gpus).toEqual({});
  });

  it('fits() places a GPU request only where one is free, and says why not elsewhere', () => {
    const nodes = [
      nodeInfo(node('plain'), requestedBy([])),
      nodeInfo(gpuNode('full', '1'), requestedBy([withGpu('a', 'full', '1')])),
      nodeInfo(gpuNode('free', '2'), requestedBy([withGpu('a', 'free', '1')])),
    ];
    const request = parseResourceRequest({ cpus: 1, memoryMb: 512, gpus: 1 });
    expect(request).toEqual({ cpuMillicores: 1000, memoryBytes: 512 * Mi, gpus: { resource: 'nvidia.com/gpu', count: 1 } });
    const verdict = fitsOnNodes(nodes, request);
    expect(Object.fromEntries(verdict.nodes.map((fit) => [fit.name, fit.reasons]))).toEqual({
      plain: ['offers no nvidia.com/gpu'],
      full: ['0 of 1 nvidia.com/gpu free (needs 1)'],
      free: [],
    });
    expect(verdict.message).toBe('1 CPU, 512Mi memory and 1 nvidia.com/gpu fits on 1 of 3 node(s): free');
    expect(fitsOnNodes(nodes.slice(0, 2), request).fits).toBe(false);
  });

  it('kube-provision nodes shows a GPU column', () => {
    const lines = formatNodes(
      [nodeInfo(gpuNode('g', '4'), requestedBy([withGpu('a', 'g', '1')])), nodeInfo(node('plain'), requestedBy([]))],
      undefined,
    );
    expect(lines[0]).toContain('GPUS REQ/ALLOC');
    expect(lines[1]).toContain('nvidia.com/gpu 1/4');
    expect(lines[2]).toMatch(/ - +- *$/);
  });
});

describe("Manager's nvidiaRequested on a kubernetes node", () => {
  const kubeNode = { id: 7, name: 'k8s', nodeType: 'kubernetes', kubeconfigPath: '/etc/k' };

  it('requests one GPU of the node kubeGpuResource (default nvidia.com/gpu) with its kubeGpuRuntimeClass', () => {
    const plain = parseWorkloadSpec(workloadInput(containerRecord({ nvidiaRequested: true, node: kubeNode })));
    expect(plain).toMatchObject({ gpus: 1, gpuResource: 'nvidia.com/gpu' });
    expect(plain).not.toHaveProperty('runtimeClass');
    const configured = parseWorkloadSpec(
      workloadInput(
        containerRecord({ nvidiaRequested: true, node: { ...kubeNode, kubeGpuResource: 'amd.com/gpu', kubeGpuRuntimeClass: 'rocm' } }),
      ),
    );
    expect(configured).toMatchObject({ gpus: 1, gpuResource: 'amd.com/gpu', runtimeClass: 'rocm' });
    const without = parseWorkloadSpec(
      workloadInput(containerRecord({ nvidiaRequested: false, node: { ...kubeNode, kubeGpuRuntimeClass: 'rocm' } })),
    );
    expect(without).not.toHaveProperty('gpus');
    expect(without).not.toHaveProperty('runtimeClass');
  });

  it("a bad GPU column is the node's error, naming the column, when the node is saved and when a GPU container is created", () => {
    const bad = { ...kubeNode, kubeGpuResource: 'gpu', kubeGpuRuntimeClass: 'No_Good' };
    expect(() => kubernetesNodeConfig(bad)).toThrow(KubernetesNodeConfigError);
    expect(() => kubernetesNodeConfig(bad)).toThrow(/kubeGpuResource .*kubeGpuRuntimeClass /s);
    expect(() => workloadInput(containerRecord({ nvidiaRequested: true, node: bad }))).toThrow(KubernetesNodeConfigError);
  });
});
