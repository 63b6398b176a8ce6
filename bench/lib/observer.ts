// The independent observer of a namespace's Deployments (observer-process.ts): for every
// event, when it reached the observer's own process and which resourceVersion it carried,
// classified by two predicates: ours (rolloutStatus) and kubectl rollout status's.
import type { DeploymentObservation } from './observations.js';
import { ObserverProcess } from './observer-process.js';

export type Observation = DeploymentObservation;

export class DeploymentObserver {
  readonly events: Observation[] = [];
  private readonly byKey = new Map<string, Observation>();

  private constructor(private readonly process: ObserverProcess) {
    process.on('deployments', (observation) => {
      this.events.push(observation);
      this.byKey.set(`${observation.name}\u0000${observation.resourceVersion}`, observation);
    });
  }

  /** Resolves once the watch is established (the server answered 200). */
  static async start(kubeconfigPath: string, namespace: string): Promise<DeploymentObserver> {
    return new DeploymentObserver(await ObserverProcess.start(kubeconfigPath, namespace, ['deployments']));
  }

  /** Watch connections the observer had to re-open (server closes); ideally 0. */
  get reconnects(): number {
    return this.process.reconnects;
  }

  /** Watches that could not be resumed, with why; ideally none. */
  get failures(): readonly string[] {
    return this.process.failures;
  }

  /** The observation of `name` at exactly `resourceVersion`. */
  at(name: string, resourceVersion: string): Observation | undefined {
    return this.byKey.get(`${name}\u0000${resourceVersion}`);
  }

  /** The first observation of `name` that satisfies `predicate`. */
  first(name: string, predicate: (observation: Observation) => boolean): Observation | undefined {
    return this.events.find((observation) => observation.name === name && predicate(observation));
  }

  /** Once every event stamped so far has arrived, ends the observer's process. */
  stop(): Promise<void> {
    return this.process.stop();
  }
}
