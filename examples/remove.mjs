// Delete a workload: only if its Deployment carries the expected container-id label.
// Usage: KUBECONFIG=... node examples/remove.mjs NAMESPACE/NAME CONTAINER_ID
import { KubernetesApi, WorkloadOwnershipError, remove } from 'kube-provisioner';

const [providerId, containerId] = process.argv.slice(2);
const api = KubernetesApi.fromConfig({ kubeconfigPath: process.env.KUBECONFIG });

try {
  // Resolves once the Deployment and its Pods are gone (at once when it was already).
  const result = await remove(api, providerId, { containerId, timeoutMs: 120_000 });
  console.log(result.changed ? `deleted ${result.providerId}` : `${result.providerId} was already gone`);
} catch (error) {
  if (!(error instanceof WorkloadOwnershipError)) throw error;
  console.log(`refused: ${error.message}`);
  process.exitCode = 6;
}
