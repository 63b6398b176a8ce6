'use strict';
// Manager's Site model: a site may have no internal domain (internalDomain NULL).
const { Model } = require('sequelize');

module.exports = (sequelize, DataTypes) => {
  class Site extends Model {
    static associate(models) {
      Site.hasMany(models.Node, { foreignKey: 'siteId', as: 'nodes' });
    }
  }
  Site.init(
    { name: DataTypes.STRING, internalDomain: DataTypes.STRING, externalIp: { type: DataTypes.STRING, allowNull: true } },
    { sequelize, modelName: 'Site' },
  );
  return Site;
};
