// What Manager's utils/container-status.js reads from a kubernetes node, unchanged: it calls
// node.api() (models/node.js hands a kubernetes node to the kit's nodeApi), then
// clusterResources('lxc') once for the node, and matches each row by String(vmid) ===
// containerId: here vmid is the provider ID namespace/name, and status Manager's word.
// Run: MANAGER_MODELS=/path/to/manager/models node examples/manager-container-status.cjs --node-id=3
'use strict';
const path = require('node:path');
const { parseArgs } = require('node:util');
const { formatErrorLine } = require('kube-provisioner');

const { Node, sequelize } = require(process.env.MANAGER_MODELS || path.join(__dirname, '..', 'models'));
const nodeId = Number(parseArgs({ options: { 'node-id': { type: 'string' } } }).values['node-id']);

async function printStatuses() {
  const node = await Node.findByPk(nodeId);
  if (!node || !node.hasApiAccess()) throw new Error(`node ${nodeId} has no API access`); // Manager: every status "unknown"
  const api = await node.api();
  // One list of the node's Deployments and Pods: [{ vmid: 'namespace/name', status: 'running', ... }, ...]
  for (const { vmid, status } of await api.clusterResources('lxc')) console.log(`${vmid} ${status}`);
}

printStatuses()
  .catch((error) => {
    console.error(formatErrorLine(error));
    process.exitCode = 1;
  })
  .finally(() => sequelize.close());
