'use strict';
// Manager's Job and JobStatus models: a job is a command line the job runner starts; its
// output is stored in JobStatuses, chunk by chunk.
const { Model } = require('sequelize');

module.exports = (sequelize, DataTypes) => {
  class Job extends Model {
    static associate(models) {
      Job.hasMany(models.JobStatus, { foreignKey: 'jobId', as: 'statuses' });
    }
  }
  Job.init(
    {
      command: { type: DataTypes.STRING(2000), allowNull: false },
      createdBy: { type: DataTypes.STRING, allowNull: true },
      status: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'pending' },
    },
    { sequelize, modelName: 'Job' },
  );
  return Job;
};
