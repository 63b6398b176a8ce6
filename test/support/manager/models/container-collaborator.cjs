'use strict';
// Manager's ContainerCollaborators: the users a container is shared with. Manager's rule for
// seeing a container (and so for its terminal and log): an admin, its owner, or one of these.
const { Model } = require('sequelize');

module.exports = (sequelize, DataTypes) => {
  class ContainerCollaborator extends Model {
    static associate(models) {
      models.Container.hasMany(ContainerCollaborator, { foreignKey: 'containerId', as: 'collaborators' });
    }
  }
  ContainerCollaborator.init(
    {
      containerId: { type: DataTypes.INTEGER, allowNull: false },
      username: { type: DataTypes.STRING(255), allowNull: false },
    },
    { sequelize, modelName: 'ContainerCollaborator' },
  );
  return ContainerCollaborator;
};
