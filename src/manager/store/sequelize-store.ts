// A ContainerStore over Manager's Sequelize models, duck-typed (findByPk, update) so this
// library never imports sequelize. It reads a row for the create flow and the lifecycle,
// and writes what they did (provider ID, MAC, address) with compare-and-set updates. Manager passes its Container model and the include
// that loads the node and its site, plus its resource and default-env lookups: both
// required, so a container never silently gets amounts or variables nobody approved.
import type { ContainerId, ContainerRecord, ProvisionedIdentity } from '../providers/types.js';
import type { ContainerStore, OperationResult } from './container-store.js';
import { InvalidOptionError } from '../../index.js';
import { approvedAmounts, managerColumns, parseManagerRow, recordFromManagerRow } from './manager-row.js';
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
  /**
   * Required: what the user was approved for this container, in Manager's shape (`cpus`,
   * `memory` in MB, `swap` in MB, `rootfs` in GB), e.g. Manager's
   * `(row) => ResourceRequest.getApprovedResources(row.siteId, row.hostname, row.username)`.
   */
  readonly approvedResources: (row: ManagerContainerRow) => ApprovedResources | Promise<ApprovedResources>;
  /**
   * Opt-in: the value of a resource with no approved request (absent or 0), e.g. Manager's
   * `ResourceRequest.RESOURCE_DEFAULTS`. Without it, a container with no approved CPU or
   * memory fails with InvalidContainerRecordError instead of getting an amount nobody chose.
   */
  readonly resourceDefaults?: ApprovedResources;
  /**
   * Required: the admin-defined default variables (the lowest precedence), e.g. Manager's
   * `() => Container.getSystemDefaultEnvVars()`; `() => ({})` to have none.
   */
  readonly defaultEnvironment: (row: ManagerContainerRow) => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>;
}

export class SequelizeContainerStore implements ContainerStore {
  constructor(private readonly options: SequelizeContainerStoreOptions) {
    // CommonJS callers get no type check: say which option is missing instead of
    // provisioning with amounts and variables nobody approved.
    for (const option of ['approvedResources', 'defaultEnvironment'] as const) {
      if (typeof options?.[option] !== 'function') {
        throw new InvalidOptionError(option, `SequelizeContainerStore needs ${option}, a function of the row (see its documentation)`);
      }
    }
  }

  async load(containerId: ContainerId): Promise<ContainerRecord | undefined> {
    const found = await this.options.Container.findByPk(containerId, this.options.findOptions);
    if (!found) return undefined;
    const row = parseManagerRow(containerId, found.get({ plain: true }));
    const [approved, defaults] = await Promise.all([this.options.approvedResources(row), this.options.defaultEnvironment(row)]);
    return recordFromManagerRow(row, approvedAmounts(row.id, approved, this.options.resourceDefaults), defaults);
  }

  async saveProvisioned(containerId: ContainerId, identity: ProvisionedIdentity): Promise<boolean> {
    const result = await this.options.Container.update(managerColumns(identity), {
      where: { id: containerId, containerId: null },
    });
    return affectedCount(result) > 0;
  }

  async saveOperation(containerId: ContainerId, expectedProviderId: string, result: OperationResult): Promise<boolean> {
    const columns: Record<string, unknown> = { containerId: result.providerId };
    if (result.macAddress !== undefined) columns['macAddress'] = result.macAddress;
    if (result.ipAddress !== undefined) columns['ipv4Address'] = result.ipAddress;
    const written = await this.options.Container.update(columns, { where: { id: containerId, containerId: expectedProviderId } });
    return affectedCount(written) > 0;
  }
}

function affectedCount(result: unknown): number {
  const count: unknown = Array.isArray(result) ? result[0] : result;
  return typeof count === 'number' ? count : 0;
}
