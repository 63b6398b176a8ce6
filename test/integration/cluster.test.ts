// Smoke test of the local control plane itself (scripts/control-plane): real apiserver,
// controllers and scheduler, KWOK with our stages, and the process hygiene around them.
// Everything here talks to the cluster through kubectl or client-node, never through the
// library under test, so a failure here points at the test environment.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { pinnedVersions, CONTROL_PLANE_DIR } from '../../scripts/control-plane/binaries.js';
import { startCluster } from '../../scripts/control-plane/cluster.js';
import { reserveFreePorts } from '../../scripts/control-plane/ports.js';
import { isAlive } from '../../scripts/control-plane/processes.js';
import { FAULT_LABEL, MISSING_SECRET_MESSAGE, faultImage } from '../../scripts/control-plane/stages.js';
import type { FaultMode } from '../../scripts/control-plane/stages.js';
import { clusterEnv } from '../support/cluster-env.js';

const env = clusterEnv();
const versions = pinnedVersions();
const namespace = `smoke-${Date.now().toString(36)}`;

// ---- helpers -------------------------------------------------------------------------------

interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], timeoutMs = 60_000): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(command, [...args], { timeout: timeoutMs, env: { ...process.env, KUBECONFIG: undefined } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

function kubectl(args: readonly string[], kubeconfig = env.kubeconfigPath): Promise<CommandResult> {
  return run('kubectl', ['--kubeconfig', kubeconfig, ...args]);
}

async function kubectlOk(args: readonly string[], kubeconfig = env.kubeconfigPath): Promise<string> {
  const result = await kubectl(args, kubeconfig);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

async function kubectlJson<T>(args: readonly string[]): Promise<T> {
  return JSON.parse(await kubectlOk([...args, '-o', 'json'])) as T;
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Pods as the watch delivers them: plain JSON.
interface ContainerState {
  readonly waiting?: { readonly reason?: string; readonly message?: string };
  readonly running?: { readonly startedAt?: string };
  readonly terminated?: { readonly exitCode?: number; readonly reason?: string };
}
interface PodSnapshot {
  readonly metadata: { readonly name: string; readonly deletionTimestamp?: string };
  readonly spec?: { readonly nodeName?: string };
  readonly status?: {
    readonly phase?: string;
    readonly podIP?: string;
    readonly hostIP?: string;
    readonly conditions?: readonly {
      readonly type: string;
      readonly status: string;
      readonly reason?: string;
      readonly message?: string;
    }[];
    readonly containerStatuses?: readonly {
      readonly name: string;
      readonly ready: boolean;
      readonly restartCount: number;
      readonly state?: ContainerState;
      readonly lastState?: ContainerState;
    }[];
  };
}

const firstContainer = (pod: PodSnapshot) => pod.status?.containerStatuses?.[0];
const waitingOf = (pod: PodSnapshot) => firstContainer(pod)?.state?.waiting;
const conditionOf = (pod: PodSnapshot, type: string) => pod.status?.conditions?.find((condition) => condition.type === type);
const isReady = (pod: PodSnapshot) => conditionOf(pod, 'Ready')?.status === 'True';

/** What `kubectl get pod` would show in STATUS, roughly: the waiting reason or the state. */
function stateLabel(pod: PodSnapshot): string {
  const state = firstContainer(pod)?.state;
  if (state?.waiting !== undefined) return state.waiting.reason ?? 'Waiting';
  if (state?.running !== undefined) return isReady(pod) ? 'Ready' : 'RunningNotReady';
  if (state?.terminated !== undefined) return `Terminated:${state.terminated.reason ?? ''}`;
  return 'NoStatus';
}

/**
 * Records every version of every pod in a namespace, from one watch, so tests can wait
 * for states that come and go (a back-off cycle) without polling and without missing any.
 */
class PodRecorder {
  private readonly history = new Map<string, PodSnapshot[]>();
  private readonly deleted = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private controller: AbortController | undefined;
  private failure: Error | undefined;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly watchedNamespace: string,
  ) {}

  async start(): Promise<void> {
    this.controller = await new Watch(this.kubeConfig).watch(
      `/api/v1/namespaces/${this.watchedNamespace}/pods`,
      {},
      (type: string, pod: PodSnapshot) => {
        if (type === 'DELETED') this.deleted.add(pod.metadata.name);
        else this.history.set(pod.metadata.name, [...this.snapshots(pod.metadata.name), pod]);
        this.notify();
      },
      (error: unknown) => {
        if (error !== null && error !== undefined && (error as Error).name !== 'AbortError') this.failure = error as Error;
        this.notify();
      },
    );
  }

  stop(): void {
    this.controller?.abort();
  }

  snapshots(name: string): PodSnapshot[] {
    return this.history.get(name) ?? [];
  }

  latest(name: string): PodSnapshot | undefined {
    return this.snapshots(name).at(-1);
  }

  wasDeleted(name: string): boolean {
    return this.deleted.has(name);
  }

  /** Consecutive distinct state labels, e.g. [NoStatus, ContainerCreating, ErrImagePull, ...]. */
  stateSequence(name: string): string[] {
    const labels = this.snapshots(name).map(stateLabel);
    return labels.filter((label, index) => index === 0 || labels[index - 1] !== label);
  }

  /** Resolves with the first non-undefined `probe()` result, re-checked on every event. */
  until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.failure !== undefined) return finish(() => reject(new Error(`pod watch failed: ${this.failure?.message}`)));
        const value = probe();
        if (value !== undefined) finish(() => resolve(value));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`))), timeoutMs);
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
        settle();
      };
      this.listeners.add(check);
      check();
    });
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

function containsInOrder(sequence: readonly string[], expected: readonly string[]): boolean {
  let next = 0;
  for (const label of sequence) if (label === expected[next]) next += 1;
  return next >= expected.length;
}

function podManifest(
  name: string,
  options: { image?: string; labels?: Record<string, string>; restartPolicy?: string; cpu?: string; finalizers?: string[] } = {},
): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { 'smoke-test': 'true', ...options.labels }, finalizers: options.finalizers },
    spec: {
      restartPolicy: options.restartPolicy ?? 'Always',
      terminationGracePeriodSeconds: 30,
      containers: [
        {
          name: 'app',
          image: options.image ?? 'nginx:1.27',
          resources: { requests: { cpu: options.cpu ?? '10m', memory: '16Mi' } },
        },
      ],
    },
  };
}

// ---- suite -----------------------------------------------------------------------------------

const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(env.kubeconfigPath);
const core = kubeConfig.makeApiClient(CoreV1Api);
const recorder = new PodRecorder(kubeConfig, namespace);

beforeAll(async () => {
  await kubectlOk(['create', 'namespace', namespace]);
  await recorder.start();
});

afterAll(async () => {
  recorder.stop();
  // Namespace deletion exercises the namespace controller and our pod-delete stage.
  await kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

describe('local control plane', () => {
  it(`serves Kubernetes ${versions.kubernetes} over verified TLS`, async () => {
    const version = JSON.parse(await kubectlOk(['version', '-o', 'json'])) as { serverVersion: { gitVersion: string } };
    expect(version.serverVersion.gitVersion).toBe(versions.kubernetes);
    expect((await run(join(env.binDir, 'etcd'), ['--version'])).stdout).toContain(`etcd Version: ${versions.etcd.replace(/^v/, '')}`);
    expect((await run(join(env.binDir, 'kwok'), ['--version'])).stdout).toContain(versions.kwok);

    const kubeconfigText = readFileSync(env.kubeconfigPath, 'utf8');
    expect(kubeconfigText).toContain('certificate-authority-data:');
    expect(kubeconfigText).not.toContain('insecure-skip-tls-verify');
    expect(env.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    // Without the cluster's CA, a TLS client must refuse the server: verification is real.
    const tlsError = await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      const request = httpsGet(`${env.server}/readyz`, { agent: false }, () => reject(new Error('an unverified server was accepted')));
      request.on('error', (error) => resolve(error));
    });
    expect(tlsError.code).toMatch(/CERT|SIGNATURE|ISSUER/);
  });

  it('authenticates the admin and the unprivileged users by token, and RBAC applies', async () => {
    const whoami = async (user: 'admin' | 'restricted' | 'viewer') =>
      (await kubectlOk(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], env.kubeconfigs[user])).trim();
    const canI = async (user: 'admin' | 'restricted' | 'viewer', verb: string, resource: string) =>
      (await kubectl(['auth', 'can-i', verb, resource, '-n', 'default'], env.kubeconfigs[user])).stdout.trim();

    expect(await whoami('admin')).toBe('admin');
    expect(await whoami('restricted')).toBe('restricted');
    expect(await canI('admin', 'create', 'deployments.apps')).toBe('yes');
    expect(await canI('restricted', 'create', 'deployments.apps')).toBe('no');
    expect(await canI('restricted', 'watch', 'deployments.apps')).toBe('no');
    expect(await canI('viewer', 'watch', 'deployments.apps')).toBe('yes');
    expect(await canI('viewer', 'create', 'deployments.apps')).toBe('no');
  });

  it('has a Ready, untainted KWOK node with room for hundreds of pods and a renewed Lease', async () => {
    interface NodeJson {
      spec: { unschedulable?: boolean; taints?: unknown[] };
      status: { allocatable: Record<string, string>; conditions: { type: string; status: string }[]; nodeInfo: { kubeletVersion: string } };
    }
    const node = await kubectlJson<NodeJson>(['get', 'node', env.nodeName]);
    expect(node.status.conditions.find((condition) => condition.type === 'Ready')?.status).toBe('True');
    expect(node.spec.taints ?? []).toEqual([]);
    expect(node.spec.unschedulable ?? false).toBe(false);
    expect(node.status.nodeInfo.kubeletVersion).toBe(versions.kubernetes);
    const pods = node.status.allocatable.pods ?? '0';
    expect(Number(pods.replace(/k$/, '000'))).toBeGreaterThanOrEqual(500);

    const lease = await kubectlJson<{ spec: { renewTime: string; holderIdentity: string } }>([
      'get',
      'lease',
      '-n',
      'kube-node-lease',
      env.nodeName,
    ]);
    expect(Date.now() - Date.parse(lease.spec.renewTime)).toBeLessThan(30_000);
  });

  it('rolls out a kubectl-created Deployment through the real controllers', async () => {
    const startedAt = Date.now();
    await kubectlOk(['create', 'deployment', 'web', '--image=nginx:1.27', '-n', namespace]);
    await kubectlOk(['rollout', 'status', 'deployment/web', '-n', namespace, '--timeout=60s']);
    const elapsedMs = Date.now() - startedAt;

    interface DeploymentJson {
      metadata: { generation: number };
      status: { availableReplicas?: number; observedGeneration?: number; conditions?: { type: string; status: string; reason: string }[] };
    }
    const deployment = await kubectlJson<DeploymentJson>(['get', 'deployment', 'web', '-n', namespace]);
    expect(deployment.status.availableReplicas).toBe(1);
    expect(deployment.status.observedGeneration).toBe(deployment.metadata.generation);
    const conditions = Object.fromEntries((deployment.status.conditions ?? []).map((condition) => [condition.type, condition]));
    expect(conditions.Available).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });
    expect(conditions.Progressing).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable' });
    // KWOK's pod-ready stage waits podReadyDelayMs: rollouts take realistic time.
    expect(elapsedMs).toBeGreaterThanOrEqual(env.podReadyDelayMs * 0.9);

    const pods = await kubectlJson<{ items: PodSnapshot[] }>(['get', 'pods', '-n', namespace, '-l', 'app=web']);
    expect(pods.items).toHaveLength(1);
    const [pod] = pods.items;
    expect(pod?.spec?.nodeName).toBe(env.nodeName);
    expect(pod?.status?.phase).toBe('Running');
    expect(pod?.status?.podIP).toMatch(/^10\.244\./);
    expect(pod?.status?.hostIP).toBeTruthy();
    for (const type of ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'])
      expect(conditionOf(pod as PodSnapshot, type)?.status).toBe('True');
    expect(firstContainer(pod as PodSnapshot)).toMatchObject({ ready: true, restartCount: 0, state: { running: {} } });
  });

  it('runs pods with restartPolicy Never to Succeeded', async () => {
    await core.createNamespacedPod({ namespace, body: podManifest('run-once', { restartPolicy: 'Never' }) });
    const done = await recorder.until('run-once Succeeded', () =>
      recorder.snapshots('run-once').find((pod) => pod.status?.phase === 'Succeeded'),
    );
    expect(firstContainer(done)?.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(recorder.stateSequence('run-once')).toContain('Ready');
  });

  it('leaves an over-large request Pending, Unschedulable by the real scheduler', async () => {
    await core.createNamespacedPod({ namespace, body: podManifest('too-big', { cpu: '5000' }) });
    const pod = await recorder.until('too-big PodScheduled=False', () =>
      recorder.snapshots('too-big').find((snapshot) => conditionOf(snapshot, 'PodScheduled')?.status === 'False'),
    );
    expect(conditionOf(pod, 'PodScheduled')).toMatchObject({ reason: 'Unschedulable' });
    expect(conditionOf(pod, 'PodScheduled')?.message).toMatch(/0\/1 nodes are available: 1 Insufficient cpu/);
    expect(pod.status?.phase).toBe('Pending');
    expect(pod.spec?.nodeName).toBeUndefined();
  });

  it('completes pod deletion, even with finalizers: nothing stays Terminating', async () => {
    await core.createNamespacedPod({ namespace, body: podManifest('held', { finalizers: ['kube-provisioner.dev/test-hold'] }) });
    await recorder.until('held Ready', () => recorder.snapshots('held').find(isReady));
    await core.deleteNamespacedPod({ name: 'held', namespace });
    await recorder.until('held deleted', () => (recorder.wasDeleted('held') ? true : undefined), 15_000);

    await kubectlOk(['delete', 'deployment', 'web', '-n', namespace, '--wait=false']);
    await kubectlOk(['wait', '--for=delete', 'pod', '-l', 'app=web', '-n', namespace, '--timeout=30s']);
  });
});

describe('KWOK fault modes', () => {
  const image = (mode: FaultMode) => faultImage(mode);
  const labelled = (mode: FaultMode) => ({ labels: { [FAULT_LABEL]: mode } });

  beforeAll(async () => {
    // All at once: they cycle in parallel while the tests below watch them.
    await Promise.all([
      core.createNamespacedPod({
        namespace,
        body: podManifest('not-found', { ...labelled('image-not-found'), image: 'registry.example/app:missing' }),
      }),
      core.createNamespacedPod({ namespace, body: podManifest('pull-backoff', { image: image('image-pull-backoff') }) }),
      core.createNamespacedPod({ namespace, body: podManifest('transient', labelled('transient-pull-backoff')) }),
      core.createNamespacedPod({ namespace, body: podManifest('crash', labelled('crash-loop')) }),
      core.createNamespacedPod({ namespace, body: podManifest('never-ready', labelled('never-ready')) }),
      core.createNamespacedPod({ namespace, body: podManifest('config-error', labelled('create-container-config-error')) }),
    ]);
  });

  it('image-not-found: ErrImagePull "not found", then ImagePullBackOff, cycling, never Running', async () => {
    await recorder.until('two pull attempts', () =>
      containsInOrder(recorder.stateSequence('not-found'), ['ErrImagePull', 'ImagePullBackOff', 'ErrImagePull']) ? true : undefined,
    );
    const snapshots = recorder.snapshots('not-found');
    const pullError = snapshots.map(waitingOf).find((waiting) => waiting?.reason === 'ErrImagePull');
    expect(pullError?.message).toContain('failed to resolve reference "registry.example/app:missing"');
    expect(pullError?.message).toMatch(/registry\.example\/app:missing: not found$/);
    const backOff = snapshots.map(waitingOf).find((waiting) => waiting?.reason === 'ImagePullBackOff');
    expect(backOff?.message).toMatch(/^Back-off pulling image "registry\.example\/app:missing"/);
    expect(snapshots.every((pod) => pod.status?.phase === 'Pending' && !isReady(pod))).toBe(true);
  });

  it('image-pull-backoff (chosen by the image host): transient-looking pull errors, forever', async () => {
    await recorder.until('two back-offs', () =>
      containsInOrder(recorder.stateSequence('pull-backoff'), ['ErrImagePull', 'ImagePullBackOff', 'ErrImagePull', 'ImagePullBackOff'])
        ? true
        : undefined,
    );
    const snapshots = recorder.snapshots('pull-backoff');
    expect(snapshots.map(waitingOf).find((waiting) => waiting?.reason === 'ErrImagePull')?.message).toMatch(/i\/o timeout$/);
    expect(snapshots.map(waitingOf).find((waiting) => waiting?.reason === 'ImagePullBackOff')?.message).toContain(
      `Back-off pulling image "${image('image-pull-backoff')}"`,
    );
    expect(snapshots.some(isReady)).toBe(false);
  });

  it('transient-pull-backoff: one failed pull and back-off, then Running and Ready', async () => {
    const ready = await recorder.until('transient Ready', () => recorder.snapshots('transient').find(isReady));
    expect(ready.status?.phase).toBe('Running');
    expect(containsInOrder(recorder.stateSequence('transient'), ['ContainerCreating', 'ErrImagePull', 'ImagePullBackOff', 'Ready'])).toBe(
      true,
    );
  });

  it('crash-loop: CrashLoopBackOff after exit code 1, restart count climbing', async () => {
    const secondCrash = await recorder.until('second crash', () =>
      recorder
        .snapshots('crash')
        .find((pod) => waitingOf(pod)?.reason === 'CrashLoopBackOff' && (firstContainer(pod)?.restartCount ?? 0) >= 2),
    );
    const firstCrash = recorder.snapshots('crash').find((pod) => waitingOf(pod)?.reason === 'CrashLoopBackOff');
    expect(firstContainer(firstCrash as PodSnapshot)?.restartCount).toBe(1);
    expect(waitingOf(firstCrash as PodSnapshot)?.message).toMatch(
      new RegExp(`^back-off 10s restarting failed container=app pod=crash_${namespace}\\(`),
    );
    expect(waitingOf(secondCrash)?.message).toMatch(/^back-off 20s /);
    expect(firstContainer(secondCrash)?.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(secondCrash.status?.phase).toBe('Running');
    expect(recorder.stateSequence('crash')).toContain('RunningNotReady');
    expect(recorder.snapshots('crash').some(isReady)).toBe(false);
  });

  it('never-ready: Running with the container running but never ready', async () => {
    await recorder.until('never-ready running', () => (recorder.latest('never-ready')?.status?.phase === 'Running' ? true : undefined));
    // Well past the ready delay: nothing changes any more.
    await sleep(env.podReadyDelayMs * 2);
    const pod = recorder.latest('never-ready') as PodSnapshot;
    expect(firstContainer(pod)).toMatchObject({ ready: false, state: { running: {} } });
    expect(conditionOf(pod, 'Ready')).toMatchObject({ status: 'False', reason: 'ContainersNotReady' });
  });

  it('create-container-config-error: CreateContainerConfigError naming the missing secret', async () => {
    const pod = await recorder.until('config error', () =>
      recorder.snapshots('config-error').find((snapshot) => waitingOf(snapshot)?.reason === 'CreateContainerConfigError'),
    );
    expect(waitingOf(pod)?.message).toBe(MISSING_SECRET_MESSAGE);
    expect(pod.status?.phase).toBe('Pending');
  });

  it('deletes fault pods promptly too', async () => {
    const names = ['not-found', 'pull-backoff', 'transient', 'crash', 'never-ready', 'config-error'];
    await Promise.all(names.map((name) => core.deleteNamespacedPod({ name, namespace })));
    await recorder.until('all fault pods deleted', () => (names.every((name) => recorder.wasDeleted(name)) ? true : undefined), 15_000);
  });
});

describe.concurrent('cluster lifecycle', () => {
  it('runs a second cluster beside the first, restarts its apiserver in place, and stops cleanly', async () => {
    const second = await startCluster({ podReadyDelayMs: 200, handleSignals: false, log: () => undefined });
    try {
      expect(second.server).not.toBe(env.server);
      expect(second.workDir).not.toBe(env.workDir);
      const nodes = await kubectlOk(
        ['get', 'nodes', '-o', 'jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}'],
        second.kubeconfigPath,
      );
      expect(nodes).toBe('True');

      const oldApiserverPid = second.pids['kube-apiserver'];
      await second.stopApiserver();
      expect((await kubectl(['get', 'namespace', 'default', '--request-timeout=2s'], second.kubeconfigPath)).code).not.toBe(0);
      await second.startApiserver();
      expect(second.pids['kube-apiserver']).not.toBe(oldApiserverPid);
      await kubectlOk(['get', 'namespace', 'default'], second.kubeconfigPath);
    } finally {
      const pids = Object.values(second.pids);
      await second.stop();
      expect(pids.filter(isAlive)).toEqual([]);
      expect(existsSync(second.workDir)).toBe(false);
    }
  });

  it('starts a component again on a fresh port when another process took its reserved port first', async () => {
    // It hangs up on whoever connects (the health check may reach it before the component
    // exits): a listener that leaves a connection's bytes unread never sees its end, and
    // its close() would wait for that connection forever.
    const squatter = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const taken = (squatter.address() as AddressInfo).port;
    let handedOut = false;
    const lines: string[] = [];
    const cluster = await startCluster({
      podReadyDelayMs: 200,
      handleSignals: false,
      log: (line) => lines.push(line),
      // The controller manager's port (the fourth of five) is the one taken, as it once was in CI.
      reservePorts: async (count) => {
        const ports = await reserveFreePorts(count);
        if (!handedOut && count === 5) {
          handedOut = true;
          ports[3] = taken;
        }
        return ports;
      },
    });
    try {
      const retried = lines.find((line) =>
        line.startsWith(`kube-controller-manager: port ${String(taken)} was taken before it could bind`),
      );
      expect(retried, lines.join('\n')).toBeDefined();
      const healthy = lines.find((line) => line.startsWith('kube-controller-manager healthy on port '));
      expect(healthy).not.toContain(`port ${String(taken)}`);
      expect(readFileSync(join(cluster.workDir, 'logs', 'kube-controller-manager.port-conflict-1.log'), 'utf8')).toMatch(
        new RegExp(`127\\.0\\.0\\.1:${String(taken)}: bind: address already in use`),
      );
      expect(Object.keys(cluster.pids)).toContain('kube-controller-manager');
      await kubectlOk(['get', 'nodes'], cluster.kubeconfigPath);
    } finally {
      await cluster.stop();
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('kills the control plane of a parent that dies by SIGKILL (reaper)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(CONTROL_PLANE_DIR, 'start.ts'), '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`start.ts exited (${String(code)}) before printing: ${stderr}`)));
      });
      const started = JSON.parse(firstLine) as { workDir: string; kubeconfigPath: string; pids: Record<string, number> };
      const pids = Object.values(started.pids);
      expect(Object.keys(started.pids).sort()).toEqual([
        'etcd',
        'kube-apiserver',
        'kube-controller-manager',
        'kube-scheduler',
        'kwok',
        'reaper',
      ]);
      expect(pids.every(isAlive)).toBe(true);

      child.kill('SIGKILL');
      await eventually(() => pids.every((pid) => !isAlive(pid)), 10_000, `pids ${pids.join(', ')} gone after SIGKILL of their parent`);
      await eventually(() => !existsSync(started.workDir), 5_000, `${started.workDir} removed`);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
