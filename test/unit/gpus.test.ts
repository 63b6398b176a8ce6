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
import { isReconfigurable, workloadDrift } from '../../src/members/drift.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { changesToSpec } from '../../src/workload/operations/reconfigure.js';
import { applyChanges, parseWorkloadChanges } from '../../src/workload/operations/workload-changes.js';
import { parseLifecycleArgs } from '../../src/cli/commands/lifecycle-args.js';
import { parseNodesArgs } from '../../src/cli/commands/nodes.js';
import { parseCheckArgs } from '../../src/cli/commands/check.js';
import { runCli } from '../../src/cli/run.js';
import { UsageError } from '../../src/errors/input.js';
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
    expect(issuesOf({ ...base, gpus: 1.5 })).toEqual([{ path: 'gpus', message: 'must be a whole number of GPUs, e.g. 1 (got 1.5)' }]);
    expect(issuesOf({ ...base, gpus: '1' })).toEqual([{ path: 'gpus', message: 'must be a whole number of GPUs, e.g. 1 (got "1")' }]);
    expect(issuesOf({ ...base, gpus: -1 })).toEqual([{ path: 'gpus', message: 'must be 0 or more (got -1)' }]);
    expect(issuesOf({ ...base, gpus: 65 })).toEqual([{ path: 'gpus', message: 'must be at most 64 (got 65)' }]);
    expect(issuesOf({ ...base, gpuResource: 'amd.com/gpu' })).toEqual([
      { path: 'gpuResource', message: 'needs gpus of 1 or more (it names what gpus counts) (got "amd.com/gpu")' },
    ]);
    expect(issuesOf({ ...base, gpus: 1, gpuResource: 'gpu' })).toEqual([
      { path: 'gpuResource', message: expect.stringMatching(/^must be an extended resource name.*\(it has no '\/'\) \(got "gpu"\)$/) },
    ]);
    expect(issuesOf({ ...base, gpus: 1, gpuResource: 'kubernetes.io/gpu' })).toEqual([
      {
        path: 'gpuResource',
        message: expect.stringMatching(/\(kubernetes\.io is reserved for Kubernetes\) \(got "kubernetes\.io\/gpu"\)$/),
      },
    ]);
    expect(issuesOf({ ...base, runtimeClass: 'Nvidia' })).toEqual([
      { path: 'runtimeClass', message: expect.stringMatching(/^must be a DNS-1123 subdomain/) },
    ]);
  });

  it('adoption sees a GPU or runtime class difference, which a reconfiguration can rewrite (another extended resource it cannot)', () => {
    const live = buildDeployment(parseWorkloadSpec(base));
    const desired = buildDeployment(parseWorkloadSpec({ ...base, gpus: 1, runtimeClass: 'nvidia' }));
    const drift = workloadDrift(desired, live);
    expect(drift).toEqual([
      { field: 'gpus.nvidia.com/gpu', live: '(none)', desired: '1' },
      { field: 'runtimeClass', live: '(none)', desired: 'nvidia' },
    ]);
    expect(drift.every(isReconfigurable)).toBe(true);
    expect(isReconfigurable({ field: 'gpus.example.com/fpga', live: '1', desired: '(none)' })).toBe(false);
    expect(workloadDrift(desired, desired)).toEqual([]);
    // What onDrift: 'reconfigure' writes turns the live container into the desired one.
    const changes = changesToSpec(parseWorkloadSpec({ ...base, gpus: 1, runtimeClass: 'nvidia' }), live.spec!.template.spec!.containers[0]);
    expect(changes).toMatchObject({ gpus: { count: 1, resource: 'nvidia.com/gpu' }, runtimeClass: 'nvidia' });
    expect(applyChanges(live.spec!.template.spec!.containers[0]!, changes).container.resources).toEqual(
      desired.spec!.template.spec!.containers[0]!.resources,
    );
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

describe('reconfigure: gpus, gpuResource, runtimeClass', () => {
  const container = (resources: Record<string, string>) => ({
    name: 'web',
    image: 'nginx:1.27',
    resources: { requests: { ...resources }, limits: { ...resources } },
  });
  const plain = container({ cpu: '1', memory: '512Mi' });

  it("validates them by creation's rules, all at once, and keeps 0 (it removes the request)", () => {
    expect(parseWorkloadChanges({ gpus: 0 })).toMatchObject({ gpus: { count: 0 } });
    expect(parseWorkloadChanges({ gpus: 2, gpuResource: 'amd.com/gpu', runtimeClass: 'rocm' })).toMatchObject({
      gpus: { count: 2, resource: 'amd.com/gpu' },
      runtimeClass: 'rocm',
    });
    expect(parseWorkloadChanges({ runtimeClass: null })).toMatchObject({ runtimeClass: null });
    const issues = (input: unknown) => {
      try {
        parseWorkloadChanges(input);
      } catch (error) {
        if (error instanceof InvalidSpecError) return error.issues.map((issue) => issue.path);
        throw error;
      }
      return [];
    };
    expect(issues({ gpus: 1.5, gpuResource: 'gpu', runtimeClass: 'No_Good' })).toEqual(['gpus', 'gpuResource', 'runtimeClass']);
    expect(issues({ gpus: -1 })).toEqual(['gpus']);
    expect(issues({ gpus: 65 })).toEqual(['gpus']);
    expect(issues({ gpuResource: 'amd.com/gpu' })).toEqual(['gpuResource']);
  });

  it('sets the count as request and limit, replaces another GPU resource, and 0 removes it; the same count changes nothing', () => {
    const one = applyChanges(plain, parseWorkloadChanges({ gpus: 1 }));
    expect(one.fields).toEqual(['gpus.nvidia.com/gpu']);
    expect(one.container.resources).toEqual({
      requests: { cpu: '1', memory: '512Mi', 'nvidia.com/gpu': '1' },
      limits: { cpu: '1', memory: '512Mi', 'nvidia.com/gpu': '1' },
    });
    expect(applyChanges(one.container, parseWorkloadChanges({ gpus: 1 })).fields).toEqual([]);
    // Without gpuResource: the resource the container already requests.
    const amd = container({ cpu: '1', memory: '512Mi', 'amd.com/gpu': '1' });
    expect(applyChanges(amd, parseWorkloadChanges({ gpus: 2 })).container.resources?.limits).toEqual({
      cpu: '1',
      memory: '512Mi',
      'amd.com/gpu': '2',
    });
    const swapped = applyChanges(amd, parseWorkloadChanges({ gpus: 1, gpuResource: 'nvidia.com/gpu' }));
    expect(swapped.fields).toEqual(['gpus.amd.com/gpu', 'gpus.nvidia.com/gpu']);
    expect(swapped.container.resources?.requests).toEqual({ cpu: '1', memory: '512Mi', 'nvidia.com/gpu': '1' });
    const none = applyChanges(one.container, parseWorkloadChanges({ gpus: 0 }));
    expect(none.fields).toEqual(['gpus.nvidia.com/gpu']);
    expect(none.container.resources).toEqual(plain.resources);
    expect(applyChanges(plain, parseWorkloadChanges({ gpus: 0 })).fields).toEqual([]);
  });

  it('the CLI: --gpus, --gpu-resource, --runtime-class and --no-runtime-class become the changes; bad ones name the flag', async () => {
    expect(parseLifecycleArgs('reconfigure', ['team-a/web', '--gpus', '1', '--runtime-class', 'nvidia'])).toMatchObject({
      changes: { gpus: 1, runtimeClass: 'nvidia' },
    });
    expect(parseLifecycleArgs('reconfigure', ['team-a/web', '--gpus', '0', '--no-runtime-class'])).toMatchObject({
      changes: { gpus: 0, runtimeClass: null },
    });
    expect(parseLifecycleArgs('reconfigure', ['team-a/web', '--gpus', '2', '--gpu-resource', 'amd.com/gpu'])).toMatchObject({
      changes: { gpus: 2, gpuResource: 'amd.com/gpu' },
    });
    expect(() => parseLifecycleArgs('reconfigure', ['a/b', '--gpu-resource', 'amd.com/gpu'])).toThrow(
      new UsageError('--gpu-resource names what --gpus counts: give --gpus too'),
    );
    expect(() => parseLifecycleArgs('reconfigure', ['a/b', '--runtime-class', 'x', '--no-runtime-class'])).toThrow(/contradict/);
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['reconfigure', 'team-a/web', '--gpus', 'two', '--kubeconfig', '/nonexistent'], {
      stdout: (line) => out.push(line),
      stderr: (line) => err.push(line),
    });
    expect(code).toBe(2);
    expect(err).toEqual(['error: InvalidSpecError: Invalid workload spec: --gpus: must be a whole number of GPUs, e.g. 1 (got "two")']);
  });
});

describe('kube-provision nodes and check: --gpus and --gpu-resource', () => {
  it('nodes --gpus joins the fit hint (with --cpus and --memory-mb); --gpu-resource names what it counts', () => {
    const parsed = parseNodesArgs(['--cpus', '1', '--memory-mb', '512', '--gpus', '2', '--gpu-resource', 'amd.com/gpu']);
    expect(parsed !== 'help' && parsed.request).toEqual({
      cpuMillicores: 1000,
      memoryBytes: 512 * Mi,
      gpus: { resource: 'amd.com/gpu', count: 2 },
    });
    expect(() => parseNodesArgs(['--gpus', '1'])).toThrow(
      new UsageError('--gpus goes with --cpus and --memory-mb (the workload it is part of): give all three'),
    );
    expect(() => parseNodesArgs(['--gpu-resource', 'amd.com/gpu'])).toThrow(
      new UsageError('--gpu-resource names what --gpus counts: give --gpus too'),
    );
    expect(() => parseNodesArgs(['--cpus', '1', '--memory-mb', '1', '--gpus', '1.5'])).toThrow(/^--gpus must be a whole number/);
    expect(() => parseNodesArgs(['--cpus', '1', '--memory-mb', '1', '--gpus', '1', '--gpu-resource', 'gpu'])).toThrow(
      /^--gpu-resource must be an extended resource name/,
    );
  });

  it('check --gpu-resource alone chooses the capacity reported; --gpus makes the workload ask for GPUs', () => {
    expect(parseCheckArgs(['--gpu-resource', 'amd.com/gpu'])).toMatchObject({ gpuResource: 'amd.com/gpu', spec: undefined });
    expect(parseCheckArgs(['--cpus', '1', '--memory-mb', '64', '--gpus', '1'])).toMatchObject({
      spec: { cpus: 1, memoryMb: 64, gpus: 1 },
    });
    expect(() => parseCheckArgs(['--gpus', '1'])).toThrow(/^--gpus goes with --cpus and --memory-mb/);
  });
});
