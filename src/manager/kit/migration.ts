// The migration that adds the kit's columns to Manager's Nodes table, in sequelize-cli's
// form (`up(queryInterface, Sequelize)`), as Manager's umzug runner and `sequelize-cli
// db:migrate` both call it. manager-kit/migrations/ holds the file Manager copies.
import { InvalidOptionError } from '../../index.js';
import { MANAGER_NODE_COLUMNS, NODE_COLUMNS, type ManagerNodeColumn, type NodeColumn } from './node-columns.js';
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

/** What widening a column of Manager's needs beyond adding one: the dialect, a change and a query. */
export interface SequelizeWideningQueryInterface extends SequelizeQueryInterface {
  changeColumn(table: string, column: string, attributes: Record<string, unknown>): Promise<unknown>;
  readonly sequelize: {
    getDialect(): string;
    query(sql: string, options: { type: string; replacements?: unknown }): Promise<unknown>;
  };
}

/** The widened Manager columns by name; a name that is not one is refused, as for the kit's own. */
function widenedColumnsNamed(names: readonly string[]): readonly (ManagerNodeColumn & { widenedFrom: number })[] {
  const widened = MANAGER_NODE_COLUMNS.filter(
    (column): column is ManagerNodeColumn & { widenedFrom: number } => column.widenedFrom !== undefined,
  );
  const unknown = names.filter((name) => !widened.some((column) => column.name === name));
  if (unknown.length > 0) {
    throw new InvalidOptionError(
      'columns',
      `${unknown.join(', ')} is not a Manager column the kit widens (known: ${widened.map((column) => column.name).join(', ')})`,
    );
  }
  return widened.filter((column) => names.includes(column.name));
}

/**
 * Widens the named Manager columns (the secret: TEXT), so what the node rule accepts fits,
 * on every database: PostgreSQL refuses a longer value than a VARCHAR holds. SQLite keeps
 * the table as it is: it never enforces a VARCHAR's length (the column has TEXT affinity),
 * and changing a column there copies the whole table, which Manager's foreign keys to
 * Nodes would refuse. Answers the columns changed.
 */
export async function widenNodeColumns(
  queryInterface: SequelizeWideningQueryInterface,
  Sequelize: SequelizeDataTypes,
  names: readonly string[],
): Promise<string[]> {
  const columns = widenedColumnsNamed(names);
  if (queryInterface.sequelize.getDialect() === 'sqlite') return [];
  const existing = await queryInterface.describeTable(NODES_TABLE);
  const changed: string[] = [];
  for (const column of columns) {
    if (!Object.hasOwn(existing, column.name)) continue;
    await queryInterface.changeColumn(NODES_TABLE, column.name, { type: Sequelize.TEXT, allowNull: true });
    changed.push(column.name);
  }
  return changed;
}

/**
 * The undo: Manager's own length again. A stored value longer than that (a token) would be
 * cut or refused by the database, so the undo refuses first, naming the nodes that hold one.
 */
export async function narrowNodeColumns(
  queryInterface: SequelizeWideningQueryInterface,
  Sequelize: SequelizeDataTypes,
  names: readonly string[],
): Promise<string[]> {
  const columns = widenedColumnsNamed(names);
  if (queryInterface.sequelize.getDialect() === 'sqlite') return [];
  const existing = await queryInterface.describeTable(NODES_TABLE);
  const narrowed: string[] = [];
  for (const column of [...columns].reverse()) {
    if (!Object.hasOwn(existing, column.name)) continue;
    const rows = (await queryInterface.sequelize.query(
      `SELECT "id", "name" FROM "${NODES_TABLE}" WHERE LENGTH("${column.name}") > ${column.widenedFrom} ORDER BY "id"`,
      { type: 'SELECT' },
    )) as { id: unknown; name: unknown }[];
    if (rows.length > 0) {
      throw new InvalidOptionError(
        column.name,
        `${NODES_TABLE}.${column.name} cannot go back to VARCHAR(${column.widenedFrom}): ` +
          `${rows.map((row) => `node ${String(row.name)} (id ${String(row.id)})`).join(', ')} ` +
          `holds a longer value (a Kubernetes token); clear it or keep this migration`,
      );
    }
    await queryInterface.changeColumn(NODES_TABLE, column.name, { type: Sequelize.STRING(column.widenedFrom), allowNull: true });
    narrowed.push(column.name);
  }
  return narrowed;
}
