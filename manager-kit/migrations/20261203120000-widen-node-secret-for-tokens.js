'use strict';
// Widens Manager's Nodes.secret from VARCHAR(255) to TEXT: a kubernetes node reached by
// apiUrl and a bearer token keeps the token there, and a ServiceAccount token (`kubectl
// create token`) is about a thousand characters, which PostgreSQL refuses in a VARCHAR(255).
// Copy it into Manager's migrations/ folder with the kit's others. SQLite never enforces a
// VARCHAR's length, so there the table stays as it is. The undo narrows it back, and refuses
// while a node holds a longer secret.

const COLUMNS = ['secret'];

/** @type {import('sequelize-cli').Migration} */
module.exports = {
  async up(queryInterface, Sequelize) {
    await require('kube-provisioner/manager-kit').widenNodeColumns(queryInterface, Sequelize, COLUMNS);
  },

  async down(queryInterface, Sequelize) {
    await require('kube-provisioner/manager-kit').narrowNodeColumns(queryInterface, Sequelize, COLUMNS);
  },
};
