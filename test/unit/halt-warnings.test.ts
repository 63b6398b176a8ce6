// withHaltWarnings (src/workload/toolkit/halt-warnings.ts): a system container's Pod still running
// some seconds after it was told to stop is named once, while the wait runs, and never
// after it. Marble specs on virtual time (TestScheduler), fixtures for the Pods, no cluster.
import { readFileSync } from 'node:fs';

import { map, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { parseWorkloadSpec } from '../../src/input/workload-spec.js';
import type { V1Pod } from '../../src/kube/objects.js';
import { HALT_EXPECTED_SECONDS, haltWatchOf, withHaltWarnings } from '../../src/workload/toolkit/halt-warnings.js';
import type { WarnedEvent } from '../../src/workload/toolkit/lifecycle-events.js';
import { describeLifecycleEvent } from '../../src/workload/toolkit/lifecycle-words.js';
import { buildDeployment } from '../../src/members/deployment/manifest.js';
import type { OwnedWorkload } from '../../src/workload/toolkit/ownership.js';
import { readyPod, terminatedPod } from '../support/fixtures.js';

const target = { namespace: 'default', name: 'web', providerId: 'default/web' };
const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const STOPPING = { deletionTimestamp: new Date('2026-12-05T10:00:00Z') };
const halting = readyPod({ name: 'web-1', ...STOPPING });
const halted = { ...terminatedPod(0, 'Completed', { ...STOPPING }), metadata: { ...halting.metadata } } as V1Pod;
const running = { ...readyPod(), metadata: { ...halting.metadata, deletionTimestamp: undefined } } as V1Pod;

/** The wait's own events as `w`, a warning as `pod:reason`. */
function summary(event: string | { type: string; pod?: string; reason?: string }): string {
  return typeof event === 'string' ? event : `${event.pod ?? ''}:${event.reason ?? ''}`;
}

function run(
  pods: string,
  wait: string,
  expected: string,
  values: Record<string, readonly V1Pod[]>,
  unsubscribe?: string,
  podsSubscription?: string,
): void {
  const scheduler = newScheduler();
  scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
    const hotPods = hot(pods, values);
    const pods$ = hotPods as Observable<readonly V1Pod[]>;
    const events$ = cold(wait, { w: 'w' }).pipe(withHaltWarnings({ target, pods$, scheduler }), map(summary));
    expectObservable(events$, unsubscribe).toBe(expected, { w: 'w', s: 'web-1:SlowHalt' });
    if (podsSubscription) expectSubscriptions(hotPods.subscriptions).toBe(podsSubscription);
  });
}

describe('withHaltWarnings', () => {
  it(`names a Pod still running ${HALT_EXPECTED_SECONDS} s after it was first seen stopping, once`, () => {
    run('a 2s a 7999ms a', 'w 20s w|', `w ${HALT_EXPECTED_SECONDS * 1000 - 1}ms s 10s w|`, { a: [halting] });
  });

  it('says nothing of a Pod that halts or goes in time, or that was never told to stop', () => {
    run('a 5s b', 'w 20s w|', 'w 20s w|', { a: [halting], b: [halted] });
    run('a 5s b', 'w 20s w|', 'w 20s w|', { a: [halting], b: [] });
    run('a 5s b', 'w 20s w|', 'w 20s w|', { a: [running], b: [running] });
  });

  it('ends with the wait: no warning after its end, nor after an unsubscribe', () => {
    // The Pod stream (and its timers) released when the wait ends, or is left.
    run('a', 'w 5s |', 'w 5s |', { a: [halting] }, undefined, '^ 5s !');
    run('a', 'w 30s |', 'w', { a: [halting] }, '^ 5s !', '^ 5s !');
  });

  it('a failing Pod stream adds no words and does not fail the wait', () => {
    run('a 1s #', 'w 20s w|', 'w 20s w|', { a: [halting] });
  });
});

describe('haltWatchOf', () => {
  const owned = (entrypoint?: string): OwnedWorkload => {
    const spec = parseWorkloadSpec({
      containerId: 7,
      nodeId: 1,
      hostname: 'web',
      image: 'debian',
      cpus: 1,
      memoryMb: 512,
      ...(entrypoint ? { entrypoint } : {}),
    });
    return { deployment: buildDeployment(spec), uid: 'u', containerId: '7', generation: 1, replicas: 1, resourceVersion: '1' };
  };

  it('watches a system container only', () => {
    const pods$ = newScheduler().createHotObservable<readonly V1Pod[]>('');
    expect(haltWatchOf(owned('/sbin/init'), target, pods$)).toMatchObject({ target, pods$ });
    expect(haltWatchOf(owned(), target, pods$)).toBeUndefined();
  });
});

describe('the warning in words', () => {
  it('is one line, and docs/system-containers.md quotes it as the CLI prints it', () => {
    let warning: WarnedEvent | undefined;
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold }) => {
      const pods$ = hot('a', { a: [readyPod({ name: 'base-7d9c-x1', ...STOPPING })] }) as Observable<readonly V1Pod[]>;
      const base = { namespace: 'default', name: 'base', providerId: 'default/base' };
      cold('20s |')
        .pipe(withHaltWarnings({ target: base, pods$, scheduler }))
        .subscribe((event) => (warning = event as WarnedEvent));
    });
    const line = describeLifecycleEvent(warning!);
    expect(line).not.toContain('\n');
    expect(readFileSync('docs/system-containers.md', 'utf8').split('\n')).toContain(line);
  });
});
