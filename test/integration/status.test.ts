// Reading workloads on the real control plane: statuses$ over 200 workloads created by
// kubectl (each change reported once, one watch per kind (Deployments, Pods, Services, EndpointSlices, claims), counted by a
// proxy), creating -> running, a failing image, scaling to 0 and back with kubectl, and
// Deployments that are not ours. kubectl is the independent client that makes the changes
// and cross-checks what we report.
import type { V1Pod } from '../../src/kube/objects.js';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { sameWorkloadStatus } from '../../src/rollout/same-workload-status.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL } from '../../src/input/labels.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import { list } from '../../src/workload/reads/list.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { provision } from '../../src/workload/operations/provision.js';
import type { StatusEvent } from '../../src/workload/reads/status-board.js';
import { status } from '../../src/workload/reads/status.js';
import { status$, statuses$ } from '../../src/workload/reads/statuses.js';
import { ApiProxy } from '../support/api-proxy.js';
import { clusterEnv } from '../support/cluster-env.js';
import { apiFor, createNamespace, kubectl, sampleSpec } from '../support/kube.js';

const namespaces: string[] = [];
function freshNamespace(prefix: string): string {
  const name = createNamespace(prefix);
  namespaces.push(name);
  return name;
}
afterAll(() => {
  for (const name of namespaces) kubectl(['delete', 'namespace', name, '--wait=false']);
});

async function until(what: string, check: () => boolean, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every event, grouped per workload, as it arrives. */
function follow(events$: ReturnType<typeof statuses$>) {
  const all: StatusEvent[] = [];
  const byName = new Map<string, StatusEvent[]>();
  const errors: unknown[] = [];
  const subscription = events$.subscribe({
    next: (event) => {
      all.push(event);
      const list = byName.get(event.name) ?? [];
      list.push(event);
      byName.set(event.name, list);
    },
    error: (error) => errors.push(error),
  });
  const last = (name: string) => byName.get(name)?.at(-1);
  const states = (name: string) => (byName.get(name) ?? []).map((event) => event.status.state);
  return { all, byName, errors, subscription, last, states };
}

/** Our manifest for `hostname`, as kubectl will apply it. */
function manifest(namespace: string, hostname: string, containerId: number, image = 'docker.io/library/nginx:1.27') {
  return buildDeployment(parseWorkloadSpec(sampleSpec({ hostname, containerId, image, namespace })), { namespace });
}

/**
 * kubectl in a child process without blocking this one (execFileSync would stall the
 * event loop, and with it the watches under test, for as long as kubectl runs).
 */
function kubectlAsync(args: readonly string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', ['--kubeconfig', clusterEnv().kubeconfigPath, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`kubectl ${args.join(' ')} failed (${code}): ${stderr}`)),
    );
    child.stdin.end(input ?? '');
  });
}

