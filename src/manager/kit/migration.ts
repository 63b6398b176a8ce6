// The migration that adds the kit's columns to Manager's Nodes table, in sequelize-cli's
// form (`up(queryInterface, Sequelize)`), as Manager's umzug runner and `sequelize-cli
// db:migrate` both call it. manager-kit/migrations/ holds the file Manager copies.
import { NODE_COLUMNS } from './node-columns.js';
import { columnType, type SequelizeDataTypes } from './node-model.js';

/** The part of Sequelize's QueryInterface the migration uses. */
export interface SequelizeQueryInterface {
  describeTable(table: string): Promise<Record<string, unknown>>;
  addColumn(table: string, column: string, attributes: Record<string, unknown>): Promise<unknown>;
  removeColumn(table: string, column: string): Promise<unknown>;
}

export const NODES_TABLE = 'Nodes';

/**
 * Adds each of the kit's columns the table does not have yet (nullable, so existing nodes
 * are untouched), so the migration can run again after a later kit adds a column.
 */
export async function addNodeColumns(queryInterface: SequelizeQueryInterface, Sequelize: SequelizeDataTypes): Promise<string[]> {
  const existing = await queryInterface.describeTable(NODES_TABLE);
  const added: string[] = [];
  for (const column of NODE_COLUMNS) {
    if (Object.hasOwn(existing, column.name)) continue;
    await queryInterface.addColumn(NODES_TABLE, column.name, {
      type: columnType(Sequelize, column),
      allowNull: true,
      comment: column.description,
    });
    added.push(column.name);
  }
  return added;
}

/** Removes the kit's columns (the migration's `down`): the values they held are lost. */
export async function removeNodeColumns(queryInterface: SequelizeQueryInterface): Promise<string[]> {
  const existing = await queryInterface.describeTable(NODES_TABLE);
  const removed: string[] = [];
  for (const column of [...NODE_COLUMNS].reverse()) {
    if (!Object.hasOwn(existing, column.name)) continue;
    await queryInterface.removeColumn(NODES_TABLE, column.name);
    removed.push(column.name);
  }
  return removed;
}
