// Fail fast with a diagnosis, on the real control plane: KWOK's fault stages make the
// kubelet report realistic failures; the real scheduler reports Unschedulable. Each must
// fail with the right typed error long before the 5-minute timeout and the Deployment's
// 10-minute progress deadline (the point where kubectl, Helm and Terraform give up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RolloutFailedError } from '../../src/errors/rollout.js';
import { provision, provision$ } from '../../src/workload/operations/provision.js';
import type { ProgressEvent } from '../../src/rollout/events.js';
import { MISSING_SECRET_MESSAGE, faultImage, type FaultMode } from '../../scripts/control-plane/stages.js';
import { apiFor, createNamespace, kubectl, sampleSpec } from '../support/kube.js';

let namespace: string;
beforeAll(() => {
  namespace = createNamespace('it-failfast');
});
afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const FAR_TIMEOUT_MS = 300_000;

async function expectFailure(input: Record<string, unknown>, reason: string, withinMs: number): Promise<RolloutFailedError> {
  const started = Date.now();
  const error = await provision(apiFor(), { namespace, ...input }, { timeoutMs: FAR_TIMEOUT_MS }).catch((e: unknown) => e);
  const elapsed = Date.now() - started;
  expect(error).toBeInstanceOf(RolloutFailedError);
  const failed = error as RolloutFailedError;
  expect(failed.reason).toBe(reason);
  expect(elapsed).toBeLessThan(withinMs);
  process.stderr.write(`[integration] ${reason}: named in ${(elapsed / 1000).toFixed(1)} s: ${failed.message}\n`);
  return failed;
}

const image = (mode: FaultMode) => sampleSpec({ image: faultImage(mode) });

describe('fail fast with the kubelet or scheduler reason', () => {
  it('an image that does not exist fails at once with ErrImagePull and the "not found" message', async () => {
    const error = await expectFailure(image('image-not-found'), 'ErrImagePull', 20_000);
    expect(error.detail).toMatch(/not found/);
    expect(error.pod).toMatch(/^ct-/);
    expect(error.container).toMatch(/^ct-/);
  });

  it('a registry that keeps failing fails after 3 back-offs with ImagePullBackOff', async () => {
    const error = await expectFailure(image('image-pull-backoff'), 'ImagePullBackOff', 30_000);
    expect(error.detail).toMatch(/Back-off pulling image/);
  });

  it('a crash-looping container fails with CrashLoopBackOff and its last exit', async () => {
    const error = await expectFailure(image('crash-loop'), 'CrashLoopBackOff', 30_000);
    expect(error.detail).toMatch(/exit code 1/);
  });

  it('a missing secret fails at once with CreateContainerConfigError', async () => {
    const error = await expectFailure(image('create-container-config-error'), 'CreateContainerConfigError', 20_000);
    expect(error.detail).toContain(MISSING_SECRET_MESSAGE);
  });

  it('an over-large request fails with Unschedulable and the real scheduler message after the grace window', async () => {
    const error = await expectFailure(sampleSpec({ cpus: 1024 }), 'Unschedulable', 40_000);
    expect(error.detail).toMatch(/Insufficient cpu/);
  });

  it('a pod over the namespace ResourceQuota fails at once with FailedCreate and the quota message', async () => {
    await withMemoryQuota(async (quotaNamespace) => {
      const started = Date.now();
      const error = await provision(
        apiFor(),
        { namespace: quotaNamespace, ...sampleSpec({ memoryMb: 512 }) },
        { timeoutMs: FAR_TIMEOUT_MS },
      ).catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(RolloutFailedError);
      const failed = error as RolloutFailedError;
      expect(failed.reason).toBe('FailedCreate');
      expect(failed.detail).toMatch(/exceeded quota: compute, requested: limits.memory=512Mi/);
      expect(elapsed).toBeLessThan(10_000);
      process.stderr.write(`[integration] FailedCreate: named in ${(elapsed / 1000).toFixed(1)} s: ${failed.message}\n`);
    });
  });

  it('a create failure the policy does not treat as final is ridden out: raise the quota and the rollout completes', async () => {
    await withMemoryQuota(async (quotaNamespace) => {
      const progress: ProgressEvent[] = [];
      let raised = false;
      await new Promise<void>((resolve, reject) =>
        provision$(
          apiFor(),
          { namespace: quotaNamespace, ...sampleSpec({ memoryMb: 512 }) },
          {
            timeoutMs: 60_000,
            // Quota refusals are final by default; here they get a grace window instead.
            failurePolicy: { createFailure: { failAtOnce: /a refusal this test never sees/, graceMs: 50_000 } },
          },
        ).subscribe({
          next: (event) => {
            if (event.type !== 'progress') return;
            progress.push(event);
            if (event.status.createFailure && !raised) {
              raised = true;
              kubectl([
                'patch',
                'resourcequota',
                'compute',
                '-n',
                quotaNamespace,
                '--type=merge',
                '-p',
                '{"spec":{"hard":{"limits.memory":"1Gi"}}}',
              ]);
            }
          },
          error: reject,
          complete: resolve,
        }),
      );
      expect(raised).toBe(true);
      const failedCreate = progress.find((event) => event.status.createFailure);
      expect(failedCreate?.status.createFailure).toMatchObject({
        reason: 'FailedCreate',
        message: expect.stringMatching(/exceeded quota/),
      });
      expect(failedCreate?.message).toMatch(/^the ReplicaSet cannot create pods yet \(FailedCreate\)/);
      expect(progress.at(-1)?.status.state).toBe('Complete');
    });
  });

  it('one transient pull back-off does not fail the provisioning, and progress says what happened', async () => {
    const progress: ProgressEvent[] = [];
    await new Promise<void>((resolve, reject) =>
      provision$(apiFor(), { namespace, ...image('transient-pull-backoff') }, { timeoutMs: 60_000 }).subscribe({
        next: (event) => event.type === 'progress' && progress.push(event),
        error: reject,
        complete: resolve,
      }),
    );
    const messages = progress.map((event) => event.message);
    expect(messages.some((message) => /cannot pull the image yet \((ErrImagePull|ImagePullBackOff)\)/.test(message))).toBe(true);
    expect(progress.at(-1)?.status.state).toBe('Complete');
  });
});

/** Runs `body` in a fresh namespace whose ResourceQuota `compute` allows 256Mi of memory limits. */
async function withMemoryQuota(body: (namespace: string) => Promise<void>): Promise<void> {
  const namespace = createNamespace('it-quota');
  try {
    kubectl(['create', 'quota', 'compute', '-n', namespace, '--hard=limits.memory=256Mi']);
    // Until the quota controller has written the status, admission refuses with "status unknown".
    const deadline = Date.now() + 30_000;
    while (!kubectl(['get', 'resourcequota', 'compute', '-n', namespace, '-o', 'jsonpath={.status.hard}']).trim()) {
      if (Date.now() > deadline) throw new Error(`the quota controller never wrote the status of ResourceQuota ${namespace}/compute`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await body(namespace);
  } finally {
    kubectl(['delete', 'namespace', namespace, '--wait=false']);
  }
}
