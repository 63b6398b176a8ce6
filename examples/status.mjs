// The status of one Manager container, by its provider ID (`namespace/name`).
// Usage: node examples/status.mjs PROVIDER_ID [CONTAINER_ID]
import { KubernetesApi, status } from 'kube-provisioner';

const [providerId, containerId] = process.argv.slice(2);
const api = KubernetesApi.fromConfig(); // $KUBECONFIG, else ~/.kube/config

// Never throws because the API server is down: the state is then `unknown`, with the reason.
const value = await status(api, providerId, { containerId, timeoutMs: 10_000 });
console.log(`${providerId}: ${value.state} (${value.reason}) ${value.message}`);
if (value.podIp) {
  // Show it, never store it as an identity: it changes on every restart and rollout.
  console.log(`pod IP ${value.podIp} on ${value.nodeName}, ${value.restarts} restarts, image ${value.image}`);
}
