'use strict';
// Adds the columns of each container's volume (kubeStorageClass, kubePersistPaths,
// kubePersistence: docs/storage.md) to Manager's Nodes table, after the kit's first
// migration. Copy it into Manager's migrations/ folder with the other. Every column is
// nullable: an existing kubernetes node then gives each container a volume on the cluster's
// default class, keeping the default paths. The undo removes these three columns only.

const COLUMNS = ['kubeStorageClass', 'kubePersistPaths', 'kubePersistence'];

/** @type {import('sequelize-cli').Migration} */
module.exports = {
  async up(queryInterface, Sequelize) {
    await require('kube-provisioner/manager-kit').addNodeColumns(queryInterface, Sequelize, COLUMNS);
  },

  async down(queryInterface) {
    await require('kube-provisioner/manager-kit').removeNodeColumns(queryInterface, COLUMNS);
  },
};
