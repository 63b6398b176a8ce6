// trackRollout(): the one pure step every wait and live status takes, judged step by step
// with explicit times (no scheduler, no fake client).
import { describe, expect, it } from 'vitest';
import { DEFAULT_FAILURE_POLICY, resolveFailurePolicy } from '../../../src/rollout/failure-policy.js';
import { INITIAL_TRACKER_STATE, trackRollout, type TrackerState } from '../../../src/rollout/tracker.js';
import { deployment, kubeletMessages, progressingDeployment, readyPod, unschedulablePod, waitingPod } from '../../support/fixtures.js';

const pulling = () => waitingPod('ImagePullBackOff', kubeletMessages.registryUnavailable());

describe('trackRollout', () => {
  it('a Pod problem is timed from when it was first seen and fails when its grace window ends', () => {
    const policy = resolveFailurePolicy({ unschedulable: { graceMs: 1000 } });
    const input = { deployment: progressingDeployment(), pods: [unschedulablePod()] };
    const first = trackRollout(policy, INITIAL_TRACKER_STATE, { ...input, now: 5000 });
    expect(first).toMatchObject({ failure: undefined, recheckAt: 6000, pod: { reason: 'Unschedulable' } });
    const before = trackRollout(policy, first.state, { ...input, now: 5999 });
    expect(before).toMatchObject({ failure: undefined, recheckAt: 6000 });
    const at = trackRollout(policy, before.state, { ...input, now: 6000 });
    expect(at.failure).toMatchObject({ source: 'pod', reason: 'Unschedulable' });
  });

  it('a window of Infinity never ends: no recheck time, however long it lasts', () => {
    const policy = resolveFailurePolicy({ imagePull: { graceMs: Infinity } });
    let state: TrackerState = INITIAL_TRACKER_STATE;
    for (const now of [0, 1, 2 ** 31, 365 * 24 * 3_600_000]) {
      const step = trackRollout(policy, state, { deployment: progressingDeployment(), pods: [pulling()], now });
      expect(step).toMatchObject({ failure: undefined, recheckAt: undefined, pod: { reason: 'ImagePullBackOff' } });
      state = step.state;
    }
  });

  it('a complete rollout ends the tracking: no failure, no recheck, a fresh state', () => {
    const started = trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, {
      deployment: progressingDeployment(),
      pods: [pulling()],
      now: 0,
    });
    expect(started.state).not.toBe(INITIAL_TRACKER_STATE);
    const done = trackRollout(DEFAULT_FAILURE_POLICY, started.state, { deployment: deployment(), pods: [readyPod()], now: 10 });
    expect(done).toMatchObject({ complete: true, failure: undefined, recheckAt: undefined, state: INITIAL_TRACKER_STATE });
  });

  it('readiness gates: complete only when every gate is; a failed gate ends the rollout with its reason', () => {
    const gate = (state: 'InProgress' | 'Complete' | 'Failed') => ({
      kind: 'Service',
      name: 'web',
      status: { state, reason: state === 'Failed' ? 'NoEndpoints' : 'Waiting', message: 'no ready endpoint' },
    });
    const input = { deployment: deployment(), pods: [readyPod()], now: 0 };
    expect(trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, { ...input, gates: [gate('Complete')] }).complete).toBe(true);
    const waiting = trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, { ...input, gates: [gate('InProgress')] });
    expect(waiting).toMatchObject({ complete: false, failure: undefined, waitingFor: { kind: 'Service', name: 'web' } });
    const failed = trackRollout(DEFAULT_FAILURE_POLICY, INITIAL_TRACKER_STATE, { ...input, gates: [gate('Failed')] });
    expect(failed.failure).toEqual({ source: 'gate', kind: 'Service', reason: 'NoEndpoints', detail: 'Service web: no ready endpoint' });
  });
});
