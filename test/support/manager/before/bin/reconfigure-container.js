// Manager's bin/reconfigure-container.js before the guide, in our words around the lines the
// guide names.
const path = require('path');
const db = require(path.join(__dirname, '..', 'models'));
const { Container } = db;
const { parseArgs } = require(path.join(__dirname, '..', 'utils', 'cli'));

async function main() {
  const args = parseArgs();
  const container = await Container.findByPk(parseInt(args['container-id'], 10), { include: ['node'] });
  const node = container.node;

  try {
    // Get the Proxmox API client
    const client = await node.api();
    await client.updateLxcConfig(node.name, container.containerId, { cores: args.cpus });
    console.log('Container reconfiguration completed successfully!');
    process.exit(0);
  } catch (err) {
    console.error('Container reconfiguration failed:', err.message);
    process.exit(1);
  }
}

main();
