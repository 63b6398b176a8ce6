'use strict';
// Manager's ContainerCollaborators table (who a container is shared with), in our words: the
// rule of the terminal and log routes (owner, collaborators, admins) reads it.

/** @type {import('sequelize-cli').Migration} */
module.exports = {
  async up(queryInterface, Sequelize) {
    await queryInterface.createTable('ContainerCollaborators', {
      id: { type: Sequelize.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
      containerId: { type: Sequelize.INTEGER, allowNull: false, references: { model: 'Containers', key: 'id' }, onDelete: 'CASCADE' },
      username: { type: Sequelize.STRING(255), allowNull: false },
      createdAt: { type: Sequelize.DATE, allowNull: false },
      updatedAt: { type: Sequelize.DATE, allowNull: false },
    });
  },
  async down(queryInterface) {
    await queryInterface.dropTable('ContainerCollaborators');
  },
};
