// Manager's bin/reconfigure-container.js on kube-provisioner (CommonJS), for every node type.
// The job runner starts it as `node bin/reconfigure-container.js --container-id=42` when the
// user changes the variables or the entrypoint or asks for a restart, and with `--cpus=2`
// (or --memory, --swap, --rootfs) when an admin approves a resource request. The container
// gets its row as it now is: its variables, entrypoint and approved resources (the approval
// that queued the job is among them, and a newer one is never undone by an older job).
// Run: MANAGER_MODELS=/path/to/manager/models node examples/manager-reconfigure-container.cjs --container-id=42
'use strict';
const path = require('node:path');
const { parseArgs } = require('node:util');
const { formatErrorLine } = require('kube-provisioner');
const { eventPrinter } = require('kube-provisioner/manager');
const { managerProviders } = require('kube-provisioner/manager-kit');

const models = require(process.env.MANAGER_MODELS || path.join(__dirname, '..', 'models'));
const { lifecycle } = managerProviders(models, { instance: process.env.MANAGER_INSTANCE_ID });

const amount = { type: 'string' }; // the approved resource that queued the job (the row holds its amount)
const { values } = parseArgs({
  options: { 'container-id': { type: 'string' }, cpus: amount, memory: amount, swap: amount, rootfs: amount },
});
const containerId = Number(values['container-id']);
// A resource flag: an approval queued the job. None: the user's edit or restart did.
const approval = ['cpus', 'memory', 'swap', 'rootfs'].some((flag) => values[flag] !== undefined);

async function reconfigure() {
  const onEvent = eventPrinter(); // one job-log line per event
  // Each operation takes the row's id, reads it through the store and saves its result there.
  const reconfigured = await lifecycle.reconfigure(containerId, { onEvent });
  // Nothing to change: the user asked for a restart, so restart it, as Manager's script did. An
  // approval the container already has (a second, identical one) restarts nothing.
  if (!reconfigured.changed && !approval) await lifecycle.restart(containerId, { onEvent });
}

if (!Number.isSafeInteger(containerId)) {
  console.error('Usage: node bin/reconfigure-container.js --container-id=<id> [--cpus=<n>] [--memory=<MB>] [--swap=<MB>] [--rootfs=<GB>]');
  process.exitCode = 2;
} else {
  reconfigure()
    .catch((error) => {
      console.error(formatErrorLine(error));
      process.exitCode = 1;
    })
    .finally(() => models.sequelize.close());
}
