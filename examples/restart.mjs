// Restart a workload and follow its progress live: the Observable form (restart$) emits
// the same kind of events as creation, one JSON object each.
// Usage: KUBECONFIG=... node examples/restart.mjs NAMESPACE/NAME
import { KubernetesApi, restart$ } from 'kube-provisioner';

const providerId = process.argv[2];
const api = KubernetesApi.fromConfig({ kubeconfigPath: process.env.KUBECONFIG });

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
