// A Manager-shaped database made the way Manager makes its own: a scratch project laid out
// like a Manager checkout (migrations/, node_modules/kube-provisioner installed), the kit's
// migration copied into migrations/ as docs/manager.md says, and `sequelize-cli db:migrate`
// run on SQLite. The models of test/support/manager/models/ then work on it (MANAGER_DB).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from './run-process.js';

/** The Manager-shaped models' index (models/index.js), for MANAGER_MODELS. */
export const MANAGER_MODELS = join(REPOSITORY_ROOT, 'test/support/manager/models/index.cjs');
/** The kit's migration, as Manager copies it. */
export const KIT_MIGRATIONS = join(REPOSITORY_ROOT, 'manager-kit/migrations');
const MANAGER_MIGRATIONS = join(REPOSITORY_ROOT, 'test/support/manager/migrations');
const SEQUELIZE_CLI = createRequire(import.meta.url).resolve('sequelize-cli/lib/sequelize');

export interface ManagerDatabase {
  /** The scratch project (Manager's create-a-container folder, as it were). */
  readonly project: string;
  /** The SQLite file (MANAGER_DB). */
  readonly dbPath: string;
  /** What sequelize-cli printed. */
  readonly migrateOutput: string;
}

/** A project under `dir` with Manager's tables and the kit's columns, by sequelize-cli. */
export function createManagerDatabase(dir: string): ManagerDatabase {
  const project = createManagerProject(dir);
  const dbPath = join(project, 'database.sqlite');
  const migrateOutput = sequelizeCli(project, dbPath, 'db:migrate');
  return { project, dbPath, migrateOutput };
}

/**
 * The scratch project alone: migrations/ with Manager's and the kit's (copied as
 * docs/manager.md says), node_modules/kube-provisioner the repository.
 */
export function createManagerProject(dir: string): string {
  const project = join(dir, 'create-a-container');
  mkdirSync(join(project, 'migrations'), { recursive: true });
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  // `npm i kube-provisioner` as it resolves: the package, its exports map and its dist/.
  symlinkSync(REPOSITORY_ROOT, join(project, 'node_modules', 'kube-provisioner'), 'dir');
  for (const file of readdirSync(MANAGER_MIGRATIONS)) copyFileSync(join(MANAGER_MIGRATIONS, file), join(project, 'migrations', file));
  // docs/manager.md: `cp node_modules/kube-provisioner/manager-kit/migrations/*.js migrations/`
  const kit = join(project, 'node_modules', 'kube-provisioner', 'manager-kit', 'migrations');
  for (const file of readdirSync(kit)) copyFileSync(join(kit, file), join(project, 'migrations', file));
  return project;
}

/** `sequelize-cli <command>` in the project, on its SQLite file. */
export function sequelizeCli(project: string, dbPath: string, command: string, ...args: string[]): string {
  return sequelizeCliWith(project, ['--url', `sqlite:${dbPath}`], command, ...args);
}

/**
 * `sequelize-cli <command>` in the project, connected as `connection` says (`--url ...`,
 * or `--config FILE`, as Manager's config/config.js is given).
 */
export function sequelizeCliWith(project: string, connection: readonly string[], command: string, ...args: string[]): string {
  return execFileSync(process.execPath, [SEQUELIZE_CLI, command, ...connection, '--migrations-path', 'migrations', ...args], {
    cwd: project,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
