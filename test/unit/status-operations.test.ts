// status(), list(), statuses$ and status$ against FakeKubernetes, an in-memory stand-in for
// the API server (unit tests: the real control plane is in test/integration/status.test.ts).
import type { V1Deployment, V1Pod } from '../../src/kube/objects.js';
import type { KindMap, WatchedKind } from '../../src/kube/kinds.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { firstValueFrom, takeWhile, toArray } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { ApiUnreachableError, ForbiddenError } from '../../src/errors/api.js';
import { InvalidOptionError, InvalidSpecError } from '../../src/errors/input.js';
import { OperationAbortedError } from '../../src/errors/operation.js';
import { ProvisionAbortedError } from '../../src/errors/rollout.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import type { RequestOptions } from '../../src/kube/client.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL } from '../../src/input/labels.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import { list } from '../../src/workload/reads/list.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { provision$ } from '../../src/workload/operations/provision.js';
import { status } from '../../src/workload/reads/status.js';
import { stop } from '../../src/workload/operations/stop.js';
import { STATUS_EVALUATIONS_CHANNEL, type StatusEvent } from '../../src/workload/reads/status-board.js';
import { status$, statuses$ } from '../../src/workload/reads/statuses.js';
import { FakeKubernetes, completeRollout, podOf } from '../support/fake-kube.js';
import { deployment as fixtureDeployment, podConditions } from '../support/fixtures.js';

const fastInformers = () => new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });

/** A provisioned workload in the fake: our Deployment, rolled out, with a Ready Pod. */
function workload(fake: FakeKubernetes, hostname: string, containerId: number): { deployment: V1Deployment; pod: V1Pod } {
  const spec = parseWorkloadSpec({ containerId, nodeId: 7, hostname, image: 'nginx:1.27', cpus: 0.5, memoryMb: 256 });
  const manifest = buildDeployment(spec, { namespace: fake.namespace });
  void fake.create('deployments', fake.namespace, manifest);
  const deployment = completeRollout(fake, hostname);
  const pod = fake.addPod(podOf(deployment, readyStatus()));
  return { deployment, pod };
}

function readyStatus(podIP = '10.1.0.5'): V1Pod['status'] {
  return {
    phase: 'Running',
    podIP,
    conditions: [podConditions.scheduled(), podConditions.ready(true)],
    containerStatuses: [{ name: 'web', image: 'nginx:1.27', imageID: '', ready: true, restartCount: 0, state: { running: {} } }],
  };
}

function collect(events$: ReturnType<typeof statuses$>) {
  const events: StatusEvent[] = [];
  const errors: unknown[] = [];
  const subscription = events$.subscribe({ next: (event) => events.push(event), error: (error) => errors.push(error) });
  return { events, errors, subscription, words: () => events.map((event) => `${event.name}:${event.status.state}`) };
}

