// Manager's bin/create-container.js on kube-provisioner (CommonJS), complete: the job runner
// starts it as `node bin/create-container.js --container-id=42` and stores what it prints.
// The row, its approved resources and default variables come from Manager's models.
// Run: MANAGER_MODELS=/path/to/manager/models node examples/manager-create-container.cjs --container-id=42
'use strict';
const path = require('node:path');
const { parseArgs } = require('node:util');
const { formatErrorLine } = require('kube-provisioner');
const { createContainer, eventPrinter } = require('kube-provisioner/manager');
const { managerProviders } = require('kube-provisioner/manager-kit');

// Manager's models/index.js (MANAGER_MODELS: models shaped like it, as in the tests).
const models = require(process.env.MANAGER_MODELS || path.join(__dirname, '..', 'models'));

// A provider per node type (kubernetes, proxmox, docker, dummy) and a store of Manager's rows.
// A kubernetes node's cluster comes from its columns only (kubeconfigPath, kubeContext,
// kubeNamespace; or apiUrl, secret, tlsVerify). MANAGER_INSTANCE_ID labels this
// installation's workloads; unset, give this Manager a namespace of its own.
const { store, providers } = managerProviders(models, {
  instance: process.env.MANAGER_INSTANCE_ID,
  // A Proxmox node names the image archive after its digest: Manager's own lookup.
  imageDigest: (...args) => require(path.join(__dirname, '..', 'utils', 'docker-registry')).getImageDigest(...args),
});

const containerId = Number(parseArgs({ options: { 'container-id': { type: 'string' } } }).values['container-id']);

if (!Number.isSafeInteger(containerId)) {
  console.error('Usage: node bin/create-container.js --container-id=<id>');
  process.exitCode = 2;
} else {
  createContainer(containerId, { providers, store, onEvent: eventPrinter() }) // one job-log line per event
    .catch((error) => {
      console.error(formatErrorLine(error)); // the row is left unchanged; a failed Deployment is deleted
      process.exitCode = 1;
    })
    .finally(() => models.sequelize.close());
}
