'use strict';
// Manager's models/node.js before the guide, in our words around the lines the guide names.
const { Model, Op } = require('sequelize');
const DummyApi = require('../utils/dummy-api');
const DockerApi = require('../utils/docker-api');

module.exports = (sequelize, DataTypes) => {
  class Node extends Model {
    hasApiAccess() {
      if (this.nodeType === 'dummy') return true;
      return !!(this.apiUrl && this.tokenId && this.secret);
    }

    static provisionableWhere() {
      return {
        [Op.or]: [
          { nodeType: 'dummy' },
          {
            nodeType: 'proxmox',
            apiUrl: { [Op.ne]: null },
          },
        ],
      };
    }

    async api() {
      // Manager's clients by node type (DummyApi, DockerApi, ProxmoxApi).
      if (this.nodeType === 'dummy') return new DummyApi(this);
      return new DockerApi(this);
    }
  }
  Node.init({
    name: {
      type: DataTypes.STRING(255),
      allowNull: false
    },
    nvidiaAvailable: {
      type: DataTypes.BOOLEAN,
      allowNull: false,
      defaultValue: false
    }
  }, {
    sequelize,
    modelName: 'Node',
  });
  return Node;
};