/** A client whose reads never answer until aborted (an API server that accepts and stays silent). */
class SilentKubernetes extends FakeKubernetes {
  override read<K extends WatchedKind>(_kind: K, _namespace: string, _name: string, options: RequestOptions = {}): Promise<KindMap[K]> {
    return new Promise((_resolve, reject) => options.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
  }
}

describe('status()', () => {
  it('a running workload: running, with its Pod IP, node, image and resources', async () => {
    const fake = new FakeKubernetes('apps');
    workload(fake, 'web', 42);
    fake.calls.length = 0;
    const value = await status(fake, 'apps/web');
    expect(value).toMatchObject({
      state: 'running',
      podIp: '10.1.0.5',
      nodeName: 'kwok-node-0',
      image: 'nginx:1.27',
      resources: { cpu: '500m', memory: '256Mi' },
      generation: 1,
    });
    // The Deployment, then its Pods by container-id and its Service (none here) at once; no claim is mounted, so none is read.
    expect(fake.calls.map((call) => `${call.method}:${call.kind}`)).toEqual(['read:deployments', 'list:pods', 'read:services']);
  });

  it('with the expected container id, both requests go at once; another id is missing (OtherContainer)', async () => {
    const fake = new FakeKubernetes('apps');
    workload(fake, 'web', 42);
    expect((await status(fake, 'apps/web', { containerId: 42 })).state).toBe('running');
    expect(await status(fake, 'apps/web', { containerId: '43' })).toMatchObject({
      state: 'missing',
      reason: 'OtherContainer',
      podIp: null,
    });
  });

  it('no such Deployment: missing (NotFound), one request (the Deployment: without it, no member is read)', async () => {
    const fake = new FakeKubernetes('apps');
    expect(await status(fake, 'apps/nope')).toMatchObject({ state: 'missing', reason: 'NotFound' });
    expect(fake.calls.map((call) => call.method)).toEqual(['read']);
  });

  it('a Deployment without our labels is never ours, and its Pods are not even listed', async () => {
    const fake = new FakeKubernetes('default');
    void fake.create(
      'deployments',
      'default',
      fixtureDeployment({ name: 'foreign', labels: { app: 'foreign', [CONTAINER_ID_LABEL]: '42' } }),
    );
    expect(await status(fake, 'default/foreign')).toMatchObject({ state: 'missing', reason: 'NotManaged' });
    expect(fake.calls.filter((call) => call.method === 'list')).toEqual([]);
  });

  it('the API server unreachable: unknown with the reason, not a throw', async () => {
    const fake = new FakeKubernetes('apps');
    fake.failNext('read', new ApiUnreachableError(fake.server, 'connect ECONNREFUSED'));
    expect(await status(fake, 'apps/web')).toMatchObject({
      state: 'unknown',
      reason: 'ApiUnreachable',
      message: `Kubernetes API at ${fake.server} is unreachable: connect ECONNREFUSED`,
      podIp: null,
    });
  });

  it('no answer within timeoutMs: unknown (Timeout), and the request is aborted', async () => {
    const fake = new SilentKubernetes('apps');
    const started = Date.now();
    expect(await status(fake, 'apps/web', { timeoutMs: 50 })).toMatchObject({ state: 'unknown', reason: 'Timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('what needs the caller to act is thrown: 403, a bad provider ID, a bad option', async () => {
    const fake = new FakeKubernetes('apps');
    fake.failNext('read', new ForbiddenError({ verb: 'get', resource: 'deployments', namespace: 'apps' }));
    await expect(status(fake, 'apps/web')).rejects.toBeInstanceOf(ForbiddenError);
    await expect(status(fake, 'apps')).rejects.toBeInstanceOf(InvalidSpecError);
    await expect(status(fake, 'apps/web', { timeoutMs: 0 })).rejects.toMatchObject({ name: 'InvalidOptionError', option: 'timeoutMs' });
    await expect(status(fake, 'apps/web', { containerId: 'no spaces' })).rejects.toBeInstanceOf(InvalidOptionError);
  });

  it('an already-aborted signal rejects at once, without a request; an abort in flight rejects too', async () => {
    const fake = new SilentKubernetes('apps');
    const aborted = AbortSignal.abort(new Error('user left'));
    await expect(status(fake, 'apps/web', { signal: aborted })).rejects.toBeInstanceOf(OperationAbortedError);
    expect(fake.calls).toEqual([]);
    const controller = new AbortController();
    const pending = status(fake, 'apps/web', { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toMatchObject({
      name: 'OperationAbortedError',
      operation: 'status',
      message: 'status of apps/web was aborted',
    });
  });
});

describe('list()', () => {
  it("every Deployment carrying our labels, in Manager's snapshot shape, sorted by name; nothing foreign", async () => {
    const fake = new FakeKubernetes('apps');
    workload(fake, 'zeta', 2);
    workload(fake, 'alpha', 1);
    // Managed but without a container-id: not a workload.
    void fake.create('deployments', 'apps', fixtureDeployment({ name: 'half', labels: { [MANAGED_LABEL]: 'true' } }));
    void fake.create('deployments', 'apps', fixtureDeployment({ name: 'foreign', labels: { app: 'foreign' } }));
    fake.calls.length = 0;
    const snapshots = await list(fake);
    expect(snapshots.map((snapshot) => snapshot.name)).toEqual(['alpha', 'zeta']);
    expect(snapshots[0]).toEqual({
      vmid: 'apps/alpha',
      name: 'alpha',
      type: 'deployment',
      status: 'running',
      providerId: 'apps/alpha',
      namespace: 'apps',
      containerId: '1',
      nodeId: '7',
      detail: expect.objectContaining({ state: 'running', podIp: '10.1.0.5' }),
    });
    expect(fake.calls.map((call) => `${call.method}:${call.kind}`)).toEqual([
      'list:deployments',
      'list:pods',
      'list:persistentvolumeclaims',
      'list:services',
      'list:endpointslices',
    ]);
  });

  it('an unreachable API rejects with the typed error (no workloads to call unknown)', async () => {
    const fake = new FakeKubernetes('apps');
    fake.failNext('list', new ApiUnreachableError(fake.server, 'connect ECONNREFUSED'));
    await expect(list(fake)).rejects.toBeInstanceOf(ApiUnreachableError);
    await expect(list(fake, { namespace: 'Not_A_Namespace' })).rejects.toMatchObject({ name: 'InvalidOptionError', option: 'namespace' });
  });
});

describe('statuses$', () => {
  it('one event per workload after the first list, then one per change; the same watches as provision$', async () => {
    const fake = new FakeKubernetes('apps');
    const informers = fastInformers();
    workload(fake, 'a', 1);
    workload(fake, 'b', 2);
    const run = collect(statuses$(fake, { informers }));
    await vi.waitFor(() => expect(run.words().sort()).toEqual(['a:running', 'b:running']));
    // A provisioning in the same namespace shares the two watches.
    const provisioning = provision$(
      fake,
      { containerId: 3, nodeId: 7, hostname: 'c', image: 'nginx:1.27', cpus: 1, memoryMb: 64 },
      { informers },
    ).subscribe({
      error: () => {},
    });
    await vi.waitFor(() => expect(run.words()).toContain('c:creating'));
    const watches = fake.calls.filter((call) => call.method === 'watch').map((call) => call.kind);
    // The claim watch is always open (one per namespace), with or without storage.
    expect(watches.sort()).toEqual(['deployments', 'endpointslices', 'persistentvolumeclaims', 'pods', 'services']);
    // The Pod of b loses readiness: exactly one event, for b.
    const before = run.events.length;
    const podOfB = fake.get('pods', `${fake.get('deployments', 'b')?.metadata?.name}-7c9f5d-x1`);
    expect(podOfB).toBeDefined();
    fake.update('pods', podOfB!.metadata!.name!, (pod) => {
      pod.status = { ...pod.status, conditions: [podConditions.ready(false)] };
    });
    await vi.waitFor(() => expect(run.events.length).toBe(before + 1));
    expect(run.events.at(-1)).toMatchObject({ name: 'b', status: { state: 'running', podIp: null } });
    provisioning.unsubscribe();
    run.subscription.unsubscribe();
    expect(fake.activeWatches).toBe(0);
  });

  it("hands each status on as the board's own, frozen: nothing to mask is not copied, and no consumer can change what the next change is compared with", async () => {
    const fake = new FakeKubernetes('apps');
    const { pod } = workload(fake, 'a', 1);
    const run = collect(statuses$(fake, { informers: fastInformers() }));
    await vi.waitFor(() => expect(run.words()).toEqual(['a:running']));
    const shown = run.events[0]!.status;
    expect(Object.isFrozen(shown) && Object.isFrozen(shown.replicas) && Object.isFrozen(shown.resources)).toBe(true);
    expect(() => {
      (shown as { state: string }).state = 'stopped';
    }).toThrow(TypeError);
    // A Pod change that changes no status: no event; one that does: exactly one.
    const podName = pod.metadata!.name!;
    fake.update('pods', podName, (pod) => {
      pod.metadata = { ...pod.metadata, annotations: { note: 'unread' } };
    });
    fake.update('pods', podName, (pod) => {
      pod.status = { ...pod.status, conditions: [podConditions.ready(false)] };
    });
    await vi.waitFor(() => expect(run.events).toHaveLength(2));
    expect(run.events[1]).toMatchObject({ name: 'a', status: { state: 'running', podIp: null } });
    run.subscription.unsubscribe();
  });

  it('a deleted workload emits one final missing', async () => {
    const fake = new FakeKubernetes('apps');
    workload(fake, 'a', 1);
    const run = collect(statuses$(fake, { informers: fastInformers() }));
    await vi.waitFor(() => expect(run.words()).toEqual(['a:running']));
    fake.removeObject('deployments', 'a');
    await vi.waitFor(() => expect(run.words()).toEqual(['a:running', 'a:missing']));
    expect(run.events.at(-1)?.status.reason).toBe('Deleted');
    run.subscription.unsubscribe();
  });

  it('watches cut by an unreachable API: unknown with the reason, then back to the real status when the watch reconnects', async () => {
    const fake = new FakeKubernetes('apps');
    workload(fake, 'a', 1);
    const run = collect(statuses$(fake, { informers: fastInformers() }));
    await vi.waitFor(() => expect(run.words()).toEqual(['a:running']));
    const down = new ApiUnreachableError(fake.server, 'connect ECONNREFUSED');
    fake.failNext('watch', down, down);
    fake.dropWatches(down);
    await vi.waitFor(() => expect(run.words()).toEqual(['a:running', 'a:unknown', 'a:running']));
    expect(run.events[1]?.status).toMatchObject({ reason: 'ApiUnreachable', podIp: null });
    expect(run.events[2]?.status.podIp).toBe('10.1.0.5');
    run.subscription.unsubscribe();
  });

  it('a fatal informer error (403) ends the stream with the typed error', async () => {
    const fake = new FakeKubernetes('apps');
    fake.failNext('watch', new ForbiddenError({ verb: 'watch', resource: 'pods', namespace: 'apps' }));
    const run = collect(statuses$(fake, { informers: fastInformers() }));
    await vi.waitFor(() => expect(run.errors).toHaveLength(1));
    expect(run.errors[0]).toBeInstanceOf(ForbiddenError);
    expect(fake.activeWatches).toBe(0);
  });

  it('abort: an already-aborted signal errors at once, without a watch', async () => {
    const fake = new FakeKubernetes('apps');
    const run = collect(statuses$(fake, { informers: fastInformers(), signal: AbortSignal.abort() }));
    expect(run.errors[0]).toBeInstanceOf(OperationAbortedError);
    expect(run.errors[0]).not.toBeInstanceOf(ProvisionAbortedError);
    expect(fake.watchesOpened).toBe(0);
  });
  it('failurePolicy imagePull.graceMs Infinity on real timers: a workload in ImagePullBackOff is evaluated once, no timer warning is printed', async () => {
    const fake = new FakeKubernetes('apps');
    const spec = parseWorkloadSpec({
      containerId: 9,
      nodeId: 7,
      hostname: 'pull',
      image: 'registry.invalid/x:1',
      cpus: 0.5,
      memoryMb: 256,
    });
    await fake.create('deployments', 'apps', buildDeployment(spec, { namespace: 'apps' }));
    const rolling = fake.update('deployments', 'pull', (deployment) => {
      deployment.status = { observedGeneration: 1, replicas: 1, updatedReplicas: 1, unavailableReplicas: 1 };
    });
    fake.addPod(
      podOf(rolling, {
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'pull',
            image: 'registry.invalid/x:1',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image: connection refused' } },
          },
        ],
      }),
    );
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    let evaluations = 0;
    const onEvaluation = (message: unknown): void => {
      if ((message as { event?: string }).event === 'evaluation') evaluations += 1;
    };
    process.on('warning', onWarning);
    subscribe(STATUS_EVALUATIONS_CHANNEL, onEvaluation);
    try {
      const run = collect(statuses$(fake, { informers: fastInformers(), failurePolicy: { imagePull: { graceMs: Infinity } } }));
      await vi.waitFor(() => expect(run.words()).toEqual(['pull:creating']));
      await new Promise((resolve) => setTimeout(resolve, 300));
      run.subscription.unsubscribe();
      expect(run.words()).toEqual(['pull:creating']);
      expect(evaluations).toBe(1);
      expect(warnings.map((warning) => warning.name)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      unsubscribe(STATUS_EVALUATIONS_CHANNEL, onEvaluation);
    }
  });
});

describe('status$', () => {
  it('missing while absent, then the workload as it is created', async () => {
    const fake = new FakeKubernetes('apps');
    const informers = fastInformers();
    const first = await firstValueFrom(status$(fake, 'apps/web', { informers }));
    expect(first).toMatchObject({
      type: 'status',
      providerId: 'apps/web',
      containerId: '',
      status: { state: 'missing', reason: 'NotFound' },
    });
    const events = firstValueFrom(
      status$(fake, 'apps/web', { informers }).pipe(
        takeWhile((event) => event.status.state !== 'running', true),
        toArray(),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    workload(fake, 'web', 42);
    // Created (no status yet), then rolled out with its Pod.
    expect((await events).map((event) => event.status.state)).toEqual(['missing', 'creating', 'running']);
    expect(fake.activeWatches).toBe(0);
  });
});

describe('status, list and statuses$ see one Manager installation (the instance label)', () => {
  function instanced(fake: FakeKubernetes, hostname: string, containerId: number, instance: string): void {
    const spec = parseWorkloadSpec({ containerId, nodeId: 7, hostname, image: 'nginx:1.27', cpus: 0.5, memoryMb: 256, instance });
    void fake.create('deployments', fake.namespace, buildDeployment(spec, { namespace: fake.namespace }));
    const deployment = completeRollout(fake, hostname);
    fake.addPod(podOf(deployment, readyStatus()));
  }

  it('lists only the named installation, or only workloads without one by default', async () => {
    const fake = new FakeKubernetes();
    workload(fake, 'plain', 1);
    instanced(fake, 'dev-web', 1, 'dev');
    instanced(fake, 'test-web', 1, 'test');
    expect((await list(fake)).map((entry) => entry.name)).toEqual(['plain']);
    expect((await list(fake, { instance: 'dev' })).map((entry) => entry.name)).toEqual(['dev-web']);
  });

  it("status() reports another installation's Deployment as missing", async () => {
    const fake = new FakeKubernetes();
    instanced(fake, 'web', 1, 'test');
    expect((await status(fake, 'default/web', { instance: 'dev' })).state).toBe('missing');
    expect((await status(fake, 'default/web', { instance: 'test' })).state).toBe('running');
    expect((await status(fake, 'default/web')).state).toBe('missing');
  });

  it("a lifecycle write refuses another installation's Deployment and changes nothing", async () => {
    const fake = new FakeKubernetes();
    instanced(fake, 'web', 1, 'test');
    await expect(stop(fake, 'default/web', { instance: 'dev' })).rejects.toMatchObject({ name: 'WorkloadOwnershipError' });
    expect(fake.calls.filter((call) => call.method === 'patch')).toEqual([]);
    await expect(stop(fake, 'default/web')).rejects.toMatchObject({ name: 'WorkloadOwnershipError' });
  });

  it('statuses$ with an instance reports only its workloads', async () => {
    const fake = new FakeKubernetes();
    workload(fake, 'plain', 1);
    instanced(fake, 'dev-web', 2, 'dev');
    const seen = collect(statuses$(fake, { instance: 'dev', informers: fastInformers() }));
    await vi.waitFor(() => expect(seen.words()).toEqual(['dev-web:running']));
    seen.subscription.unsubscribe();
  });
});
