'use strict';
// Manager's Service model (single-table: http, transport, dns) and its TransportService: a
// container's services, whose internal ports become its Kubernetes Service's ports.
const { Model } = require('sequelize');

module.exports = (sequelize, DataTypes) => {
  class Service extends Model {
    static associate(models) {
      Service.belongsTo(models.Container, { foreignKey: 'containerId', as: 'container' });
      Service.hasOne(models.TransportService, { foreignKey: 'serviceId', as: 'transportService' });
      models.Container.hasMany(Service, { foreignKey: 'containerId', as: 'services' });
    }
  }
  Service.init(
    {
      containerId: { type: DataTypes.INTEGER, allowNull: false },
      type: { type: DataTypes.STRING(20), allowNull: false },
      internalPort: { type: DataTypes.INTEGER, allowNull: true },
    },
    { sequelize, modelName: 'Service' },
  );
  return Service;
};
