// Delete a workload: only if its Deployment carries the expected container-id label.
// Run against any cluster: KUBECONFIG_PATH=~/.kube/config NAMESPACE=team-a node examples/remove.mjs
import { KubernetesApi, WorkloadOwnershipError, provision, remove } from 'kube-provisioner';

const api = KubernetesApi.fromConfig({ kubeconfigPath: process.env.KUBECONFIG_PATH, namespace: process.env.NAMESPACE });
const spec = { containerId: 48, nodeId: 7, hostname: 'web-remove', image: 'docker.io/library/nginx:1.27', cpus: 0.5, memoryMb: 256 };
const { providerId } = await provision(api, spec);

try {
  await remove(api, providerId, { containerId: 49 }); // another container's id: refused
} catch (error) {
  if (!(error instanceof WorkloadOwnershipError)) throw error;
  console.log(`refused: ${error.message}`);
}

// Resolves once the Deployment and its Pods are gone (at once when it was already).
const removed = await remove(api, providerId, { containerId: spec.containerId, timeoutMs: 120_000 });
console.log(removed.changed ? `deleted ${removed.providerId}` : `${removed.providerId} was already gone`);
