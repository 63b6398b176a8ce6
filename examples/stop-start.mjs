// Stop a workload, then start it again: same provider ID, a new Pod.
// Usage: KUBECONFIG=... node examples/stop-start.mjs NAMESPACE/NAME
import { KubernetesApi, start, stop } from 'kube-provisioner';

const providerId = process.argv[2];
const api = KubernetesApi.fromConfig({ kubeconfigPath: process.env.KUBECONFIG });

// Resolves once the Deployment is at 0 replicas and none of its Pods is left.
const stopped = await stop(api, providerId, { timeoutMs: 120_000 });
console.log(`stopped ${stopped.providerId} (changed: ${stopped.changed})`);

// Resolves once the new Pod's rollout is complete and available.
const started = await start(api, providerId, { timeoutMs: 120_000 });
console.log(`started ${started.providerId} (changed: ${started.changed})`);

// Both are idempotent: nothing is written when there is nothing to do.
const again = await start(api, providerId);
console.log(`started again (changed: ${again.changed})`);
