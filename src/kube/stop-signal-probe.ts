// Does the API server keep a container's `lifecycle.stopSignal` (Kubernetes'
// ContainerStopSignals feature)? One with the feature gate off accepts the field and drops
// it, so only what it would store tells. Asked with a server-side dry run (nothing is
// stored) of a Deployment in the namespace: the request and the permission a create needs,
// and a Deployment's pod template is dropped from the same way as a Pod.
import type { KubernetesClient } from './client.js';
import type { V1Deployment } from './objects.js';
import { SYSTEMD_STOP_SIGNAL } from '../input/system-container.js';

/** `kept`: the stored Pod names the stop signal; `dropped`: the field was accepted and dropped. */
export type StopSignalSupport = 'kept' | 'dropped';

/** The name the dry run asks for (the API server adds a suffix); nothing by it is stored. */
export const STOP_SIGNAL_PROBE_NAME = 'kp-stop-signal-probe-';

const PROBE_LABELS = { 'app.kubernetes.io/name': 'kp-stop-signal-probe' };

/** The smallest Deployment whose Pod names a stop signal: no replica, an image never pulled. */
function probeDeployment(): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { generateName: STOP_SIGNAL_PROBE_NAME, labels: PROBE_LABELS },
    spec: {
      replicas: 0,
      selector: { matchLabels: PROBE_LABELS },
      template: {
        metadata: { labels: PROBE_LABELS },
        spec: {
          // The API server takes a stop signal only from a Pod that names its OS.
          os: { name: 'linux' },
          containers: [{ name: 'probe', image: 'registry.k8s.io/pause:3.10', lifecycle: { stopSignal: SYSTEMD_STOP_SIGNAL } }],
        },
      },
    },
  };
}

/** Rejects with the API's error (ForbiddenError, a webhook's refusal, ...) when it cannot be asked. */
export async function probeStopSignal(client: KubernetesClient, namespace: string, signal: AbortSignal): Promise<StopSignalSupport> {
  const stored = await client.create('deployments', namespace, probeDeployment(), { dryRun: true, signal });
  const container = stored.spec?.template.spec?.containers[0];
  return container?.lifecycle?.stopSignal === SYSTEMD_STOP_SIGNAL ? 'kept' : 'dropped';
}
