// The independent observer of a namespace's EndpointSlices (observer-process.ts): records,
// per Service, when a slice first listed a ready endpoint on every port the Service asked
// for, as stamped in the observer's own process: the moment a connection to the Service's
// address reaches its Pod.
import type { SliceObservation } from './observations.js';
import { ObserverProcess } from './observer-process.js';

export type { SliceObservation } from './observations.js';

export class EndpointSliceObserver {
  readonly events: SliceObservation[] = [];

  private constructor(private readonly process: ObserverProcess) {
    process.on('endpointslices', (observation) => this.events.push(observation));
  }

  static async start(kubeconfigPath: string, namespace: string): Promise<EndpointSliceObserver> {
    return new EndpointSliceObserver(await ObserverProcess.start(kubeconfigPath, namespace, ['endpointslices']));
  }

  get reconnects(): number {
    return this.process.reconnects;
  }

  /**
   * When the observer first saw `service` routed: a slice with a ready endpoint that
   * carries every one of `ports` (`port/PROTOCOL`), at or after `since`.
   */
  routedAt(service: string, ports: readonly string[], since = 0): SliceObservation | undefined {
    return this.events.find(
      (event) =>
        event.service === service && event.at >= since && event.readyEndpoints > 0 && ports.every((port) => event.ports.includes(port)),
    );
  }

  stop(): Promise<void> {
    return this.process.stop();
  }
}
