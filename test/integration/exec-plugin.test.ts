// A kubeconfig whose user is an exec credential plugin, on the real control plane: the plugin
// (this Node running a small script) prints the admin's static token as an ExecCredential.
// The built CLI and the CommonJS entry (client-node bundled into dist/) provision with it;
// a plugin that fails stops the CLI with a non-zero exit and no token in its output.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterEnv } from '../support/cluster-env.js';
import { writeExecKubeconfig } from '../support/exec-kubeconfig.js';
import { createNamespace, kubectl, kubectlJson, uniqueName } from '../support/kube.js';
import { runNode as runProcess, type ProcessRun } from '../support/run-process.js';

let dir: string;
let namespace: string;
let adminToken: string;
let runsFile: string;

function runNode(args: string[]): Promise<ProcessRun> {
  return runProcess(args, { env: { ...process.env, KUBECONFIG: undefined } });
}

/** A kubeconfig for the test cluster whose user runs `plugin` for its credentials. */
function execKubeconfig(name: string, plugin: string): string {
  return writeExecKubeconfig(join(dir, `${name}.yaml`), { namespace, args: [plugin], tokenFile: join(dir, 'token') });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kp-exec-plugin-'));
  namespace = createNamespace('it-exec');
  const admin = new KubeConfig();
  admin.loadFromFile(clusterEnv().kubeconfigPath);
  adminToken = admin.getCurrentUser()!.token!;
  expect(adminToken).toMatch(/\S{16,}/);
  writeFileSync(join(dir, 'token'), adminToken);
  runsFile = join(dir, 'runs');
  writeFileSync(
    join(dir, 'print-token.cjs'),
    `require('node:fs').appendFileSync(${JSON.stringify(runsFile)}, 'run\\n');
process.stdout.write(JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  status: { token: require('node:fs').readFileSync(process.env.TOKEN_FILE, 'utf8').trim() },
}));
`,
  );
  writeFileSync(join(dir, 'fail.cjs'), `process.stderr.write('no credentials today\\n');\nprocess.exit(1);\n`);
});

afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
  rmSync(dir, { recursive: true, force: true });
});

const specFlags = (hostname: string) => [
  '--container-id',
  String(Math.floor(Math.random() * 1e6)),
  '--node-id',
  '3',
  '--hostname',
  hostname,
  '--image',
  'nginx:1.27',
  '--cpus',
  '0.1',
  '--memory-mb',
  '64',
];

describe('exec credential plugin kubeconfig (real cluster, built package)', () => {
  it('the CLI provisions with the token the plugin prints', async () => {
    writeFileSync(runsFile, '');
    const hostname = uniqueName('exec');
    const kubeconfigPath = execKubeconfig('cli', join(dir, 'print-token.cjs'));
    const result = await runNode([
      'dist/cli/main.js',
      'create',
      ...specFlags(hostname),
      '--kubeconfig',
      kubeconfigPath,
      '--timeout',
      '60s',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe(`${namespace}/${hostname}`);
    expect(readFileSync(runsFile, 'utf8').split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(1);
    const live = kubectlJson<{ metadata: { name: string } }>(['get', 'deployment', hostname, '-n', namespace]);
    expect(live.metadata.name).toBe(hostname);
  });

  it('require("kube-provisioner") provisions with it from a .cjs file', async () => {
    writeFileSync(runsFile, '');
    const hostname = uniqueName('exec-cjs');
    const kubeconfigPath = execKubeconfig('cjs', join(dir, 'print-token.cjs'));
    const result = await runNode(['test/commonjs/provision-real.cjs', kubeconfigPath, namespace, hostname, '4343']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ providerId: `${namespace}/${hostname}` });
    expect(readFileSync(runsFile, 'utf8')).toMatch(/^run\n/);
  });

  it('a plugin that fails stops the CLI with a non-zero exit, creating nothing and printing no token', async () => {
    const hostname = uniqueName('exec-fail');
    const kubeconfigPath = execKubeconfig('fail', join(dir, 'fail.cjs'));
    const result = await runNode([
      'dist/cli/main.js',
      'create',
      ...specFlags(hostname),
      '--kubeconfig',
      kubeconfigPath,
      '--timeout',
      '30s',
    ]);
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stderr).not.toBe('');
    expect(`${result.stdout}${result.stderr}`).not.toContain(adminToken);
    const left = kubectlJson<{ items: unknown[] }>(['get', 'deployments', '-n', namespace, '-l', 'app.kubernetes.io/name=' + hostname]);
    expect(left.items).toEqual([]);
  });
});
