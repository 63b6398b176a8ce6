// GPUs on the real control plane: the real scheduler places a Pod that requests
// nvidia.com/gpu only on a node that advertises it. The KWOK node first offers none
// (check() says so plainly; a provisioning, and a reconfiguration to one GPU, fail fast,
// Unschedulable: Insufficient nvidia.com/gpu), then advertises two (its status patched,
// as the NVIDIA device plugin would): check(), nodes(), fits() and `kube-provision nodes`
// report them, the same request becomes ready, and a running container gets a GPU and
// gives it back by reconfiguration (the library's Promise, the CLI, and Manager's
// reconfigure path from nvidiaRequested). The node's status is restored afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncScheduler, lastValueFrom } from 'rxjs';
import { check } from '../../src/cluster/check.js';
import type { CheckReport } from '../../src/cluster/check-report.js';
import { fits } from '../../src/cluster/fits.js';
import { containerLifecycle } from '../../src/manager/lifecycle.js';
import { checkKubernetesNode } from '../../src/manager/node-check.js';
import { createKubernetesProvider } from '../../src/manager/providers/kubernetes.js';
import { ProviderRegistry } from '../../src/manager/providers/registry.js';
import type { ProvisionedEvent } from '../../src/manager/providers/types.js';
import { ReconfigureFailedError, reconfigure } from '../../src/workload/operations/reconfigure.js';
import { clusterEnv } from '../support/cluster-env.js';
import { kubernetesRecord } from '../support/manager-record.js';
import { runNode } from '../support/run-process.js';
import { nodes } from '../../src/cluster/nodes.js';
import { RolloutFailedError } from '../../src/errors/rollout.js';
import { provision } from '../../src/workload/operations/provision.js';
import { remove } from '../../src/workload/operations/remove.js';
import { apiFor, createNamespace, kubectl, kubectlJson, sampleSpec } from '../support/kube.js';

const RESOURCE = 'nvidia.com/gpu';
let namespace: string;
let nodeName: string;

type Resources = { requests?: Record<string, string>; limits?: Record<string, string> };

/** The Deployment's pod template as kubectl sees it: the container's resources and the RuntimeClass. */
function template(name: string): { resources: Resources; runtimeClassName?: string } {
  const deployment = kubectlJson<{ spec: { template: { spec: { runtimeClassName?: string; containers: { resources: Resources }[] } } } }>([
    'get',
    'deployment',
    '-n',
    namespace,
    name,
    '-o',
    'json',
  ]);
  const pod = deployment.spec.template.spec;
  return { resources: pod.containers[0]!.resources, ...(pod.runtimeClassName ? { runtimeClassName: pod.runtimeClassName } : {}) };
}

const gpusItem = (report: CheckReport) => report.items.find((item) => item.id === 'gpus');

function setNodeGpus(count: string | null): void {
  const path = `/status/capacity/${RESOURCE.replace('/', '~1')}`;
  const allocatable = `/status/allocatable/${RESOURCE.replace('/', '~1')}`;
  const patch =
    count === null
      ? [
          { op: 'remove', path },
          { op: 'remove', path: allocatable },
        ]
      : [
          { op: 'add', path, value: count },
          { op: 'add', path: allocatable, value: count },
        ];
  kubectl(['patch', 'node', nodeName, '--subresource=status', '--type=json', '-p', JSON.stringify(patch)]);
}

beforeAll(() => {
  namespace = createNamespace('it-gpus');
  nodeName = kubectlJson<{ items: { metadata: { name: string } }[] }>(['get', 'nodes', '-o', 'json']).items[0]!.metadata.name;
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
  const node = kubectlJson<{ status: { capacity: Record<string, string> } }>(['get', 'node', nodeName, '-o', 'json']);
  if (node.status.capacity[RESOURCE] !== undefined) setNodeGpus(null);
});

