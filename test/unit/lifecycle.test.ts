// start, stop, restart, reconfigure and remove, and adoption's drift check, against
// FakeKubernetes, an in-memory stand-in for the API server (unit test: the test plays the
// deployment controller and the kubelet by writing their statuses; the real control plane
// is in test/integration/lifecycle.test.ts). What each operation writes, when it writes
// nothing, what it waits for, and how it ends.
import type { V1Deployment, V1Pod } from '../../src/kube/objects.js';
import type { KindMap, WatchedKind } from '../../src/kube/kinds.js';
import { lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { ApiUnreachableError, ConflictError } from '../../src/errors/api.js';
import { InvalidSpecError } from '../../src/errors/input.js';
import { OperationAbortedError } from '../../src/errors/operation.js';
import { OperationTimeoutError } from '../../src/workload/toolkit/operation.js';
import { ReconfigureFailedError } from '../../src/workload/operations/reconfigure.js';
import { WorkloadDriftError } from '../../src/members/drift.js';
import { WorkloadNotFoundError, WorkloadOwnershipError } from '../../src/workload/toolkit/ownership.js';
import { WorkloadSupersededError } from '../../src/workload/toolkit/guard-generation.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import type { LifecycleEvent } from '../../src/workload/toolkit/lifecycle-events.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { provision, provision$ } from '../../src/workload/operations/provision.js';
import { reconfigure, reconfigure$ } from '../../src/workload/operations/reconfigure.js';
import { remove, remove$ } from '../../src/workload/operations/remove.js';
import { restart, restart$ } from '../../src/workload/operations/restart.js';
import { start, start$ } from '../../src/workload/operations/start.js';
import { stop, stop$ } from '../../src/workload/operations/stop.js';
import { FakeKubernetes, completeRollout, podOf, startRollout } from '../support/fake-kube.js';
import { conditions, kubeletMessages, replicaSetName } from '../support/fixtures.js';

const input = {
  containerId: 42,
  nodeId: 7,
  hostname: 'web',
  image: 'docker.io/library/nginx:1.27',
  cpus: 1,
  memoryMb: 1024,
  env: { GREETING: 'hello' },
};
const ID = 'default/web';
const fastInformers = () => new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });

/** A running workload: created and rolled out, with its ready Pod. */
async function running(fake = new FakeKubernetes()): Promise<{ fake: FakeKubernetes; pod: V1Pod }> {
  await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec(input)));
  const deployment = completeRollout(fake, 'web');
  const pod = fake.addPod(podOf(deployment, readyStatus()));
  return { fake, pod };
}

/** A stopped workload: replicas 0, observed, no replica counts (as the controller leaves it), no Pod. */
async function stopped(fake = new FakeKubernetes()): Promise<FakeKubernetes> {
  await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec(input)));
  await fake.patch('deployments', 'default', 'web', { spec: { replicas: 0 } });
  markStopped(fake);
  return fake;
}

/** What the deployment controller writes once it has scaled to 0. */
function markStopped(fake: FakeKubernetes): V1Deployment {
  return fake.update('deployments', 'web', (deployment) => {
    deployment.status = {
      observedGeneration: deployment.metadata?.generation ?? 1,
      conditions: [conditions.available(), conditions.newReplicaSetAvailable(replicaSetName('web'))],
    };
  });
}

function readyStatus(): V1Pod['status'] {
  return {
    phase: 'Running',
    conditions: [
      { type: 'PodScheduled', status: 'True' },
      { type: 'Ready', status: 'True' },
    ],
    containerStatuses: [{ name: 'web', image: input.image, imageID: 'x', ready: true, restartCount: 0, state: { running: {} } }],
  };
}

function waitingStatus(reason: string, message: string, restartCount = 0): V1Pod['status'] {
  return {
    phase: restartCount > 0 ? 'Running' : 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'True' }],
    containerStatuses: [
      {
        name: 'web',
        image: input.image,
        imageID: '',
        ready: false,
        restartCount,
        state: { waiting: { reason, message } },
        lastState: restartCount > 0 ? { terminated: { exitCode: 1, reason: 'Error' } } : {},
      },
    ],
  };
}

const calls = (fake: FakeKubernetes, method: string) => fake.calls.filter((call) => call.method === method);

