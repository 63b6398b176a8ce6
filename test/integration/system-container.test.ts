// A system container's Pod on the real control plane: the API server accepts the shape the
// library builds (a console, memory-backed directories, a startup probe, a user namespace,
// and systemd's stop signal with the Pod's OS), and keeps each field as written. The KWOK
// node shows the Pod as created, not a boot: docs/real-node.md has the real node's tests.
import { lastValueFrom, takeWhile, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import type { V1Deployment } from '../../src/kube/objects.js';
import { probeStopSignal } from '../../src/kube/stop-signal-probe.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import { provision$ } from '../../src/workload/operations/provision.js';
import { apiFor, createNamespace, kubectl, sampleSpec } from '../support/kube.js';

let namespace: string;

beforeAll(() => {
  namespace = createNamespace('it-system');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

function systemSpec(overrides: Record<string, unknown> = {}) {
  return parseWorkloadSpec(
    sampleSpec({ hostname: 'sys', entrypoint: '/sbin/init', ports: [{ port: 22 }], hostUsers: false, namespace, ...overrides }),
  );
}

/** The Deployment as the API server would store it (server-side dry run). */
function dryRun(deployment: V1Deployment): V1Deployment {
  return JSON.parse(
    kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], { input: JSON.stringify(deployment) }),
  ) as V1Deployment;
}

describe('a system container on the real API server', () => {
  it('the Pod shape is accepted and kept as written', () => {
    const built = buildDeployment(systemSpec());
    const stored = dryRun(built);
    const pod = stored.spec!.template.spec!;
    const container = pod.containers[0]!;
    expect(container).toMatchObject({ tty: true, startupProbe: { tcpSocket: { port: 22 }, periodSeconds: 1, failureThreshold: 60 } });
    expect(container.volumeMounts).toEqual(built.spec!.template.spec!.containers[0]!.volumeMounts);
    expect(pod).toMatchObject({ hostUsers: false, terminationGracePeriodSeconds: 100 });
    expect(pod.volumes).toEqual(built.spec!.template.spec!.volumes);
  });

  it('accepts lifecycle.stopSignal but drops it where ContainerStopSignals is off, as by default here: why the library asks first', () => {
    const stored = dryRun(buildDeployment(systemSpec(), { stopSignals: true }));
    expect(stored.spec!.template.spec!.containers[0]!.lifecycle).toBeUndefined();
    expect(stored.spec!.template.spec!.os).toEqual({ name: 'linux' });
    expect(stored.spec!.template.spec!.containers[0]!.tty).toBe(true);
  });
});

describe('the stop signal on the real API server (ContainerStopSignals off, as by default in 1.36)', () => {
  it('the dry run says dropped, and stores nothing', async () => {
    await expect(probeStopSignal(apiFor(), namespace, new AbortController().signal)).resolves.toBe('dropped');
    expect(kubectl(['get', 'deployments', '-n', namespace, '-o', 'name']).trim()).toBe('');
  });

  it('a system container created here has no stop signal in its Pod, and a second create adopts it without drift', async () => {
    const input = sampleSpec({ hostname: 'sys-signal', entrypoint: '/sbin/init', ports: [{ port: 22 }], namespace });
    const untilCreated = () =>
      lastValueFrom(
        provision$(apiFor(), input, { timeoutMs: 60_000 }).pipe(
          takeWhile((event) => event.type !== 'created' && event.type !== 'adopted', true),
          toArray(),
        ),
      );
    expect((await untilCreated()).map((event) => event.type)).toEqual(['created']);
    const live = JSON.parse(kubectl(['get', 'deployment', 'sys-signal', '-n', namespace, '-o', 'json'])) as V1Deployment;
    expect(live.spec!.template.spec!.containers[0]!.lifecycle).toBeUndefined();
    expect(live.spec!.template.spec!.os).toBeUndefined();
    const again = await untilCreated();
    expect(again).toEqual([expect.objectContaining({ type: 'adopted' })]);
    expect(again[0]).not.toHaveProperty('reconfigured');
  });
});
