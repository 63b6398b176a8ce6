// Restart a workload and follow its progress live: the Observable form (restart$) emits
// plain-JSON events, as creation does.
// Run against any cluster: KUBECONFIG_PATH=~/.kube/config NAMESPACE=team-a node examples/restart.mjs
import { KubernetesApi, provision, restart$ } from 'kube-provisioner';

const api = KubernetesApi.fromConfig({ kubeconfigPath: process.env.KUBECONFIG_PATH, namespace: process.env.NAMESPACE });
const spec = { containerId: 46, nodeId: 7, hostname: 'web-restart', image: 'docker.io/library/nginx:1.27', cpus: 0.5, memoryMb: 256 };
const { providerId } = await provision(api, spec);

restart$(api, providerId, { timeoutMs: 120_000 }).subscribe({
  next: (event) => {
    if (event.type === 'patched') console.log(`new revision: generation ${event.generation}`);
    if (event.type === 'progress') console.log(`  ${event.message}`);
    if (event.type === 'restarted') console.log(event.running ? 'restarted' : 'stopped: it stays stopped');
  },
  error: (error) => {
    console.error(`${error.name}: ${error.message}`);
    process.exitCode = 1;
  },
});
