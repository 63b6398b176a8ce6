// The Observable form, for a live UI: one plain-JSON event per step of the rollout.
// Run: KUBECONFIG_PATH=~/.kube/config NAMESPACE=team-a node examples/progress.mjs
import { KubernetesApi, provision$ } from 'kube-provisioner';

const api = KubernetesApi.fromConfig({ kubeconfigPath: process.env.KUBECONFIG_PATH, namespace: process.env.NAMESPACE });
const spec = { containerId: 44, nodeId: 7, hostname: 'web-live', image: 'docker.io/library/nginx:1.27', cpus: 0.5, memoryMb: 256 };

// Cold: nothing happens until subscribe. Unsubscribing stops the wait (the Deployment stays).
const subscription = provision$(api, spec, { timeoutMs: 120_000 }).subscribe({
  // created | adopted | progress | ready; `message` is plain words, e.g. "waiting to be scheduled"
  next: (event) => console.log(event.type, event.type === 'progress' ? event.message : event.providerId),
  error: (error) => {
    console.error(`${error.name}: ${error.message}`);
    process.exitCode = 1;
  },
});
process.once('SIGINT', () => subscription.unsubscribe());
