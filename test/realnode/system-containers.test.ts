// System containers on the real node (issue 38): images shaped like Manager's base (Debian,
// systemd as PID 1, sshd; built from Debian's packages by build.sh) booted by the library's
// Pod for a system container under the node's `cgroup-writable` RuntimeClass (a writable
// cgroup of the container's own, scripts/control-plane/real-node/cgroup-writable). A user
// logs in over SSH with a key at the address provision returns, as soon as it resolves; the
// address, the host key and the user's files stay through stop and start, restart and
// reconfigure; a stop takes seconds (systemd's stop signal), not the grace. Without the
// RuntimeClass, systemd cannot start, and provision says so in systemd's words, in seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { firstValueFrom, filter, timeout } from 'rxjs';

import { provision, reconfigure, remove, restart, start, status, stop, stop$, type LifecycleEvent } from '../../src/index.js';
import { apiFor, kubectl } from '../support/kube.js';
import {
  REAL_NODE_IMAGES,
  REAL_NODE_STORAGE_CLASS,
  createRealNodeNamespace,
  ensureLocalStorageClass,
  offerLocalVolume,
  podsOf,
  realNodeEnv,
  realSpec,
} from '../support/real-node.js';
import { hostKeyFingerprint, sshRun } from '../support/ssh.js';

