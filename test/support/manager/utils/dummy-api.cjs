'use strict';
// Manager's utils/dummy-api.js, in our words: the client of a dummy node, with the Proxmox
// client's methods the create job calls, simulated in memory for one job process, so the
// job's own steps (its DNS and NetBox steps among them) run as on a real node.
const { randomBytes } = require('node:crypto');

let nextVmid = 100000 + (Date.now() % 900000000);

class DummyApi {
  constructor(node = {}) {
    this.node = node;
    this.configs = new Map();
  }

  async nextId() {
    return nextVmid++;
  }

  async createLxc(_nodeName, { vmid, ...config }) {
    this.configs.set(Number(vmid), { ...config });
    return `UPID:dummy:create:${vmid}`;
  }

  async waitForTask() {}

  async updateLxcConfig(_nodeName, vmid, config) {
    this.configs.set(Number(vmid), { ...this.configs.get(Number(vmid)), ...config });
    return `UPID:dummy:config:${vmid}`;
  }

  async lxcConfig(_nodeName, vmid) {
    return { ...this.configs.get(Number(vmid)) };
  }

  async startLxc(_nodeName, vmid) {
    return `UPID:dummy:start:${vmid}`;
  }

  async getLxcMacAddress() {
    return `02:00:00:${randomBytes(3).toString('hex').toUpperCase().match(/../g).join(':')}`;
  }

  async getLxcIpAddress(_nodeName, vmid) {
    const n = Number(vmid);
    return `10.0.${(Math.floor(n / 254) % 254) + 1}.${(n % 254) + 1}`;
  }
}

module.exports = { DummyApi };
