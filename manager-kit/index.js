'use strict';
// kube-provisioner/manager-kit: the kubernetes node type in Manager's own files (models/node.js,
// routers/api/v1/nodes.js, the migration beside this file). docs/manager.md says where each
// export goes. The code is the kit's part of the one bundle (built from src/manager/kit/), so
// its errors are the same classes as kube-provisioner's and kube-provisioner/manager's.
module.exports = require('../dist/bundle.js').kit;
// Never run: the names for Node's CommonJS export detection, so `import { nodeApi } from ...` works too.
/* eslint-disable no-undef, no-constant-binary-expression, @typescript-eslint/no-unused-expressions */
0 &&
  (module.exports = {
    MANAGER_NODE_COLUMNS,
    NODES_TABLE,
    NODE_SAVE_CHECK_TIMEOUT_MS,
    NODE_COLUMNS,
    NODE_COLUMN_NAMES,
    NODE_TYPE,
    addNodeColumns,
    createOnNode,
    hasApiAccess,
    managerProviders,
    narrowNodeColumns,
    nodeApi,
    nodeAttributes,
    nodeFields,
    nodeInputProblem,
    nodeSaveProblem,
    provisionableWhere,
    reconfigureOnNode,
    removeNodeColumns,
    widenNodeColumns,
  });
