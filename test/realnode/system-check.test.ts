// kube-provision check --system-image on the real node (issue 38), run as a user runs it:
// the built CLI against the real node's namespace, booting the Debian 13 system image once.
// With the node's cgroup-writable RuntimeClass the system-boot item reports the time until
// sshd accepted; without it, systemd's named boot failure; either way nothing the check made
// is left in the namespace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { CheckReport } from '../../src/cluster/check-report.js';
import { clusterEnv } from '../support/cluster-env.js';
import { kubectl } from '../support/kube.js';
import { REAL_NODE_IMAGES, createRealNodeNamespace, realNodeEnv } from '../support/real-node.js';
import { runNode, type ProcessRun } from '../support/run-process.js';

let namespace: string;
beforeAll(() => {
  namespace = createRealNodeNamespace('rn-check');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

function checkCli(extra: readonly string[]): Promise<ProcessRun> {
  const args = ['dist/cli/main.js', 'check', '--kubeconfig', clusterEnv().kubeconfigs.admin, '-n', namespace];
  return runNode([...args, '--system-image', REAL_NODE_IMAGES.systemTrixie, '--boot-timeout', '90s', ...extra], {
    env: { ...process.env, KUBECONFIG: '' },
    killAfterMs: 180_000,
  });
}

/** What the throw-away workload could have left in the namespace. */
function leftInNamespace(): string[] {
  const names = kubectl([
    'get',
    'deployments,replicasets,pods,services,endpointslices,persistentvolumeclaims',
    '-n',
    namespace,
    '-o',
    'name',
  ]);
  return names.split('\n').filter((line) => line.trim() !== '');
}

describe('kube-provision check --system-image on the real node', () => {
  it('with the cgroup-writable RuntimeClass: the image boots, with the time to sshd; nothing is left', async () => {
    const run = await checkCli(['--runtime-class', realNodeEnv().systemContainerRuntimeClass, '-o', 'json']);
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as CheckReport;
    const boot = report.items.find((item) => item.id === 'system-boot');
    expect(boot, run.stdout).toMatchObject({ status: 'pass', needed: true });
    expect(boot?.message).toMatch(
      new RegExp(`^${REAL_NODE_IMAGES.systemTrixie.replaceAll('.', '\\.')} booted: sshd accepted on port 22 in \\d+ ms$`),
    );
    expect(report.ok).toBe(true);
    expect(run.code).toBe(0);
    expect(leftInNamespace()).toEqual([]);
  }, 200_000);

  it('without it: the named boot failure in systemd’s words, exit 5; nothing is left', async () => {
    const run = await checkCli([]);
    const line = run.stdout.split('\n').find((text) => text.startsWith('system-boot'));
    expect(line, run.stdout).toMatch(/^system-boot +FAIL +.* did not boot: .*SystemContainerBootFailed.*CgroupsNotWritable/);
    expect(line).toMatch(/Failed to create .*control group|Failed to allocate manager object/);
    expect(run.code).toBe(5);
    expect(leftInNamespace()).toEqual([]);
  }, 200_000);
});
