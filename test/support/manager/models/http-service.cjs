'use strict';
// Manager's HTTPService model: an HTTP service's external hostname on an external domain.
const { Model } = require('sequelize');

module.exports = (sequelize, DataTypes) => {
  class HTTPService extends Model {
    static associate(models) {
      HTTPService.belongsTo(models.Service, { foreignKey: 'serviceId', as: 'service' });
      HTTPService.belongsTo(models.ExternalDomain, { foreignKey: 'externalDomainId', as: 'externalDomain' });
      models.Service.hasOne(HTTPService, { foreignKey: 'serviceId', as: 'httpService' });
    }
  }
  HTTPService.init(
    {
      serviceId: { type: DataTypes.INTEGER, allowNull: false },
      externalHostname: { type: DataTypes.STRING(255), allowNull: false },
      externalDomainId: { type: DataTypes.INTEGER, allowNull: false },
      backendProtocol: { type: DataTypes.STRING(5), allowNull: false, defaultValue: 'http' },
    },
    { sequelize, modelName: 'HTTPService', tableName: 'HTTPServices' },
  );
  return HTTPService;
};
