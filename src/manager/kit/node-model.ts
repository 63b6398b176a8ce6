// What Manager's Node model (models/node.js) needs for the kubernetes node type: the
// attributes of the kit's columns, whether a node can be reached (hasApiAccess), and the
// where-clause that lets the create route pick such a node (provisionableWhere). Sequelize
// is duck-typed: Manager passes its own DataTypes and Op, so this library never imports it.
import { KubernetesNodeConfigError } from '../errors.js';
import { kubernetesNodeConfig } from '../node-config.js';
import { NODE_COLUMNS, type NodeColumn } from './node-columns.js';

/** The node type's name, as Manager stores it in `Node.nodeType`. */
export const NODE_TYPE = 'kubernetes';

/** The part of Sequelize's DataTypes the attributes use. */
export interface SequelizeDataTypes {
  STRING(length: number): unknown;
  readonly TEXT: unknown;
}

/** The part of Sequelize's Op the where-clause uses. */
export interface SequelizeOperators {
  readonly or: symbol;
  readonly ne: symbol;
  readonly notIn: symbol;
}

export interface NodeAttribute {
  readonly type: unknown;
  readonly allowNull: true;
}

export function columnType(types: SequelizeDataTypes, column: NodeColumn): unknown {
  return column.type === 'text' ? types.TEXT : types.STRING(column.length ?? 255);
}

/**
 * The kit's Node attributes, to spread into `Node.init({...})`: without them Sequelize
 * drops the fields on `Node.create` without a word. Every column is nullable: a Proxmox,
 * Docker or dummy node leaves them empty.
 */
export function nodeAttributes(DataTypes: SequelizeDataTypes): Record<string, NodeAttribute> {
  return Object.fromEntries(NODE_COLUMNS.map((column) => [column.name, { type: columnType(DataTypes, column), allowNull: true }]));
}

/**
 * Manager's `hasApiAccess()` for a kubernetes node: its columns say how to reach its
 * cluster (kubernetesNodeConfig accepts them). Reads nothing, sends nothing.
 */
export function hasApiAccess(node: unknown): boolean {
  try {
    kubernetesNodeConfig(node);
    return true;
  } catch (error) {
    if (error instanceof KubernetesNodeConfigError) return false;
    throw error;
  }
}

/**
 * The kubernetes alternative of Manager's `Node.provisionableWhere()`: a node with a
 * kubeconfig path, or an API URL and a token. (The node routes refuse a node whose
 * columns break the rules, so a row this selects is one hasApiAccess accepts.)
 */
export function provisionableWhere(Op: SequelizeOperators): Record<string | symbol, unknown> {
  const present = { [Op.ne]: null, [Op.notIn]: [''] };
  return {
    nodeType: NODE_TYPE,
    [Op.or]: [{ kubeconfigPath: present }, { apiUrl: present, secret: present }],
  };
}
