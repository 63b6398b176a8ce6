'use strict';
// Adds the columns of system containers (kubeSystemRuntimeClass, kubeUserNamespaces:
// docs/system-containers.md) to Manager's Nodes table, after the kit's earlier migrations.
// Copy it into Manager's migrations/ folder with the others. Both are nullable: an existing
// kubernetes node keeps running its containers as before (the cluster's default
// RuntimeClass, the host's users). The undo removes these two columns only.

const COLUMNS = ['kubeSystemRuntimeClass', 'kubeUserNamespaces'];

/** @type {import('sequelize-cli').Migration} */
module.exports = {
  async up(queryInterface, Sequelize) {
    await require('kube-provisioner/manager-kit').addNodeColumns(queryInterface, Sequelize, COLUMNS);
  },

  async down(queryInterface) {
    await require('kube-provisioner/manager-kit').removeNodeColumns(queryInterface, COLUMNS);
  },
};
