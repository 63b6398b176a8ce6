// Issue 26 (the second hardening round) on the real control plane, the built CLI as child
// processes:
//   - an EKS-style kubeconfig, whose exec plugin's arguments ("team", "us-east-1", ...) are
//     no secrets: `create --hostname team-web2` in a namespace named team-... creates,
//     awaits and lists its own object by its real name, and deletes nothing;
//   - an exec plugin that fails printing a token on stderr: no command relays the token;
//   - `--instance` on every command: a workload created with an instance is missing to a
//     command without it, and reachable (status, stop, start, delete) with it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { INSTANCE_LABEL } from '../../src/input/labels.js';
import { list } from '../../src/workload/reads/list.js';
import { clusterEnv } from '../support/cluster-env.js';
import { writeExecKubeconfig } from '../support/exec-kubeconfig.js';
import { createNamespace, kubectl, kubectlJson, uniqueName } from '../support/kube.js';
import { runNode, type ProcessRun } from '../support/run-process.js';

const CLI = 'dist/cli/main.js';
const EKS_ARGS = ['eks', 'get-token', '--cluster-name', 'team', '--region', 'us-east-1'];
/** What a failing plugin prints on stderr: a JWT-shaped token, and credential assignments. */
const MINTED_JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ0ZWFtLWEifQ.c2lnbmF0dXJlLXRoYXQtbXVzdC1ub3QtbGVhaw';
const MINTED_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

let dir: string;
let namespace: string;

function cli(args: readonly string[], kubeconfig = clusterEnv().kubeconfigPath): Promise<ProcessRun> {
  return runNode([CLI, ...args], { env: { ...process.env, KUBECONFIG: kubeconfig } });
}

/** The admin's cluster, with a user whose credentials an exec plugin prints (node running `script`, then `args`). */
function execKubeconfig(name: string, script: string, args: readonly string[]): string {
  return writeExecKubeconfig(join(dir, `${name}.yaml`), { namespace, args: [join(dir, script), ...args], tokenFile: join(dir, 'token') });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kp-hardening2-'));
  // "team-a"-like: the namespace holds the plugin's argument "team", as in the issue.
  namespace = createNamespace('team');
  const admin = new KubeConfig();
  admin.loadFromFile(clusterEnv().kubeconfigPath);
  writeFileSync(join(dir, 'token'), admin.getCurrentUser()!.token!);
  writeFileSync(
    join(dir, 'eks-token.cjs'),
    `process.stdout.write(JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  status: { token: require('node:fs').readFileSync(process.env.TOKEN_FILE, 'utf8').trim() },
}));
`,
  );
  writeFileSync(
    join(dir, 'eks-fails.cjs'),
    `process.stderr.write('could not refresh: minted ${MINTED_JWT}\\n');
process.stderr.write('token=${MINTED_JWT} AWS_SECRET_ACCESS_KEY=${MINTED_SECRET} client_secret=${MINTED_SECRET}\\n');
process.exit(1);
`,
  );
});

afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
  rmSync(dir, { recursive: true, force: true });
});

describe('an EKS-style exec plugin: its arguments are no secrets (item 1)', () => {
  it('create --hostname team-web2 in a team-... namespace: created, awaited and listed by its real name; nothing deleted', async () => {
    const kubeconfig = execKubeconfig('eks', 'eks-token.cjs', EKS_ARGS);
    const id = `${namespace}/team-web2`;
    const created = await cli(
      [
        'create',
        ...['--container-id', '4242', '--node-id', '9', '--hostname', 'team-web2', '--image', 'nginx:1.27'],
        ...['--cpus', '0.25', '--memory-mb', '128', '-n', namespace, '--timeout', '120s'],
      ],
      kubeconfig,
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).not.toContain('***');
    expect(created.stdout.trim().split('\n').at(-1)).toBe(id);
    expect(created.stdout).toContain(`${id} created Deployment`);

    // The Deployment stays: the run matched its own object (it was deleted after a timeout before).
    const deployment = kubectlJson<{ metadata: { name: string } }>(['get', 'deployment', 'team-web2', '-n', namespace, '-o', 'json']);
    expect(deployment.metadata.name).toBe('team-web2');

    const got = await cli(['get', '-n', namespace, '-o', 'json'], kubeconfig);
    expect(got.code).toBe(0);
    const snapshots = got.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { providerId: string });
    expect(snapshots.map((snapshot) => snapshot.providerId)).toEqual([id]);

    const api = KubernetesApi.fromConfig({ kubeconfigPath: kubeconfig });
    const listed = await list(api, { namespace });
    expect(listed.map((snapshot) => snapshot.providerId)).toEqual([id]);
  }, 180_000);

  it('a plugin that fails printing what it minted on stderr: get, get -o json and check relay its words, never the token', async () => {
    const kubeconfig = execKubeconfig('eks-fails', 'eks-fails.cjs', EKS_ARGS);
    for (const args of [
      ['get', '-n', namespace],
      ['get', '-n', namespace, '-o', 'json'],
      ['status', `${namespace}/team-web2`],
      ['check', '-n', namespace],
    ]) {
      const run = await cli(args, kubeconfig);
      const output = `${run.stdout}\n${run.stderr}`;
      expect(run.code, args.join(' ')).toBe(5);
      expect(output, args.join(' ')).toContain('could not refresh');
      expect(output, args.join(' ')).not.toContain(MINTED_JWT);
      expect(output, args.join(' ')).not.toContain(MINTED_JWT.split('.')[1]);
      expect(output, args.join(' ')).not.toContain(MINTED_SECRET);
    }
  }, 120_000);
});

