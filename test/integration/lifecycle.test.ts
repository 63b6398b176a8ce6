// start, stop, restart, reconfigure, remove and adoption's drift check on the real control
// plane (kube-apiserver, controller manager, scheduler; KWOK kubelets). kubectl, a real and
// independent client, checks what happened; a counting proxy (test/support/api-proxy.ts)
// proves what was, and was not, written.
import type { V1Deployment, V1Pod } from '../../src/kube/objects.js';
import { lastValueFrom, tap, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReconfigureFailedError } from '../../src/workload/operations/reconfigure.js';
import { RolloutFailedError } from '../../src/errors/rollout.js';
import { WorkloadDriftError } from '../../src/members/drift.js';
import { WorkloadNotFoundError, WorkloadOwnershipError } from '../../src/workload/toolkit/ownership.js';
import { WorkloadSupersededError } from '../../src/workload/toolkit/guard-generation.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { CONTAINER_ID_LABEL } from '../../src/input/labels.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import type { LifecycleEvent } from '../../src/workload/toolkit/lifecycle-events.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { provision } from '../../src/workload/operations/provision.js';
import { reconfigure, reconfigure$ } from '../../src/workload/operations/reconfigure.js';
import { remove, remove$ } from '../../src/workload/operations/remove.js';
import { restart } from '../../src/workload/operations/restart.js';
import { start } from '../../src/workload/operations/start.js';
import { stop, stop$ } from '../../src/workload/operations/stop.js';
import { faultImage } from '../../scripts/control-plane/stages.js';
import { ApiProxy } from '../support/api-proxy.js';
import { clusterEnv } from '../support/cluster-env.js';
import { apiFor, createNamespace, kubectl, kubectlJson, sampleSpec } from '../support/kube.js';

const TIMEOUT = { timeoutMs: 60_000 };

