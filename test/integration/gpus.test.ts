// GPUs on the real control plane: the real scheduler places a Pod that requests
// nvidia.com/gpu only on a node that advertises it. The KWOK node first offers none (the
// provisioning fails fast, Unschedulable: Insufficient nvidia.com/gpu), then advertises
// two (its status patched, as the NVIDIA device plugin would): nodes() and fits() report
// them and the same request becomes ready. The node's status is restored afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fits } from '../../src/cluster/fits.js';
import { nodes } from '../../src/cluster/nodes.js';
import { RolloutFailedError } from '../../src/errors/rollout.js';
import { provision } from '../../src/workload/provision.js';
import { remove } from '../../src/workload/remove.js';
import { apiFor, createNamespace, kubectl, kubectlJson, sampleSpec } from '../support/kube.js';

const RESOURCE = 'nvidia.com/gpu';
let namespace: string;
let nodeName: string;

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
});
