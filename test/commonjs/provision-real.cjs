// Manager is CommonJS: require the built package by name and provision on a real cluster.
// Usage: node provision-real.cjs <kubeconfig> <namespace> <hostname> <containerId>
'use strict';
const { KubernetesApi, provision } = require('kube-provisioner');

const [kubeconfigPath, namespace, hostname, containerId] = process.argv.slice(2);
const api = KubernetesApi.fromConfig({ kubeconfigPath, namespace });
provision(api, { containerId, nodeId: 1, hostname, image: 'nginx:1.27', cpus: 0.1, memoryMb: 64 }, { timeoutMs: 60000 }).then(
  (result) => process.stdout.write(JSON.stringify(result) + '\n'),
  (error) => {
    process.stderr.write(`${error.name}: ${error.message}\n`);
    process.exitCode = 1;
  },
);
