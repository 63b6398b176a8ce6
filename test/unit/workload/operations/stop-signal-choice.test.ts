// A system container's Pod names systemd's stop signal (`lifecycle.stopSignal`) only where
// the cluster keeps it (src/workload/operations/stop-signal-choice.ts, src/kube/stop-signal-probe.ts).
// Against FakeKubernetes, an in-memory stand-in for the API server whose `dropsStopSignals`
// plays one with the ContainerStopSignals feature gate off; the real control plane's answer
// is in test/integration/system-container.test.ts.
import { readFileSync } from 'node:fs';

import { lastValueFrom, takeWhile, toArray } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';

import { ForbiddenError } from '../../../../src/errors/api.js';
import { InformerRegistry } from '../../../../src/informers/registry.js';
import type { CreateOptions, KindMap, WatchedKind } from '../../../../src/kube/client.js';
import type { V1Deployment } from '../../../../src/kube/objects.js';
import { STOP_SIGNAL_PROBE_NAME, probeStopSignal } from '../../../../src/kube/stop-signal-probe.js';
import type { ProvisionEvent } from '../../../../src/rollout/events.js';
import { describeEvent } from '../../../../src/workload/toolkit/event-lines.js';
import { provision$ } from '../../../../src/workload/operations/provision.js';
import { FakeKubernetes } from '../../../support/fake-kube.js';

const fastInformers = () => new InformerRegistry({ backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 } });
const system = { containerId: 42, nodeId: 7, hostname: 'base', image: 'debian', cpus: 1, memoryMb: 512, entrypoint: '/sbin/init' };

/** The events of a provisioning up to the Deployment's create or adoption (the rollout is not played). */
function untilCreated(fake: FakeKubernetes, input: Record<string, unknown> = system): Promise<ProvisionEvent[]> {
  return lastValueFrom(
    provision$(fake, input, { informers: fastInformers() }).pipe(
      takeWhile((event) => event.type !== 'created' && event.type !== 'adopted', true),
      toArray(),
    ),
  );
}

/** The dry runs the library asked for: creates of a Deployment by its generated name. */
const dryRuns = (fake: FakeKubernetes) => fake.calls.filter((call) => call.method === 'create' && call.name === '').length;
const stored = (fake: FakeKubernetes, name = 'base') => (fake.get('deployments', name) as V1Deployment).spec!.template.spec!;

describe('probeStopSignal', () => {
  it('asks with a dry run of a Deployment whose Pod names the signal, and reads what would be stored', async () => {
    const keeps = new FakeKubernetes();
    await expect(probeStopSignal(keeps, 'team-a', new AbortController().signal)).resolves.toBe('kept');
    expect(keeps.calls).toEqual([{ method: 'create', kind: 'deployments', namespace: 'team-a', name: '' }]);
    expect(keeps.get('deployments', '')).toBeUndefined();
    const drops = new FakeKubernetes();
    drops.dropsStopSignals = true;
    await expect(probeStopSignal(drops, 'team-a', new AbortController().signal)).resolves.toBe('dropped');
    expect(STOP_SIGNAL_PROBE_NAME).toMatch(/-$/);
  });
});

