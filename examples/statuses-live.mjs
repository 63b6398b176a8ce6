// A live status list for a UI: one line per change of any Manager workload in a namespace,
// until Ctrl-C (or SECONDS have passed). Usage: node examples/statuses-live.mjs NAMESPACE [SECONDS]
import { KubernetesApi, statuses$ } from 'kube-provisioner';

const [namespace, seconds] = process.argv.slice(2);
const api = KubernetesApi.fromConfig({ namespace });
const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
const timer = seconds ? setTimeout(() => controller.abort(), Number(seconds) * 1000) : undefined;

// The UI's table: the latest status per provider ID.
const rows = new Map();
statuses$(api, { signal: controller.signal }).subscribe({
  next: (event) => {
    rows.set(event.providerId, event.status);
    console.log(`${event.at} ${event.providerId} ${event.status.state}: ${event.status.message}`);
  },
  error: (error) => {
    clearTimeout(timer);
    if (error.name === 'OperationAbortedError') {
      console.log(`stopped; ${rows.size} workloads seen`);
      return;
    }
    // A fatal error (401, 403, TLS): the API server being down is `unknown`, not an error.
    console.error(`${error.name}: ${error.message}`);
    process.exitCode = 1;
  },
});
