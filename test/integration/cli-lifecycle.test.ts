// `kube-provision start|stop|restart|reconfigure|delete` end to end, as child processes on
// the real control plane: lines, JSON lines, exit codes, and each process ending on its
// own (nothing, watch, timer or socket, may keep it alive).
import type { V1Deployment } from '../../src/kube/objects.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { CONTAINER_ID_LABEL } from '../../src/input/labels.js';
import { clusterEnv } from '../support/cluster-env.js';
import { createNamespace, kubectl, kubectlJson, uniqueName } from '../support/kube.js';
import { runNode, type ProcessRun } from '../support/run-process.js';

function cli(args: string[]): Promise<ProcessRun> {
  return runNode(['dist/cli/main.js', ...args], { env: { ...process.env, KUBECONFIG: clusterEnv().kubeconfigPath } });
}

const lines = (stdout: string): string[] => stdout.trim().split('\n');
const words = (line: string | undefined): string => (line ?? '').replace(/^\d\d:\d\d:\d\d\.\d{3} /, '');

let namespace: string;
beforeAll(() => {
  namespace = createNamespace('it-cli-life');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

async function created(): Promise<{ id: string; name: string; containerId: string }> {
  const name = uniqueName('cli');
  const containerId = String(Math.floor(Math.random() * 1e6) + 1);
  const result = await cli([
    'create',
    '--container-id',
    containerId,
    '--node-id',
    '9',
    '--hostname',
    name,
    '--image',
    'nginx:1.27',
    '--cpus',
    '0.25',
    '--memory-mb',
    '128',
    '-n',
    namespace,
  ]);
  expect(result.code).toBe(0);
  return { id: `${namespace}/${name}`, name, containerId };
}

describe('kube-provision lifecycle commands (CLI, real cluster)', () => {
  it('stop, stop again, start, restart: one line per event, the provider ID last, exit 0, each process ends on its own', async () => {
    const { id, name } = await created();

    const stopped = await cli(['stop', id, '--timeout', '60s']);
    expect(stopped.stderr).toBe('');
    expect(stopped.code).toBe(0);
    expect(lines(stopped.stdout).at(-1)).toBe(id);
    expect(words(lines(stopped.stdout)[0])).toMatch(new RegExp(`^${id} scaled from 1 to 0 \\(generation \\d+\\)$`));
    expect(words(lines(stopped.stdout).at(-2))).toMatch(new RegExp(`^${id} stopped in \\d+\\.\\ds$`));

    const again = await cli(['stop', id]);
    expect(again.code).toBe(0);
    expect(lines(again.stdout).map(words)).toEqual([`${id} already stopped: nothing to do`, id]);

    const started = await cli(['start', id, '-o', 'json']);
    expect(started.code).toBe(0);
    const events = lines(started.stdout).map((line) => JSON.parse(line) as { type: string; changed?: boolean });
    expect(events[0]).toMatchObject({ type: 'scaled', replicas: 1, previousReplicas: 0 });
    expect(events.at(-1)).toMatchObject({ type: 'started', changed: true, providerId: id });

    const restarted = await cli(['restart', id]);
    expect(restarted.code).toBe(0);
    expect(words(lines(restarted.stdout)[0])).toMatch(/pod template updated: restartedAt \(generation \d+\)$/);
    expect(words(lines(restarted.stdout).at(-2))).toMatch(/restarted in \d+\.\ds$/);
    expect(kubectlJson<V1Deployment>(['get', 'deployment', name, '-n', namespace]).status?.readyReplicas).toBe(1);
  });

  it('reconfigure changes the template; with --rollback-on-failure a missing image exits 3 naming ErrImagePull and the restore', async () => {
    const { id, name } = await created();
    const changed = await cli(['reconfigure', id, '--env', 'MODE=demo', '--memory-mb', '256', '--cpus', '0.5']);
    expect(changed.stderr).toBe('');
    expect(changed.code).toBe(0);
    expect(words(lines(changed.stdout).at(-2))).toMatch(/reconfigured \(env\.MODE, cpus, memoryMb\) in \d+\.\ds$/);
    const container = kubectlJson<V1Deployment>(['get', 'deployment', name, '-n', namespace]).spec?.template.spec?.containers[0];
    expect(container?.env).toEqual([{ name: 'MODE', value: 'demo' }]);
    expect(container?.resources?.limits).toEqual({ cpu: '500m', memory: '256Mi' });

    const failed = await cli(['reconfigure', id, '--image', faultImage('image-not-found'), '--rollback-on-failure', '--timeout', '60s']);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/ReconfigureFailedError: Rollout of .* failed: ErrImagePull .*; the previous pod template was restored/);
    expect(
      lines(failed.stdout)
        .map(words)
        .some((line) => line.includes('rollout failed (ErrImagePull): restoring the previous pod template')),
    ).toBe(true);
    expect(kubectlJson<V1Deployment>(['get', 'deployment', name, '-n', namespace]).spec?.template.spec?.containers[0]?.image).toBe(
      'nginx:1.27',
    );
  });

  it('delete: another container id exits 6 and deletes nothing; the right one deletes it and its pods; start afterwards exits 7', async () => {
    const { id, name, containerId } = await created();
    const refused = await cli(['delete', id, '--container-id', '1']);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(/WorkloadOwnershipError: Deployment .* belongs to container-id \d+, not container-id 1/);
    expect(kubectl(['get', 'deployment', name, '-n', namespace, '-o', 'name']).trim()).toBe(`deployment.apps/${name}`);

    const deleted = await cli(['delete', id, '--container-id', containerId, '-o', 'json']);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(lines(deleted.stdout).at(-1)!)).toMatchObject({ type: 'removed', changed: true });
    expect(kubectl(['get', 'pods', '-n', namespace, '-l', `${CONTAINER_ID_LABEL}=${containerId}`, '-o', 'name'])).toBe('');

    const missing = await cli(['start', id]);
    expect(missing.code).toBe(7);
    expect(missing.stderr).toMatch(/WorkloadNotFoundError: .*no Deployment .* the workload does not exist/);
  });

  it('create with a changed image for an existing container exits 6 (drift); --on-drift reconfigure applies it', async () => {
    const { name, containerId } = await created();
    const flags = [
      '--container-id',
      containerId,
      '--node-id',
      '9',
      '--hostname',
      name,
      '--image',
      'nginx:1.28',
      '--cpus',
      '0.25',
      '--memory-mb',
      '128',
      '-n',
      namespace,
    ];
    const drift = await cli(['create', ...flags]);
    expect(drift.code).toBe(6);
    expect(drift.stderr).toMatch(/WorkloadDriftError: .*image \(live nginx:1.27, requested nginx:1.28\)/);
    const fixed = await cli(['create', ...flags, '--on-drift', 'reconfigure']);
    expect(fixed.code).toBe(0);
    expect(words(lines(fixed.stdout)[0])).toMatch(/adopted existing Deployment \(same container-id\); rewriting what differs: image$/);
    expect(kubectlJson<V1Deployment>(['get', 'deployment', name, '-n', namespace]).spec?.template.spec?.containers[0]?.image).toBe(
      'nginx:1.28',
    );
  });
});
