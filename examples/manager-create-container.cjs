// Manager's bin/create-container.js on kube-provisioner/manager (CommonJS): one create flow
// for every node type. Manager stores records with SequelizeContainerStore over its own
// models; this example has no Manager database, so an in-memory store stands in for it.
// Run: KUBECONFIG_PATH=~/.kube/config NAMESPACE=team-a node examples/manager-create-container.cjs
'use strict';
const {
  MemoryContainerStore,
  ProviderRegistry,
  createContainer,
  createDummyProvider,
  createKubernetesProvider,
} = require('kube-provisioner/manager');

// The registry picks the provider by node type; no other code checks the type. Manager also
// registers createProxmoxProvider and createDockerProvider with its own node API objects.
const providers = new ProviderRegistry([
  createKubernetesProvider(), // one client, and one pair of informers, per node config
  createDummyProvider(), // simulated, for development
]);

// The record as Manager's Container row (with its Node and Site) maps onto it.
const store = new MemoryContainerStore([
  {
    id: 101,
    hostname: 'manager-web',
    username: 'alice',
    template: 'docker.io/library/nginx:1.27',
    providerId: null, // set by the flow only after the provider succeeded
    macAddress: null,
    ipAddress: null,
    nvidiaRequested: false,
    environment: { GREETING: 'hello' },
    defaultEnvironment: {},
    entrypoint: null, // the image's own ENTRYPOINT and CMD
    resources: { cpus: 1, memoryMb: 512, swapMb: 0, rootfsGb: 8 },
    node: {
      id: 3,
      name: 'k8s-1',
      nodeType: 'kubernetes',
      kubeconfigPath: process.env.KUBECONFIG_PATH, // unset: $KUBECONFIG, then ~/.kube/config
      kubeNamespace: process.env.NAMESPACE, // unset: "default"
    },
    site: null,
  },
]);

createContainer(101, {
  providers,
  store,
  onEvent: (event) => console.log(JSON.stringify(event)), // the job log: one line per event
}).then(
  async () => console.log(`stored provider ID ${(await store.load(101)).providerId}`),
  (error) => {
    console.error(`${error.name}: ${error.message}`); // the record is left unchanged
    process.exitCode = 1;
  },
);
