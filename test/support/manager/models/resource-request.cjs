'use strict';
// Manager's ResourceRequest model: a user's request for cpus, memory (MB), swap (MB) or
// rootfs (GB); the latest approved one of each type is what the container gets.
const { Model } = require('sequelize');

module.exports = (sequelize, DataTypes) => {
  class ResourceRequest extends Model {
    static associate(models) {
      ResourceRequest.belongsTo(models.Site, { foreignKey: 'siteId', as: 'site' });
    }

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
      reviewedBy: { type: DataTypes.STRING(255), allowNull: true },
      reviewedAt: { type: DataTypes.DATE, allowNull: true },
      adminComment: { type: DataTypes.TEXT, allowNull: true },
    },
    { sequelize, modelName: 'ResourceRequest', tableName: 'ResourceRequests' },
  );
  /** A resource with no approved request gets this (Manager's defaults: MB, MB, cores, GB). */
  ResourceRequest.RESOURCE_DEFAULTS = Object.freeze({ memory: 4096, swap: 0, cpus: 4, rootfs: 50 });
  return ResourceRequest;
};
