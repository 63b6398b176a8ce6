// remove$ of a system container names a Pod still running HALT_EXPECTED_SECONDS after its
// delete, once, with the same `warned` SlowHalt event as a stop (src/workload/toolkit/halt-warnings.ts,
// whose marble specs are in halt-warnings.test.ts). Against FakeKubernetes, an in-memory
// stand-in for the API server: the test plays the garbage collector and the kubelet. The
// operation's clock runs a thousand times fast, so the 10 s bound passes in 10 ms.
import { asyncScheduler, type SchedulerAction, type SchedulerLike } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';

import { InformerRegistry } from '../../src/informers/registry.js';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import type { V1Pod } from '../../src/kube/objects.js';
import { HALT_EXPECTED_SECONDS } from '../../src/workload/toolkit/halt-warnings.js';
import type { LifecycleEvent } from '../../src/workload/toolkit/lifecycle-events.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { remove$ } from '../../src/workload/operations/remove.js';
import { FakeKubernetes, completeRollout, podOf } from '../support/fake-kube.js';

const ID = 'default/web';
const fastInformers = () => new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });
/** Real time with every delay a thousandth: HALT_EXPECTED_SECONDS pass in as many milliseconds. */
const hurried: SchedulerLike = {
  now: () => Date.now(),
  schedule: (work: (this: SchedulerAction<unknown>, state?: unknown) => void, delay = 0, state?: unknown) =>
    asyncScheduler.schedule(work, delay / 1000, state),
};

const running: V1Pod['status'] = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True' }],
  containerStatuses: [{ name: 'web', image: 'debian', imageID: 'x', ready: true, restartCount: 0, state: { running: {} } }],
};

/** A removal whose Pod the kubelet has not halted yet: it is told to stop and keeps running until released. */
async function removeWhileRunning(entrypoint?: string) {
  const fake = new FakeKubernetes();
  fake.holdForegroundDeletions = true;
  const spec = parseWorkloadSpec({
    containerId: 42,
    nodeId: 7,
    hostname: 'web',
    image: 'debian',
    cpus: 1,
    memoryMb: 512,
    ...(entrypoint ? { entrypoint } : {}),
  });
  await fake.create('deployments', 'default', buildDeployment(spec));
  const pod = fake.addPod(podOf(completeRollout(fake, 'web'), running));
  const events: LifecycleEvent[] = [];
  let done = false;
  remove$(fake, ID, { containerId: 42, informers: fastInformers(), scheduler: hurried, timeoutMs: 3_600_000 }).subscribe({
    next: (event) => events.push(event),
    complete: () => (done = true),
    error: () => (done = true),
  });
  await vi.waitFor(() => expect(events.map((event) => event.type)).toContain('deleted'));
  // The garbage collector's foreground deletion reaches the Pod; the kubelet still runs it.
  fake.update('pods', pod.metadata!.name!, (each) => {
    each.metadata = { ...each.metadata, deletionTimestamp: new Date() };
  });
  const release = async (): Promise<void> => {
    fake.removeObject('pods', pod.metadata!.name!);
    fake.removeObject('deployments', 'web');
    await vi.waitFor(() => expect(done).toBe(true));
  };
  return { events, release, pod: pod.metadata!.name!, types: () => events.map((event) => event.type) };
}

describe('remove of a system container', () => {
  it(`names its Pod still running ${HALT_EXPECTED_SECONDS} s after the delete, once, before removed`, async () => {
    const run = await removeWhileRunning('/sbin/init');
    await vi.waitFor(() => expect(run.types()).toContain('warned'));
    await new Promise((resolve) => setTimeout(resolve, 3 * HALT_EXPECTED_SECONDS));
    await run.release();
    expect(run.types().filter((type) => type === 'warned')).toHaveLength(1);
    expect(run.events.find((event) => event.type === 'warned')).toMatchObject({
      reason: 'SlowHalt',
      pod: run.pod,
      message: expect.stringContaining(`still running ${HALT_EXPECTED_SECONDS} s after it was told to stop`),
    });
    expect(run.types().indexOf('warned')).toBeLessThan(run.types().indexOf('removed'));
  });

  it('says nothing of another container, however long its Pod takes', async () => {
    const run = await removeWhileRunning();
    await new Promise((resolve) => setTimeout(resolve, 3 * HALT_EXPECTED_SECONDS));
    await run.release();
    expect(run.types()).not.toContain('warned');
    expect(run.types().at(-1)).toBe('removed');
  });
});
