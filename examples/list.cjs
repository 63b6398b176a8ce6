// Every Manager workload of a namespace, as Manager's node snapshot entries (CommonJS, as
// Manager is). Usage: node examples/list.cjs NAMESPACE
const { KubernetesApi, list } = require('kube-provisioner');

async function main() {
  const api = KubernetesApi.fromConfig({ namespace: process.argv[2] });
  for (const entry of await list(api)) {
    // entry.vmid is the provider ID: what Manager stores in Container.containerId.
    console.log(`${entry.vmid} container ${entry.containerId} on node ${entry.nodeId}: ${entry.status} (${entry.detail.message})`);
  }
}

main().catch((error) => {
  console.error(`${error.name}: ${error.message}`);
  process.exitCode = 1;
});