function record(events$: ReturnType<typeof start$>) {
  const events: LifecycleEvent[] = [];
  let error: unknown;
  let done = false;
  events$.subscribe({
    next: (event) => events.push(event),
    error: (e: unknown) => {
      error = e;
      done = true;
    },
    complete: () => (done = true),
  });
  return { events, error: () => error, done: () => done, types: () => events.map((event) => event.type) };
}

describe('start', () => {
  it('a running, rolled-out workload: started at once, nothing written, no watch opened', async () => {
    const { fake } = await running();
    fake.calls.length = 0;
    await expect(start(fake, ID, { informers: fastInformers() })).resolves.toMatchObject({ providerId: ID, changed: false });
    expect(fake.calls.map((call) => call.method)).toEqual(['read']);
    expect(fake.watchesOpened).toBe(0);
  });

  it('a stopped workload: writes replicas 1 with a restartedAt stamp (a new revision, a new Pod), then waits for the rollout', async () => {
    const fake = await stopped();
    const run = record(start$(fake, ID, { informers: fastInformers() }));
    await vi.waitFor(() => expect(run.types()).toContain('scaled'));
    const [patch] = calls(fake, 'patch').slice(-1);
    expect(patch?.body).toEqual({
      metadata: { uid: fake.get('deployments', 'web')?.metadata?.uid },
      spec: { replicas: 1, template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': expect.any(String) } } } },
    });
    expect(run.events.find((event) => event.type === 'scaled')).toMatchObject({ replicas: 1, previousReplicas: 0, generation: 3 });
    // A cached "complete" of the old generation must not end it: the controller has not seen generation 3 yet.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(run.done()).toBe(false);
    completeRollout(fake, 'web');
    await vi.waitFor(() => expect(run.done()).toBe(true));
    expect(run.error()).toBeUndefined();
    expect(run.events.at(-1)).toMatchObject({ type: 'started', changed: true, providerId: ID });
    expect(fake.activeWatches).toBe(0);
  });

  it('fails fast with the kubelet’s words when the started Pod cannot run', async () => {
    const fake = await stopped();
    const pending = start(fake, ID, { informers: fastInformers() });
    await vi.waitFor(() => expect(calls(fake, 'patch')).toHaveLength(2));
    const deployment = startRollout(fake, 'web');
    fake.addPod(podOf(deployment, waitingStatus('ErrImagePull', kubeletMessages.imageNotFound())));
    await expect(pending).rejects.toMatchObject({ name: 'RolloutFailedError', reason: 'ErrImagePull' });
  });

  it('a missing workload: WorkloadNotFoundError; one that is not ours: WorkloadOwnershipError, nothing written', async () => {
    const fake = new FakeKubernetes();
    await expect(start(fake, ID)).rejects.toBeInstanceOf(WorkloadNotFoundError);
    await fake.create('deployments', 'default', {
      ...buildDeployment(parseWorkloadSpec(input)),
      metadata: { name: 'web', labels: { app: 'web' } },
    });
    const error = await start(fake, ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkloadOwnershipError);
    expect((error as Error).message).toMatch(/default\/web is not managed by Manager/);
    await expect(start(fake, ID, { containerId: 7 })).rejects.toBeInstanceOf(WorkloadOwnershipError);
    expect(calls(fake, 'patch')).toEqual([]);
  });

  it('bad input never reaches the cluster', async () => {
    const fake = new FakeKubernetes();
    const error = await start(fake, 'not a provider id').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidSpecError);
    expect((error as InvalidSpecError).issues[0]?.path).toBe('providerId');
    await expect(start(fake, ID, { containerId: 'bad id!' })).rejects.toMatchObject({ issues: [{ path: 'containerId' }] });
    await expect(start(fake, ID, { timeoutMs: -1 })).rejects.toMatchObject({ name: 'InvalidOptionError', option: 'timeoutMs' });
    expect(fake.calls).toEqual([]);
  });

  it('is bounded: OperationTimeoutError says what it still waited for, and every watch is closed', async () => {
    const fake = await stopped();
    const registry = fastInformers();
    const error = await start(fake, ID, { informers: registry, timeoutMs: 150 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationTimeoutError);
    expect((error as Error).message).toMatch(/^Start of default\/web did not complete within 150 ms; still waiting for/);
    expect(fake.activeWatches).toBe(0);
    expect(registry.count(fake)).toBe(0);
  });

  it('an already-aborted signal rejects at once and calls nothing; aborting mid-wait closes the watches', async () => {
    const fake = await stopped();
    fake.calls.length = 0;
    const aborted = new AbortController();
    aborted.abort(new Error('user cancelled'));
    const error = await start(fake, ID, { signal: aborted.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationAbortedError);
    expect((error as Error).cause).toEqual(new Error('user cancelled'));
    expect(fake.calls).toEqual([]);
    const controller = new AbortController();
    const pending = start(fake, ID, { signal: controller.signal, informers: fastInformers() });
    // Deployments and Pods, and the Service and its slices (held from the start, for the route's wait).
    await vi.waitFor(() => expect(fake.activeWatches).toBe(4));
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(OperationAbortedError);
    expect(fake.activeWatches).toBe(0);
  });
});

describe('stop', () => {
  it('records the diagnosis of a failing Pod before the scale-down takes it away, then waits until no Pod is left', async () => {
    const fake = new FakeKubernetes();
    await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec(input)));
    const deployment = startRollout(fake, 'web');
    const crashing = fake.addPod(
      podOf(deployment, waitingStatus('CrashLoopBackOff', kubeletMessages.crashLoop(`${replicaSetName('web')}-x1`, 'web'), 4)),
    );
    const run = record(stop$(fake, ID, { informers: fastInformers() }));
    await vi.waitFor(() => expect(run.types()).toContain('scaled'));
    expect(run.types().slice(0, 2)).toEqual(['diagnosed', 'scaled']);
    expect(run.events[0]).toMatchObject({
      type: 'diagnosed',
      pod: {
        reason: 'CrashLoopBackOff',
        pod: crashing.metadata?.name,
        restartCount: 4,
        message: expect.stringMatching(/last exit: Error \(exit code 1\)/),
      },
    });
    expect(calls(fake, 'patch').at(-1)?.body).toEqual({ metadata: { uid: deployment.metadata?.uid }, spec: { replicas: 0 } });
    markStopped(fake);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(run.done()).toBe(false); // the Pod is still there
    fake.removeObject('pods', crashing.metadata!.name!);
    await vi.waitFor(() => expect(run.done()).toBe(true));
    expect(run.error()).toBeUndefined();
    expect(run.events.at(-1)).toMatchObject({ type: 'stopped', changed: true });
  });

  it('a stopped workload whose status has no replica counts: stopped at once, nothing written', async () => {
    const fake = await stopped();
    const writesBefore = calls(fake, 'patch').length;
    await expect(stop(fake, ID, { informers: fastInformers(), timeoutMs: 2000 })).resolves.toMatchObject({ changed: false });
    expect(calls(fake, 'patch')).toHaveLength(writesBefore);
  });
});

