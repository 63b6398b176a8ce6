// bootCheck() (kube-provision check --system-image) against the fake client: the throw-away
// system container it makes, the item for a boot that gets to sshd and for one that does not
// (a startup probe the kubelet gave up on, named), and that nothing is left afterwards, also
// after an abort. The fake stands in for the API server and the controllers' writes.
import { describe, expect, it, vi } from 'vitest';

import { parseCheckArgs } from '../../src/cli/commands/check.js';
import { BOOT_CHECK_ITEM_ID, DEFAULT_BOOT_TIMEOUT_MS, bootCheck } from '../../src/workload/operations/boot-check.js';
import type { V1Deployment } from '../../src/kube/objects.js';
import { FakeKubernetes, completeRollout, podOf, publishEndpoints, startRollout } from '../support/fake-kube.js';

const IMAGE = 'registry.example.com/mieweb/base:13';
const NAME = 'kp-check-a1b2c3';

async function created(fake: FakeKubernetes): Promise<V1Deployment> {
  await vi.waitFor(() => expect(fake.get('deployments', NAME)).toBeDefined());
  return fake.get('deployments', NAME)!;
}

function leftovers(fake: FakeKubernetes): unknown[] {
  return [fake.get('deployments', NAME), fake.get('services', NAME)].filter((object) => object !== undefined);
}

describe('bootCheck', () => {
  it('boots the image as a small system container with the RuntimeClass, reports the time to sshd, and removes it', async () => {
    const fake = new FakeKubernetes('team-a');
    const result = bootCheck(fake, { image: IMAGE, runtimeClass: 'cgroup-writable', suffix: 'a1b2c3' });
    const deployment = await created(fake);
    const pod = deployment.spec!.template.spec!;
    expect(pod.runtimeClassName).toBe('cgroup-writable');
    expect(pod.containers[0]).toMatchObject({
      image: IMAGE,
      command: ['/sbin/init'],
      startupProbe: { tcpSocket: { port: 22 } },
      resources: { limits: { cpu: '500m', memory: '256Mi' } },
    });
    expect(pod.volumes?.map((volume) => volume.name)).toEqual(['system-run', 'system-run-lock', 'system-tmp']);
    completeRollout(fake, NAME);
    const ready = fake.addPod(
      podOf(deployment, { phase: 'Running', podIP: '10.244.0.7', hostIP: '172.30.0.10', conditions: [{ type: 'Ready', status: 'True' }] }),
    );
    publishEndpoints(fake, NAME, [{ pod: ready, ready: true }]);
    const { item, providerId, removed } = await result;
    expect(item).toMatchObject({ id: BOOT_CHECK_ITEM_ID, status: 'pass', needed: true });
    expect(item.message).toMatch(/^registry\.example\.com\/mieweb\/base:13 booted: sshd accepted on port 22 in \d+ ms$/);
    expect(providerId).toBe(`team-a/${NAME}`);
    expect(removed).toBe(true);
    expect(leftovers(fake)).toEqual([]);
  });

  it('names a boot that never gets to sshd (the kubelet gave up on the startup probe), and removes it', async () => {
    const fake = new FakeKubernetes('team-a');
    const result = bootCheck(fake, { image: IMAGE, suffix: 'a1b2c3' });
    const deployment = await created(fake);
    expect(deployment.spec!.template.spec!.runtimeClassName).toBeUndefined();
    startRollout(fake, NAME);
    const started = new Date('2026-12-05T05:00:00Z');
    fake.addPod(
      podOf(deployment, {
        phase: 'Running',
        containerStatuses: [
          {
            name: NAME,
            image: IMAGE,
            imageID: '',
            ready: false,
            started: false,
            restartCount: 1,
            state: { running: { startedAt: new Date(started.getTime() + 60_000) } },
            lastState: {
              terminated: { exitCode: 137, reason: 'Error', startedAt: started, finishedAt: new Date(started.getTime() + 59_000) },
            },
          },
        ],
      }),
    );
    const { item, removed } = await result;
    expect(item).toMatchObject({ id: BOOT_CHECK_ITEM_ID, status: 'fail', needed: true, error: 'RolloutFailedError' });
    expect(item.message).toContain(`${IMAGE} did not boot: `);
    expect(item.message).toContain('StartupProbeFailed');
    expect(item.message).toContain('did not pass its startup probe (a TCP connection to port 22) within 60 s');
    expect(removed).toBe(true);
    expect(leftovers(fake)).toEqual([]);
  });

  it('an abort still removes what was made, then rejects', async () => {
    const fake = new FakeKubernetes('team-a');
    const controller = new AbortController();
    const result = bootCheck(fake, { image: IMAGE, suffix: 'a1b2c3', signal: controller.signal });
    await created(fake);
    controller.abort();
    await expect(result).rejects.toMatchObject({ name: 'ProvisionAbortedError' });
    expect(leftovers(fake)).toEqual([]);
  });

  it('refuses an invalid image before making anything', async () => {
    const fake = new FakeKubernetes('team-a');
    await expect(bootCheck(fake, { image: 'Not An Image', suffix: 'a1b2c3' })).rejects.toMatchObject({ name: 'InvalidSpecError' });
    expect(leftovers(fake)).toEqual([]);
  });
});

describe('kube-provision check --system-image', () => {
  it('reads the image, the RuntimeClass and the boot bound (default three minutes)', () => {
    const parsed = parseCheckArgs(['--system-image', IMAGE, '--runtime-class', 'cgroup-writable', '--boot-timeout', '90s']);
    expect(parsed).toMatchObject({ systemImage: IMAGE, runtimeClass: 'cgroup-writable', bootTimeoutMs: 90_000 });
    expect(parseCheckArgs(['--system-image', IMAGE])).toMatchObject({ bootTimeoutMs: DEFAULT_BOOT_TIMEOUT_MS });
    expect(parseCheckArgs([])).toMatchObject({ systemImage: undefined });
  });

  it('refuses --boot-timeout without --system-image', () => {
    expect(() => parseCheckArgs(['--boot-timeout', '90s'])).toThrow(
      '--boot-timeout bounds the boot of --system-image: give --system-image too',
    );
  });

  it('refuses a value that is not an image reference, naming the flag and the value', () => {
    expect(() => parseCheckArgs(['--system-image', 'Not An Image'])).toThrow(
      '--system-image must be an image reference such as registry/name:tag (got "Not An Image")',
    );
  });
});
