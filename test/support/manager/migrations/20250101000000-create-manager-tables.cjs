'use strict';
// Manager's tables as its own migrations leave them (Sites, Nodes, Containers, Services, TransportServices, Settings,
// ResourceRequests, Jobs, JobStatuses), in one migration of sequelize-cli's form: the schema
// the kit's migration (manager-kit/migrations/) runs on in the tests, as it runs on
// Manager's. Our own code, shaped like Manager's columns; only what the tests touch.

/** @type {import('sequelize-cli').Migration} */
module.exports = {
  async up(queryInterface, Sequelize) {
    const id = { type: Sequelize.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
    const timestamps = { createdAt: { type: Sequelize.DATE, allowNull: false }, updatedAt: { type: Sequelize.DATE, allowNull: false } };
    await queryInterface.createTable('Sites', {
      id,
      name: { type: Sequelize.STRING, allowNull: true },
      internalDomain: { type: Sequelize.STRING, allowNull: true },
      externalIp: { type: Sequelize.STRING, allowNull: true },
      ...timestamps,
    });
    await queryInterface.createTable('Nodes', {
      id,
      name: { type: Sequelize.STRING(255), allowNull: false },
      nodeType: { type: Sequelize.STRING(50), allowNull: false, defaultValue: 'proxmox' },
      ipv4Address: { type: Sequelize.STRING(15), allowNull: true },
      apiUrl: { type: Sequelize.STRING(255), allowNull: true },
      tokenId: { type: Sequelize.STRING(255), allowNull: true },
      secret: { type: Sequelize.STRING(255), allowNull: true },
      tlsVerify: { type: Sequelize.BOOLEAN, allowNull: true },
      imageStorage: { type: Sequelize.STRING(255), allowNull: false, defaultValue: 'local' },
      volumeStorage: { type: Sequelize.STRING(255), allowNull: false, defaultValue: 'local-lvm' },
      networkBridge: { type: Sequelize.STRING(255), allowNull: false, defaultValue: 'vmbr0' },
      nvidiaAvailable: { type: Sequelize.BOOLEAN, allowNull: false, defaultValue: false },
      siteId: { type: Sequelize.INTEGER, allowNull: true, references: { model: 'Sites', key: 'id' }, onDelete: 'SET NULL' },
      ...timestamps,
    });
    await queryInterface.createTable('Jobs', {
      id,
      command: { type: Sequelize.STRING(2000), allowNull: false },
      createdBy: { type: Sequelize.STRING, allowNull: true },
      status: { type: Sequelize.STRING(20), allowNull: false, defaultValue: 'pending' },
      ...timestamps,
    });
    await queryInterface.createTable('JobStatuses', {
      id,
      jobId: { type: Sequelize.INTEGER, allowNull: false, references: { model: 'Jobs', key: 'id' }, onDelete: 'CASCADE' },
      output: { type: Sequelize.TEXT, allowNull: true },
      ...timestamps,
    });
    await queryInterface.createTable('Containers', {
      id,
      hostname: { type: Sequelize.STRING(255), allowNull: false },
      username: { type: Sequelize.STRING(255), allowNull: false },
      template: { type: Sequelize.STRING(255), allowNull: true },
      creationJobId: { type: Sequelize.INTEGER, allowNull: true, references: { model: 'Jobs', key: 'id' } },
      nodeId: { type: Sequelize.INTEGER, allowNull: false, references: { model: 'Nodes', key: 'id' } },
      siteId: { type: Sequelize.INTEGER, allowNull: false, references: { model: 'Sites', key: 'id' } },
      containerId: { type: Sequelize.STRING(255), allowNull: true },
      macAddress: { type: Sequelize.STRING(17), allowNull: true },
      ipv4Address: { type: Sequelize.STRING(45), allowNull: true },
      aiContainer: { type: Sequelize.STRING(50), allowNull: false, defaultValue: 'N' },
      nvidiaRequested: { type: Sequelize.BOOLEAN, allowNull: false, defaultValue: false },
      environmentVars: { type: Sequelize.TEXT, allowNull: true, defaultValue: null },
      entrypoint: { type: Sequelize.STRING(2000), allowNull: true, defaultValue: null },
      ...timestamps,
    });
    await queryInterface.addIndex('Containers', ['nodeId', 'containerId'], { unique: true, name: 'containers_node_container_id_unique' });
    await queryInterface.addIndex('Containers', ['siteId', 'hostname'], { unique: true, name: 'containers_site_hostname_unique' });
    await queryInterface.addIndex('Containers', ['siteId', 'ipv4Address'], { unique: true, name: 'containers_site_ipv4_unique' });
    await queryInterface.addIndex('Containers', ['siteId', 'macAddress'], { unique: true, name: 'containers_site_mac_unique' });
    await queryInterface.createTable('Services', {
      id,
      containerId: { type: Sequelize.INTEGER, allowNull: false, references: { model: 'Containers', key: 'id' }, onDelete: 'CASCADE' },
      type: { type: Sequelize.STRING(20), allowNull: false },
      internalPort: { type: Sequelize.INTEGER, allowNull: true },
      ...timestamps,
    });
    await queryInterface.createTable('TransportServices', {
      id,
      serviceId: { type: Sequelize.INTEGER, allowNull: false, references: { model: 'Services', key: 'id' }, onDelete: 'CASCADE' },
      protocol: { type: Sequelize.STRING(3), allowNull: false },
      externalPort: { type: Sequelize.INTEGER, allowNull: true },
      ...timestamps,
    });
    await queryInterface.createTable('Settings', {
      key: { type: Sequelize.STRING, primaryKey: true, allowNull: false },
      value: { type: Sequelize.TEXT, allowNull: false },
      ...timestamps,
    });
    await queryInterface.createTable('ResourceRequests', {
      id,
      siteId: { type: Sequelize.INTEGER, allowNull: false, references: { model: 'Sites', key: 'id' } },
      hostname: { type: Sequelize.STRING(255), allowNull: false },
      username: { type: Sequelize.STRING(255), allowNull: false },
      resourceType: { type: Sequelize.STRING(20), allowNull: false },
      value: { type: Sequelize.INTEGER, allowNull: false },
      status: { type: Sequelize.STRING(20), allowNull: false, defaultValue: 'pending' },
      reviewedBy: { type: Sequelize.STRING(255), allowNull: true },
      reviewedAt: { type: Sequelize.DATE, allowNull: true },
      adminComment: { type: Sequelize.TEXT, allowNull: true },
      ...timestamps,
    });
  },

  async down(queryInterface) {
    for (const table of [
      'ResourceRequests',
      'Settings',
      'TransportServices',
      'Services',
      'Containers',
      'JobStatuses',
      'Jobs',
      'Nodes',
      'Sites',
    ]) {
      await queryInterface.dropTable(table);
    }
  },
};
