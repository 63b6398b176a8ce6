// A job script Manager adds, bin/start-stop-container.js (CommonJS), for every node type: the
// job runner starts it as `node bin/start-stop-container.js --container-id=42 --action=stop`
// (or start, restart) when the user presses the button. The row keeps the result: its
// provider ID and address (on Kubernetes the Service's, kept through a stop).
// Run: MANAGER_MODELS=/path/to/manager/models node examples/manager-start-stop-container.cjs --container-id=42 --action=stop
'use strict';
const path = require('node:path');
const { parseArgs } = require('node:util');
const { formatErrorLine } = require('kube-provisioner');
const { eventPrinter } = require('kube-provisioner/manager');
const { managerProviders } = require('kube-provisioner/manager-kit');

const models = require(process.env.MANAGER_MODELS || path.join(__dirname, '..', 'models'));
const { lifecycle } = managerProviders(models, { instance: process.env.MANAGER_INSTANCE_ID });

const ACTIONS = ['start', 'stop', 'restart'];
const { values } = parseArgs({ options: { 'container-id': { type: 'string' }, action: { type: 'string' } } });
const containerId = Number(values['container-id']);

if (!Number.isSafeInteger(containerId) || !ACTIONS.includes(values.action)) {
  console.error(`Usage: node bin/start-stop-container.js --container-id=<id> --action=${ACTIONS.join('|')}`);
  process.exitCode = 2;
} else {
  lifecycle[values.action](containerId, { onEvent: eventPrinter() }) // one job-log line per event
    .catch((error) => {
      console.error(formatErrorLine(error)); // e.g. ContainerNotProvisionedError: the create job has not finished
      process.exitCode = 1;
    })
    .finally(() => models.sequelize.close());
}
