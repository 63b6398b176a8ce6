// The lifecycle benchmark's independent observer of a namespace's Deployments and Pods
// (observer-process.ts): what detection is measured against, as stamped in the observer's
// own process: a Deployment's generation, replicas and completeness (ours and kubectl's
// predicates), a Pod's deletion.
import type { DeploymentObservation } from './observations.js';
import { ObserverProcess } from './observer-process.js';

export interface DeploymentSeen extends DeploymentObservation {
  /** rolloutStatus says Complete, and the event is not a deletion. */
  readonly complete: boolean;
}

export interface PodSeen {
  readonly containerId: string;
  readonly uid: string;
  /** The event's type, or TERMINATING for a Pod that has a deletionTimestamp. */
  readonly type: string;
  readonly at: number;
}

export class LifecycleObserver {
  readonly deployments: DeploymentSeen[] = [];
  readonly pods: PodSeen[] = [];

  private constructor(private readonly process: ObserverProcess) {
    process.on('deployments', (observation) =>
      this.deployments.push({ ...observation, complete: observation.type !== 'DELETED' && observation.state === 'Complete' }),
    );
    process.on('pods', (observation) =>
      this.pods.push({ containerId: observation.containerId, uid: observation.uid, type: observation.phaseOfLife, at: observation.at }),
    );
  }

  static async start(kubeconfigPath: string, namespace: string): Promise<LifecycleObserver> {
    return new LifecycleObserver(await ObserverProcess.start(kubeconfigPath, namespace, ['deployments', 'pods']));
  }

  /** The observation of `name` at exactly `resourceVersion`. */
  deploymentAt(name: string, resourceVersion: string): DeploymentSeen | undefined {
    return this.deployments.find((seen) => seen.name === name && seen.resourceVersion === resourceVersion);
  }

  stop(): Promise<void> {
    return this.process.stop();
  }
}
