// Cleanup after a failed provisioning, against FakeKubernetes (unit test; the real control
// plane runs the same in test/integration/manager.test.ts): the Deployment this run created
// is deleted by UID once the failure is diagnosed, unless kept; an adopted one never is; the
// error says which happened.
import { asyncScheduler } from 'rxjs';
import { lastValueFrom } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import type { KubeProvisionerError } from '../../../../src/errors/base.js';
import { ConflictError, ForbiddenError, MalformedResponseError } from '../../../../src/errors/api.js';
import { InvalidOptionError } from '../../../../src/errors/input.js';
import { ProvisionAbortedError, RolloutFailedError, RolloutTimeoutError } from '../../../../src/errors/rollout.js';
import { InformerRegistry } from '../../../../src/informers/registry.js';
import { errorRecord } from '../../../../src/workload/toolkit/event-lines.js';
import type { ProvisionEvent } from '../../../../src/rollout/events.js';
import { parseWorkloadSpec } from '../../../../src/input/workload-spec.js';
import { DEFAULT_CLEANUP_TIMEOUT_MS, deleteCreated } from '../../../../src/workload/operations/cleanup.js';
import { MEMBERS } from '../../../../src/members/set.js';
import { buildDeployment } from '../../../../src/members/deployment/manifest.js';
import { provision$ } from '../../../../src/workload/operations/provision.js';
import { FakeKubernetes, completeRollout, podOf, startRollout } from '../../../support/fake-kube.js';
import { replicaSetName } from '../../../support/fixtures.js';

const input = { containerId: 42, nodeId: 7, hostname: 'web', image: 'docker.io/library/nginx:1.27', cpus: 1, memoryMb: 512 };
const informers = () => new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });

function run(fake: FakeKubernetes, options: Parameters<typeof provision$>[2] = {}) {
  const events: ProvisionEvent[] = [];
  const registry = informers();
  const settled = new Promise<unknown>((resolve) =>
    provision$(fake, input, { informers: registry, ...options }).subscribe({
      next: (event) => events.push(event),
      error: resolve,
      complete: () => resolve(undefined),
    }),
  );
  return { events, settled, registry };
}

/** The ReplicaSet controller and kubelet: a Pod whose image does not exist. */
function failImagePull(fake: FakeKubernetes): void {
  const deployment = startRollout(fake, 'web');
  fake.addPod(
    podOf(deployment, {
      phase: 'Pending',
      containerStatuses: [
        {
          name: 'web',
          image: 'x',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: 'ErrImagePull', message: 'not found' } },
        },
      ],
    }),
  );
}

const deletes = (fake: FakeKubernetes) =>
  fake.calls
    .filter((call) => call.method === 'delete')
    .map(({ method, namespace, name, body }) => {
      const { preconditions, propagationPolicy } = body as { preconditions?: { uid?: string }; propagationPolicy?: string };
      return { method, namespace, name, delete: { uid: preconditions?.uid, propagationPolicy } };
    });

