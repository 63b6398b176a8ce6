'use strict';
// Manager's ExternalDomain model: a domain whose Cloudflare credentials the create job's DNS
// step uses for a site other than the domain's own.
const { Model } = require('sequelize');

module.exports = (sequelize, DataTypes) => {
  class ExternalDomain extends Model {}
  ExternalDomain.init(
    {
      name: { type: DataTypes.STRING(255), allowNull: false },
      siteId: { type: DataTypes.INTEGER, allowNull: true },
      cloudflareApiEmail: { type: DataTypes.STRING(255), allowNull: true },
      cloudflareApiKey: { type: DataTypes.STRING(255), allowNull: true },
    },
    { sequelize, modelName: 'ExternalDomain' },
  );
  return ExternalDomain;
};
