// The lifecycle examples (examples/stop-start.mjs, restart.mjs, reconfigure.mjs,
// remove.mjs, quoted in docs/lifecycle.md) run as written on the real control plane:
// `node examples/<file>` from the repository root, the built package resolved by its
// name, the kubeconfig and namespace from KUBECONFIG_PATH and NAMESPACE. Each must exit 0
// on its own (nothing left open), print what it did, and leave the cluster as it says.
import type { V1Deployment } from '../../src/kube/objects.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { clusterEnv } from '../support/cluster-env.js';
import { createNamespace, kubectl, kubectlJson } from '../support/kube.js';
import { runNode, type ProcessRun } from '../support/run-process.js';

function run(file: string): Promise<ProcessRun> {
  return runNode([`examples/${file}`], {
    env: {
      ...process.env,
      KUBECONFIG_PATH: clusterEnv().kubeconfigPath,
      NAMESPACE: namespace,
      BROKEN_IMAGE: faultImage('image-not-found'),
    },
  });
}

let namespace: string;
beforeAll(() => {
  namespace = createNamespace('it-examples-life');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const deploymentOf = (name: string): V1Deployment => kubectlJson<V1Deployment>(['get', 'deployment', name, '-n', namespace]);

/** What each lifecycle example must print, and the state it must leave. */
const expectations: Record<string, (result: ProcessRun) => void> = {
  'stop-start.mjs': ({ stdout }) => {
    const id = `${namespace}/web-stop`;
    expect(stdout).toBe(`stopped ${id} (changed: true)\nstarted ${id} (changed: true)\nstarted again (changed: false)\n`);
    expect(deploymentOf('web-stop').status?.availableReplicas).toBe(1);
  },
  'restart.mjs': ({ stdout }) => {
    expect(stdout).toMatch(/^new revision: generation \d+\n( {2}.*\n)+restarted\n$/);
    expect(deploymentOf('web-restart').spec?.template.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt']).toEqual(
      expect.any(String),
    );
  },
  'reconfigure.mjs': ({ stdout }) => {
    expect(stdout).toBe(
      `reconfigured ${namespace}/web-config: env.GREETING, env.LOG_LEVEL, memoryMb (replicas 1)\nfailed: ErrImagePull; previous template restored: true\n`,
    );
    const live = deploymentOf('web-config');
    expect(live.spec?.template.spec?.containers[0]).toMatchObject({
      image: 'docker.io/library/nginx:1.27',
      env: [{ name: 'LOG_LEVEL', value: 'debug' }],
    });
    expect(live.status?.availableReplicas).toBe(1);
  },
  'remove.mjs': ({ stdout }) => {
    expect(stdout).toMatch(
      new RegExp(
        `^refused: Deployment ${namespace}/web-remove belongs to container-id 48, not container-id 49; .*\\ndeleted ${namespace}/web-remove\\n$`,
      ),
    );
    expect(kubectl(['get', 'deployments', '-n', namespace, '--field-selector', 'metadata.name=web-remove', '-o', 'name'])).toBe('');
  },
};

describe('lifecycle examples on the real control plane', () => {
  it.each(Object.keys(expectations))('examples/%s runs as written, prints what it did and exits on its own', async (file) => {
    const result = await run(file);
    expect(result.stderr).toBe('');
    expect(result.code, 'exit code (null: killed because it did not exit on its own)').toBe(0);
    expectations[file]?.(result);
  });
});
