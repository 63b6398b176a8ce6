// applyFailurePolicy(): the fail-fast rules, driven as a pure function with an explicit
// `now` (ms). Diagnoses are built with diagnosePod() from the kubelet-shaped Pods of
// test/support/fixtures.ts, so the inputs are what the pipeline really feeds in (no
// fakes of any service).
import { describe, expect, it } from 'vitest';
import type { PodDiagnosis } from '../../../src/rollout/events.js';
import {
  DEFAULT_FAILURE_POLICY,
  INITIAL_POLICY_STATE,
  applyCreateFailurePolicy,
  applyFailurePolicy,
  resolveFailurePolicy,
  type FailurePolicy,
  type PolicyState,
} from '../../../src/rollout/failure-policy.js';
import { diagnosePod } from '../../../src/rollout/pod-diagnosis.js';
import {
  evictedPod,
  kubeletMessages,
  readyPod,
  runningPod,
  states,
  terminatedPod,
  unschedulablePod,
  waitingPod,
  quotaMessage,
  API_SERVER_RESTART_CREATE_ERROR,
} from '../../support/fixtures.js';
import type { V1Pod } from '../../../src/kube/objects.js';

const POD = 'web-7c9f5d-x2k4p';

function diagnose(p: V1Pod): PodDiagnosis[] {
  const d = diagnosePod(p);
  return d ? [d] : [];
}

function waiting(reason: string, message?: string, options: { restartCount?: number; name?: string } = {}): PodDiagnosis[] {
  return diagnose(
    waitingPod(reason, message, {
      name: options.name ?? POD,
      restartCount: options.restartCount ?? 0,
      ...(reason === 'CrashLoopBackOff' ? { lastState: states.terminated(1, 'Error') } : {}),
    }),
  );
}

/** Feeds observations in order; returns every verdict. */
function run(
  policy: FailurePolicy,
  steps: readonly (readonly [now: number, diagnoses: readonly PodDiagnosis[]])[],
): { failure?: PodDiagnosis; recheckAt?: number; state: PolicyState }[] {
  let state = INITIAL_POLICY_STATE;
  return steps.map(([now, diagnoses]) => {
    const verdict = applyFailurePolicy(policy, state, diagnoses, now);
    state = verdict.state;
    return verdict;
  });
}

const policy = DEFAULT_FAILURE_POLICY;

describe('fail at once', () => {
  it.each([
    ['InvalidImageName', kubeletMessages.invalidImageName()],
    ['CreateContainerConfigError', kubeletMessages.secretNotFound()],
    ['ErrImageNeverPull', 'Container image "manager:dev" is not present with pull policy of Never'],
  ])('fails on the first sight of %s', (reason, message) => {
    const verdict = applyFailurePolicy(policy, INITIAL_POLICY_STATE, waiting(reason, message), 0);
    expect(verdict.failure).toMatchObject({ reason, message, pod: POD });
    expect(verdict.recheckAt).toBeUndefined();
  });

  it('fails on the first ErrImagePull whose message says the image was "not found"', () => {
    const verdict = applyFailurePolicy(policy, INITIAL_POLICY_STATE, waiting('ErrImagePull', kubeletMessages.imageNotFound()), 0);
    expect(verdict.failure?.reason).toBe('ErrImagePull');
  });

  it('fails on the first ErrImagePull whose message says "manifest unknown"', () => {
    const verdict = applyFailurePolicy(policy, INITIAL_POLICY_STATE, waiting('ErrImagePull', kubeletMessages.manifestUnknown()), 0);
    expect(verdict.failure?.message).toContain('manifest unknown');
  });

  it('does not fail at once on an ErrImagePull from an unavailable registry (503)', () => {
    const verdict = applyFailurePolicy(policy, INITIAL_POLICY_STATE, waiting('ErrImagePull', kubeletMessages.registryUnavailable()), 0);
    expect(verdict.failure).toBeUndefined();
    expect(verdict.recheckAt).toBe(policy.imagePull.graceMs);
  });

  it('reports the first failing diagnosis when several pods fail at once', () => {
    const diagnoses = [
      ...waiting('InvalidImageName', kubeletMessages.invalidImageName(), { name: 'web-7c9f5d-aaaaa' }),
      ...waiting('CreateContainerConfigError', kubeletMessages.secretNotFound(), { name: 'web-7c9f5d-bbbbb' }),
    ];
    expect(applyFailurePolicy(policy, INITIAL_POLICY_STATE, diagnoses, 0).failure?.pod).toBe('web-7c9f5d-aaaaa');
  });
});