describe('--instance on every command (item 13)', () => {
  it('a workload created with --instance: missing without it; status, stop, start and delete reach it with it', async () => {
    const name = uniqueName('inst');
    const id = `${namespace}/${name}`;
    const containerId = String(Math.floor(Math.random() * 1e6) + 1);
    const created = await cli([
      'create',
      ...['--container-id', containerId, '--node-id', '9', '--hostname', name, '--image', 'nginx:1.27'],
      ...['--cpus', '0.25', '--memory-mb', '128', '-n', namespace, '--instance', 'east', '--timeout', '120s'],
    ]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const labels = kubectlJson<{ metadata: { labels: Record<string, string> } }>(['get', 'deployment', name, '-n', namespace, '-o', 'json'])
      .metadata.labels;
    expect(labels[INSTANCE_LABEL]).toBe('east');

    const stateOf = async (args: readonly string[]): Promise<string> => {
      const run = await cli(['status', id, '-o', 'json', ...args]);
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { status: { state: string } }).status.state;
    };
    expect(await stateOf([])).toBe('missing');
    expect(await stateOf(['--instance', 'west'])).toBe('missing');
    expect(await stateOf(['--instance', 'east'])).toBe('running');

    const getWith = await cli(['get', '-n', namespace, '--instance', 'east', '-o', 'json']);
    expect(getWith.code).toBe(0);
    expect(getWith.stdout).toContain(`"providerId":"${id}"`);
    const getWithout = await cli(['get', '-n', namespace, '-o', 'json']);
    expect(getWithout.stdout).not.toContain(`"providerId":"${id}"`);

    // Without --instance it is another installation's workload: refused as a conflict (exit 6), untouched.
    const stopWithout = await cli(['stop', id, '--timeout', '60s']);
    expect(stopWithout.code).toBe(6);
    expect(stopWithout.stderr).toContain('WorkloadOwnershipError');
    expect(kubectlJson<{ spec: { replicas: number } }>(['get', 'deployment', name, '-n', namespace, '-o', 'json']).spec.replicas).toBe(1);

    for (const command of ['stop', 'start', 'restart']) {
      const run = await cli([command, id, '--instance', 'east', '--timeout', '90s']);
      expect(run.stderr, command).toBe('');
      expect(run.code, command).toBe(0);
      expect(run.stdout.trim().split('\n').at(-1), command).toBe(id);
    }

    const deleteWithout = await cli(['delete', id, '--container-id', containerId, '--timeout', '60s']);
    expect(deleteWithout.code).toBe(6);
    expect(kubectl(['get', 'deployment', name, '-n', namespace, '-o', 'name']).trim()).toBe(`deployment.apps/${name}`);
    const deleted = await cli(['delete', id, '--instance', 'east', '--container-id', containerId, '--timeout', '90s']);
    expect(deleted.stderr).toBe('');
    expect(deleted.code).toBe(0);
    expect(kubectl(['get', 'deployments', '-n', namespace, '--field-selector', `metadata.name=${name}`, '-o', 'name']).trim()).toBe('');
  }, 300_000);
});
