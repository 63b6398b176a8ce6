// A container the kubelet stopped because its startup probe kept failing (a system container
// that never listens on 22) is named StartupProbeFailed from the Pod's status alone, and the
// rollout fails at once on it. Pods come from test/support/fixtures.ts, shaped as the kubelet
// writes them, read through the informers' cached fields; no service is faked.
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import type { V1ContainerState } from '@kubernetes/client-node';

import type { V1ContainerStatus, V1Pod, V1Probe } from '../../src/kube/objects.js';
import { cachedPodFields } from '../../src/informers/transforms/pod.js';
import { DEFAULT_FAILURE_POLICY, INITIAL_POLICY_STATE, applyFailurePolicy } from '../../src/rollout/failure-policy.js';
import { describeProgress } from '../../src/rollout/describe-progress.js';
import { diagnosePod } from '../../src/rollout/pod-diagnosis.js';
import { rolloutStatus } from '../../src/rollout/rollout-status.js';
import { STARTUP_PROBE_FAILED_REASON, startupProbeBoundSeconds, startupProbeGaveUp } from '../../src/rollout/startup-probe.js';
import { loginProbe } from '../../src/members/deployment/system-manifest.js';
import { T0, containerStatus, pod, progressingDeployment, states } from '../support/fixtures.js';

/** The last run: started at T0, ended `seconds` later with `exitCode`. */
function lastRun(seconds: number, exitCode = 137): V1ContainerState {
  return {
    terminated: {
      exitCode,
      reason: 'Error',
      startedAt: T0,
      finishedAt: new Date(T0.getTime() + seconds * 1000),
    },
  };
}

interface RunState {
  readonly restartCount: number;
  readonly started: boolean;
  readonly state?: V1ContainerState;
  readonly lastState?: V1ContainerState;
}

function systemPod({ started, ...status }: RunState, probe: V1Probe | undefined = loginProbe(60)): V1Pod {
  // The fixture derives `started` from the state; a probe that never passed says false.
  const p: V1Pod = pod({ containerStatuses: [{ ...containerStatus({ ready: false, ...status }), started }] });
  if (probe) p.spec!.containers[0]!.startupProbe = probe;
  // As the informer caches it: the API's JSON, times as strings.
  return cachedPodFields(JSON.parse(JSON.stringify(p)) as V1Pod);
}

describe('startupProbeGaveUp', () => {
  it("bounds the probe as the kubelet does: delay plus failures times period, with the kubelet's defaults", () => {
    expect(startupProbeBoundSeconds(loginProbe(60))).toBe(60);
    expect(startupProbeBoundSeconds({ initialDelaySeconds: 5, periodSeconds: 2, failureThreshold: 10 })).toBe(25);
    expect(startupProbeBoundSeconds({})).toBe(30);
  });

  it('names a restarted container that never started and ran the whole bound', () => {
    const status = { restartCount: 1, started: false, lastState: lastRun(59) } as V1ContainerStatus;
    expect(startupProbeGaveUp(loginProbe(60), status)).toBe(
      'the container did not pass its startup probe (a TCP connection to port 22) within 60 s, so the kubelet stopped and restarted it',
    );
  });

  it.each([
    ['no startup probe', undefined, { restartCount: 1, started: false, lastState: lastRun(59) }],
    ['it started (the probe passed before the exit)', loginProbe(60), { restartCount: 1, started: true, lastState: lastRun(59) }],
    ['no restart yet', loginProbe(60), { restartCount: 0, started: false }],
    [
      'an exit by itself before the bound (systemd giving up)',
      loginProbe(60),
      { restartCount: 1, started: false, lastState: lastRun(1, 255) },
    ],
    ['a last run without times', loginProbe(60), { restartCount: 1, started: false, lastState: { terminated: { exitCode: 137 } } }],
  ])('names nothing with %s', (_, probe, status) => {
    expect(startupProbeGaveUp(probe, status as V1ContainerStatus)).toBeUndefined();
  });
});

describe('diagnosePod: a startup probe the kubelet gave up on', () => {
  it('is a failure named StartupProbeFailed, with the bound and the last exit, while the restart runs', () => {
    const p = systemPod({ restartCount: 1, started: false, state: states.running(), lastState: lastRun(59) });
    expect(diagnosePod(p)).toEqual({
      severity: 'failed',
      reason: STARTUP_PROBE_FAILED_REASON,
      message:
        'the container did not pass its startup probe (a TCP connection to port 22) within 60 s, so the kubelet stopped and restarted it; last exit: killed (exit 137)',
      pod: p.metadata!.name,
      container: 'manager',
      restartCount: 1,
    });
  });

  it('wins over the back-off the restarts lead to', () => {
    const p = systemPod({
      restartCount: 2,
      started: false,
      state: states.waiting('CrashLoopBackOff', 'back-off 10s'),
      lastState: lastRun(60, 0),
    });
    expect(diagnosePod(p)?.reason).toBe(STARTUP_PROBE_FAILED_REASON);
  });

  it('a container within its bound says what it waits on: the probe, and when the kubelet gives up', () => {
    const waiting = diagnosePod(cachedPodFields(systemPod({ restartCount: 0, started: false, state: states.running() })));
    expect(waiting).toMatchObject({
      reason: 'ContainerNotReady',
      awaiting: 'its startup probe (a TCP connection to port 22; the kubelet gives up after 60 s)',
    });
    expect(describeProgress(rolloutStatus(progressingDeployment()), waiting)).toMatch(
      /^container started, \d\/\d ready, waiting for its startup probe \(a TCP connection to port 22; the kubelet gives up after 60 s\)$/,
    );
    const quoted = readFileSync('docs/system-containers.md', 'utf8').split('\n');
    expect(quoted).toContain(describeProgress(rolloutStatus(progressingDeployment({ replicas: 1, readyReplicas: 0 })), waiting));
    // Once it passed, or without a probe: nothing awaited in its name.
    expect(diagnosePod(systemPod({ restartCount: 0, started: true, state: states.running() }))).not.toHaveProperty('awaiting');
    expect(diagnosePod(pod({ containerStatuses: [containerStatus({ state: states.running() })] }))).not.toHaveProperty('awaiting');
  });

  it('leaves a container that is still within its bound, or crashed early, to the other rules', () => {
    expect(diagnosePod(systemPod({ restartCount: 0, started: false, state: states.running() }))?.reason).toBe('ContainerNotReady');
    const crashed = systemPod({
      restartCount: 1,
      started: false,
      state: states.waiting('CrashLoopBackOff', 'back-off'),
      lastState: lastRun(1, 255),
    });
    expect(diagnosePod(crashed)?.reason).toBe('CrashLoopBackOff');
  });

  it('ends the rollout at once under the default policy', () => {
    const diagnosis = diagnosePod(systemPod({ restartCount: 1, started: false, state: states.running(), lastState: lastRun(59) }))!;
    expect(applyFailurePolicy(DEFAULT_FAILURE_POLICY, INITIAL_POLICY_STATE, [diagnosis], 0).failure).toEqual(diagnosis);
  });
});