describe('image pull back-offs', () => {
  const pullError = waiting('ErrImagePull', kubeletMessages.registryUnavailable());
  const backOff = waiting('ImagePullBackOff', kubeletMessages.backOffPulling());

  it('counts each ErrImagePull -> ImagePullBackOff transition and fails at maxBackOffs (3)', () => {
    const verdicts = run(policy, [
      [0, pullError],
      [1_000, backOff], // back-off 1
      [11_000, pullError],
      [12_000, backOff], // back-off 2
      [32_000, pullError],
      [33_000, backOff], // back-off 3
    ]);
    expect(verdicts.slice(0, 5).map((v) => v.failure)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(verdicts[5]?.failure).toMatchObject({ reason: 'ImagePullBackOff', pod: POD, container: 'manager' });
  });

  it('does not count the same ImagePullBackOff seen again as another back-off', () => {
    const verdicts = run(policy, [
      [0, backOff],
      [1_000, backOff],
      [2_000, backOff],
      [3_000, backOff],
    ]);
    expect(verdicts.every((v) => v.failure === undefined)).toBe(true);
  });

  it('honours a custom maxBackOffs', () => {
    const strict = resolveFailurePolicy({ imagePull: { maxBackOffs: 1 } });
    const verdicts = run(strict, [
      [0, pullError],
      [1_000, backOff],
    ]);
    expect(verdicts[1]?.failure?.reason).toBe('ImagePullBackOff');
  });

  it('fails once the pull has been failing for graceMs (120 s), not 1 ms before', () => {
    const verdicts = run(policy, [
      [0, pullError],
      [119_999, pullError],
      [120_000, pullError],
    ]);
    expect(verdicts[0]?.recheckAt).toBe(120_000);
    expect(verdicts[1]?.failure).toBeUndefined();
    expect(verdicts[2]?.failure?.reason).toBe('ErrImagePull');
  });

  it('never fails after one back-off followed by a successful pull, and forgets the pod', () => {
    const verdicts = run(policy, [
      [0, pullError],
      [1_000, backOff],
      [11_000, diagnose(runningPod({ name: POD }))],
      [12_000, diagnose(readyPod({ name: POD }))],
      [200_000, diagnose(readyPod({ name: POD }))],
    ]);
    expect(verdicts.every((v) => v.failure === undefined)).toBe(true);
    expect(verdicts[2]?.state.size).toBe(0);
    expect(verdicts[2]?.recheckAt).toBeUndefined();
  });

  it('starts counting from zero when the pull fails again after a recovery', () => {
    const verdicts = run(policy, [
      [0, pullError],
      [1_000, backOff],
      [2_000, pullError],
      [3_000, backOff], // 2 back-offs
      [4_000, diagnose(runningPod({ name: POD }))], // recovered: tracking cleared
      [5_000, pullError],
      [6_000, backOff], // 1 back-off
      [7_000, pullError],
      [8_000, backOff], // 2 back-offs
    ]);
    expect(verdicts.every((v) => v.failure === undefined)).toBe(true);
    expect(verdicts[8]?.recheckAt).toBe(5_000 + policy.imagePull.graceMs);
  });
});

describe('crash loop', () => {
  it('fails when CrashLoopBackOff reaches maxRestarts (3) restarts', () => {
    const verdicts = run(policy, [
      [0, waiting('CrashLoopBackOff', kubeletMessages.crashLoop(POD), { restartCount: 1 })],
      [20_000, waiting('CrashLoopBackOff', kubeletMessages.crashLoop(POD, 'manager', 20), { restartCount: 2 })],
      [60_000, waiting('CrashLoopBackOff', kubeletMessages.crashLoop(POD, 'manager', 40), { restartCount: 3 })],
    ]);
    expect(verdicts[0]?.failure).toBeUndefined();
    expect(verdicts[1]?.failure).toBeUndefined();
    expect(verdicts[2]?.failure).toMatchObject({ reason: 'CrashLoopBackOff', restartCount: 3 });
  });

  it('fails after graceMs (180 s) of crash looping below maxRestarts', () => {
    const lenient = resolveFailurePolicy({ crashLoop: { maxRestarts: 100 } });
    const verdicts = run(lenient, [
      [0, waiting('CrashLoopBackOff', kubeletMessages.crashLoop(POD), { restartCount: 1 })],
      [179_999, waiting('CrashLoopBackOff', kubeletMessages.crashLoop(POD), { restartCount: 2 })],
      [180_000, waiting('CrashLoopBackOff', kubeletMessages.crashLoop(POD), { restartCount: 2 })],
    ]);
    expect(verdicts[0]?.recheckAt).toBe(180_000);
    expect(verdicts[1]?.failure).toBeUndefined();
    expect(verdicts[2]?.failure?.reason).toBe('CrashLoopBackOff');
  });

  it('tracks a non-zero exit and the following CrashLoopBackOff as one crash loop (grace from the first exit)', () => {
    const verdicts = run(policy, [
      [0, diagnose(terminatedPod(137, 'OOMKilled', { name: POD }))],
      [10_000, waiting('CrashLoopBackOff', kubeletMessages.crashLoop(POD), { restartCount: 1 })],
    ]);
    expect(verdicts[0]?.failure).toBeUndefined();
    expect(verdicts[0]?.recheckAt).toBe(180_000);
    expect(verdicts[1]?.recheckAt).toBe(180_000);
  });
});

describe('unschedulable', () => {
  const unschedulable = diagnose(unschedulablePod(undefined, { name: POD }));

  it('does not fail before 15 s', () => {
    const verdicts = run(policy, [
      [0, unschedulable],
      [14_999, unschedulable],
    ]);
    expect(verdicts.map((v) => v.failure)).toEqual([undefined, undefined]);
    expect(verdicts[1]?.recheckAt).toBe(15_000);
  });

  it('fails at 15 s of being unschedulable, with the scheduler message', () => {
    const verdicts = run(policy, [
      [0, unschedulable],
      [15_000, unschedulable],
    ]);
    expect(verdicts[1]?.failure).toMatchObject({ reason: 'Unschedulable', message: expect.stringContaining('Insufficient memory') });
  });
});

describe('container errors', () => {
  it('fails on CreateContainerError after containerError.graceMs (30 s)', () => {
    const createError = waiting('CreateContainerError', kubeletMessages.createContainerError());
    const verdicts = run(policy, [
      [0, createError],
      [29_999, createError],
      [30_000, createError],
    ]);
    expect(verdicts[0]?.recheckAt).toBe(30_000);
    expect(verdicts[1]?.failure).toBeUndefined();
    expect(verdicts[2]?.failure?.reason).toBe('CreateContainerError');
  });
});

describe('state and recheck', () => {
  it('sets recheckAt to the earliest open grace window end across pods', () => {
    const first = applyFailurePolicy(
      policy,
      INITIAL_POLICY_STATE,
      waiting('ErrImagePull', kubeletMessages.registryUnavailable(), { name: 'web-7c9f5d-aaaaa' }),
      0,
    );
    expect(first.recheckAt).toBe(120_000);
    const second = applyFailurePolicy(
      policy,
      first.state,
      [
        ...waiting('ErrImagePull', kubeletMessages.registryUnavailable(), { name: 'web-7c9f5d-aaaaa' }),
        ...diagnose(unschedulablePod(undefined, { name: 'web-7c9f5d-bbbbb' })),
      ],
      5_000,
    );
    expect(second.failure).toBeUndefined();
    expect(second.recheckAt).toBe(20_000);
  });

  it('gives no recheckAt when nothing is tracked', () => {
    const verdict = applyFailurePolicy(policy, INITIAL_POLICY_STATE, diagnose(runningPod({ name: POD })), 0);
    expect(verdict).toEqual({ state: new Map() });
  });

  it('forgets a tracked pod that disappears: when it comes back its grace window starts over', () => {
    const unschedulable = diagnose(unschedulablePod(undefined, { name: POD }));
    const verdicts = run(policy, [
      [0, unschedulable],
      [10_000, []], // the pod was deleted
      [20_000, unschedulable], // a pod of the same name again
      [30_000, unschedulable],
    ]);
    expect(verdicts[1]?.state.size).toBe(0);
    expect(verdicts[2]?.failure).toBeUndefined();
    expect(verdicts[2]?.recheckAt).toBe(35_000);
    expect(verdicts[3]?.failure).toBeUndefined();
  });

  it('does not fail on an evicted pod (its ReplicaSet replaces it)', () => {
    const evicted = diagnose(evictedPod(undefined, { name: POD }));
    expect(evicted[0]).toMatchObject({ severity: 'failed', reason: 'Evicted' });
    const verdict = applyFailurePolicy(policy, INITIAL_POLICY_STATE, evicted, 0);
    expect(verdict.failure).toBeUndefined();
    expect(verdict.state.size).toBe(0);
  });
});

// The API server's own wording, as the ReplicaSet controller copies it into ReplicaFailure.
const refusals = {
  quota: quotaMessage(),
  limitRange: `pods "${POD}" is forbidden: maximum cpu usage per Container is 1, but limit is 2`,
  podSecurity: `pods "${POD}" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "web" must set securityContext.allowPrivilegeEscalation=false)`,
  webhookDenied: 'admission webhook "images.example.com" denied the request: images from docker.io are not allowed',
  policyDenied: `pods "${POD}" is forbidden: ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest' denied request: the image tag must not be latest`,
  invalid: `Pod "${POD}" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`,
  namespaceTerminating: `pods "${POD}" is forbidden: unable to create new content in namespace demo because it is being terminated`,
};
const transientErrors = {
  apiServerRestart: API_SERVER_RESTART_CREATE_ERROR,
  webhookUnreachable:
    'Internal error occurred: failed calling webhook "images.example.com": failed to call webhook: Post "https://images.webhooks.svc:443/validate?timeout=10s": dial tcp 10.96.0.12:443: connect: connection refused',
  serviceAccountNotYet: `pods "${POD}" is forbidden: error looking up service account demo/default: serviceaccount "default" not found`,
  rbacNotYetLoaded: `pods "${POD}" is forbidden: User "system:serviceaccount:kube-system:replicaset-controller" cannot create resource "pods" in API group "" in the namespace "demo"`,
  etcd: 'etcdserver: request timed out',
};

describe('create failures (ReplicaSetCreateError, ReplicaFailure)', () => {
  it.each(Object.entries(refusals))('fails at once on a refusal retrying cannot change: %s', (_, message) => {
    expect(applyCreateFailurePolicy(policy, undefined, { message }, 1_000)).toEqual({ since: 1_000, fatal: true });
  });

  it.each(Object.entries(transientErrors))('gives a transient error the grace window (30 s): %s', (_, message) => {
    const first = applyCreateFailurePolicy(policy, undefined, { message }, 1_000);
    expect(first).toEqual({ since: 1_000, fatal: false, recheckAt: 31_000 });
    expect(applyCreateFailurePolicy(policy, first.since, { message }, 30_999)).toEqual({ since: 1_000, fatal: false, recheckAt: 31_000 });
    expect(applyCreateFailurePolicy(policy, first.since, { message }, 31_000)).toEqual({ since: 1_000, fatal: true });
  });

  it('forgets a create failure once the controller cleared it: the next one gets a new window', () => {
    const message = transientErrors.apiServerRestart;
    const first = applyCreateFailurePolicy(policy, undefined, { message }, 0);
    const cleared = applyCreateFailurePolicy(policy, first.since, undefined, 20_000);
    expect(cleared).toEqual({ fatal: false });
    expect(applyCreateFailurePolicy(policy, cleared.since, { message }, 40_000)).toEqual({
      since: 40_000,
      fatal: false,
      recheckAt: 70_000,
    });
  });

  it('keeps the window when the message changes while the failure lasts', () => {
    const first = applyCreateFailurePolicy(policy, undefined, { message: transientErrors.etcd }, 0);
    expect(applyCreateFailurePolicy(policy, first.since, { message: transientErrors.apiServerRestart }, 30_000).fatal).toBe(true);
  });

  it('honours an overridden grace window and refusal pattern', () => {
    const custom = resolveFailurePolicy({ createFailure: { graceMs: 5_000, failAtOnce: /etcdserver/ } });
    expect(custom.createFailure.graceMs).toBe(5_000);
    expect(applyCreateFailurePolicy(custom, undefined, { message: transientErrors.etcd }, 0).fatal).toBe(true);
    expect(applyCreateFailurePolicy(custom, undefined, { message: refusals.quota }, 0)).toEqual({
      since: 0,
      fatal: false,
      recheckAt: 5_000,
    });
    expect(resolveFailurePolicy({ createFailure: { graceMs: 1 } }).createFailure.failAtOnce).toBe(
      DEFAULT_FAILURE_POLICY.createFailure.failAtOnce,
    );
  });
});

describe('resolveFailurePolicy', () => {
  it('returns the defaults when given no overrides', () => {
    expect(resolveFailurePolicy()).toEqual(DEFAULT_FAILURE_POLICY);
  });

  it('merges partial overrides field by field, keeping the other defaults', () => {
    const resolved = resolveFailurePolicy({ imagePull: { graceMs: 5_000 }, unschedulable: { graceMs: 60_000 } });
    expect(resolved.imagePull).toEqual({ maxBackOffs: 3, graceMs: 5_000 });
    expect(resolved.unschedulable).toEqual({ graceMs: 60_000 });
    expect(resolved.crashLoop).toEqual(DEFAULT_FAILURE_POLICY.crashLoop);
  });

  it('applies an overridden unschedulable grace window', () => {
    const patient = resolveFailurePolicy({ unschedulable: { graceMs: 60_000 } });
    const unschedulable = diagnose(unschedulablePod(undefined, { name: POD }));
    const verdicts = run(patient, [
      [0, unschedulable],
      [15_000, unschedulable],
      [60_000, unschedulable],
    ]);
    expect(verdicts[1]?.failure).toBeUndefined();
    expect(verdicts[2]?.failure?.reason).toBe('Unschedulable');
  });

  it('replaces failAtOnceReasons and imageNotFound when given', () => {
    const custom = resolveFailurePolicy({ failAtOnceReasons: ['RunContainerError'], imageNotFound: /never-matches/ });
    expect(
      applyFailurePolicy(custom, INITIAL_POLICY_STATE, waiting('RunContainerError', kubeletMessages.runContainerError()), 0).failure
        ?.reason,
    ).toBe('RunContainerError');
    // InvalidImageName is no longer fatal at once, and "not found" no longer short-cuts the pull rule.
    expect(
      applyFailurePolicy(custom, INITIAL_POLICY_STATE, waiting('InvalidImageName', kubeletMessages.invalidImageName()), 0).failure,
    ).toBeUndefined();
    expect(
      applyFailurePolicy(custom, INITIAL_POLICY_STATE, waiting('ErrImagePull', kubeletMessages.imageNotFound()), 0).failure,
    ).toBeUndefined();
  });
});