let namespace: string;
let api: KubernetesApi;
beforeAll(() => {
  namespace = createNamespace('it-lifecycle');
  api = apiFor();
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

/** A running workload, provisioned the ordinary way. */
async function running(
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; name: string; containerId: string; spec: Record<string, unknown> }> {
  const spec = sampleSpec({ namespace, ...overrides });
  const { providerId, name } = await provision(api, spec, TIMEOUT);
  return { id: providerId, name, containerId: String(spec.containerId), spec };
}

function liveDeployment(name: string): V1Deployment {
  return kubectlJson<V1Deployment>(['get', 'deployment', name, '-n', namespace]);
}

/** The workload's Pods as kubectl sees them, those being deleted included. */
function podsOf(containerId: string): V1Pod[] {
  return kubectlJson<{ items: V1Pod[] }>(['get', 'pods', '-n', namespace, '-l', `${CONTAINER_ID_LABEL}=${containerId}`]).items;
}

function readyPodUid(containerId: string): string {
  const ready = podsOf(containerId).filter(
    (pod) => !pod.metadata?.deletionTimestamp && pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );
  expect(ready).toHaveLength(1);
  return ready[0]!.metadata!.uid!;
}

function types(events: readonly LifecycleEvent[]): string[] {
  return events.map((event) => event.type);
}

describe('stop and start on the real control plane', () => {
  it('stop then start gives a new Pod; both wait for the real end state (no Pod left; rollout complete)', async () => {
    const { id, name, containerId } = await running();
    const before = readyPodUid(containerId);

    await expect(stop(api, id, TIMEOUT)).resolves.toMatchObject({ providerId: id, changed: true });
    expect(podsOf(containerId)).toEqual([]);
    expect(liveDeployment(name).spec?.replicas).toBe(0);

    await expect(start(api, id, TIMEOUT)).resolves.toMatchObject({ providerId: id, changed: true });
    const after = readyPodUid(containerId);
    expect(after).not.toBe(before);
    const live = liveDeployment(name);
    expect(live.status).toMatchObject({ readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1 });
    expect(live.status?.observedGeneration).toBe(live.metadata?.generation);
  });

  it('stop and start are idempotent: the second one writes nothing (counted at a proxy)', async () => {
    const { id } = await running();
    const proxy = await ApiProxy.start(clusterEnv().kubeconfigPath);
    try {
      const counted = KubernetesApi.fromConfig({ kubeconfigPath: proxy.writeKubeconfig(clusterEnv().kubeconfigPath) });
      const writes = (): number => proxy.log.filter((request) => request.method === 'PATCH' || request.method === 'DELETE').length;

      await expect(stop(counted, id, TIMEOUT)).resolves.toMatchObject({ changed: true });
      expect(writes()).toBe(1);
      await expect(stop(counted, id, TIMEOUT)).resolves.toMatchObject({ changed: false });
      expect(writes()).toBe(1);

      await expect(start(counted, id, TIMEOUT)).resolves.toMatchObject({ changed: true });
      expect(writes()).toBe(2);
      const requestsBefore = proxy.log.length;
      await expect(start(counted, id, TIMEOUT)).resolves.toMatchObject({ changed: false });
      expect(writes()).toBe(2);
      // Running and rolled out: one read, no watch.
      expect(proxy.log.slice(requestsBefore).map((request) => `${request.method} ${request.watch ? 'watch' : 'read'}`)).toEqual([
        'GET read',
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('start while a stop is in flight (right after its write): both end promptly, and a new Pod runs', async () => {
    const { id, containerId } = await running();
    const before = readyPodUid(containerId);
    const stopEvents: LifecycleEvent[] = [];
    let scaled!: () => void;
    const stopWrote = new Promise<void>((resolve) => (scaled = resolve));
    const stopping = lastValueFrom(
      stop$(api, id, TIMEOUT).pipe(
        tap((event) => {
          stopEvents.push(event);
          if (event.type === 'scaled') scaled();
        }),
      ),
    ).then(
      () => 'stopped',
      (error: unknown) => error,
    );
    await stopWrote;
    const started = start(api, id, TIMEOUT);
    const [stopOutcome, startOutcome] = await Promise.all([stopping, started]);
    expect(startOutcome).toMatchObject({ changed: true });
    // Either the stop finished before the start's write (KWOK deletes Pods at once) or it was superseded by it.
    if (stopOutcome !== 'stopped') {
      expect(stopOutcome).toBeInstanceOf(WorkloadSupersededError);
      expect(stopOutcome).toMatchObject({ operation: 'stop', supersededBy: { by: 'scale', replicas: 1 } });
    }
    // The controller may have seen only "replicas 1" in the end: the start's new revision still replaces the Pod.
    expect(readyPodUid(containerId)).not.toBe(before);
  });

  it('a missing workload: start is WorkloadNotFoundError', async () => {
    await expect(start(api, `${namespace}/nothing-here`, TIMEOUT)).rejects.toBeInstanceOf(WorkloadNotFoundError);
  });
});

describe('restart on the real control plane', () => {
  it('rolls out a new Pod from the same template; a stopped workload stays stopped and says so', async () => {
    const { id, name, containerId } = await running();
    const before = readyPodUid(containerId);
    const imageBefore = liveDeployment(name).spec?.template.spec?.containers[0]?.image;
    await expect(restart(api, id, TIMEOUT)).resolves.toMatchObject({ changed: true, running: true });
    expect(readyPodUid(containerId)).not.toBe(before);
    const live = liveDeployment(name);
    expect(live.spec?.template.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt']).toEqual(expect.any(String));
    expect(live.spec?.template.spec?.containers[0]?.image).toBe(imageBefore);

    await stop(api, id, TIMEOUT);
    const generation = liveDeployment(name).metadata?.generation;
    await expect(restart(api, id, TIMEOUT)).resolves.toMatchObject({ changed: false, running: false });
    expect(liveDeployment(name).metadata?.generation).toBe(generation);
    expect(podsOf(containerId)).toEqual([]);
  });
});

describe('reconfigure on the real control plane', () => {
  it('changes env, entrypoint, CPU and memory on the same Deployment (same provider ID) and waits for the new Pod', async () => {
    const { id, name, containerId } = await running();
    const uid = liveDeployment(name).metadata?.uid;
    const before = readyPodUid(containerId);
    const result = await reconfigure(
      api,
      id,
      { env: { MODE: 'fast' }, unsetEnv: ['GREETING'], entrypoint: 'nginx -g "daemon off; worker_processes 2;"', cpus: 0.5, memoryMb: 512 },
      TIMEOUT,
    );
    expect(result).toMatchObject({
      providerId: id,
      changed: true,
      replicas: 1,
      fields: ['env.GREETING', 'env.MODE', 'entrypoint', 'cpus', 'memoryMb'],
    });
    const live = liveDeployment(name);
    expect(live.metadata?.uid).toBe(uid);
    const container = live.spec?.template.spec?.containers[0];
    expect(container?.env).toEqual([{ name: 'EMPTY' }, { name: 'MODE', value: 'fast' }]);
    expect(container?.command).toEqual(['nginx', '-g', 'daemon off; worker_processes 2;']);
    expect(container?.resources).toEqual({ limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '500m', memory: '512Mi' } });
    expect(readyPodUid(containerId)).not.toBe(before);
    const pod = podsOf(containerId).find((each) => !each.metadata?.deletionTimestamp);
    expect(pod?.spec?.containers[0]?.resources).toEqual(container?.resources);
  });

  it('a stopped workload stays at 0 replicas and the operation ends once the controller has seen the new generation', async () => {
    const { id, name, containerId } = await running();
    await stop(api, id, TIMEOUT);
    await expect(reconfigure(api, id, { image: 'docker.io/library/nginx:1.28' }, TIMEOUT)).resolves.toMatchObject({
      changed: true,
      replicas: 0,
      fields: ['image'],
    });
    const live = liveDeployment(name);
    expect(live.spec?.replicas).toBe(0);
    expect(live.status?.observedGeneration).toBe(live.metadata?.generation);
    expect(live.spec?.template.spec?.containers[0]?.image).toBe('docker.io/library/nginx:1.28');
    expect(podsOf(containerId)).toEqual([]);
  });

  it('to a missing image: fails within seconds naming ErrImagePull', async () => {
    const { id } = await running();
    const error = await reconfigure(api, id, { image: faultImage('image-not-found') }, { timeoutMs: 30_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RolloutFailedError);
    expect(error).not.toBeInstanceOf(ReconfigureFailedError);
    expect(error).toMatchObject({ reason: 'ErrImagePull', detail: expect.stringMatching(/not found/) });
  });

  it('with rollbackOnFailure: the previous template is back, rolled out and available; the error says so', async () => {
    const { id, name, containerId } = await running();
    const previous = liveDeployment(name).spec?.template.spec?.containers;
    const events: LifecycleEvent[] = [];
    const error = await lastValueFrom(
      reconfigure$(api, id, { image: faultImage('image-not-found') }, { timeoutMs: 30_000, rollbackOnFailure: true }).pipe(
        tap((event) => events.push(event)),
      ),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReconfigureFailedError);
    expect(error).toMatchObject({ reason: 'ErrImagePull', restored: true });
    expect((error as Error).message).toMatch(/; the previous pod template was restored \(generation \d+\)$/);
    expect(types(events)).toContain('rollback');
    const live = liveDeployment(name);
    expect(live.spec?.template.spec?.containers).toEqual(previous);
    expect(live.status).toMatchObject({ availableReplicas: 1, readyReplicas: 1, updatedReplicas: 1 });
    expect(live.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
    expect(readyPodUid(containerId)).toBeTruthy();
  });

  it('two reconfigures at once never hang: the newer wins, the older ends superseded (or done, if it finished first)', async () => {
    const { id, name } = await running();
    const generation = liveDeployment(name).metadata?.generation ?? 0;
    const first = reconfigure(api, id, { env: { FIRST: '1' } }, TIMEOUT).catch((e: unknown) => e);
    // The second starts once the first has written (its rollout still awaited), so it is the newer write.
    for (let tries = 0; (liveDeployment(name).metadata?.generation ?? 0) === generation && tries < 200; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(liveDeployment(name).metadata?.generation).toBeGreaterThan(generation);
    const second = reconfigure(api, id, { env: { SECOND: '2' } }, TIMEOUT);
    const [firstOutcome, secondOutcome] = await Promise.all([first, second]);
    expect(secondOutcome).toMatchObject({ changed: true });
    if (firstOutcome instanceof Error) expect(firstOutcome).toBeInstanceOf(WorkloadSupersededError);
    const env = liveDeployment(name).spec?.template.spec?.containers[0]?.env?.map((variable) => variable.name);
    // The second write was made on top of the first: both are there.
    expect(env).toEqual(expect.arrayContaining(['FIRST', 'SECOND']));
  });
});

describe('remove on the real control plane', () => {
  it('deletes the Deployment and waits until it and its Pods are gone; a second remove finds nothing to do', async () => {
    const { id, name, containerId } = await running();
    await expect(remove(api, id, { containerId, ...TIMEOUT })).resolves.toMatchObject({ changed: true });
    expect(kubectl(['get', 'deployments', '-n', namespace, '--field-selector', `metadata.name=${name}`, '-o', 'name'])).toBe('');
    expect(podsOf(containerId)).toEqual([]);
    expect(kubectl(['get', 'replicasets', '-n', namespace, '-l', `${CONTAINER_ID_LABEL}=${containerId}`, '-o', 'name'])).toBe('');
    await expect(remove(api, id, { containerId, ...TIMEOUT })).resolves.toMatchObject({ changed: false });
  });

  it('refuses a foreign Deployment (no managed label) and another container’s, leaving them untouched', async () => {
    const name = 'foreign-app';
    kubectl(['create', 'deployment', name, '--image', 'nginx:1.27', '-n', namespace]);
    kubectl(['label', 'deployment', name, '-n', namespace, `${CONTAINER_ID_LABEL}=4242`]);
    const before = liveDeployment(name);
    const error = await remove(api, `${namespace}/${name}`, { containerId: 4242, ...TIMEOUT }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkloadOwnershipError);
    expect((error as Error).message).toMatch(/is not managed by Manager/);
    const other = await running();
    await expect(remove(api, other.id, { containerId: 1, ...TIMEOUT })).rejects.toBeInstanceOf(WorkloadOwnershipError);
    const after = liveDeployment(name);
    expect(after.metadata?.uid).toBe(before.metadata?.uid);
    expect(after.metadata?.deletionTimestamp).toBeUndefined();
    expect(liveDeployment(other.name).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('a workload whose Pod is Pending (unschedulable) is removed without waiting for the Pod to start', async () => {
    // More CPU than the KWOK node has: the Pod stays Pending, unscheduled, for good.
    const spec = parseWorkloadSpec(sampleSpec({ namespace, cpus: 1024 }));
    await api.create('deployments', namespace, buildDeployment(spec));
    await expect.poll(() => podsOf(spec.containerId).map((pod) => pod.status?.phase), { timeout: 20_000 }).toEqual(['Pending']);
    const events = await lastValueFrom(
      remove$(api, `${namespace}/${spec.hostname}`, { containerId: spec.containerId, timeoutMs: 15_000 }).pipe(toArray()),
    );
    expect(types(events)[0]).toBe('diagnosed');
    expect(events[0]).toMatchObject({ pod: { reason: 'Unschedulable' } });
    expect(events.at(-1)).toMatchObject({ type: 'removed', changed: true });
    expect(podsOf(spec.containerId)).toEqual([]);
  });
});

describe('adoption checks what it adopts (real control plane)', () => {
  it('a create with a changed image for an existing container-id fails with WorkloadDriftError and changes nothing', async () => {
    const { name, spec } = await running();
    const generation = liveDeployment(name).metadata?.generation;
    const error = await provision(api, { ...spec, image: 'docker.io/library/nginx:1.28' }, TIMEOUT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkloadDriftError);
    expect((error as WorkloadDriftError).fields).toEqual([
      { field: 'image', live: 'docker.io/library/nginx:1.27', desired: 'docker.io/library/nginx:1.28' },
    ]);
    const live = liveDeployment(name);
    expect(live.metadata?.generation).toBe(generation);
    expect(live.spec?.template.spec?.containers[0]?.image).toBe('docker.io/library/nginx:1.27');
  });

  it('the same spec again adopts without a word of drift (the server’s canonical quantities and dropped empty values are not drift)', async () => {
    const { spec } = await running({ cpus: 1, memoryMb: 1024 });
    await expect(provision(api, spec, TIMEOUT)).resolves.toMatchObject({ adopted: true });
  });

  it('with onDrift: reconfigure, the requested spec is applied and rolled out', async () => {
    const { name, spec, containerId } = await running();
    const before = readyPodUid(containerId);
    await expect(
      provision(api, { ...spec, image: 'docker.io/library/nginx:1.28', cpus: 0.5 }, { ...TIMEOUT, onDrift: 'reconfigure' }),
    ).resolves.toMatchObject({
      adopted: true,
    });
    const container = liveDeployment(name).spec?.template.spec?.containers[0];
    expect(container?.image).toBe('docker.io/library/nginx:1.28');
    expect(container?.resources?.requests?.cpu).toBe('500m');
    expect(readyPodUid(containerId)).not.toBe(before);
  });
});