describe('a GPU request on the real scheduler', () => {
  it('with no node offering the resource: check() says so plainly, and a reconfiguration to one GPU fails fast, named (Promise and CLI)', async () => {
    const api = apiFor();
    const report = await check(api, { namespace });
    expect(gpusItem(report)).toMatchObject({
      status: 'pass',
      needed: false,
      message: expect.stringMatching(
        /^no node offers nvidia\.com\/gpu \(0 of \d+ nodes?\): .*Unschedulable: Insufficient nvidia\.com\/gpu$/,
      ),
      gpus: { resource: RESOURCE, total: 0, nodes: [] },
    });
    const asked = await check(api, { namespace, spec: { cpus: 0.25, memoryMb: 256, gpus: 1 } });
    expect(gpusItem(asked)).toMatchObject({ status: 'fail', needed: true });
    expect(asked.ok).toBe(false);
    // Manager's node check: a node saved with nvidiaAvailable on a cluster without GPUs is warned about.
    const gpuNode = { name: 'k8s-gpu', kubeconfigPath: clusterEnv().kubeconfigPath, kubeNamespace: namespace, nvidiaAvailable: true };
    expect(gpusItem((await checkKubernetesNode(gpuNode)).report)).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/^no node offers nvidia\.com\/gpu/),
    });
    expect(gpusItem((await checkKubernetesNode({ ...gpuNode, nvidiaAvailable: false })).report)?.status).toBe('pass');

    const spec = sampleSpec();
    const created = await provision(api, { namespace, ...spec }, { timeoutMs: 120_000 });
    const containerId = spec['containerId'] as number;
    // The Promise, with rollbackOnFailure: fails in seconds, and the container runs as before.
    const started = Date.now();
    const error = await reconfigure(
      api,
      created.providerId,
      { gpus: 1 },
      { containerId, timeoutMs: 300_000, rollbackOnFailure: true },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReconfigureFailedError);
    expect((error as ReconfigureFailedError).reason).toBe('Unschedulable');
    expect((error as ReconfigureFailedError).detail).toMatch(/Insufficient nvidia\.com\/gpu/);
    expect((error as ReconfigureFailedError).restored).toBe(true);
    expect(Date.now() - started).toBeLessThan(90_000);
    expect(template(String(spec['hostname'])).resources.limits).not.toHaveProperty(RESOURCE);

    // The CLI: exit 3 (rollout failed), the scheduler's words on stderr, in one line. The same
    // template again: its ReplicaSet (rolled back above) is scaled up again, and still fails fast.
    const cli = await runNode(
      [
        'dist/cli/main.js',
        'reconfigure',
        created.providerId,
        '--container-id',
        String(containerId),
        '--gpus',
        '1',
        '--kubeconfig',
        clusterEnv().kubeconfigPath,
      ],
      { killAfterMs: 120_000 },
    );
    expect(cli.code, `${cli.stdout}${cli.stderr}`).toBe(3);
    expect(cli.stderr).toMatch(/^error: RolloutFailedError: .*Unschedulable.*Insufficient nvidia\.com\/gpu/m);
    expect(cli.stderr.trim().split('\n')).toHaveLength(1);
    await remove(api, created.providerId, { containerId, timeoutMs: 60_000 });
  }, 240_000);

  it('with no node offering the resource: fits() says so, and the provisioning fails fast, Unschedulable naming it', async () => {
    const spec = sampleSpec({ gpus: 1 });
    const hint = await fits(apiFor(), spec);
    expect(hint.fits).toBe(false);
    expect(hint.nodes.find((node) => node.name === nodeName)?.reasons).toContain(`offers no ${RESOURCE}`);
    const started = Date.now();
    const error = await provision(apiFor(), { namespace, ...spec }, { timeoutMs: 300_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RolloutFailedError);
    expect((error as RolloutFailedError).reason).toBe('Unschedulable');
    expect((error as RolloutFailedError).detail).toMatch(/Insufficient nvidia\.com\/gpu/);
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 90_000);

  it('a node advertising GPUs: nodes() reports them, fits() places the request, and it becomes ready holding one', async () => {
    setNodeGpus('2');
    const api = apiFor();
    const reported = (await nodes(api)).find((node) => node.name === nodeName);
    expect(reported?.gpus[RESOURCE]).toMatchObject({ allocatable: 2 });
    const spec = sampleSpec({ gpus: 1 });
    expect((await fits(api, spec)).fits).toBe(true);
    const result = await provision(api, { namespace, ...spec }, { timeoutMs: 120_000 });
    const deployment = kubectlJson<{ spec: { template: { spec: { containers: { resources: unknown }[] } } } }>([
      'get',
      'deployment',
      '-n',
      namespace,
      String(spec['hostname']),
      '-o',
      'json',
    ]);
    expect(deployment.spec.template.spec.containers[0]?.resources).toMatchObject({
      limits: { [RESOURCE]: '1' },
      requests: { [RESOURCE]: '1' },
    });
    const after = (await nodes(api)).find((node) => node.name === nodeName);
    expect(after?.gpus[RESOURCE]?.requested).toBeGreaterThanOrEqual(1);
    await remove(api, result.providerId, { containerId: spec['containerId'] as number, timeoutMs: 60_000 });
  }, 180_000);

  it('a node advertising GPUs: check() reports the total and the node, and `kube-provision nodes --gpus` the column and the fit', async () => {
    setNodeGpus('2');
    const report = await check(apiFor(), { namespace, spec: { cpus: 0.25, memoryMb: 256, gpus: 1 } });
    const item = gpusItem(report);
    expect(item).toMatchObject({ status: 'pass', needed: true });
    expect(item?.gpus?.nodes).toContainEqual({ name: nodeName, allocatable: 2, ready: true, schedulable: true });
    expect(item?.gpus?.total).toBeGreaterThanOrEqual(2);
    expect(item?.message).toContain(`${nodeName} 2`);
    const gpuNode = { name: 'k8s-gpu', kubeconfigPath: clusterEnv().kubeconfigPath, kubeNamespace: namespace, nvidiaAvailable: true };
    expect(gpusItem((await checkKubernetesNode(gpuNode)).report)).toMatchObject({ status: 'pass', gpus: { resource: RESOURCE } });

    const env = clusterEnv();
    const cli = await runNode([
      'dist/cli/main.js',
      'nodes',
      '--kubeconfig',
      env.kubeconfigPath,
      '--cpus',
      '0.25',
      '--memory-mb',
      '256',
      '--gpus',
      '1',
    ]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/GPUS REQ\/ALLOC/);
    expect(cli.stdout).toMatch(new RegExp(`^${nodeName} .*nvidia\\.com/gpu \\d/2`, 'm'));
    expect(cli.stdout).toMatch(new RegExp(`^fits: 250m CPU, 256Mi memory and 1 nvidia\\.com/gpu fits on .*${nodeName}`, 'm'));
    const usage = await runNode(['dist/cli/main.js', 'nodes', '--kubeconfig', env.kubeconfigPath, '--gpus', '1']);
    expect(usage.code).toBe(2);
    expect(usage.stderr.split('\n')[0]).toBe(
      'error: UsageError: --gpus goes with --cpus and --memory-mb (the workload it is part of): give all three',
    );
  }, 120_000);

  it('a running container gets a GPU by reconfiguration and gives it back: the Promise, the CLI, and Manager from nvidiaRequested', async () => {
    setNodeGpus('2');
    const api = apiFor();
    const spec = sampleSpec();
    const name = String(spec['hostname']);
    const containerId = spec['containerId'] as number;
    const created = await provision(api, { namespace, ...spec }, { timeoutMs: 120_000 });
    await expect(reconfigure(api, created.providerId, { gpus: 1 }, { containerId, timeoutMs: 120_000 })).resolves.toMatchObject({
      changed: true,
      fields: ['gpus.nvidia.com/gpu'],
      replicas: 1,
    });
    expect(template(name).resources).toMatchObject({ requests: { [RESOURCE]: '1' }, limits: { [RESOURCE]: '1' } });
    const cli = await runNode(
      ['dist/cli/main.js', 'reconfigure', created.providerId, '--container-id', String(containerId), '--gpus', '0'],
      { env: { ...process.env, KUBECONFIG: clusterEnv().kubeconfigPath }, killAfterMs: 120_000 },
    );
    expect(cli.code).toBe(0);
    expect(cli.stdout.trim().split('\n').at(-1)).toBe(created.providerId);
    expect(template(name).resources.limits).not.toHaveProperty(RESOURCE);
    await remove(api, created.providerId, { containerId, timeoutMs: 60_000 });

    // Manager: the row's nvidiaRequested changes, its reconfigure job runs; the Deployment follows.
    const record = kubernetesRecord({ id: 952, hostname: 'gpu-952' }, { namespace });
    const provider = createKubernetesProvider({ timeoutMs: 120_000 });
    const provisioned = (await lastValueFrom(provider.provision$(record, { clock: asyncScheduler }))) as ProvisionedEvent;
    const lifecycle = containerLifecycle(new ProviderRegistry([provider]));
    const saved = { ...record, providerId: provisioned.providerId };
    expect(template('gpu-952').resources.limits).not.toHaveProperty(RESOURCE);
    await expect(lifecycle.reconfigure({ ...saved, nvidiaRequested: true })).resolves.toMatchObject({
      operation: 'reconfigure',
      changed: true,
    });
    expect(template('gpu-952').resources).toMatchObject({ requests: { [RESOURCE]: '1' }, limits: { [RESOURCE]: '1' } });
    expect(JSON.stringify(kubectlJson(['get', 'deployment', '-n', namespace, 'gpu-952', '-o', 'json']))).toContain(
      'NVIDIA_VISIBLE_DEVICES',
    );
    await expect(lifecycle.reconfigure(saved)).resolves.toMatchObject({ changed: true });
    expect(template('gpu-952').resources.limits).not.toHaveProperty(RESOURCE);
    await lifecycle.remove(saved);
  }, 420_000);
});
