'use strict';
// Manager's utils/netbox.js, in our words: a NetBox virtual machine per container, with what
// it really has (vCPUs, memory, disk) and its IPv4 address, when the Settings name a NetBox
// (netbox_url, netbox_token).
async function nbFetch(baseUrl, token, path, options = {}) {
  const res = await fetch(`${baseUrl.replace(/\/$/, '')}/api${path}`, {
    ...options,
    headers: { Authorization: `Token ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
  });
  if (!res.ok) throw new Error(`NetBox API error (${path}): HTTP ${res.status} — ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}

async function createVirtualMachine(baseUrl, token, { hostname, clusterName, ipv4Address, createdBy, nodeName, vcpus, memoryMb, diskGb }) {
  const clusters = await nbFetch(baseUrl, token, `/virtualization/clusters/?name=${encodeURIComponent(clusterName)}&limit=1`);
  const cluster = clusters?.results?.[0]?.id ?? null;
  if (cluster === null) throw new Error(`NetBox: no cluster named "${clusterName}" found`);
  const vm = await nbFetch(baseUrl, token, '/virtualization/virtual-machines/', {
    method: 'POST',
    body: JSON.stringify({
      name: hostname,
      cluster,
      status: 'active',
      vcpus: vcpus ?? undefined,
      memory: memoryMb ?? undefined,
      disk: diskGb != null ? diskGb * 1000 : undefined,
      comments: `Created by ${createdBy} on node ${nodeName}`,
    }),
  });
  if (ipv4Address) {
    await nbFetch(baseUrl, token, '/ipam/ip-addresses/', {
      method: 'POST',
      body: JSON.stringify({
        address: `${ipv4Address}/32`,
        assigned_object_type: 'virtualization.virtualmachine',
        assigned_object_id: vm.id,
      }),
    });
  }
  return vm;
}

async function withNetbox(Setting, fn) {
  const settings = await Setting.getMultiple(['netbox_url', 'netbox_token']);
  if (!settings.netbox_url || !settings.netbox_token) return null;
  return fn(settings.netbox_url, settings.netbox_token);
}

module.exports = { createVirtualMachine, withNetbox };
