// The independent observer of a namespace's PersistentVolumeClaims (observer-process.ts):
// records, per claim, when it was first seen Bound, as stamped in the observer's own process.
import { ObserverProcess } from './observer-process.js';

export class ClaimObserver {
  private readonly boundAt = new Map<string, number>();

  private constructor(private readonly process: ObserverProcess) {
    process.on('persistentvolumeclaims', (observation) => {
      if (observation.phase === 'Bound' && !this.boundAt.has(observation.name)) this.boundAt.set(observation.name, observation.at);
    });
  }

  static async start(kubeconfigPath: string, namespace: string): Promise<ClaimObserver> {
    return new ClaimObserver(await ObserverProcess.start(kubeconfigPath, namespace, ['persistentvolumeclaims']));
  }

  get reconnects(): number {
    return this.process.reconnects;
  }

  /** When the observer first saw the claim `name` Bound. */
  bound(name: string): number | undefined {
    return this.boundAt.get(name);
  }

  stop(): Promise<void> {
    return this.process.stop();
  }
}