function apply(objects: readonly object[]): Promise<string> {
  return kubectlAsync(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
}

async function podIps(namespace: string): Promise<Map<string, string>> {
  const pods = JSON.parse(await kubectlAsync(['get', 'pods', '-n', namespace, '-l', `${MANAGED_LABEL}=true`, '-o', 'json'])) as {
    items: V1Pod[];
  };
  const ips = new Map<string, string>();
  for (const pod of pods.items) {
    const id = pod.metadata?.labels?.[CONTAINER_ID_LABEL];
    const ready = pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True');
    if (id && ready && pod.status?.podIP && !pod.metadata?.deletionTimestamp) ips.set(id, pod.status.podIP);
  }
  return ips;
}

describe('statuses$ on the real control plane', () => {
  it('over 200 workloads: each reaches running, every event is a change, one watch per kind for the namespace; a scale-down of 20 touches only those 20', async () => {
    const namespace = freshNamespace('it-statuses');
    const proxy = await ApiProxy.start(clusterEnv().kubeconfigPath);
    try {
      // Through a counting proxy: the watches opened are counted, not assumed.
      const proxied = KubernetesApi.fromConfig({ kubeconfigPath: proxy.writeKubeconfig(clusterEnv().kubeconfigPath), namespace });
      const run = follow(statuses$(proxied, { informers: new InformerRegistry() }));
      const started = Date.now();
      const names = Array.from({ length: 200 }, (_, index) => `w-${String(index).padStart(3, '0')}`);
      await apply(names.map((name, index) => manifest(namespace, name, 1000 + index)));
      await until(
        'all 200 running with a Pod IP',
        () => names.every((name) => run.last(name)?.status.state === 'running' && run.last(name)?.status.podIp),
        180_000,
      );
      const settled = Date.now();
      expect(run.errors).toEqual([]);
      // Each change once: no event repeats the status before it.
      for (const [name, events] of run.byName) {
        for (let index = 1; index < events.length; index += 1) {
          expect(sameWorkloadStatus(events[index - 1]!.status, events[index]!.status), `${name} event ${index}`).toBe(false);
        }
        expect(events[0]!.status.state, name).toBe('creating');
        expect(new Set(events.map((event) => event.status.state)), name).toEqual(new Set(['creating', 'running']));
      }
      expect([...run.byName.keys()].sort()).toEqual(names);
      // What we report agrees with kubectl: every Ready Pod's IP.
      const ips = await podIps(namespace);
      for (const [index, name] of names.entries()) expect(run.last(name)?.status.podIp, name).toBe(ips.get(String(1000 + index)));
      expect(proxy.counts.peakOpenWatches).toEqual({ deployments: 1, pods: 1, services: 1, endpointslices: 1, persistentvolumeclaims: 1 });
      expect(proxy.counts.lists).toBe(0);

      // Scale 20 to 0 with kubectl: those 20, and only those, go stopping -> offline.
      const before = run.all.length;
      const stopped = names.slice(0, 20);
      await kubectlAsync(['scale', 'deployment', ...stopped, '-n', namespace, '--replicas=0']);
      await until('20 offline', () => stopped.every((name) => run.last(name)?.status.state === 'offline'));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const after = run.all.slice(before);
      expect(new Set(after.map((event) => event.name))).toEqual(new Set(stopped));
      for (const name of stopped) {
        const states = after.filter((event) => event.name === name).map((event) => event.status.state);
        expect(states.at(-1), name).toBe('offline');
        expect(
          states.filter((state) => state === 'offline'),
          name,
        ).toHaveLength(1);
        expect(
          states.every((state) => state === 'running' || state === 'stopping' || state === 'offline'),
          `${name}: ${states.join(',')}`,
        ).toBe(true);
      }
      process.stderr.write(
        `[status] 200 workloads: all running ${((settled - started) / 1000).toFixed(1)} s after kubectl apply; ${before} events ` +
          `(${(before / 200).toFixed(1)} per workload); scale-down of 20: ${after.length} events\n`,
      );
      run.subscription.unsubscribe();
    } finally {
      await proxy.close();
    }
  }, 300_000);

  it('a provisioned workload flips creating -> running; status() agrees, with its Pod IP, node, image and resources', async () => {
    const namespace = freshNamespace('it-status');
    const api = apiFor('admin', { namespace });
    const spec = sampleSpec({ namespace });
    const informers = new InformerRegistry();
    const run = follow(status$(api, `${namespace}/${String(spec.hostname)}`, { informers }));
    await until('missing before the create', () => run.states(String(spec.hostname)).includes('missing'));
    const { providerId } = await provision(api, spec, { timeoutMs: 60_000, informers });
    await until('running with an IP', () => Boolean(run.last(String(spec.hostname))?.status.podIp));
    const states = run.states(String(spec.hostname));
    expect(states[0]).toBe('missing');
    expect(states).toContain('creating');
    expect(states.at(-1)).toBe('running');
    expect(states.indexOf('creating')).toBeLessThan(states.indexOf('running'));
    const value = await status(api, providerId, { containerId: spec.containerId as number });
    const ips = await podIps(namespace);
    expect(value).toMatchObject({
      state: 'running',
      podIp: ips.get(String(spec.containerId)),
      nodeName: clusterEnv().nodeName,
      image: 'docker.io/library/nginx:1.27',
      resources: { cpu: '250m', memory: '256Mi' },
      generation: 1,
      observedGeneration: 1,
      restarts: 0,
    });
    expect(run.last(String(spec.hostname))?.status).toEqual(value);
    run.subscription.unsubscribe();
  });

  it('an image that does not exist: failed, with ErrImagePull / ImagePullBackOff and the kubelet words, live and one-shot', async () => {
    const namespace = freshNamespace('it-status-fail');
    const api = apiFor('admin', { namespace });
    const run = follow(statuses$(api, { informers: new InformerRegistry() }));
    const image = faultImage('image-not-found');
    await apply([manifest(namespace, 'broken', 77, image)]);
    await until('failed', () => run.last('broken')?.status.state === 'failed', 30_000);
    const failed = run.last('broken')!.status;
    expect(failed.reason).toMatch(/^(ErrImagePull|ImagePullBackOff)$/);
    expect(failed.message).toContain(`${image}: not found`);
    expect(failed.pod).toMatchObject({ severity: 'failed', container: 'broken' });
    const value = await status(api, `${namespace}/broken`);
    expect(value.state).toBe('failed');
    expect(value.message).toMatch(/(ErrImagePull|ImagePullBackOff)/);
    run.subscription.unsubscribe();
  });

  it('scaling to 0 with kubectl shows stopping then offline; back to 1: starting then running', async () => {
    const namespace = freshNamespace('it-status-scale');
    const api = apiFor('admin', { namespace });
    const informers = new InformerRegistry();
    const { providerId, name } = await provision(api, sampleSpec({ namespace }), { timeoutMs: 60_000, informers });
    const run = follow(status$(api, providerId, { informers }));
    await until('running', () => Boolean(run.last(name)?.status.podIp));
    await kubectlAsync(['scale', 'deployment', name, '-n', namespace, '--replicas=0']);
    await until('offline', () => run.last(name)?.status.state === 'offline');
    expect(await status(api, providerId)).toMatchObject({ state: 'offline', podIp: null, replicas: { desired: 0 } });
    await kubectlAsync(['scale', 'deployment', name, '-n', namespace, '--replicas=1']);
    await until('running again', () => run.last(name)?.status.state === 'running' && Boolean(run.last(name)?.status.podIp));
    const states = run.states(name);
    // Collapse repeats (a message or count change is an event of the same state).
    const path = states.filter((state, index) => state !== states[index - 1]);
    expect(path).toEqual(['running', 'stopping', 'offline', 'starting', 'running']);
    run.subscription.unsubscribe();
  });

  it('Deployments that are not ours are never reported as ours', async () => {
    const namespace = freshNamespace('it-status-foreign');
    const api = apiFor('admin', { namespace });
    const run = follow(statuses$(api, { informers: new InformerRegistry() }));
    kubectl(['create', 'deployment', 'foreign', '--image=nginx:1.27', '-n', namespace]);
    // managed=true but no container-id: not a workload either.
    kubectl(['create', 'deployment', 'half', '--image=nginx:1.27', '-n', namespace]);
    kubectl(['label', 'deployment', 'half', `${MANAGED_LABEL}=true`, '-n', namespace]);
    await apply([manifest(namespace, 'ours', 5)]);
    await until('ours running', () => run.last('ours')?.status.state === 'running');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect([...run.byName.keys()]).toEqual(['ours']);
    expect((await list(api)).map((snapshot) => snapshot.name)).toEqual(['ours']);
    expect(await status(api, `${namespace}/foreign`)).toMatchObject({ state: 'missing', reason: 'NotManaged', podIp: null });
    expect(await status(api, `${namespace}/half`)).toMatchObject({ state: 'missing', reason: 'NotManaged' });
    expect(await status(api, `${namespace}/ours`, { containerId: 6 })).toMatchObject({ state: 'missing', reason: 'OtherContainer' });
    expect(await status(api, `${namespace}/ours`, { containerId: 5 })).toMatchObject({ state: 'running' });
    run.subscription.unsubscribe();
  });
});
