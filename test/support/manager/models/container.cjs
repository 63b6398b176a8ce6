'use strict';
// Manager's Container model: the row the create flow and the lifecycle read. `containerId`
// is the provider ID (null until provisioned), `ipv4Address` the address Manager's agent
// proxies to, `environmentVars` the user's variables as a JSON object.
const { Model } = require('sequelize');

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

module.exports = (sequelize, DataTypes) => {
  class Container extends Model {
    static associate(models) {
      Container.belongsTo(models.Node, { foreignKey: 'nodeId', as: 'node' });
      Container.belongsTo(models.Site, { foreignKey: 'siteId', as: 'site' });
      Container.belongsTo(models.Job, { foreignKey: 'creationJobId', as: 'creationJob' });
    }

    /** The admin's default variables, flat; as Manager does, entries its rule refuses are left out. */
    static async getSystemDefaultEnvVars() {
      const variables = {};
      for (const entry of await sequelize.models.Setting.getDefaultContainerEnvVars()) {
        const key = typeof entry?.key === 'string' ? entry.key.trim() : '';
        const value = entry?.value;
        if (!ENV_NAME.test(key) || value === null || value === undefined || typeof value === 'object') continue;
        if (!String(value).includes('\0')) variables[key] = String(value);
      }
      return variables;
    }
  }
  Container.init(
    {
      hostname: { type: DataTypes.STRING(255), allowNull: false, validate: { is: /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/ } },
      username: { type: DataTypes.STRING(255), allowNull: false },
      template: { type: DataTypes.STRING(255), allowNull: true },
      creationJobId: { type: DataTypes.INTEGER, allowNull: true },
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
        { name: 'containers_node_container_id_unique', unique: true, fields: ['nodeId', 'containerId'] },
        { name: 'containers_site_hostname_unique', unique: true, fields: ['siteId', 'hostname'] },
        { name: 'containers_site_ipv4_unique', unique: true, fields: ['siteId', 'ipv4Address'] },
        { name: 'containers_site_mac_unique', unique: true, fields: ['siteId', 'macAddress'] },
      ],
    },
  );
  return Container;
};
