// A removal of a system container whose image has no STOPSIGNAL SIGRTMIN+3, on the real node
// (issue 38): the kubelet's SIGTERM only makes systemd re-execute, so the Pod outlives its
// delete until the grace period ends; remove names it in seconds with the same `warned`
// SlowHalt event as a stop (test/realnode/system-containers.test.ts has the stop's).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { filter, firstValueFrom, timeout } from 'rxjs';

import { provision, remove$, type LifecycleEvent } from '../../src/index.js';
import { apiFor, kubectl } from '../support/kube.js';
import { REAL_NODE_IMAGES, createRealNodeNamespace, realNodeEnv, realSpec } from '../support/real-node.js';

let namespace: string;
beforeAll(() => {
  namespace = createRealNodeNamespace('rn-sysrm');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

/** systemd halts in about a second on its signal; the warning comes 10 s after the delete. */
const WARNED_WITHIN_MS = 20_000;

describe('removing a system container on the real node', () => {
  it('an image without STOPSIGNAL SIGRTMIN+3: its removal warns in seconds that systemd did not halt', async () => {
    const spec = realSpec({
      image: REAL_NODE_IMAGES.systemNoStopSignal,
      entrypoint: '/sbin/init',
      cpus: 1,
      memoryMb: 256,
      ports: [{ port: 22 }],
      runtimeClass: realNodeEnv().systemContainerRuntimeClass,
    });
    const created = await provision(apiFor(), { namespace, ...spec }, { timeoutMs: 90_000 });
    const started = Date.now();
    // The removal itself waits out the Pod's grace; the warning is what comes in seconds.
    // Taking it ends the wait (the deletes were sent before it).
    const warned = await firstValueFrom(
      remove$(apiFor(), created.providerId, { containerId: Number(spec.containerId), timeoutMs: 150_000 }).pipe(
        filter((event: LifecycleEvent) => event.type === 'warned' || event.type === 'removed'),
        timeout(60_000),
      ),
    );
    expect(warned).toMatchObject({ type: 'warned', reason: 'SlowHalt', providerId: created.providerId });
    expect(warned.type === 'warned' && warned.message).toMatch(/still running 10 s after it was told to stop.*STOPSIGNAL SIGRTMIN\+3/);
    expect(Date.now() - started).toBeLessThan(WARNED_WITHIN_MS);
    // The test's own cleanup: the signal the image should have named, sent to systemd.
    const pod = warned.type === 'warned' ? warned.pod : '';
    kubectl(['exec', '-n', namespace, pod, '--', 'bash', '-c', 'kill -s SIGRTMIN+3 1']);
    kubectl(['wait', '--for=delete', `pod/${pod}`, '-n', namespace, '--timeout=30s']);
    kubectl(['wait', '--for=delete', `deployment/${created.name}`, '-n', namespace, '--timeout=30s']);
  });
});
