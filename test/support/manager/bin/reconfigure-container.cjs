'use strict';
// Manager's bin/reconfigure-container.js (create-a-container at ee03a1b), reduced to its order
// of steps and in our words, with the kit's lines docs/manager.md tells Manager to add (marked
// "kube-provisioner"; its test checks they are here, as written). Manager's own node calls run
// for a Proxmox, Docker or dummy node through node.api(); on a kubernetes node the kit makes
// them, where Manager would ask node.api() for its client.
// Run: MANAGER_MODELS=... node bin/reconfigure-container.cjs --container-id=<id> [--cpus=<n>] ...
const db = require(process.env.MANAGER_MODELS);
const { Container, Node, Site } = db;
const { parseArgs } = require('../utils/cli.cjs');
// kube-provisioner: the kit, beside the job's other requires.
const kubernetes = require('kube-provisioner/manager-kit');

async function main() {
  const args = parseArgs();
  if (!args['container-id']) {
    console.error('Usage: node reconfigure-container.js --container-id=<id>');
    process.exit(1);
  }
  const containerId = parseInt(args['container-id'], 10);
  console.log(`Starting container reconfiguration for container ID: ${containerId}`);
  const container = await Container.findByPk(containerId, {
    include: [{ model: Node, as: 'node', include: [{ model: Site, as: 'site' }] }],
  });
  if (!container) {
    console.error(`Container with ID ${containerId} not found`);
    process.exit(1);
  }
  if (!container.containerId) {
    console.error('Container has no Proxmox VMID - cannot reconfigure');
    process.exit(1);
  }
  const node = container.node;
  console.log(`Container: ${container.hostname}`);
  console.log(`Node: ${node.name}`);

  try {
    // kube-provisioner: on a kubernetes node the kit makes the node calls: the Deployment gets the row as it now is, the row keeps its address.
    // A job an approval queued (a resource flag) restarts nothing when the container already has it; a user's restart restarts.
    if (node.nodeType === kubernetes.NODE_TYPE) {
      const approval = Boolean(args.cpus || args.memory || args.swap || args.rootfs);
      await kubernetes.reconfigureOnNode(db, container.id, { instance: process.env.MANAGER_INSTANCE_ID, restartIfUnchanged: !approval });
      console.log('Container reconfiguration completed successfully!');
      process.exit(0);
    }

    const client = await node.api();
    const resourceConfig = {};
    if (args.memory) resourceConfig.memory = parseInt(args.memory, 10);
    if (args.cpus) resourceConfig.cores = parseInt(args.cpus, 10);
    if (Object.keys(resourceConfig).length > 0) await client.updateLxcConfig(node.name, container.containerId, resourceConfig);
    const startUpid = await client.startLxc(node.name, container.containerId);
    await client.waitForTask(node.name, startUpid);
    const macAddress = await client.getLxcMacAddress(node.name, container.containerId);
    const ipv4Address = await client.getLxcIpAddress(node.name, container.containerId);
    await container.update({ macAddress, ipv4Address });
    console.log('Container reconfiguration completed successfully!');
    process.exit(0);
  } catch (err) {
    console.error('Container reconfiguration failed:', err.message);
    process.exit(1);
  }
}

main().catch((err) => {
  console.error('Unhandled error:', err);
  process.exit(1);
});
