'use strict';
// Sequelize 6 models shaped like Manager's (create-a-container's models/, CommonJS, one
// file per model), loaded the way Manager's models/index.js loads them, on SQLite:
// MANAGER_DB names the file. `MANAGER_MODELS=<this file>` stands in for Manager's
// `require('../models')` in the job scripts of examples/. The schema comes from the
// migrations, Manager's own and the kit's, run by sequelize-cli (test/support/manager-database.ts).
// models/node.cjs holds the kit's lines exactly as docs/manager.md tells Manager to add them.
const Sequelize = require('sequelize');
const { defineModels } = require('../define-models.cjs');

// MANAGER_DB_CONFIG instead names a JSON file of Sequelize options, as Manager's
// config/config.js gives them: the PostgreSQL test's server.
function connectionOptions() {
  if (process.env.MANAGER_DB_CONFIG)
    return { ...JSON.parse(require('node:fs').readFileSync(process.env.MANAGER_DB_CONFIG, 'utf8')), logging: false };
  if (!process.env.MANAGER_DB) throw new Error('MANAGER_DB must name the SQLite file of the Manager-shaped models');
  return { dialect: 'sqlite', storage: process.env.MANAGER_DB, logging: false };
}
const sequelize = new Sequelize(connectionOptions());

module.exports = { ...defineModels(sequelize), sequelize, Sequelize };
