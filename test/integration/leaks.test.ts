// No watch, timer or socket outlives the work: a child process provisions through the built
// package four ways (success, failure, timeout, abort), counts its active handles after
// each, and must then exit on its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { clusterEnv } from '../support/cluster-env.js';
import { createNamespace, kubectl } from '../support/kube.js';
import { runNode } from '../support/run-process.js';

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
    const { code, stdout, stderr, closedAfterOutputMs: exitedAfterMs } = await runNode(args, { killAfterMs: 120_000 });

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
    const {
      code,
      stdout,
      stderr,
      closedAfterOutputMs: exitedAfterMs,
    } = await runNode(['test/leaks/check-and-count.mjs', clusterEnv().kubeconfigPath, namespace], { killAfterMs: 120_000 });

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