describe('restart', () => {
  it('stamps restartedAt on the pod template and waits for the new generation', async () => {
    const { fake } = await running();
    const run = record(restart$(fake, ID, { informers: fastInformers() }));
    await vi.waitFor(() => expect(run.types()).toContain('patched'));
    expect(calls(fake, 'patch').at(-1)?.body).toMatchObject({
      spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': expect.any(String) } } } },
    });
    expect(run.events.find((event) => event.type === 'patched')).toMatchObject({ fields: ['restartedAt'], generation: 2, replicas: 1 });
    completeRollout(fake, 'web');
    await vi.waitFor(() => expect(run.done()).toBe(true));
    expect(run.events.at(-1)).toMatchObject({ type: 'restarted', changed: true, running: true });
  });

  it('a stopped workload stays stopped and says so', async () => {
    const fake = await stopped();
    const writes = calls(fake, 'patch').length;
    await expect(restart(fake, ID)).resolves.toMatchObject({ changed: false, running: false });
    expect(calls(fake, 'patch')).toHaveLength(writes);
    expect(fake.get('deployments', 'web')?.spec).toMatchObject({ replicas: 0 });
  });
});

describe('reconfigure', () => {
  it('rewrites the containers with a resourceVersion precondition; a stopped workload stays at 0 and resolves once observed', async () => {
    const fake = await stopped();
    const rv = fake.get('deployments', 'web')?.metadata?.resourceVersion;
    const run = record(
      reconfigure$(fake, ID, { env: { MODE: 'x' }, unsetEnv: ['GREETING'], memoryMb: 512 }, { informers: fastInformers() }),
    );
    await vi.waitFor(() => expect(run.types()).toContain('patched'));
    const body = calls(fake, 'patch').at(-1)?.body as { metadata: object; spec: Record<string, unknown> };
    expect(body.metadata).toEqual({ uid: expect.any(String), resourceVersion: rv });
    expect(Object.keys(body.spec)).toEqual(['template']); // replicas untouched
    expect(run.events.find((event) => event.type === 'patched')).toMatchObject({
      fields: ['env.GREETING', 'env.MODE', 'memoryMb'],
      replicas: 0,
    });
    markStopped(fake);
    await vi.waitFor(() => expect(run.done()).toBe(true));
    expect(run.error()).toBeUndefined();
    expect(run.events.at(-1)).toMatchObject({
      type: 'reconfigured',
      changed: true,
      replicas: 0,
      fields: ['env.GREETING', 'env.MODE', 'memoryMb'],
    });
    const stored = fake.get('deployments', 'web') as V1Deployment;
    expect(stored.spec?.replicas).toBe(0);
    expect(stored.spec?.template.spec?.containers[0]).toMatchObject({
      env: [{ name: 'MODE', value: 'x' }],
      resources: { limits: { cpu: '1000m', memory: '512Mi' }, requests: { cpu: '1000m', memory: '512Mi' } },
    });
  });

  it('GPUs and the RuntimeClass: written into the pod template (request = limit), and 0 / null take them out again', async () => {
    const fake = await stopped();
    const asked = record(reconfigure$(fake, ID, { gpus: 1, runtimeClass: 'nvidia' }, { informers: fastInformers() }));
    await vi.waitFor(() => expect(asked.types()).toContain('patched'));
    expect(asked.events.find((event) => event.type === 'patched')).toMatchObject({ fields: ['gpus.nvidia.com/gpu', 'runtimeClass'] });
    let stored = fake.get('deployments', 'web') as V1Deployment;
    expect(stored.spec?.template.spec?.runtimeClassName).toBe('nvidia');
    expect(stored.spec?.template.spec?.containers[0]?.resources).toMatchObject({
      requests: { 'nvidia.com/gpu': '1' },
      limits: { 'nvidia.com/gpu': '1' },
    });
    markStopped(fake);
    await vi.waitFor(() => expect(asked.done()).toBe(true));
    expect(asked.error()).toBeUndefined();

    const none = record(reconfigure$(fake, ID, { gpus: 0, runtimeClass: null }, { informers: fastInformers() }));
    await vi.waitFor(() => expect(none.types()).toContain('patched'));
    stored = fake.get('deployments', 'web') as V1Deployment;
    expect(stored.spec?.template.spec).not.toHaveProperty('runtimeClassName');
    expect(Object.keys(stored.spec?.template.spec?.containers[0]?.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
    markStopped(fake);
    await vi.waitFor(() => expect(none.done()).toBe(true));
    expect(none.events.at(-1)).toMatchObject({ type: 'reconfigured', fields: ['gpus.nvidia.com/gpu', 'runtimeClass'] });
  });

  it('invalid changes: InvalidSpecError naming the fields, nothing sent', async () => {
    const fake = new FakeKubernetes();
    const error = await reconfigure(fake, ID, { cpus: -1, env: { 'NOT-A-NAME': 'x' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidSpecError);
    expect((error as InvalidSpecError).issues.map((issue) => issue.path).sort()).toEqual(['cpus', 'env.NOT-A-NAME']);
    expect(fake.calls).toEqual([]);
  });

  it('nothing differs: reconfigured at once, nothing written', async () => {
    const { fake } = await running();
    await expect(reconfigure(fake, ID, { cpus: 1, env: { GREETING: 'hello' } })).resolves.toMatchObject({ changed: false, fields: [] });
    expect(calls(fake, 'patch')).toEqual([]);
    expect(fake.watchesOpened).toBe(0);
  });

  it('never overwrites a concurrent change unseen: a refused write is read again and the changes applied on top', async () => {
    class RacingFake extends FakeKubernetes {
      raced = false;
      override async read<K extends WatchedKind>(kind: K, namespace: string, name: string): Promise<KindMap[K]> {
        const read = await super.read(kind, namespace, name);
        if (!this.raced) {
          // Someone else changes the template between our read and our write.
          this.raced = true;
          this.update('deployments', name, (deployment) => {
            deployment.spec!.template.spec!.containers[0]!.env!.push({ name: 'THEIRS', value: 'kept' });
            deployment.metadata!.generation! += 1;
          });
        }
        return read;
      }
    }
    const fake = new RacingFake();
    await stopped(fake);
    const pending = reconfigure(fake, ID, { env: { MINE: '1' } }, { informers: fastInformers() });
    await vi.waitFor(() => expect(fake.get('deployments', 'web')?.metadata?.generation).toBe(4));
    markStopped(fake);
    await expect(pending).resolves.toMatchObject({ changed: true, fields: ['env.MINE'] });
    expect(calls(fake, 'read')).toHaveLength(2);
    expect((fake.get('deployments', 'web') as V1Deployment).spec?.template.spec?.containers[0]?.env).toEqual([
      { name: 'GREETING', value: 'hello' },
      { name: 'THEIRS', value: 'kept' },
      { name: 'MINE', value: '1' },
    ]);
  });

  it('rollbackOnFailure: the failed template’s rollout fails fast, the previous containers are written back and rolled out', async () => {
    const { fake, pod: oldPod } = await running();
    const before = structuredClone((fake.get('deployments', 'web') as V1Deployment).spec?.template.spec?.containers);
    const run = record(
      reconfigure$(fake, ID, { image: 'faults.kwok.test/image-not-found:v1' }, { informers: fastInformers(), rollbackOnFailure: true }),
    );
    await vi.waitFor(() => expect(run.types()).toContain('patched'));
    fake.removeObject('pods', oldPod.metadata!.name!);
    const updated = startRollout(fake, 'web');
    fake.addPod(podOf(updated, waitingStatus('ErrImagePull', kubeletMessages.imageNotFound('faults.kwok.test/image-not-found:v1')), 'y2'));
    await vi.waitFor(() => expect(run.types()).toContain('rollback'));
    expect(run.events.find((event) => event.type === 'rollback')).toMatchObject({ reason: 'ErrImagePull', generation: 3 });
    expect((fake.get('deployments', 'web') as V1Deployment).spec?.template.spec?.containers).toEqual(before);
    completeRollout(fake, 'web');
    await vi.waitFor(() => expect(run.done()).toBe(true));
    const error = run.error() as ReconfigureFailedError;
    expect(error).toBeInstanceOf(ReconfigureFailedError);
    expect(error).toMatchObject({ restored: true, reason: 'ErrImagePull' });
    expect(error.message).toMatch(/ErrImagePull .*; the previous pod template was restored \(generation 3\)$/);
  });

  it('rollbackOnFailure: when the restore cannot be written, the error says so', async () => {
    const { fake } = await running();
    const run = record(reconfigure$(fake, ID, { image: 'nginx:1.28' }, { informers: fastInformers(), rollbackOnFailure: true }));
    await vi.waitFor(() => expect(run.types()).toContain('patched'));
    fake.failNext('patch', new ApiUnreachableError(fake.server, 'ECONNREFUSED'));
    fake.update('deployments', 'web', (deployment) => {
      deployment.status = {
        observedGeneration: 2,
        conditions: [conditions.unavailable(), conditions.progressDeadlineExceeded(replicaSetName('web'))],
      };
    });
    await vi.waitFor(() => expect(run.done()).toBe(true));
    const error = run.error() as ReconfigureFailedError;
    expect(error).toMatchObject({ name: 'ReconfigureFailedError', restored: false, reason: 'ProgressDeadlineExceeded' });
    expect(error.restoreError).toBeInstanceOf(ApiUnreachableError);
    expect(error.message).toMatch(/restoring the previous pod template failed: Kubernetes API at .* is unreachable/);
  });
});

describe('concurrent operations on one workload', () => {
  it('stop while a start waits: the start fails at once naming the scale to 0; the stop completes', async () => {
    const fake = await stopped();
    const registry = fastInformers();
    const starting = start(fake, ID, { informers: registry });
    await vi.waitFor(() => expect((fake.get('deployments', 'web') as V1Deployment).spec?.replicas).toBe(1));
    const stopping = stop(fake, ID, { informers: registry });
    const error = await starting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkloadSupersededError);
    expect(error).toMatchObject({ operation: 'start', expectedGeneration: 3, supersededBy: { by: 'scale', replicas: 0, generation: 4 } });
    expect((error as Error).message).toBe(
      'Start of default/web was superseded: the Deployment was scaled to 0 (generation 4) while waiting for generation 3',
    );
    markStopped(fake);
    await expect(stopping).resolves.toMatchObject({ changed: true });
  });
});

describe('remove', () => {
  it('needs the expected container-id; refuses another container’s or a foreign Deployment, deleting nothing', async () => {
    const fake = new FakeKubernetes();
    await expect(remove(fake, ID, {} as never)).rejects.toMatchObject({ name: 'InvalidSpecError', issues: [{ path: 'containerId' }] });
    expect(fake.calls).toEqual([]);
    await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec(input)));
    await expect(remove(fake, ID, { containerId: 43 })).rejects.toMatchObject({
      name: 'WorkloadOwnershipError',
      expectedContainerId: '43',
      actualContainerId: '42',
    });
    await fake.create('deployments', 'default', {
      metadata: { name: 'foreign', labels: { app: 'x', 'org.mieweb.opensource-server.container-id': '42' } },
      spec: { selector: {}, template: {} },
    });
    await expect(remove(fake, 'default/foreign', { containerId: 42 })).rejects.toBeInstanceOf(ConflictError);
    expect(calls(fake, 'delete')).toEqual([]);
  });

  it('a missing workload: removed at once, nothing deleted', async () => {
    const fake = new FakeKubernetes();
    await expect(remove(fake, ID, { containerId: 42 })).resolves.toMatchObject({ changed: false });
    expect(calls(fake, 'delete')).toEqual([]);
  });

  it('deletes with the UID read as a precondition and foreground propagation; waits for the Deployment and its Pending Pod to go', async () => {
    const fake = new FakeKubernetes();
    fake.holdForegroundDeletions = true;
    await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec(input)));
    const deployment = startRollout(fake, 'web');
    const pending = fake.addPod(podOf(deployment, { phase: 'Pending' }, 'p1'));
    const run = record(remove$(fake, ID, { containerId: 42, informers: fastInformers() }));
    await vi.waitFor(() => expect(run.types()).toContain('deleted'));
    expect(calls(fake, 'delete')[0]?.body).toMatchObject({
      preconditions: { uid: deployment.metadata?.uid },
      propagationPolicy: 'Foreground',
    });
    fake.removeObject('pods', pending.metadata!.name!);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(run.done()).toBe(false); // the Deployment is still there, being deleted
    fake.removeObject('deployments', 'web');
    await vi.waitFor(() => expect(run.done()).toBe(true));
    expect(run.error()).toBeUndefined();
    expect(run.types()).toEqual(['diagnosed', 'deleted', 'waiting', 'waiting', 'removed']);
    expect(run.events.at(-1)).toMatchObject({ type: 'removed', changed: true });
  });
});

