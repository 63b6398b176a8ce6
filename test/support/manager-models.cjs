// Sequelize 6 models shaped like Manager's (its models/index.js, CommonJS) on SQLite, for
// running examples/manager-create-container.cjs as written: `MANAGER_MODELS=<this file>`
// stands in for Manager's `require('../models')`, and MANAGER_DB names the SQLite file.
// The columns, association aliases and the two helpers the example calls behave as
// Manager's do (our own code):
//   ResourceRequest.getApprovedResources(siteId, hostname, username): the latest approved
//     value per resource type, e.g. { cpus: 1, memory: 512 }; RESOURCE_DEFAULTS for the rest.
//   Container.getSystemDefaultEnvVars(): the admin's `default_container_env_vars` setting
//     (a JSON list of { key, value, description }) as a flat, normalised { KEY: value }.
// The Node model also has the kubernetes columns of Manager's plan: kubeconfigPath,
// kubeContext, kubeNamespace.
'use strict';
const { DataTypes, Model, Sequelize } = require('sequelize');

if (!process.env.MANAGER_DB) throw new Error('MANAGER_DB must name the SQLite file of the Manager-shaped models');
const sequelize = new Sequelize({ dialect: 'sqlite', storage: process.env.MANAGER_DB, logging: false });

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

class Site extends Model {}
Site.init(
  {
    name: DataTypes.STRING,
    internalDomain: DataTypes.STRING,
  },
  { sequelize, modelName: 'Site' },
);

class Node extends Model {}
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
    kubeconfigPath: { type: DataTypes.STRING(1024), allowNull: true },
    kubeContext: { type: DataTypes.STRING(255), allowNull: true },
    kubeNamespace: { type: DataTypes.STRING(63), allowNull: true },
    kubeStorageClass: { type: DataTypes.STRING(253), allowNull: true },
    kubePersistPaths: { type: DataTypes.STRING(4096), allowNull: true },
    kubePersistence: { type: DataTypes.STRING(3), allowNull: true },
  },
  { sequelize, modelName: 'Node' },
);

class Setting extends Model {}
Setting.init(
  {
    key: { type: DataTypes.STRING, primaryKey: true, allowNull: false },
    value: { type: DataTypes.TEXT, allowNull: false },
  },
  { sequelize, modelName: 'Setting', tableName: 'Settings' },
);

class Container extends Model {
  /** The admin's default variables, flat and valid; {} when the setting is absent or unreadable. */
  static async getSystemDefaultEnvVars() {
    const setting = await Setting.findByPk('default_container_env_vars');
    let entries = [];
    try {
      const parsed = setting ? JSON.parse(setting.value) : [];
      entries = Array.isArray(parsed) ? parsed : Object.entries(parsed ?? {}).map(([key, value]) => ({ key, value }));
    } catch {
      entries = [];
    }
    const variables = {};
    for (const entry of entries) {
      const key = typeof entry?.key === 'string' ? entry.key.trim() : '';
      if (!ENV_NAME.test(key) || entry.value === null || entry.value === undefined || typeof entry.value === 'object') continue;
      const value = String(entry.value);
      if (!value.includes('\0')) variables[key] = value;
    }
    return variables;
  }
}
Container.init(
  {
    hostname: { type: DataTypes.STRING(255), allowNull: false, validate: { is: /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/ } },
    username: { type: DataTypes.STRING(255), allowNull: false },
    template: { type: DataTypes.STRING(255), allowNull: true },
    nodeId: { type: DataTypes.INTEGER, allowNull: false },
    siteId: { type: DataTypes.INTEGER, allowNull: false },
    containerId: { type: DataTypes.STRING(255), allowNull: true },
    macAddress: { type: DataTypes.STRING(17), allowNull: true },
    ipv4Address: { type: DataTypes.STRING(45), allowNull: true },
    nvidiaRequested: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    environmentVars: { type: DataTypes.TEXT, allowNull: true, defaultValue: null },
    entrypoint: { type: DataTypes.STRING(2000), allowNull: true, defaultValue: null },
  },
  {
    sequelize,
    modelName: 'Container',
    indexes: [
      { unique: true, fields: ['nodeId', 'containerId'] },
      { unique: true, fields: ['siteId', 'hostname'] },
      { unique: true, fields: ['siteId', 'ipv4Address'] },
      { unique: true, fields: ['siteId', 'macAddress'] },
    ],
  },
);

class ResourceRequest extends Model {
  /** The most recently approved value of each resource type for this container identity. */
  static async getApprovedResources(siteId, hostname, username) {
    const approved = await ResourceRequest.findAll({
      where: { siteId, hostname, username, status: 'approved' },
      order: [['reviewedAt', 'DESC']],
    });
    const resources = {};
    for (const request of approved) {
      if (!(request.resourceType in resources)) resources[request.resourceType] = request.value;
    }
    return resources;
  }
}
ResourceRequest.init(
  {
    siteId: { type: DataTypes.INTEGER, allowNull: false },
    hostname: { type: DataTypes.STRING(255), allowNull: false },
    username: { type: DataTypes.STRING(255), allowNull: false },
    resourceType: { type: DataTypes.STRING(20), allowNull: false, validate: { isIn: [['memory', 'swap', 'cpus', 'rootfs']] } },
    value: { type: DataTypes.INTEGER, allowNull: false, validate: { min: 0 } },
    status: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'pending' },
    reviewedAt: { type: DataTypes.DATE, allowNull: true },
  },
  { sequelize, modelName: 'ResourceRequest', tableName: 'ResourceRequests' },
);
/** A resource with no approved request gets this (Manager's defaults: MB, MB, cores, GB). */
ResourceRequest.RESOURCE_DEFAULTS = Object.freeze({ memory: 4096, swap: 0, cpus: 4, rootfs: 50 });

Container.belongsTo(Node, { foreignKey: 'nodeId', as: 'node' });
Container.belongsTo(Site, { foreignKey: 'siteId', as: 'site' });
Node.belongsTo(Site, { foreignKey: 'siteId', as: 'site' });
Node.hasMany(Container, { foreignKey: 'nodeId', as: 'containers' });
ResourceRequest.belongsTo(Site, { foreignKey: 'siteId', as: 'site' });

module.exports = { sequelize, Sequelize, Container, Node, ResourceRequest, Setting, Site };