describe('a failed provisioning deletes the Deployment it created', () => {
  it('after the diagnosis: by UID, Foreground; the error says so and keeps its reason', async () => {
    const fake = new FakeKubernetes();
    const { events, settled, registry } = run(fake);
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    const uid = fake.get('deployments', 'web')?.metadata?.uid;
    failImagePull(fake);
    const error = await settled;
    expect(error).toBeInstanceOf(RolloutFailedError);
    expect(error).toMatchObject({
      reason: 'ErrImagePull',
      detail: 'not found',
      cleanup: { outcome: 'deleted', providerId: 'default/web', uid },
    });
    expect((error as Error).message).toMatch(
      /ErrImagePull.*: not found; the Deployment default\/web this run created was deleted with its pods$/,
    );
    // What the rollout reported before the failure; the failure itself carries the diagnosis.
    expect(events.map((event) => event.type)).toEqual(['created', 'progress', 'progress']);
    expect(deletes(fake)).toEqual([
      { method: 'delete', namespace: 'default', name: 'web', delete: { uid, propagationPolicy: 'Foreground' } },
    ]);
    expect(fake.get('deployments', 'web')).toBeUndefined();
    expect(errorRecord(error)).toMatchObject({ cleanup: { outcome: 'deleted', providerId: 'default/web', uid } });
    expect(fake.activeWatches).toBe(0);
    expect(registry.count(fake)).toBe(0);
  });

  it('after a timeout too', async () => {
    const fake = new FakeKubernetes();
    const { settled } = run(fake, { timeoutMs: 200 });
    const error = await settled;
    expect(error).toBeInstanceOf(RolloutTimeoutError);
    expect(error).toMatchObject({ cleanup: { outcome: 'deleted' } });
    expect(fake.get('deployments', 'web')).toBeUndefined();
  });

  it('keepOnFailure keeps it, and the error says so', async () => {
    const fake = new FakeKubernetes();
    const { settled } = run(fake, { keepOnFailure: true });
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    failImagePull(fake);
    const error = await settled;
    expect(error).toMatchObject({ reason: 'ErrImagePull', cleanup: { outcome: 'kept' } });
    expect((error as Error).message).toMatch(/was kept for debugging, as asked; delete it before a retry$/);
    expect(deletes(fake)).toEqual([]);
    expect(fake.get('deployments', 'web')).toBeDefined();
  });

  it('never deletes an adopted Deployment', async () => {
    const fake = new FakeKubernetes();
    await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec(input)));
    const { settled } = run(fake);
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    failImagePull(fake);
    const error = await settled;
    expect(error).toMatchObject({ reason: 'ErrImagePull', cleanup: { outcome: 'adopted' } });
    expect((error as Error).message).toMatch(/existed before this run and was left as it is$/);
    expect(deletes(fake)).toEqual([]);
    expect(fake.get('deployments', 'web')).toBeDefined();
  });

  it('a delete the API refuses: the original error, saying the Deployment could not be deleted and why', async () => {
    const fake = new FakeKubernetes();
    fake.failNext('delete', new ForbiddenError({ verb: 'delete', resource: 'deployments', namespace: 'default' }));
    const { settled } = run(fake);
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    failImagePull(fake);
    const error = await settled;
    expect(error).toBeInstanceOf(RolloutFailedError);
    expect(error).toMatchObject({ cleanup: { outcome: 'failed', error: expect.any(ForbiddenError) } });
    expect((error as Error).message).toMatch(/could not be deleted \(Forbidden \(403\): the user may not delete deployments/);
    expect(fake.get('deployments', 'web')).toBeDefined();
  });

  it('nothing to clean up when nothing was created: the error is unchanged', async () => {
    const fake = new FakeKubernetes();
    await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec({ ...input, containerId: 99 })));
    const error = await run(fake).settled;
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as KubeProvisionerError).cleanup).toBeUndefined();
    expect(deletes(fake)).toEqual([]);
  });

  it('an abort deletes nothing', async () => {
    const fake = new FakeKubernetes();
    const controller = new AbortController();
    const { settled } = run(fake, { signal: controller.signal });
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    controller.abort(new Error('user cancelled'));
    expect(await settled).toBeInstanceOf(ProvisionAbortedError);
    expect(deletes(fake)).toEqual([]);
  });

  it('a retry after the cleanup starts clean: a new Deployment, not the broken one adopted', async () => {
    const fake = new FakeKubernetes();
    const first = run(fake);
    await vi.waitFor(() => expect(fake.activeWatches).toBe(2));
    const firstUid = fake.get('deployments', 'web')?.metadata?.uid;
    failImagePull(fake);
    await first.settled;
    expect(fake.get('deployments', 'web')).toBeUndefined();
    expect(fake.get('pods', `${replicaSetName('web')}-x1`)).toBeUndefined();
    const second = run(fake);
    await vi.waitFor(() => expect(second.events[0]?.type).toBe('created'));
    expect(fake.get('deployments', 'web')?.metadata?.uid).not.toBe(firstUid);
    startRollout(fake, 'web');
    completeRollout(fake, 'web');
    expect(await second.settled).toBeUndefined();
  });

  it('refuses to adopt a Deployment that is being deleted', async () => {
    const fake = new FakeKubernetes();
    await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec(input)));
    fake.update('deployments', 'web', (deployment) => {
      deployment.metadata!.deletionTimestamp = new Date();
    });
    const error = await run(fake).settled;
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as Error).message).toMatch(/default\/web of container-id 42 is being deleted .*retry once it is gone/);
    expect(fake.watchesOpened).toBe(0);
  });
});

describe('deleteCreated', () => {
  const created = { namespace: 'default', providerId: 'default/web', instance: undefined, table: MEMBERS };
  const deployment = (uid: string) => ({ ...created, members: [{ kind: 'deployments' as const, name: 'web', uid }] });

  it('reports "deleting" when the delete was accepted but the Deployment is not gone within the bound', async () => {
    const fake = new FakeKubernetes();
    const stored = await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec(input)));
    // A Deployment whose Pods take long to terminate: the API accepts the delete, the object stays.
    fake.delete = () => Promise.resolve();
    const uid = stored.metadata?.uid ?? '';
    const cleanup = await lastValueFrom(
      deleteCreated(fake, deployment(uid), { registry: informers(), scheduler: asyncScheduler, timeoutMs: 50 }),
    );
    expect(cleanup).toEqual({ outcome: 'deleting', providerId: 'default/web', uid, timeoutMs: 50, kinds: ['Deployment'] });
    expect(fake.activeWatches).toBe(0);
  });

  it('reports "deleted" when the object is already gone, or the name holds another UID', async () => {
    const fake = new FakeKubernetes();
    const options = { registry: informers(), scheduler: asyncScheduler };
    expect(await lastValueFrom(deleteCreated(fake, deployment('uid-gone'), options))).toMatchObject({ outcome: 'deleted' });
    await fake.create('deployments', 'default', buildDeployment(parseWorkloadSpec(input)));
    expect(await lastValueFrom(deleteCreated(fake, deployment('uid-older'), options))).toMatchObject({ outcome: 'deleted' });
    expect(fake.get('deployments', 'web')).toBeDefined();
  });
});

