'use strict';
// Manager's bin/create-container.js (create-a-container at ee03a1b), reduced to its order of
// steps and in our words, with the kit's lines docs/manager.md tells Manager to add (marked
// "kube-provisioner"; its test checks they are here, as written). Manager's own node calls
// (nextId, createLxc, updateLxcConfig, startLxc, the MAC and IP) run for a Proxmox, Docker
// or dummy node through node.api(); on a kubernetes node the kit makes them. Every step of
// Manager's own after the node's (the Cloudflare DNS records, the NetBox registration) runs
// for every node type. Run: MANAGER_MODELS=... node bin/create-container.cjs --container-id=<id>
const db = require(process.env.MANAGER_MODELS);
const { Container, Node, Site, Service, HTTPService, ExternalDomain, Setting, ResourceRequest } = db;
const { parseArgs } = require('../utils/cli.cjs');
const { manageDnsRecords } = require('../utils/cloudflare-dns.cjs');
const { createVirtualMachine, withNetbox } = require('../utils/netbox.cjs');
// kube-provisioner: the kit, beside the job's other requires.
const kubernetes = require('kube-provisioner/manager-kit');

async function main() {
  const args = parseArgs();
  if (!args['container-id']) {
    console.error('Usage: node create-container.js --container-id=<id>');
    process.exit(1);
  }
  const containerId = parseInt(args['container-id'], 10);
  console.log(`Starting container creation for container ID: ${containerId}`);

  const container = await Container.findByPk(containerId, {
    include: [{ model: Node, as: 'node', include: [{ model: Site, as: 'site' }] }],
  });
  if (!container) {
    console.error(`Container with ID ${containerId} not found`);
    process.exit(1);
  }
  if (container.containerId) {
    console.error(`Container already has a provider container ID (${container.containerId}); refusing to re-create`);
    process.exit(1);
  }
  const node = container.node;
  const site = node.site;
  console.log(`Container: ${container.hostname}`);
  console.log(`Node: ${node.name}`);

  const approvedResources = await ResourceRequest.getApprovedResources(site.id, container.hostname, container.username);
  const cores = approvedResources.cpus || 4;
  const memory = approvedResources.memory || 4096;
  const swap = approvedResources.swap || 0;
  const rootfsSize = approvedResources.rootfs || 50;
  console.log(`Resources: cores=${cores}, memory=${memory}MB, swap=${swap}MB, rootfs=${rootfsSize}GB`);

  try {
    // kube-provisioner: on a kubernetes node the kit makes the node calls and stores the provider ID and address;
    // Manager's own steps after the node's (Cloudflare DNS, NetBox) run for it as for every node type.
    if (node.nodeType === kubernetes.NODE_TYPE) {
      const created = await kubernetes.createOnNode(db, container.id, { instance: process.env.MANAGER_INSTANCE_ID });
      await afterNodeCreate(container, site, created);
      process.exit(0);
    }

    const client = await node.api();
    console.log('Node API client initialized');
    const vmid = await client.nextId();
    console.log(`Allocated VMID: ${vmid}`);
    const createUpid = await client.createLxc(node.name, {
      vmid,
      hostname: container.hostname,
      ostemplate: container.template,
      cores,
      memory,
      swap,
      rootfs: `${node.volumeStorage}:${rootfsSize}`,
      net0: `name=eth0,ip=dhcp,bridge=${node.networkBridge}`,
    });
    await client.waitForTask(node.name, createUpid);
    console.log('Container created successfully');

    await container.update({ containerId: String(vmid) });
    console.log(`Container provider ID ${vmid} stored in database`);
    const startUpid = await client.startLxc(node.name, vmid);
    await client.waitForTask(node.name, startUpid);
    console.log('Container started successfully');

    const macAddress = await client.getLxcMacAddress(node.name, vmid);
    if (!macAddress) throw new Error('Could not extract MAC address from container configuration');
    const config = await client.lxcConfig(node.name, vmid);
    const actualCores = config['cores'] != null ? parseInt(config['cores'], 10) : null;
    const actualMemoryMb = config['memory'] != null ? parseInt(config['memory'], 10) : null;
    const actualDiskGb = config['rootfs'] ? Number(/:(\d+)$/.exec(config['rootfs'])?.[1] ?? NaN) || null : null;
    const ipv4Address = await client.getLxcIpAddress(node.name, vmid);
    if (!ipv4Address) throw new Error('Could not get IP address from Proxmox interfaces API');
    await container.update({ macAddress, ipv4Address });
    console.log('Container creation completed successfully!');
    console.log(`  IP: ${ipv4Address}`);

    // kube-provisioner: Manager's steps after the node's, moved into afterNodeCreate (below) so a kubernetes node runs them too.
    await afterNodeCreate(container, site, { ipv4Address, vcpus: actualCores, memoryMb: actualMemoryMb, diskGb: actualDiskGb });
    process.exit(0);
  } catch (err) {
    console.error('Container creation failed:', err.message);
    process.exit(1);
  }
}

// kube-provisioner: Manager's own steps once the node has the container, as they were at the end of main(), for every node type.
async function afterNodeCreate(container, site, { ipv4Address, vcpus, memoryMb, diskGb }) {
  // Create Cloudflare DNS records for cross-site HTTP services
  const services = await Service.findAll({
    where: { containerId: container.id, type: 'http' },
    include: [{ model: HTTPService, as: 'httpService', include: [{ model: ExternalDomain, as: 'externalDomain' }] }],
  });
  const httpServices = services
    .filter((s) => s.httpService?.externalDomain)
    .map((s) => ({ externalHostname: s.httpService.externalHostname, ExternalDomain: s.httpService.externalDomain }));
  if (httpServices.length > 0) {
    const warnings = await manageDnsRecords(httpServices, site);
    for (const w of warnings) console.warn(`[DNS WARNING] ${w}`);
  }

  // Register the container in NetBox if the integration is configured
  await withNetbox(Setting, async (baseUrl, token) => {
    console.log(`Registering container in NetBox (site: ${site.name})...`);
    try {
      await createVirtualMachine(baseUrl, token, {
        hostname: container.hostname,
        clusterName: site.name,
        ipv4Address,
        createdBy: container.username,
        nodeName: container.node?.name,
        vcpus,
        memoryMb,
        diskGb,
      });
      console.log(`NetBox: VM "${container.hostname}" created`);
    } catch (err) {
      console.warn(`NetBox: VM creation failed (non-fatal): ${err.message}`);
    }
  });
}

main().catch((err) => {
  console.error('Unhandled error:', err);
  process.exit(1);
});
