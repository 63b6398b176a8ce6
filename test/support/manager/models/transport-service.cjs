'use strict';
// Manager's TransportService: a tcp or udp service's protocol and its external port.
const { Model } = require('sequelize');

module.exports = (sequelize, DataTypes) => {
  class TransportService extends Model {}
  TransportService.init(
    {
      serviceId: { type: DataTypes.INTEGER, allowNull: false },
      protocol: { type: DataTypes.STRING(3), allowNull: false },
      externalPort: { type: DataTypes.INTEGER, allowNull: true },
    },
    { sequelize, modelName: 'TransportService' },
  );
  return TransportService;
};
