'use strict';
// Manager's ExternalDomains and HTTPServices tables, as its own migrations leave them (only
// the columns the create job's DNS step reads): an HTTP service with an external hostname
// on a domain gets a Cloudflare A record from the create job. Our own code, in Manager's shape.

/** @type {import('sequelize-cli').Migration} */
module.exports = {
  async up(queryInterface, Sequelize) {
    const id = { type: Sequelize.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
    const timestamps = { createdAt: { type: Sequelize.DATE, allowNull: false }, updatedAt: { type: Sequelize.DATE, allowNull: false } };
    await queryInterface.createTable('ExternalDomains', {
      id,
      name: { type: Sequelize.STRING(255), allowNull: false },
      siteId: { type: Sequelize.INTEGER, allowNull: true, references: { model: 'Sites', key: 'id' }, onDelete: 'SET NULL' },
      cloudflareApiEmail: { type: Sequelize.STRING(255), allowNull: true },
      cloudflareApiKey: { type: Sequelize.STRING(255), allowNull: true },
      ...timestamps,
    });
    await queryInterface.createTable('HTTPServices', {
      id,
      serviceId: {
        type: Sequelize.INTEGER,
        allowNull: false,
        unique: true,
        references: { model: 'Services', key: 'id' },
        onDelete: 'CASCADE',
      },
      externalHostname: { type: Sequelize.STRING(255), allowNull: false },
      externalDomainId: { type: Sequelize.INTEGER, allowNull: false, references: { model: 'ExternalDomains', key: 'id' } },
      backendProtocol: { type: Sequelize.STRING(5), allowNull: false, defaultValue: 'http' },
      ...timestamps,
    });
  },

  async down(queryInterface) {
    await queryInterface.dropTable('HTTPServices');
    await queryInterface.dropTable('ExternalDomains');
  },
};
