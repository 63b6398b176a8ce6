// No watch, timer or socket outlives the work: a child process provisions through the built
// package four ways (success, failure, timeout, abort), counts its active handles after
// each, and must then exit on its own.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { clusterEnv } from '../support/cluster-env.js';
import { createNamespace, kubectl } from '../support/kube.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
let namespace: string;
beforeAll(() => {
  namespace = createNamespace('it-leaks');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

describe('no leaks', () => {
  it('after success, failure, timeout and abort no socket or timer remains, informers are released, and the process exits by itself', async () => {
    const args = [
      'test/leaks/provision-and-count.mjs',
      clusterEnv().kubeconfigPath,
      namespace,
      'nginx:1.27',
      faultImage('image-not-found'),
      faultImage('never-ready'),
    ];
    const child = spawn(process.execPath, args, { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let reportedAt = 0;
    child.stdout.on('data', () => (reportedAt ||= Date.now()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    const exitedAfterMs = Date.now() - reportedAt;

    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Record<string, { outcome: string; leaky: string[]; informers: number }>;
    expect(report).toEqual({
      success: { outcome: 'resolved', leaky: [], informers: 0 },
      failure: { outcome: 'RolloutFailedError', leaky: [], informers: 0 },
      timeout: { outcome: 'RolloutTimeoutError', leaky: [], informers: 0 },
      abort: { outcome: 'ProvisionAbortedError', leaky: [], informers: 0 },
    });
    expect(exitedAfterMs).toBeLessThan(2000);
    process.stderr.write(`[leaks] child exited ${exitedAfterMs} ms after its last provisioning\n`);
  });
});

describe('no leaks after check, nodes, nodes$ and fits', () => {
  it('nothing remains after each, against the real server and a silent one, and the process exits by itself', async () => {
    const child = spawn(process.execPath, ['test/leaks/check-and-count.mjs', clusterEnv().kubeconfigPath, namespace], { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let reportedAt = 0;
    child.stdout.on('data', () => (reportedAt ||= Date.now()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    const exitedAfterMs = Date.now() - reportedAt;

    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      check: { outcome: 'ok=true', leaky: [], informers: 0 },
      checkSilent: { outcome: 'ok=false', leaky: [], informers: 0 },
      checkAborted: { outcome: 'OperationAbortedError', leaky: [], informers: 0 },
      nodes: { outcome: 'resolved', leaky: [], informers: 0 },
      nodesLive: { outcome: 'resolved', leaky: [], informers: 0 },
      fits: { outcome: 'resolved', leaky: [], informers: 0 },
    });
    expect(exitedAfterMs).toBeLessThan(2000);
  });
});