let namespace: string;
beforeAll(() => {
  namespace = createRealNodeNamespace('rn-system');
  ensureLocalStorageClass();
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const timeoutMs = 90_000;
/** A stop is systemd halting on its signal, about a second; the Pod's grace is 100 s. */
const STOP_WITHIN_MS = 20_000;

/** A system container: the image's /sbin/init as the command, sshd's port, the node's RuntimeClass. */
function systemSpec(image: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return realSpec({
    image,
    entrypoint: '/sbin/init',
    cpus: 1,
    memoryMb: 256,
    ports: [{ port: 22 }],
    runtimeClass: realNodeEnv().systemContainerRuntimeClass,
    ...overrides,
  });
}

/** systemd's own verdict once the boot is over: running, or degraded when a unit failed. */
function systemState(address: string): string {
  return sshRun(address, 'timeout 60 systemctl is-system-running --wait || true').trim();
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

describe('system containers on the real node', () => {
  it('boots Debian 12 with sshd: a key login at once, the same address, host key and files through stop, restart and reconfigure', async () => {
    const spec = systemSpec(REAL_NODE_IMAGES.systemBookworm, {
      env: { GREETING: 'hello from kubernetes' },
      storage: { sizeGb: 1, storageClass: REAL_NODE_STORAGE_CLASS, paths: ['/etc', '/root'] },
    });
    const containerId = Number(spec.containerId);
    offerLocalVolume();
    const created = await provision(apiFor(), { namespace, ...spec }, { timeoutMs });
    const { providerId } = created;
    const address = created.address ?? '';
    expect(address).toMatch(/^10\.0\.0\.\d+$/);

    // Ready means sshd accepts: the first login after provision resolves works, no retry.
    expect(sshRun(address, 'echo logged in as $(id -un)').trim()).toBe('logged in as root');
    expect(systemState(address)).toMatch(/^(running|degraded)$/);
    expect(sshRun(address, 'cat /proc/1/comm').trim()).toBe('systemd');
    // The container's variables reach a login shell (PID 1's environment, through /etc/environment).
    expect(sshRun(address, "bash -lc 'printenv GREETING'").trim()).toBe('hello from kubernetes');
    const hostKey = hostKeyFingerprint(address);
    sshRun(address, 'echo kept across starts > /root/kept.txt && sync');

    const pods = new Set([podsOf(namespace, containerId)[0]?.metadata.uid]);
    const check = (step: string, greeting: string): void => {
      // The Pod before a restart may still be going away: one new Pod is running.
      const fresh = podsOf(namespace, containerId).filter((pod) => !pods.has(pod.metadata.uid));
      expect(fresh, `${step}: a new Pod`).toHaveLength(1);
      pods.add(fresh[0]?.metadata.uid);
      expect(sshRun(address, 'cat /root/kept.txt').trim(), `${step}: the user's file`).toBe('kept across starts');
      expect(hostKeyFingerprint(address), `${step}: the same host key`).toBe(hostKey);
      expect(systemState(address), `${step}: systemd`).toMatch(/^(running|degraded)$/);
      expect(sshRun(address, "bash -lc 'printenv GREETING'").trim(), `${step}: the env`).toBe(greeting);
    };

    const stopped = await timed(() => stop(apiFor(), providerId, { timeoutMs }));
    expect(stopped.ms, 'a stop is systemd halting, not the grace').toBeLessThan(STOP_WITHIN_MS);
    expect(podsOf(namespace, containerId)).toEqual([]);
    await start(apiFor(), providerId, { timeoutMs });
    expect((await status(apiFor(), providerId)).address).toBe(address);
    check('stop+start', 'hello from kubernetes');

    const restarted = await timed(() => restart(apiFor(), providerId, { timeoutMs }));
    expect(restarted.ms).toBeLessThan(timeoutMs);
    check('restart', 'hello from kubernetes');

    await reconfigure(apiFor(), providerId, { env: { GREETING: 'reconfigured' } }, { timeoutMs });
    check('reconfigure', 'reconfigured');
    expect((await status(apiFor(), providerId)).address).toBe(address);

    const removed = await timed(() => remove(apiFor(), providerId, { containerId, timeoutMs }));
    expect(removed.ms).toBeLessThan(STOP_WITHIN_MS);
  });

  it('boots Debian 13 (systemd 257) the same way, and stops it in seconds', async () => {
    const spec = systemSpec(REAL_NODE_IMAGES.systemTrixie);
    const containerId = Number(spec.containerId);
    const created = await provision(apiFor(), { namespace, ...spec }, { timeoutMs });
    const address = created.address ?? '';
    expect(sshRun(address, 'cat /etc/debian_version').trim()).toMatch(/^13\./);
    expect(systemState(address)).toMatch(/^(running|degraded)$/);
    const events: LifecycleEvent[] = [];
    const stopped = await timed(
      () =>
        new Promise<void>((resolve, reject) => {
          stop$(apiFor(), created.providerId, { timeoutMs }).subscribe({
            next: (event) => events.push(event),
            error: reject,
            complete: resolve,
          });
        }),
    );
    expect(stopped.ms).toBeLessThan(STOP_WITHIN_MS);
    // Its image says SIGRTMIN+3: systemd halted, nothing to warn about.
    expect(events.filter((event) => event.type === 'warned')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'stopped', changed: true });
    await remove(apiFor(), created.providerId, { containerId, timeoutMs });
  });

  it('an image without STOPSIGNAL SIGRTMIN+3: its stop warns in seconds that systemd did not halt', async () => {
    const spec = systemSpec(REAL_NODE_IMAGES.systemNoStopSignal);
    const created = await provision(apiFor(), { namespace, ...spec }, { timeoutMs });
    const started = Date.now();
    // The stop itself waits out the Pod's grace (the kubelet's SIGTERM only re-executes
    // systemd); the warning is what comes in seconds. Taking it ends the wait.
    const warned = await firstValueFrom(
      stop$(apiFor(), created.providerId, { timeoutMs: 150_000 }).pipe(
        filter((event: LifecycleEvent) => event.type === 'warned' || event.type === 'stopped'),
        timeout(60_000),
      ),
    );
    expect(warned).toMatchObject({ type: 'warned', reason: 'SlowHalt', providerId: created.providerId });
    expect(warned.type === 'warned' && warned.message).toMatch(/still running 10 s after it was told to stop.*STOPSIGNAL SIGRTMIN\+3/);
    expect(Date.now() - started).toBeLessThan(STOP_WITHIN_MS);
    // The test's own cleanup: the signal the image should have named, sent to systemd (a
    // shorter grace does not reach a stop the runtime already waits on).
    const pod = warned.type === 'warned' ? warned.pod : '';
    kubectl(['exec', '-n', namespace, pod, '--', 'bash', '-c', 'kill -s SIGRTMIN+3 1']);
    kubectl(['wait', '--for=delete', `pod/${pod}`, '-n', namespace, '--timeout=30s']);
  });

  it('without the RuntimeClass, fails in seconds with systemd’s own line', async () => {
    const spec = systemSpec(REAL_NODE_IMAGES.systemTrixie, { runtimeClass: undefined });
    const started = Date.now();
    const error = await provision(apiFor(), { namespace, ...spec }, { timeoutMs }).then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    const ms = Date.now() - started;
    expect(error?.message).toMatch(/Failed to create .*control group|Failed to allocate manager object/);
    expect(ms).toBeLessThan(15_000);
  });
});
