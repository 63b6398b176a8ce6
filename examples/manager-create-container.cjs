// Manager's bin/create-container.js on kube-provisioner/manager (CommonJS), complete: the job
// runner starts it as `node bin/create-container.js --container-id=42` and stores what it
// prints. The record, its approved resources and default variables come from Manager's models.
// Run: MANAGER_MODELS=/path/to/manager/models node examples/manager-create-container.cjs --container-id=42
'use strict';
const path = require('node:path');
const { parseArgs } = require('node:util');
const { formatErrorLine } = require('kube-provisioner');
const {
  ProviderRegistry,
  SequelizeContainerStore,
  createContainer,
  createDummyProvider,
  createKubernetesProvider,
  eventPrinter,
} = require('kube-provisioner/manager');

// Manager's models/index.js (MANAGER_MODELS: models shaped like it, as in the tests).
const models = require(process.env.MANAGER_MODELS || path.join(__dirname, '..', 'models'));
const { sequelize, Container, Node, Site, ResourceRequest } = models;

const containerId = Number(parseArgs({ options: { 'container-id': { type: 'string' } } }).values['container-id']);

const store = new SequelizeContainerStore({
  Container,
  findOptions: { include: [{ model: Node, as: 'node', include: [{ model: Site, as: 'site' }] }] },
  // What the user was approved; Manager's defaults only for a resource never requested.
  approvedResources: (row) => ResourceRequest.getApprovedResources(row.siteId, row.hostname, row.username),
  resourceDefaults: ResourceRequest.RESOURCE_DEFAULTS,
  // The admin's default variables, below the user's own.
  defaultEnvironment: () => Container.getSystemDefaultEnvVars(),
});

// The registry picks the provider by node type; no other code checks the type. Manager also
// registers createProxmoxProvider and createDockerProvider with its own node API objects.
const providers = new ProviderRegistry([
  // The cluster comes from the node's columns only (kubeconfigPath, kubeContext,
  // kubeNamespace; or apiUrl, secret, tlsVerify). MANAGER_INSTANCE_ID labels this
  // installation's workloads; unset, give this Manager a namespace of its own.
  createKubernetesProvider({ instance: process.env.MANAGER_INSTANCE_ID || undefined }),
  createDummyProvider(), // simulated, for development
]);

if (!Number.isSafeInteger(containerId)) {
  console.error('Usage: node bin/create-container.js --container-id=<id>');
  process.exitCode = 2;
} else {
  createContainer(containerId, { providers, store, onEvent: eventPrinter() }) // one job-log line per event
    .catch((error) => {
      console.error(formatErrorLine(error)); // the record is left unchanged; a failed Deployment is deleted
      process.exitCode = 1;
    })
    .finally(() => sequelize.close());
}