describe('adoption checks what it adopts', () => {
  it('a create with a changed image for an existing container-id fails with WorkloadDriftError, nothing written', async () => {
    const { fake } = await running();
    const error = await provision(fake, { ...input, image: 'docker.io/library/nginx:1.28', cpus: 2 }, { informers: fastInformers() }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkloadDriftError);
    expect((error as WorkloadDriftError).fields.map((field) => field.field)).toEqual(['image', 'cpus']);
    expect((error as Error).message).toMatch(/image \(live docker.io\/library\/nginx:1.27, requested docker.io\/library\/nginx:1.28\)/);
    expect(calls(fake, 'patch')).toEqual([]);
  });

  it('with onDrift: reconfigure, it rewrites the containers to the request and waits for that rollout', async () => {
    const { fake } = await running();
    const events$ = provision$(
      fake,
      { ...input, image: 'docker.io/library/nginx:1.28' },
      { informers: fastInformers(), onDrift: 'reconfigure' },
    );
    const all = lastValueFrom(events$.pipe(toArray()));
    await vi.waitFor(() => expect(fake.get('deployments', 'web')?.metadata?.generation).toBe(2));
    completeRollout(fake, 'web');
    const events = await all;
    expect(events[0]).toMatchObject({ type: 'adopted', reconfigured: ['image'] });
    expect(events.at(-1)).toMatchObject({ type: 'ready', adopted: true });
    expect((fake.get('deployments', 'web') as V1Deployment).spec?.template.spec?.containers[0]?.image).toBe('docker.io/library/nginx:1.28');
  });

  it('a label difference is never rewritten: it fails even with onDrift: reconfigure', async () => {
    const { fake } = await running();
    await expect(provision(fake, { ...input, nodeId: 8 }, { onDrift: 'reconfigure' })).rejects.toMatchObject({
      name: 'WorkloadDriftError',
      message: expect.stringMatching(/; labels\.\S+node-id, template\.labels\.\S+node-id cannot be reconfigured \(remove and create/),
    });
    expect(calls(fake, 'patch')).toEqual([]);
  });
});
