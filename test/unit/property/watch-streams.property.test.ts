// Property: a watch stream can hold anything (junk lines, wrong types, missing fields, a
// truncated last line, a cut connection) and the host process must not notice. 10,000
// generated streams go through the transport's own stream reader, the reflector, the
// shared informers (with the rollout projections) and two waiters per stream, on virtual
// time. For every stream: no uncaught exception (RxJS's unhandled-error hook, the process's
// uncaughtException and unhandledRejection all stay silent), every waiter settles with a
// typed outcome, and every fault is reported through the informer's retry hook. Unit test:
// scripted client, virtual time; the same streams over real sockets, in a process that must
// exit on its own, are in watch-streams-process.test.ts.
import fc from 'fast-check';
import { VirtualTimeScheduler, config as rxConfig, type Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeProvisionerError } from '../../../src/errors/base.js';
import { MalformedObjectError, MalformedResponseError } from '../../../src/errors/api.js';
import { RolloutFailedError, RolloutTimeoutError } from '../../../src/errors/rollout.js';
import { InformerRegistry } from '../../../src/informers/registry.js';
import { awaitRollout } from '../../../src/rollout/await-rollout.js';
import { deadline } from '../../../src/rx/deadline.js';
import { deploymentSnapshots, podSnapshots } from '../../../src/members/deployment/member.js';
import {
  CONTAINER_ID,
  NAME,
  ScriptedWatchClient,
  UID,
  watchStreams,
  type GeneratedStream,
  type LineKind,
} from '../../support/watch-junk.js';

const RUNS = 10_000;
const TIMEOUT_MS = 120_000;

type Outcome = 'ready' | 'failed' | 'timeout' | 'api-error';

const figures = {
  streams: 0,
  lines: { valid: 0, junk: 0, 'wrong-type': 0, 'missing-field': 0, 'error-event': 0 } as Record<LineKind, number>,
  truncatedOrCut: 0,
  waiters: 0,
  outcomes: { ready: 0, failed: 0, timeout: 0, 'api-error': 0 } as Record<Outcome, number>,
  faultsReported: 0,
  watchRestartsAfterMalformedLine: 0,
  objectsSkipped: 0,
  uncaught: 0,
};

const uncaught: unknown[] = [];
const onProcessError = (error: unknown): void => {
  uncaught.push(error);
};
let previousUnhandled: typeof rxConfig.onUnhandledError;

beforeAll(() => {
  previousUnhandled = rxConfig.onUnhandledError;
  rxConfig.onUnhandledError = (error) => uncaught.push(error);
  process.on('uncaughtException', onProcessError);
  process.on('unhandledRejection', onProcessError);
});

afterAll(() => {
  rxConfig.onUnhandledError = previousUnhandled;
  process.off('uncaughtException', onProcessError);
  process.off('unhandledRejection', onProcessError);
  console.log(`[reliability] watch streams: ${JSON.stringify(figures)}`);
});

/** Runs one stream to the end of virtual time; returns the waiters' outcomes. */
async function runStream(stream: GeneratedStream): Promise<{ outcomes: unknown[]; faults: unknown[]; raised: number }> {
  const scheduler = new VirtualTimeScheduler();
  const faults: unknown[] = [];
  const registry = new InformerRegistry({
    scheduler,
    random: () => 0.5,
    onRetry: (error) => faults.push(error),
  });
  const client = new ScriptedWatchClient(stream, scheduler);
  const outcomes: unknown[] = [undefined, undefined];
  const subscriptions: Subscription[] = outcomes.map((_, index) =>
    awaitRollout(
      { namespace: 'default', name: NAME, uid: UID, providerId: `default/${NAME}` },
      deploymentSnapshots(registry, client, 'default', NAME),
      podSnapshots(registry, client, 'default', CONTAINER_ID),
      { scheduler },
    )
      .pipe(
        deadline(TIMEOUT_MS + index, () => new RolloutTimeoutError({ namespace: 'default', name: NAME }, TIMEOUT_MS, undefined), scheduler),
      )
      .subscribe({
        complete: () => (outcomes[index] = 'ready'),
        error: (error: unknown) => {
          outcomes[index] =
            error instanceof RolloutFailedError
              ? 'failed'
              : error instanceof RolloutTimeoutError
                ? 'timeout'
                : error instanceof KubeProvisionerError
                  ? 'api-error'
                  : error;
        },
      }),
  );
  // Virtual time runs to the end; a list request (after a refused streaming list) resolves
  // in a microtask, so flush again until nothing is left.
  for (let round = 0; round < 20 && outcomes.some((outcome) => outcome === undefined); round += 1) {
    scheduler.flush();
    await Promise.resolve();
  }
  for (const subscription of subscriptions) subscription.unsubscribe();
  return { outcomes, faults, raised: client.faultsRaised };
}

describe('property: hostile watch streams never reach the host process', () => {
  it(`${RUNS} generated streams: no uncaught exception, every waiter settles typed, every fault reported`, async () => {
    await fc.assert(
      fc.asyncProperty(watchStreams, async (stream) => {
        const before = uncaught.length;
        const { outcomes, faults, raised } = await runStream(stream);
        figures.streams += 1;
        for (const line of stream.lines) figures.lines[line.kind] += 1;
        if (Object.values(stream.ending).some((ending) => ending !== 'clean')) figures.truncatedOrCut += 1;
        figures.faultsReported += faults.length;
        figures.watchRestartsAfterMalformedLine += faults.filter((fault) => fault instanceof MalformedResponseError).length;
        figures.objectsSkipped += faults.filter((fault) => fault instanceof MalformedObjectError).length;
        for (const outcome of outcomes) {
          figures.waiters += 1;
          expect(['ready', 'failed', 'timeout', 'api-error']).toContain(outcome);
          figures.outcomes[outcome as Outcome] += 1;
        }
        expect(uncaught.slice(before)).toEqual([]);
        // A fault is never silent: every watch ended by a fault was reported through the retry
        // hook, unless the fault was final and ended the waiters with its typed error.
        if (!outcomes.includes('api-error')) {
          expect(faults.filter((fault) => !(fault instanceof MalformedObjectError)).length).toBeGreaterThanOrEqual(raised);
        }
      }),
      { numRuns: RUNS },
    );
    figures.uncaught = uncaught.length;
    expect(uncaught).toEqual([]);
    // The generator does produce every kind of trouble, and the informers do recover from it.
    for (const kind of ['junk', 'wrong-type', 'missing-field', 'error-event'] as const)
      expect(figures.lines[kind]).toBeGreaterThan(RUNS / 10);
    expect(figures.outcomes.ready).toBeGreaterThan(0);
    expect(figures.watchRestartsAfterMalformedLine).toBeGreaterThan(0);
    expect(figures.objectsSkipped).toBeGreaterThan(0);
  }, 120_000);
});
