// Stop a workload, then start it again: the same provider ID, a new Pod.
// Run against any cluster: KUBECONFIG_PATH=~/.kube/config NAMESPACE=team-a node examples/stop-start.mjs
import { KubernetesApi, provision, start, stop } from 'kube-provisioner';

const api = KubernetesApi.fromConfig({ kubeconfigPath: process.env.KUBECONFIG_PATH, namespace: process.env.NAMESPACE });
const spec = { containerId: 45, nodeId: 7, hostname: 'web-stop', image: 'docker.io/library/nginx:1.27', cpus: 0.5, memoryMb: 256 };
// Manager stores this provider ID ("namespace/web-stop") when it creates the container.
const { providerId } = await provision(api, spec);

// Resolves once the Deployment is at 0 replicas and none of its Pods is left.
const stopped = await stop(api, providerId, { timeoutMs: 120_000 });
console.log(`stopped ${stopped.providerId} (changed: ${stopped.changed})`);

// Resolves once the new Pod's rollout is complete and available.
const started = await start(api, providerId, { timeoutMs: 120_000 });
console.log(`started ${started.providerId} (changed: ${started.changed})`);

// Idempotent: nothing is written when there is nothing to do.
const again = await start(api, providerId);
console.log(`started again (changed: ${again.changed})`);