describe('bounded means bounded: the whole call settles within timeoutMs plus the cleanup bound', () => {
  /** Every watch ends at once with a junk line (a server streaming `null`): the informers never sync. */
  function junkWatches(fake: FakeKubernetes): void {
    fake.watch = (_kind, _namespace, _params, handlers) => {
      const timer = setTimeout(() => handlers.onClose(new MalformedResponseError(fake.server, 'the line is null, not a watch event')), 5);
      return { abort: () => clearTimeout(timer) };
    };
  }

  it('a watch streaming junk: the cleanup waits cleanupTimeoutMs for a gone it never sees, and says the deletion is under way', async () => {
    const fake = new FakeKubernetes();
    junkWatches(fake);
    const started = Date.now();
    const error = await run(fake, { timeoutMs: 300, cleanupTimeoutMs: 300 }).settled;
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(RolloutTimeoutError);
    expect(error).toMatchObject({ cleanup: { outcome: 'deleting', providerId: 'default/web' } });
    expect((error as Error).message).toMatch(/this run created was asked to be deleted; the deletion was not confirmed within 300 ms/);
    expect(deletes(fake)).toHaveLength(1);
    // Before, it waited 60 s for the informer to see the Deployment go.
    expect(elapsed).toBeLessThan(300 + 300 + 2_000);
  });

  it('the same with the default bound: settled a few seconds after timeoutMs (it was 60 s)', async () => {
    const fake = new FakeKubernetes();
    junkWatches(fake);
    const started = Date.now();
    const error = await run(fake, { timeoutMs: 300 }).settled;
    const elapsed = Date.now() - started;
    expect(error).toMatchObject({ cleanup: { outcome: 'deleting', timeoutMs: DEFAULT_CLEANUP_TIMEOUT_MS } });
    expect(elapsed).toBeGreaterThanOrEqual(300 + DEFAULT_CLEANUP_TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(300 + DEFAULT_CLEANUP_TIMEOUT_MS + 3_000);
  }, 20_000);

  it('a DELETE that is never answered: the error says the deletion was sent but not confirmed', async () => {
    const fake = new FakeKubernetes();
    junkWatches(fake);
    let aborted = false;
    fake.delete = (_kind, _namespace, _name, options = {}) =>
      new Promise<void>((_resolve, reject) =>
        options.signal?.addEventListener('abort', () => {
          aborted = true;
          reject(options.signal?.reason as Error);
        }),
      );
    const error = await run(fake, { timeoutMs: 200, cleanupTimeoutMs: 200 }).settled;
    expect(error).toMatchObject({ cleanup: { outcome: 'unconfirmed', providerId: 'default/web' } });
    expect((error as Error).message).toMatch(
      /the delete of the Deployment default\/web this run created was sent but not answered within 200 ms: it may still exist/,
    );
    expect(errorRecord(error)).toMatchObject({ cleanup: { outcome: 'unconfirmed' } });
    // The request is not left running after the bound.
    expect(aborted).toBe(true);
  });

  it('the default bound is a few seconds, and the option follows the duration rule', async () => {
    expect(DEFAULT_CLEANUP_TIMEOUT_MS).toBe(5_000);
    const fake = new FakeKubernetes();
    for (const bad of [-1, 1.5, Infinity, Number.NaN, '5s']) {
      const error = await run(fake, { cleanupTimeoutMs: bad as number }).settled;
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toMatchObject({ option: 'cleanupTimeoutMs' });
    }
    expect(fake.calls).toEqual([]);
  });
});

describe('a timeout says what was waited for', () => {
  it('a create the API server never answers: not "Rollout ... did not complete", but the create it waited for', async () => {
    const fake = new FakeKubernetes();
    fake.create = (_kind, _namespace, _body, options = {}) =>
      new Promise((_resolve, reject) => options.signal?.addEventListener('abort', () => reject(options.signal?.reason as Error)));
    const error = await run(fake, { timeoutMs: 200 }).settled;
    expect(error).toBeInstanceOf(RolloutTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 200, waitingFor: 'the API server to answer the create of the Deployment' });
    expect((error as Error).message).toBe(
      'Provisioning of default/web did not complete within 200 ms: still waiting for the API server to answer the create of the Deployment ' +
        '(the request was sent: the Deployment may exist, and a retry adopts it)',
    );
    expect((error as KubeProvisionerError).cleanup).toBeUndefined();
  });

  it('a rollout that does not complete: what it waited for, and the last status', async () => {
    const fake = new FakeKubernetes();
    const error = await run(fake, { timeoutMs: 300 }).settled;
    expect(error).toMatchObject({ waitingFor: 'the rollout to complete' });
    expect((error as Error).message).toMatch(/^Rollout of default\/web did not complete within 300 ms; last status: InProgress/);
  });
});
