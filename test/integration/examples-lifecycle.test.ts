// The lifecycle examples in examples/ (quoted in docs/lifecycle.md) run as written, as
// Node processes importing the built package by name, on the real control plane.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { provision } from '../../src/workload/provision.js';
import { clusterEnv } from '../support/cluster-env.js';
import { apiFor, createNamespace, kubectl, sampleSpec } from '../support/kube.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function example(file: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`examples/${file}`, ...args], {
      cwd: root,
      env: { ...process.env, KUBECONFIG: clusterEnv().kubeconfigPath },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

let namespace: string;
beforeAll(() => {
  namespace = createNamespace('it-examples');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

describe('lifecycle examples (real control plane)', () => {
  it('stop-start, restart, reconfigure (with and without a failure), remove: each runs and ends on its own', async () => {
    const spec = sampleSpec({ namespace });
    const { providerId } = await provision(apiFor(), spec, { timeoutMs: 60_000 });

    const stopStart = await example('stop-start.mjs', [providerId]);
    expect(stopStart.stderr).toBe('');
    expect(stopStart.code).toBe(0);
    expect(stopStart.stdout).toBe(
      `stopped ${providerId} (changed: true)\nstarted ${providerId} (changed: true)\nstarted again (changed: false)\n`,
    );

    const restarted = await example('restart.mjs', [providerId]);
    expect(restarted.code).toBe(0);
    expect(restarted.stdout).toMatch(/^new revision: generation \d+\n( {2}.*\n)+restarted\n$/);

    const reconfigured = await example('reconfigure.mjs', [providerId]);
    expect(reconfigured.code).toBe(0);
    expect(reconfigured.stdout).toBe(`reconfigured ${providerId}: env.GREETING, env.LOG_LEVEL, memoryMb (replicas 1)\n`);

    const failed = await example('reconfigure.mjs', [providerId, faultImage('image-not-found')]);
    expect(failed.code).toBe(3);
    expect(failed.stdout).toBe('failed: ErrImagePull; previous template restored: true\n');

    const refused = await example('remove.mjs', [providerId, '1']);
    expect(refused.code).toBe(6);
    expect(refused.stdout).toMatch(/^refused: Deployment .* belongs to container-id \d+, not container-id 1/);

    const removed = await example('remove.mjs', [providerId, String(spec.containerId)]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(`deleted ${providerId}\n`);
  });
});
