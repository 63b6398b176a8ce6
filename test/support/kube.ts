// Helpers for integration tests against the real control plane: kubectl (a real,
// independent client) and per-test namespaces.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { KubernetesApi, type KubernetesApiOptions } from '../../src/kube/kubernetes-api.js';
import { clusterEnv, type ClusterUserName } from './cluster-env.js';

export function kubectl(args: readonly string[], options: { user?: ClusterUserName; input?: string } = {}): string {
  const env = clusterEnv();
  return execFileSync('kubectl', ['--kubeconfig', env.kubeconfigs[options.user ?? 'admin'], ...args], {
    encoding: 'utf8',
    input: options.input,
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: 60_000,
  });
}

export function kubectlJson<T = unknown>(args: readonly string[], options: { user?: ClusterUserName } = {}): T {
  return JSON.parse(kubectl([...args, '-o', 'json'], options)) as T;
}

/** Runs kubectl and reports the exit status instead of throwing. */
export function kubectlStatus(args: readonly string[], timeoutMs = 60_000): { status: number | null; stdout: string; stderr: string } {
  const env = clusterEnv();
  const child = spawnSync('kubectl', ['--kubeconfig', env.kubeconfigPath, ...args], { encoding: 'utf8', timeout: timeoutMs });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/** A fresh namespace for one test file, so tests never see each other's objects. */
export function createNamespace(prefix: string): string {
  const name = uniqueName(prefix);
  kubectl(['create', 'namespace', name]);
  return name;
}

export function apiFor(user: ClusterUserName = 'admin', options: Omit<KubernetesApiOptions, 'kubeconfigPath'> = {}): KubernetesApi {
  return KubernetesApi.fromConfig({ kubeconfigPath: clusterEnv().kubeconfigs[user], ...options });
}

export function sampleSpec(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    containerId: Number.parseInt(randomBytes(3).toString('hex'), 16),
    nodeId: 3,
    hostname: uniqueName('ct'),
    image: 'docker.io/library/nginx:1.27',
    cpus: 0.25,
    memoryMb: 256,
    env: { GREETING: 'hello world', EMPTY: '' },
    entrypoint: 'nginx -g "daemon off;"',
    ...overrides,
  };
}
