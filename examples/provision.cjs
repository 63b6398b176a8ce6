// The same from CommonJS, as Manager's job scripts run: require() works on Node >= 20.19.
// Run: KUBECONFIG_PATH=~/.kube/config NAMESPACE=team-a node examples/provision.cjs
'use strict';
const { KubernetesApi, provision } = require('kube-provisioner');

const api = KubernetesApi.fromConfig({ kubeconfigPath: process.env.KUBECONFIG_PATH, namespace: process.env.NAMESPACE });
const spec = { containerId: 43, nodeId: 7, hostname: 'web-cjs', image: 'docker.io/library/nginx:1.27', cpus: 0.5, memoryMb: 256 };

provision(api, spec).then(
  ({ providerId, adopted, durationMs }) => console.log(JSON.stringify({ providerId, adopted, durationMs })),
  (error) => {
    console.error(`${error.name}: ${error.message}`); // every error has a constant name
    process.exitCode = 1;
  },
);
