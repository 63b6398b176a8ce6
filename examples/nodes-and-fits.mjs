// The cluster's nodes, and whether a 2-core, 1 GiB workload has room somewhere right now.
// Usage: node examples/nodes-and-fits.mjs /path/to/kubeconfig
import { KubernetesApi, fits, nodes } from 'kube-provisioner';

const api = KubernetesApi.fromConfig({ kubeconfigPath: process.argv[2] });

for (const node of await nodes(api)) {
  const cpu = `${node.requested.cpuMillicores}m of ${node.allocatable.cpuMillicores}m CPU requested`;
  const state = `${node.ready ? 'Ready' : 'NotReady'} since ${node.readySince}, ${node.schedulable ? 'schedulable' : 'cordoned'}`;
  console.log(`${node.name}: ${state}, InternalIP ${node.internalIP ?? 'none'}, ${cpu}`);
}

// A hint before creating, never a promise: the scheduler decides.
const verdict = await fits(api, { cpus: 2, memoryMb: 1024 });
console.log(verdict.fits ? `fits: ${verdict.message}` : `will not fit now: ${verdict.message}`);
