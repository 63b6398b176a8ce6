// kube-provision get and status end to end, as child processes (the built dist/cli), on
// the real control plane. They must exit on their own; status --watch ends on SIGINT.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provision } from '../../src/workload/operations/provision.js';
import { clusterEnv } from '../support/cluster-env.js';
import { apiFor, createNamespace, kubectl, sampleSpec } from '../support/kube.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function start(
  args: readonly string[],
  kubeconfig = clusterEnv().kubeconfigPath,
): { child: ChildProcess; done: Promise<Run>; output: () => string } {
  const child = spawn(process.execPath, ['dist/cli/main.js', ...args], { cwd: root, env: { ...process.env, KUBECONFIG: kubeconfig } });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const done = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, done, output: () => stdout };
}

const cli = (args: readonly string[], kubeconfig?: string): Promise<Run> => start(args, kubeconfig).done;

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
  namespace = createNamespace('it-status-cli');
  const spec = sampleSpec({ namespace });
  const api = apiFor('admin', { namespace });
  const result = await provision(api, spec, { timeoutMs: 60_000 });
  web = { providerId: result.providerId, name: result.name, containerId: spec.containerId as number };
  kubectl(['create', 'deployment', 'foreign', '--image=nginx:1.27', '-n', namespace]);
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

describe('kube-provision get (CLI, real cluster)', () => {
  it('lists our workloads as a table, never the foreign Deployment; exits 0 on its own', async () => {
    const result = await cli(['get', '-n', namespace]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^PROVIDER-ID +CONTAINER-ID +NODE-ID +STATUS +ADDRESS +REASON$/);
    expect(lines).toHaveLength(2);
    // No ports, no Service: no address (never the Pod IP).
    expect(lines[1]).toMatch(new RegExp(`^${web.providerId} +${web.containerId} +3 +running +<none> +NewReplicaSetAvailable$`));
    expect(result.stdout).not.toContain('foreign');
  });

  it('-o wide adds the ports, routed, Pod IP, node, image and resources; -o json prints snapshots, one per line', async () => {
    const wide = await cli(['get', '-n', namespace, '-o', 'wide']);
    expect(wide.code).toBe(0);
    const row = wide.stdout.trim().split('\n')[1]!;
    expect(row).toMatch(
      new RegExp(
        `running +<none> +NewReplicaSetAvailable +<none> +<none> +0 +\\d+\\.\\d+\\.\\d+\\.\\d+ +${clusterEnv().nodeName} +docker\\.io/library/nginx:1\\.27 +250m +256Mi +1/1 ready$`,
      ),
    );
    const json = await cli(['get', '-n', namespace, '-o', 'json']);
    expect(json.code).toBe(0);
    const snapshots = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(snapshots).toEqual([
      expect.objectContaining({
        vmid: web.providerId,
        type: 'deployment',
        status: 'running',
        containerId: String(web.containerId),
        nodeId: '3',
      }),
    ]);
  });

  it('one workload by provider ID or by name with -n; a missing one is shown as missing (exit 0)', async () => {
    const byId = await cli(['get', web.providerId]);
    expect(byId.code).toBe(0);
    expect(byId.stdout).toContain(`${web.providerId}   ${web.containerId}`);
    const byName = await cli(['get', web.name, '-n', namespace, '-o', 'json']);
    expect(JSON.parse(byName.stdout)).toMatchObject({ providerId: web.providerId, status: 'running' });
    const missing = await cli(['get', `${namespace}/nope`]);
    expect(missing.code).toBe(0);
    expect(missing.stdout).toMatch(new RegExp(`${namespace}/nope +<none> +<none> +missing +<none> +NotFound`));
    const foreign = await cli(['get', `${namespace}/foreign`, '-o', 'json']);
    expect(JSON.parse(foreign.stdout)).toMatchObject({ status: 'missing', detail: { reason: 'NotManaged' } });
  });

  it('an empty namespace says so on stderr', async () => {
    const empty = createNamespace('it-status-cli-empty');
    try {
      const result = await cli(['get', '-n', empty]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim()).toBe(`No workloads found in namespace ${empty}.`);
    } finally {
      kubectl(['delete', 'namespace', empty, '--wait=false']);
    }
  });
});

describe('kube-provision status (CLI, real cluster)', () => {
  it('one line with the state, message, Pod IP and node; -o json: the status event', async () => {
    const line = await cli(['status', web.providerId]);
    expect(line.code).toBe(0);
    expect(line.stdout.trim()).toMatch(
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} ${web.providerId} running: 1/1 ready \\(pod IP [\\d.]+ on ${clusterEnv().nodeName}\\)$`),
    );
    const json = await cli(['status', web.providerId, '-o', 'json', '--container-id', String(web.containerId)]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      type: 'status',
      providerId: web.providerId,
      containerId: String(web.containerId),
      nodeId: '3',
      status: { state: 'running', image: 'docker.io/library/nginx:1.27' },
    });
    const other = await cli(['status', web.providerId, '--container-id', '1']);
    expect(other.stdout).toContain(`${web.providerId} missing: the Deployment belongs to container ${web.containerId}, not 1`);
  });

  it('--watch prints a line per change (kubectl scale to 0 and back) and ends with exit 130 on SIGINT', async () => {
    const watch = start(['status', web.providerId, '--watch']);
    await until('running line', () => /running: 1\/1 ready/.test(watch.output()));
    kubectl(['scale', 'deployment', web.name, '-n', namespace, '--replicas=0']);
    await until('offline line', () => / offline: scaled to 0, no pod left/.test(watch.output()));
    kubectl(['scale', 'deployment', web.name, '-n', namespace, '--replicas=1']);
    await until('running again', () => (watch.output().match(/running: 1\/1 ready \(pod IP/g) ?? []).length === 2);
    watch.child.kill('SIGINT');
    const result = await watch.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('');
    const states = result.stdout
      .trim()
      .split('\n')
      .map((text) => text.split(' ')[2]!.replace(/:$/, ''));
    expect(states.filter((state, index) => state !== states[index - 1])).toEqual(['running', 'stopping', 'offline', 'starting', 'running']);
  });

  it('an API server that is not there: the status is printed as unknown, exit 5', async () => {
    const config = new KubeConfig();
    config.loadFromFile(clusterEnv().kubeconfigPath);
    const cluster = config.getCurrentCluster()!;
    // Same credentials, a port nothing listens on.
    config.clusters = config.clusters.map((c) => (c.name === cluster.name ? { ...c, server: 'https://127.0.0.1:1' } : c));
    const dir = mkdtempSync(join(tmpdir(), 'kp-status-cli-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, config.exportConfig());
    const result = await cli(['status', web.providerId, '--timeout', '10s'], kubeconfig);
    expect(result.code).toBe(5);
    expect(result.stdout).toMatch(/ unknown: Kubernetes API at https:\/\/127\.0\.0\.1:1 is unreachable: ECONNREFUSED/);
    const get = await cli(['get', '-n', namespace], kubeconfig);
    expect(get.code).toBe(5);
    expect(get.stderr).toMatch(/^error: ApiUnreachableError: /);
  });
});
