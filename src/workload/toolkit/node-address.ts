// A NodePort Service is reached at a node's address and the node ports. Which node is
// chosen once, when the Service first routes to a Pod: the node that Pod runs on. It is
// recorded on the Service (an annotation), so every reader (status, list, statuses$)
// returns the same address for the Service's whole life, whichever node later Pods run on;
// with the default external traffic policy, every node forwards its node ports.
import { concatMap, map, of, type Observable } from 'rxjs';
import { fromAbortable } from '../../rx/from-abortable.js';
import type { KubernetesClient } from '../../kube/client.js';
import type { ProgressEvent } from '../../rollout/events.js';
import { NODE_ADDRESS_ANNOTATION } from '../../input/labels.js';

/**
 * Passes a wait's events through; the routed one of a NodePort Service without a
 * recorded node address first records the address of the node its Pod runs on.
 */
export function recordNodeAddress(
  client: KubernetesClient,
  namespace: string,
  name: string,
): (events$: Observable<ProgressEvent>) => Observable<ProgressEvent> {
  return (events$) =>
    events$.pipe(
      concatMap((event) => {
        const hostIp = event.routedTo?.hostIp;
        const service = event.service;
        if (!service?.routed || service.type !== 'NodePort' || service.address !== null || !hostIp) return of(event);
        const patch = { metadata: { annotations: { [NODE_ADDRESS_ANNOTATION]: hostIp } } };
        return fromAbortable((signal) => client.patch('services', namespace, name, patch, { signal })).pipe(
          map(() => ({ ...event, service: { ...service, address: hostIp }, message: `${hostIp} routes to the Pod` })),
        );
      }),
    );
}
