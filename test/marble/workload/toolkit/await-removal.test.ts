// Marble spec (RxJS TestScheduler, virtual time) for awaitRemoval (src/workload/toolkit/await-removal.ts):
// remove's wait names a system container's Pod still running HALT_EXPECTED_SECONDS after its
// delete, once, and only a system container's. The informer streams are hot marbles of fixtures.
import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { parseWorkloadSpec } from '../../../../src/input/workload-spec.js';
import type { V1Pod } from '../../../../src/kube/objects.js';
import { awaitRemoval } from '../../../../src/workload/toolkit/await-removal.js';
import { HALT_EXPECTED_SECONDS } from '../../../../src/workload/toolkit/halt-warnings.js';
import { buildDeployment } from '../../../../src/members/deployment/manifest.js';
import { deployment, readyPod } from '../../../support/fixtures.js';

const UID = 'uid-web';
const where = { namespace: 'default', name: 'web', providerId: 'default/web' };
const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

/** The Deployment remove read before its delete: a system container's (`/sbin/init`) or not. */
function read(entrypoint?: string) {
  const spec = { containerId: 42, nodeId: 7, hostname: 'web', image: 'debian', cpus: 1, memoryMb: 512 };
  return buildDeployment(parseWorkloadSpec({ ...spec, ...(entrypoint ? { entrypoint } : {}) }));
}

const halting = readyPod({ name: 'web-7c9f5d-x1', deletionTimestamp: new Date('2026-12-05T10:00:00Z') });
const summary = (event: { type: string; reason?: string; message?: string }): string =>
  event.type === 'warned' ? `${event.reason ?? ''}` : (event.message ?? '');

function removal(entrypoint: string | undefined, pods: string, expected: string): void {
  const scheduler = newScheduler();
  scheduler.run(({ hot, expectObservable }) => {
    const deleting = deployment({ uid: UID, deletionTimestamp: new Date() });
    const deployments = hot(`d ${HALT_EXPECTED_SECONDS * 2000}ms g`, { d: [deleting], g: [] });
    const pods$ = hot(pods, { h: [halting], e: [] as V1Pod[] });
    const target = { ...where, scheduler };
    expectObservable(
      awaitRemoval(target, [{ kind: 'Deployment', uid: UID, snapshots$: deployments }], pods$, read(entrypoint)).pipe(map(summary)),
    ).toBe(expected, {
      p: 'waiting for 1 pod to go (web-7c9f5d-x1: Terminating)',
      s: 'SlowHalt',
      d: 'waiting for the Deployment to be deleted',
    });
  });
}

const HALT_MS = HALT_EXPECTED_SECONDS * 1000;

describe('awaitRemoval (marble)', () => {
  it(`a system container's Pod still running ${HALT_EXPECTED_SECONDS} s after the delete is named once; the wait goes on`, () => {
    removal('/sbin/init', `h ${HALT_MS * 1.5}ms e`, `p ${HALT_MS - 1}ms s ${HALT_MS / 2}ms d ${HALT_MS / 2 - 1}ms |`);
  });

  it('a Pod that goes in time, or another container’s, is not named', () => {
    removal('/sbin/init', `h ${HALT_MS / 2}ms e`, `p ${HALT_MS / 2}ms d ${HALT_MS * 1.5 - 1}ms |`);
    removal(undefined, `h ${HALT_MS * 1.5}ms e`, `p ${HALT_MS * 1.5}ms d ${HALT_MS / 2 - 1}ms |`);
  });
});
