// Turns a provider written as plain async steps (Manager's Proxmox and Docker clients are
// Promise APIs) into a cold Observable of step events ending in one `provisioned` event.
// Unsubscribing stops the steps: the call in flight finishes, no further call is made.
import type { Observable, SchedulerLike } from 'rxjs';
import { KubeProvisionerError, fromAbortable } from '../../index.js';
import { ProviderStepError } from '../errors.js';
import { isoTime } from '../../index.js';
import type { ContainerId, ContainerRecord, Provider, ProviderEvent, ProvisionedEvent, StepEvent } from './types.js';

/** The `provisioned` event without what the runner stamps on it. */
export type ProvisionOutcome = Omit<ProvisionedEvent, 'type' | 'at' | 'provider'>;

export interface StepRunner {
  /** Aborted when the subscriber unsubscribes. */
  readonly signal: AbortSignal;
  report(step: string, message: string, severity?: StepEvent['severity']): void;
  /**
   * One client call. Refuses to start once stopped; a rejection becomes a
   * ProviderStepError naming the step (and the provider ID, once known).
   */
  call<T>(step: string, invoke: () => Promise<T> | T): Promise<T>;
  /** The resource now exists: failures from here on name its provider ID. */
  resourceCreated(providerId: string): void;
}

export interface StepProgram {
  readonly provider: string;
  readonly containerId: ContainerId;
  readonly clock: SchedulerLike;
  run(steps: StepRunner): Promise<ProvisionOutcome>;
}

/** Thrown into the steps after unsubscription; nobody is listening for it any more. */
class StepsStopped extends KubeProvisionerError {
  override readonly name = 'StepsStopped';
}

export function runSteps(program: StepProgram): Observable<ProviderEvent> {
  return runStepsTo<ProvisionOutcome, ProviderEvent>(program, (outcome) => ({
    ...outcome,
    type: 'provisioned',
    at: isoTime(program.clock),
    provider: program.provider,
  }));
}

/** Steps over a node client ending in one event built from their outcome (`finish`). */
export function runStepsTo<Outcome, Event>(
  program: Omit<StepProgram, 'run'> & { readonly providerId?: string; run(steps: StepRunner): Promise<Outcome> },
  finish: (outcome: Outcome) => Event,
): Observable<StepEvent | Event> {
  return fromAbortable<StepEvent | Event>(async (signal, subscriber) => {
    let providerId: string | undefined = program.providerId;

    const steps: StepRunner = {
      signal,
      report(step, message, severity = 'info') {
        if (signal.aborted) return;
        subscriber.next({ type: 'step', at: isoTime(program.clock), provider: program.provider, step, message, severity });
      },
      async call(step, invoke) {
        if (signal.aborted) throw new StepsStopped('the steps were stopped');
        try {
          return await invoke();
        } catch (error) {
          throw new ProviderStepError(program.provider, step, program.containerId, { providerId, cause: error });
        }
      },
      resourceCreated(id) {
        providerId = id;
      },
    };

    return finish(await program.run(steps));
  });
}

/** A Provider whose work is plain async steps over a node client (Proxmox, Docker). */
export function stepsProvider(nodeType: string, run: (steps: StepRunner, record: ContainerRecord) => Promise<ProvisionOutcome>): Provider {
  return {
    nodeType,
    provision$: (record, context) =>
      runSteps({ provider: nodeType, containerId: record.id, clock: context.clock, run: (steps) => run(steps, record) }),
  };
}
