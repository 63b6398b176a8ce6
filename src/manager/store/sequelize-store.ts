// A ContainerStore over Manager's Sequelize models, duck-typed (findByPk, update) so this
// library never imports sequelize. Manager passes its Container model and the include
// that loads the node and its site, plus its resource and default-env lookups.
import type { ContainerId, ContainerRecord, ProvisionedIdentity } from '../providers/types.js';
import type { ContainerStore } from './container-store.js';
import { managerColumns, parseManagerRow, recordFromManagerRow } from './manager-row.js';
import type { ApprovedResources, ManagerContainerRow } from './manager-row.js';

export interface SequelizeRow {
  get(options: { plain: true }): unknown;
}

/** The static methods of a Sequelize 6 model that the store calls. */
export interface SequelizeContainerModel {
  findByPk(id: ContainerId, options?: Record<string, unknown>): Promise<SequelizeRow | null>;
  /** Sequelize resolves `[affectedCount]` (Postgres: `[affectedCount, rows]`). */
  update(values: Record<string, unknown>, options: { where: Record<string, unknown> }): Promise<unknown>;
}

export interface SequelizeContainerStoreOptions {
  readonly Container: SequelizeContainerModel;
  /**
   * Passed to findByPk; must eager-load `node` (and its `site`), e.g.
   * `{ include: [{ model: Node, as: 'node', include: [{ model: Site, as: 'site' }] }] }`.
   */
  readonly findOptions?: Record<string, unknown>;
  /** Manager's approved resource request for the row; absent or 0 values take the defaults. */
  readonly approvedResources?: (row: ManagerContainerRow) => ApprovedResources | Promise<ApprovedResources>;
  /** Manager's admin-defined default variables (the lowest precedence). */
  readonly defaultEnvironment?: (row: ManagerContainerRow) => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>;
}

export class SequelizeContainerStore implements ContainerStore {
  constructor(private readonly options: SequelizeContainerStoreOptions) {}

  async load(containerId: ContainerId): Promise<ContainerRecord | undefined> {
    const found = await this.options.Container.findByPk(containerId, this.options.findOptions);
    if (!found) return undefined;
    const row = parseManagerRow(containerId, found.get({ plain: true }));
    const [approved, defaults] = await Promise.all([
      this.options.approvedResources?.(row) ?? {},
      this.options.defaultEnvironment?.(row) ?? {},
    ]);
    return recordFromManagerRow(row, approved, defaults);
  }

  async saveProvisioned(containerId: ContainerId, identity: ProvisionedIdentity): Promise<boolean> {
    const result = await this.options.Container.update(managerColumns(identity), {
      where: { id: containerId, containerId: null },
    });
    return affectedCount(result) > 0;
  }
}

function affectedCount(result: unknown): number {
  const count: unknown = Array.isArray(result) ? result[0] : result;
  return typeof count === 'number' ? count : 0;
}
