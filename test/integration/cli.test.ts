// The CLI and the CommonJS entry end to end, as child processes, on the real control plane.
// They must also exit on their own: nothing (watch, timer, socket) may keep them alive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { clusterEnv } from '../support/cluster-env.js';
import { createNamespace, kubectl, kubectlJson, uniqueName } from '../support/kube.js';
import { runNode as runProcess, type ProcessRun } from '../support/run-process.js';

function runNode(args: string[], env: Record<string, string> = {}): Promise<ProcessRun> {
  return runProcess(args, { env: { ...process.env, ...env } });
}

let namespace: string;
beforeAll(() => {
  namespace = createNamespace('it-cli');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

function deploymentsNamed(name: string): string[] {
  const list = kubectlJson<{ items: { metadata: { name: string } }[] }>(['get', 'deployments', '-n', namespace]);
  return list.items.map((item) => item.metadata.name).filter((found) => found === name);
}

const specFlags = (hostname: string, image = 'nginx:1.27') => [
  '--container-id',
  String(Math.floor(Math.random() * 1e6)),
  '--node-id',
  '9',
  '--hostname',
  hostname,
  '--image',
  image,
  '--cpus',
  '0.5',
  '--memory-mb',
  '128',
  '--env',
  'MODE=demo',
];

describe('kube-provision create (CLI, real cluster)', () => {
  it('prints one line per progress event, the provider ID last, exits 0 on its own', async () => {
    const hostname = uniqueName('cli');
    const result = await runNode(['dist/cli/main.js', 'create', ...specFlags(hostname), '-n', namespace, '--timeout', '60s'], {
      KUBECONFIG: clusterEnv().kubeconfigPath,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe(`${namespace}/${hostname}`);
    expect(lines[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} ${namespace}/${hostname} created Deployment$`));
    expect(lines.at(-2)).toMatch(/ready in \d+\.\ds$/);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const words = lines.slice(0, -1).map((line) => line.slice(line.indexOf(' ') + 1));
    expect(words.filter((text, i) => text === words[i - 1])).toEqual([]); // no line repeats the one before
    const live = kubectlJson<{ spec: { template: { spec: { containers: { env: unknown[] }[] } } } }>([
      'get',
      'deployment',
      hostname,
      '-n',
      namespace,
    ]);
    expect(live.spec.template.spec.containers[0]?.env).toEqual([{ name: 'MODE', value: 'demo' }]);
  });

  it('-o json prints one JSON event per line, the last one ready', async () => {
    const hostname = uniqueName('cli');
    const result = await runNode([
      'dist/cli/main.js',
      'create',
      ...specFlags(hostname),
      '-n',
      namespace,
      '-o',
      'json',
      '--kubeconfig',
      clusterEnv().kubeconfigPath,
    ]);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; providerId: string });
    expect(events[0]?.type).toBe('created');
    expect(events.at(-1)).toMatchObject({ type: 'ready', providerId: `${namespace}/${hostname}` });
  });

  it('exits 3 with the kubelet reason when the rollout fails (crash loop), long before the timeout', async () => {
    const hostname = uniqueName('cli');
    const result = await runNode([
      'dist/cli/main.js',
      'create',
      ...specFlags(hostname, faultImage('crash-loop')),
      '-n',
      namespace,
      '--timeout',
      '5m',
      '--kubeconfig',
      clusterEnv().kubeconfigPath,
    ]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /RolloutFailedError: .*CrashLoopBackOff.*; the Deployment \S+ this run created was deleted with its pods/,
    );
    expect(result.ms).toBeLessThan(60_000);
    expect(deploymentsNamed(hostname)).toEqual([]);
  });

  it('--keep-on-failure keeps the failed Deployment for debugging, and says so', async () => {
    const hostname = uniqueName('cli');
    const result = await runNode([
      'dist/cli/main.js',
      'create',
      ...specFlags(hostname, faultImage('image-not-found')),
      '-n',
      namespace,
      '--keep-on-failure',
      '--kubeconfig',
      clusterEnv().kubeconfigPath,
    ]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/ErrImagePull.*; the Deployment \S+ this run created was kept for debugging, as asked/);
    expect(deploymentsNamed(hostname)).toEqual([hostname]);
  });

  it('exits 5 naming the context when the context does not exist', async () => {
    const result = await runNode([
      'dist/cli/main.js',
      'create',
      ...specFlags(uniqueName('cli')),
      '--context',
      'nope',
      '--kubeconfig',
      clusterEnv().kubeconfigPath,
    ]);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/UnknownContextError: Context "nope" is not in the kubeconfig/);
  });
});

describe('CommonJS on the real cluster', () => {
  it('require("kube-provisioner") from a .cjs file provisions and the process exits on its own', async () => {
    const hostname = uniqueName('cjs');
    const result = await runNode(['test/commonjs/provision-real.cjs', clusterEnv().kubeconfigPath, namespace, hostname, '4242']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ providerId: `${namespace}/${hostname}`, adopted: false });
  });
});
