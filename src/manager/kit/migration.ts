// The migration that adds the kit's columns to Manager's Nodes table, in sequelize-cli's
// form (`up(queryInterface, Sequelize)`), as Manager's umzug runner and `sequelize-cli
// db:migrate` both call it. manager-kit/migrations/ holds the file Manager copies.
import { InvalidOptionError } from '../../index.js';
import { NODE_COLUMNS, type NodeColumn } from './node-columns.js';
import { columnType, type SequelizeDataTypes } from './node-model.js';

/** The part of Sequelize's QueryInterface the migration uses. */
export interface SequelizeQueryInterface {
  describeTable(table: string): Promise<Record<string, unknown>>;
  addColumn(table: string, column: string, attributes: Record<string, unknown>): Promise<unknown>;
  removeColumn(table: string, column: string): Promise<unknown>;
}

export const NODES_TABLE = 'Nodes';

/**
 * The kit's columns by name, in NODE_COLUMNS' order; a name it does not list is refused,
 * so a migration never silently skips a column. Absent: every kit column.
 */
function columnsNamed(names: readonly string[] | undefined): readonly NodeColumn[] {
  if (names === undefined) return NODE_COLUMNS;
  const unknown = names.filter((name) => !NODE_COLUMNS.some((column) => column.name === name));
  if (unknown.length > 0) {
    throw new InvalidOptionError(
      'columns',
      `${unknown.join(', ')} is not a kit node column (known: ${NODE_COLUMNS.map((column) => column.name).join(', ')})`,
    );
  }
  return NODE_COLUMNS.filter((column) => names.includes(column.name));
}

/**
 * Adds each of the named kit columns (default: all) the table does not have yet (nullable,
 * so existing nodes are untouched): each migration file names the columns it ships.
 */
export async function addNodeColumns(
  queryInterface: SequelizeQueryInterface,
  Sequelize: SequelizeDataTypes,
  names?: readonly string[],
): Promise<string[]> {
  const columns = columnsNamed(names);
  const existing = await queryInterface.describeTable(NODES_TABLE);
  const added: string[] = [];
  for (const column of columns) {
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

/**
 * Removes the named kit columns (default: all), a migration's `down`, so one migration's
 * undo removes only its own columns: the values they held are lost.
 */
export async function removeNodeColumns(queryInterface: SequelizeQueryInterface, names?: readonly string[]): Promise<string[]> {
  const columns = columnsNamed(names);
  const existing = await queryInterface.describeTable(NODES_TABLE);
  const removed: string[] = [];
  for (const column of [...columns].reverse()) {
    if (!Object.hasOwn(existing, column.name)) continue;
    await queryInterface.removeColumn(NODES_TABLE, column.name);
    removed.push(column.name);
  }
  return removed;
}
