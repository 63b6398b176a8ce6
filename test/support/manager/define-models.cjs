'use strict';
// Defines the Manager-shaped models (models/, one file per model) on a Sequelize instance
// and associates them, as Manager's models/index.js does: models/index.cjs uses it on the
// SQLite file of MANAGER_DB, and unit tests on an in-memory database.
const fs = require('node:fs');
const path = require('node:path');
const { DataTypes } = require('sequelize');

const MODELS = path.join(__dirname, 'models');

function defineModels(sequelize) {
  const db = {};
  for (const file of fs.readdirSync(MODELS).filter((name) => name.endsWith('.cjs') && name !== 'index.cjs')) {
    const model = require(path.join(MODELS, file))(sequelize, DataTypes);
    db[model.name] = model;
  }
  for (const model of Object.values(db)) model.associate?.(db);
  return db;
}

module.exports = { defineModels };
