// The README's examples that need a cluster, run as written (`node examples/<file>` from
// the repository root, the built package resolved by its name) against the real control
// plane (the Manager job script, which also needs Manager's models, runs in manager.test.ts). Each reads the kubeconfig and namespace from KUBECONFIG_PATH and NAMESPACE, must
// exit on its own (nothing left open), and its Deployment is checked with kubectl.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterEnv } from '../support/cluster-env.js';
import { EXAMPLES, runExample, type ExampleRun } from '../support/examples.js';
import { createNamespace, kubectl, kubectlJson } from '../support/kube.js';

interface DeploymentJson {
  readonly metadata: { readonly labels: Record<string, string> };
  readonly status?: { readonly availableReplicas?: number };
}

let namespace: string;
beforeAll(() => {
  namespace = createNamespace('it-examples');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

function run(file: string): Promise<ExampleRun> {
  return runExample(file, { KUBECONFIG_PATH: clusterEnv().kubeconfigPath, NAMESPACE: namespace }, 90_000);
}

function expectAvailableDeployment(name: string, containerId: string): void {
  const deployment = kubectlJson<DeploymentJson>(['get', 'deployment', name, '-n', namespace]);
  expect(deployment.metadata.labels['org.mieweb.opensource-server.container-id']).toBe(containerId);
  expect(deployment.status?.availableReplicas).toBe(1);
}

/** What each cluster example must print; every example listed as needing a cluster has one. */
const expectations: Record<string, (result: ExampleRun) => void> = {
  'provision.mjs': ({ stdout }) => {
    const clusterIp = kubectl(['get', 'service', 'web', '-n', namespace, '-o', 'jsonpath={.spec.clusterIP}']).trim();
    expect(clusterIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(JSON.parse(stdout)).toMatchObject({
      providerId: `${namespace}/web`,
      namespace,
      name: 'web',
      adopted: false,
      address: clusterIp,
      service: { type: 'ClusterIP', routed: true, ports: [{ port: 80, protocol: 'tcp' }] },
    });
    expectAvailableDeployment('web', '42');
  },
  'provision.cjs': ({ stdout }) => {
    expect(JSON.parse(stdout)).toMatchObject({ providerId: `${namespace}/web-cjs`, adopted: false, durationMs: expect.any(Number) });
    expectAvailableDeployment('web-cjs', '43');
  },
  'progress.mjs': ({ stdout }) => {
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe(`created ${namespace}/web-live`);
    expect(lines.slice(1, -1).length).toBeGreaterThan(0);
    for (const line of lines.slice(1, -1)) expect(line).toMatch(/^progress \S/);
    expect(lines.at(-2)).toBe('progress 1/1 ready: rollout complete');
    expect(lines.at(-1)).toBe(`ready ${namespace}/web-live`);
    expectAvailableDeployment('web-live', '44');
  },
};

const clusterExamples = Object.entries(EXAMPLES)
  .filter(([, needs]) => needs === 'cluster')
  .map(([file]) => file);

describe('README examples on the real control plane', () => {
  it('has an expectation for every example that needs a cluster', () => {
    expect(Object.keys(expectations).sort()).toEqual([...clusterExamples].sort());
  });

  it.each(clusterExamples)('examples/%s runs as written, prints its result and exits on its own', async (file) => {
    const result = await run(file);
    expect(result.stderr).toBe('');
    expect(result.code, 'exit code (null: killed because it did not exit on its own)').toBe(0);
    expectations[file]?.(result);
  });
});
