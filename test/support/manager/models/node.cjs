'use strict';
// Manager's Node model (models/node.js) with the kubernetes node type: the lines marked
// "kube-provisioner" are the ones docs/manager.md tells Manager to add (its test checks
// they are here, as written). The other branches stand for Manager's own, in our words.
const { Model, Op } = require('sequelize');
const kubernetes = require('kube-provisioner/manager-kit');
const { DummyApi } = require('../utils/dummy-api.cjs');

module.exports = (sequelize, DataTypes) => {
  class Node extends Model {
    static associate(models) {
      Node.hasMany(models.Container, { foreignKey: 'nodeId', as: 'containers' });
      Node.belongsTo(models.Site, { foreignKey: 'siteId', as: 'site' });
    }

    hasApiAccess() {
      // kube-provisioner: a kubernetes node can be reached when its columns say how.
      if (this.nodeType === kubernetes.NODE_TYPE) return kubernetes.hasApiAccess(this);
      if (this.nodeType === 'dummy') return true;
      if (this.nodeType === 'docker') return !!this.apiUrl;
      return !!(this.apiUrl && this.tokenId && this.secret);
    }

    static provisionableWhere() {
      return {
        [Op.or]: [
          { nodeType: 'dummy' },
          { nodeType: 'docker', apiUrl: { [Op.ne]: null } },
          { nodeType: 'proxmox', apiUrl: { [Op.ne]: null }, tokenId: { [Op.ne]: null }, secret: { [Op.ne]: null } },
          // kube-provisioner: a kubernetes node with a kubeconfig path, or an API URL and a token.
          kubernetes.provisionableWhere(Op),
        ],
      };
    }

    async api() {
      // kube-provisioner: a kubernetes node's API is its cluster, as this installation (MANAGER_INSTANCE_ID) sees it.
      if (this.nodeType === kubernetes.NODE_TYPE) return kubernetes.nodeApi(this, { instance: process.env.MANAGER_INSTANCE_ID });
      // Dummy nodes have no real hypervisor; return the simulated client.
      if (this.nodeType === 'dummy') return new DummyApi(this);
      throw new Error(`Node ${this.name}: the Manager-shaped test models have no ${this.nodeType} client`);
    }
  }
  Node.init(
    {
      name: { type: DataTypes.STRING(255), allowNull: false },
      nodeType: { type: DataTypes.STRING(50), allowNull: false, defaultValue: 'proxmox' },
      ipv4Address: { type: DataTypes.STRING(15), allowNull: true },
      apiUrl: { type: DataTypes.STRING(255), allowNull: true },
      tokenId: { type: DataTypes.STRING(255), allowNull: true },
      secret: { type: DataTypes.STRING(255), allowNull: true },
      tlsVerify: { type: DataTypes.BOOLEAN, allowNull: true },
      imageStorage: { type: DataTypes.STRING(255), allowNull: false, defaultValue: 'local' },
      volumeStorage: { type: DataTypes.STRING(255), allowNull: false, defaultValue: 'local-lvm' },
      networkBridge: { type: DataTypes.STRING(255), allowNull: false, defaultValue: 'vmbr0' },
      nvidiaAvailable: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      // kube-provisioner: the kubernetes node columns (the kit's migration adds them).
      ...kubernetes.nodeAttributes(DataTypes),
    },
    { sequelize, modelName: 'Node' },
  );
  return Node;
};
