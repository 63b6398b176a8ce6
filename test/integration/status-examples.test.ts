// The examples quoted in docs/status.md, run as written (node examples/<file>, importing the
// built package by its name) against the real control plane.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provision } from '../../src/workload/operations/provision.js';
import { clusterEnv } from '../support/cluster-env.js';
import { apiFor, createNamespace, kubectl, sampleSpec } from '../support/kube.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function example(
  file: string,
  args: readonly string[],
): { child: ChildProcess; output: () => string; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [`examples/${file}`, ...args], {
    cwd: root,
    env: { ...process.env, KUBECONFIG: clusterEnv().kubeconfigPath },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, output: () => stdout, done };
}

async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let namespace: string;
let web: { providerId: string; name: string; containerId: number };
beforeAll(async () => {
  namespace = createNamespace('it-status-examples');
  const spec = sampleSpec({ namespace, nodeId: 9 });
  const result = await provision(apiFor('admin', { namespace }), spec, { timeoutMs: 60_000 });
  web = { providerId: result.providerId, name: result.name, containerId: spec.containerId as number };
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

describe('examples of docs/status.md', () => {
  it('examples/status.mjs prints the state and the temporary Pod IP', async () => {
    const result = await example('status.mjs', [web.providerId, String(web.containerId)]).done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [first, second] = result.stdout.trim().split('\n');
    expect(first).toBe(`${web.providerId}: running (NewReplicaSetAvailable) 1/1 ready`);
    expect(second).toMatch(new RegExp(`^pod IP [\\d.]+ on ${clusterEnv().nodeName}, 0 restarts, image docker\\.io/library/nginx:1\\.27$`));
    const other = await example('status.mjs', [web.providerId, '1']).done;
    expect(other.stdout.trim()).toBe(
      `${web.providerId}: missing (OtherContainer) the Deployment belongs to container ${web.containerId}, not 1`,
    );
  });

  it("examples/list.cjs (CommonJS) prints Manager's snapshot entries", async () => {
    const result = await example('list.cjs', [namespace]).done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(`${web.providerId} container ${web.containerId} on node 9: running (1/1 ready)`);
  });

  it('examples/statuses-live.mjs prints each change (kubectl scale to 0) and stops on SIGINT', async () => {
    const live = example('statuses-live.mjs', [namespace, '60']);
    await until('running line', () => live.output().includes(`${web.providerId} running: 1/1 ready`));
    kubectl(['scale', 'deployment', web.name, '-n', namespace, '--replicas=0']);
    await until('offline line', () => live.output().includes(`${web.providerId} offline: scaled to 0, no pod left`));
    live.child.kill('SIGINT');
    const result = await live.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n').at(-1)).toBe('stopped; 1 workloads seen');
    kubectl(['scale', 'deployment', web.name, '-n', namespace, '--replicas=1']);
  });
});