describe('provision of a system container and the stop signal', () => {
  it('where the cluster keeps it: the Pod names SIGRTMIN+3 and its OS; asked once per client and namespace', async () => {
    const fake = new FakeKubernetes();
    const events = await untilCreated(fake);
    expect(events.map((event) => event.type)).toEqual(['created']);
    expect(stored(fake).containers[0]!.lifecycle).toEqual({ stopSignal: 'SIGRTMIN+3' });
    expect(stored(fake).os).toEqual({ name: 'linux' });
    await untilCreated(fake, { ...system, containerId: 43, hostname: 'other' });
    expect(stored(fake, 'other').containers[0]!.lifecycle).toEqual({ stopSignal: 'SIGRTMIN+3' });
    expect(dryRuns(fake)).toBe(1);
    await untilCreated(fake, { ...system, containerId: 44, hostname: 'elsewhere', namespace: 'team-b' });
    expect(dryRuns(fake)).toBe(2);
  });

  it('where the cluster drops it: not written, and a second create adopts without drift', async () => {
    const fake = new FakeKubernetes();
    fake.dropsStopSignals = true;
    await untilCreated(fake);
    expect(stored(fake).containers[0]!.lifecycle).toBeUndefined();
    expect(stored(fake).os).toBeUndefined();
    const again = await untilCreated(fake);
    expect(again).toEqual([expect.objectContaining({ type: 'adopted' })]);
    expect(again[0]).not.toHaveProperty('reconfigured');
  });

  it('another container: nothing asked, nothing written', async () => {
    const fake = new FakeKubernetes();
    await untilCreated(fake, { ...system, entrypoint: undefined });
    expect(dryRuns(fake)).toBe(0);
    expect(stored(fake).containers[0]!.lifecycle).toBeUndefined();
  });

  it('a refused dry run (RBAC, a quota): the Pod goes without the field, with one warned event naming the refusal; asked again next time', async () => {
    const fake = new FakeKubernetes();
    fake.failNext('create', new ForbiddenError({ verb: 'create', resource: 'deployments', namespace: 'default' }));
    const events = await untilCreated(fake);
    expect(events.map((event) => event.type)).toEqual(['warned', 'created']);
    const warning = events[0]!;
    expect(warning).toMatchObject({ type: 'warned', reason: 'StopSignalUnknown', providerId: 'default/base' });
    const line = describeEvent(warning);
    expect(line).toBe(
      "default/base warning: cannot tell whether the cluster keeps a Pod's lifecycle.stopSignal: a dry-run create of a Deployment in " +
        'namespace default failed (ForbiddenError: Forbidden (403): the user may not create deployments in namespace default; grant the ' +
        '"create" verb on "deployments" in its RBAC Role); the Pod goes without it, so only the image\'s STOPSIGNAL SIGRTMIN+3 halts systemd at once',
    );
    expect(readFileSync('docs/system-containers.md', 'utf8').split('\n')).toContain(line);
    expect(stored(fake).containers[0]!.lifecycle).toBeUndefined();
    // Not kept: the next create asks again, and the cluster that answers keeps it.
    await untilCreated(fake, { ...system, containerId: 43, hostname: 'other' });
    expect(stored(fake, 'other').containers[0]!.lifecycle).toEqual({ stopSignal: 'SIGRTMIN+3' });
    expect(dryRuns(fake)).toBe(2);
  });

  it('an abort while asking ends the provisioning as an abort, with no warning', async () => {
    const fake = new UnansweredDryRun();
    const controller = new AbortController();
    const events: ProvisionEvent[] = [];
    const ended = new Promise<unknown>((resolve) => {
      provision$(fake, system, { informers: fastInformers(), signal: controller.signal }).subscribe({
        next: (event) => events.push(event),
        error: resolve,
        complete: () => resolve(undefined),
      });
    });
    await vi.waitFor(() => expect(dryRuns(fake)).toBe(1));
    controller.abort();
    await expect(ended).resolves.toMatchObject({ name: 'ProvisionAbortedError' });
    expect(events).toEqual([]);
    expect(fake.get('deployments', 'base')).toBeUndefined();
  });
});

/** An API server that never answers a dry run (until the request is aborted). */
class UnansweredDryRun extends FakeKubernetes {
  override create<K extends WatchedKind>(kind: K, namespace: string, body: KindMap[K], options: CreateOptions = {}): Promise<KindMap[K]> {
    if (!options.dryRun) return super.create(kind, namespace, body, options);
    this.calls.push({ method: 'create', kind, namespace, name: '' });
    return new Promise((_, reject) => options.signal?.addEventListener('abort', () => reject(options.signal?.reason as Error)));
  }
}
