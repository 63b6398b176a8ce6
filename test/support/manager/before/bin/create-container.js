// Manager's bin/create-container.js before the guide, in our words around the lines the guide
// names.
const path = require('path');
const db = require(path.join(__dirname, '..', 'models'));
const { Container, Service, Setting } = db;
const { parseArgs } = require(path.join(__dirname, '..', 'utils', 'cli'));
const { manageDnsRecords } = require(path.join(__dirname, '..', 'utils', 'cloudflare-dns'));
const { createVirtualMachine, withNetbox } = require(path.join(__dirname, '..', 'utils', 'netbox'));

async function main() {
  const args = parseArgs();
  const container = await Container.findByPk(parseInt(args['container-id'], 10), { include: ['node'] });
  const node = container.node;
  const site = await node.getSite();

  try {
    // Get the Proxmox API client
    const client = await node.api();
    const vmid = await client.nextId();
    const config = await client.lxcConfig(node.name, vmid);
    const actualCores = config['cores'] != null ? parseInt(config['cores'], 10) : null;
    const actualMemoryMb = config['memory'] != null ? parseInt(config['memory'], 10) : null;
    const actualDiskGb = config['rootfs'] ? 8 : null;
    const ipv4Address = await client.getLxcIpAddress(node.name, vmid);
    await container.update({ containerId: String(vmid), ipv4Address });

    // Create Cloudflare DNS records for cross-site HTTP services
    const services = await Service.findAll({ where: { containerId: container.id, type: 'http' } });
    if (services.length > 0) {
      const warnings = await manageDnsRecords(services, site);
      for (const w of warnings) console.warn(`[DNS WARNING] ${w}`);
    }

    // Register the container in NetBox if the integration is configured
    await withNetbox(Setting, async (baseUrl, token) => {
      await createVirtualMachine(baseUrl, token, {
        hostname: container.hostname,
        ipv4Address,
        vcpus: actualCores,
        memoryMb: actualMemoryMb,
        diskGb: actualDiskGb,
      });
    });

    process.exit(0);
  } catch (err) {
    console.error('Container creation failed:', err.message);
    process.exit(1);
  }
}

main().catch(err => {
  console.error('Unhandled error:', err);
  process.exit(1);
});
