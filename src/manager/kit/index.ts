// kube-provisioner/manager-kit: the kubernetes node type in Manager's own files, one export
// for each place Manager changes (docs/manager.md, "Manager's files, one by one"):
//   migrations/               addNodeColumns / removeNodeColumns (manager-kit/migrations/)
//   models/node.js            nodeAttributes, hasApiAccess, provisionableWhere, nodeApi
//   routers/api/v1/nodes.js   nodeInputProblem (validateNodeInput), nodeFields (create, update)
//   bin/*.js (the jobs)       createOnNode, reconfigureOnNode: a kubernetes node's calls in Manager's own jobs;
//                             managerProviders: the store, the providers and the lifecycle
export { MANAGER_NODE_COLUMNS, NODE_COLUMNS, NODE_COLUMN_NAMES, type ManagerNodeColumn, type NodeColumn } from './node-columns.js';
export {
  NODE_TYPE,
  hasApiAccess,
  nodeAttributes,
  provisionableWhere,
  type NodeAttribute,
  type SequelizeDataTypes,
  type SequelizeOperators,
} from './node-model.js';
export { NODE_SAVE_CHECK_TIMEOUT_MS, nodeFields, nodeInputProblem, nodeSaveProblem, type NodeSaveCheckOptions } from './node-input.js';
export {
  NODES_TABLE,
  addNodeColumns,
  narrowNodeColumns,
  removeNodeColumns,
  widenNodeColumns,
  type SequelizeQueryInterface,
  type SequelizeWideningQueryInterface,
} from './migration.js';
export { nodeApi, type ClusterResource, type KubernetesNodeApi, type NodeApiOptions } from './node-api.js';
export { managerProviders, type ManagerModels, type ManagerProviders, type ManagerProvidersOptions } from './manager-providers.js';
export {
  createOnNode,
  reconfigureOnNode,
  type NodeCreateOutcome,
  type NodeStepOptions,
  type ReconfigureOnNodeOptions,
} from './node-steps.js';
