'use strict';
// Adds the kubernetes node columns (the kit's NODE_COLUMNS: kubeconfigPath, kubeContext, ...)
// to Manager's Nodes table. Copy this file into Manager's migrations/ folder: Manager's
// startup (utils/migrate.js) and `npx sequelize-cli db:migrate` then run it like Manager's
// own. Every column is nullable, so existing nodes keep working as they are, and a column
// the table already has is left as it is. A later kit that adds columns ships a migration of
// its own naming them, so each migration's undo removes only its own columns.

const COLUMNS = ['kubeconfigPath', 'kubeContext', 'kubeNamespace', 'kubeGpuResource', 'kubeGpuRuntimeClass'];

/** @type {import('sequelize-cli').Migration} */
module.exports = {
  async up(queryInterface, Sequelize) {
    await require('kube-provisioner/manager-kit').addNodeColumns(queryInterface, Sequelize, COLUMNS);
  },

  async down(queryInterface) {
    await require('kube-provisioner/manager-kit').removeNodeColumns(queryInterface, COLUMNS);
  },
};
