'use strict';
// Manager's Setting model: key/value rows; `default_container_env_vars` holds the admin's
// default variables as a JSON list of { key, value, description }.
const { Model } = require('sequelize');

module.exports = (sequelize, DataTypes) => {
  class Setting extends Model {
    /** The values of these keys, as { key: value } (missing keys absent): NetBox's URL and token, say. */
    static async getMultiple(keys) {
      const settings = await Setting.findAll({ where: { key: keys } });
      return Object.fromEntries(settings.map((setting) => [setting.key, setting.value]));
    }

    /** The default variables as a list of { key, value, description }; [] when unset or unreadable. */
    static async getDefaultContainerEnvVars() {
      const setting = await Setting.findByPk('default_container_env_vars');
      try {
        const parsed = setting ? JSON.parse(setting.value) : [];
        return Array.isArray(parsed) ? parsed : Object.entries(parsed ?? {}).map(([key, value]) => ({ key, value, description: '' }));
      } catch {
        return [];
      }
    }
  }
  Setting.init(
    { key: { type: DataTypes.STRING, primaryKey: true, allowNull: false }, value: { type: DataTypes.TEXT, allowNull: false } },
    { sequelize, modelName: 'Setting', tableName: 'Settings' },
  );
  return Setting;
};
