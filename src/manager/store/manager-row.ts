// Reads one of Manager's Container rows (as `row.get({ plain: true })` returns it, with
// its node and the node's site eager-loaded) into a ContainerRecord. Column names are
// Manager's: `containerId` holds the provider ID, `ipv4Address` the IP, `environmentVars`
// the user's variables as a JSON object.
import * as z from 'zod';
import { InvalidContainerRecordError } from '../errors.js';
import { NODE_COLUMN_NAMES } from '../kit/node-columns.js';
import { checkEnvironment } from '../providers/environment.js';
import type { ContainerId, ContainerRecord, ContainerResources, ContainerService, NodeRecord } from '../providers/types.js';

const id = z.union([z.number(), z.string()]);
const optionalText = z.string().nullish();
// SQLite hands booleans back as 0/1 in some paths; both mean the same.
const flag = z
  .union([z.boolean(), z.number()])
  .nullish()
  .transform((value) => (value == null ? null : Boolean(value)));

// Manager allows a site without an internal domain; only the Proxmox provider uses it.
const siteRow = z.looseObject({ name: z.string(), internalDomain: optionalText });

/** Manager's own text columns of a node that a provider reads, and the kit's (kit/node-columns.ts). */
const NODE_TEXT_COLUMNS = ['imageStorage', 'volumeStorage', 'networkBridge', 'apiUrl', 'secret', ...NODE_COLUMN_NAMES] as const;

const nodeRow = z.looseObject({
  id,
  name: z.string(),
  nodeType: z.string(),
  ...Object.fromEntries(NODE_TEXT_COLUMNS.map((column) => [column, optionalText])),
  tlsVerify: flag,
  kubeStorageClass: optionalText,
  kubePersistPaths: optionalText,
  kubePersistence: optionalText,
  site: siteRow.nullish(),
});

/** A Manager Service row, with its TransportService (the protocol of a `transport` service). */
const serviceRow = z.looseObject({
  id: id.nullish(),
  type: z.string(),
  internalPort: z.number().nullish(),
  transportService: z.looseObject({ protocol: optionalText }).nullish(),
});

export const managerContainerRow = z.looseObject({
  id,
  hostname: z.string(),
  username: z.string(),
  template: optionalText,
  containerId: optionalText,
  macAddress: optionalText,
  ipv4Address: optionalText,
  nvidiaRequested: flag,
  environmentVars: optionalText,
  entrypoint: optionalText,
  node: nodeRow,
  site: siteRow.nullish(),
  /** Loaded when the store's findOptions include them (managerProviders does, given Manager's Service model). */
  services: z.array(serviceRow).nullish(),
});

export type ManagerContainerRow = z.infer<typeof managerContainerRow>;

/** Manager's approved resources (ResourceRequest types); 0 or absent means "none approved". */
export interface ApprovedResources {
  readonly cpus?: number | null;
  /** MB */
  readonly memory?: number | null;
  /** MB */
  readonly swap?: number | null;
  /** GB */
  readonly rootfs?: number | null;
}

const RESOURCE_FIELDS = [
  ['cpus', 'cpus'],
  ['memory', 'memoryMb'],
  ['swap', 'swapMb'],
  ['rootfs', 'rootfsGb'],
] as const satisfies readonly (readonly [keyof ApprovedResources, keyof ContainerResources])[];

/**
 * Each resource: the approved amount, else (absent or 0, Manager's rule) the caller's
 * default. CPU and memory must end up above 0 and the others defined; anything else is an
 * InvalidContainerRecordError naming the resource, never an amount nobody chose.
 */
export function approvedAmounts(
  containerId: ContainerId,
  approved: ApprovedResources,
  defaults: ApprovedResources | undefined,
): ContainerResources {
  const amounts: Partial<Record<keyof ContainerResources, number>> = {};
  const problems: string[] = [];
  for (const [type, field] of RESOURCE_FIELDS) {
    const value = approved?.[type] || defaults?.[type];
    const required = type === 'cpus' || type === 'memory';
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && !(required && value === 0)) amounts[field] = value;
    else if (value === undefined || value === null || value === 0) problems.push(`no approved ${type} and no resourceDefaults.${type}`);
    else problems.push(`approved ${type} is not a usable amount (${String(value)})`);
  }
  if (problems.length > 0) throw new InvalidContainerRecordError(containerId, problems);
  return amounts as ContainerResources;
}

export function parseManagerRow(containerId: ContainerId, plain: unknown): ManagerContainerRow {
  const parsed = managerContainerRow.safeParse(plain);
  if (parsed.success) return parsed.data;
  throw new InvalidContainerRecordError(
    containerId,
    parsed.error.issues.map((issue) => `${issue.path.join('.') || '(row)'}: ${issue.message}`),
    { cause: parsed.error },
  );
}

export function recordFromManagerRow(
  row: ManagerContainerRow,
  resources: ContainerResources,
  defaultEnvironment: Readonly<Record<string, string>>,
): ContainerRecord {
  const { node } = row;
  const site = node.site ?? row.site ?? null;
  const defaults = checkEnvironment('defaultEnvironment', defaultEnvironment);
  const user = userEnvironment(row);
  const problems = [...defaults.problems, ...user.problems];
  if (problems.length > 0) throw new InvalidContainerRecordError(row.id, problems);
  const nodeColumns = node as Record<string, unknown>;
  return {
    id: row.id,
    hostname: row.hostname,
    username: row.username,
    template: row.template ?? null,
    providerId: row.containerId || null,
    macAddress: row.macAddress ?? null,
    ipAddress: row.ipv4Address ?? null,
    nvidiaRequested: row.nvidiaRequested ?? false,
    environment: user.environment,
    defaultEnvironment: defaults.environment,
    entrypoint: row.entrypoint ?? null,
    resources,
    ...(row.services ? { services: row.services.map(serviceOfRow) } : {}),
    node: {
      id: node.id,
      name: node.name,
      nodeType: node.nodeType,
      ...(Object.fromEntries(NODE_TEXT_COLUMNS.map((column) => [column, nodeColumns[column] ?? null])) as Partial<NodeRecord>),
      tlsVerify: node.tlsVerify,
      kubeStorageClass: node.kubeStorageClass ?? null,
      kubePersistPaths: node.kubePersistPaths ?? null,
      kubePersistence: node.kubePersistence ?? null,
    },
    site: site ? { name: site.name, internalDomain: site.internalDomain ?? null } : null,
  };
}

/**
 * The JSON column, checked by Manager's rule: a variable it refuses, unreadable JSON, or
 * JSON that is not an object fails loudly (naming it) rather than dropping the user's
 * variables. Empty or NULL is no variables.
 */
function userEnvironment(row: ManagerContainerRow): ReturnType<typeof checkEnvironment> {
  if (!row.environmentVars) return checkEnvironment('environmentVars', undefined);
  let parsed: unknown;
  try {
    parsed = JSON.parse(row.environmentVars);
  } catch (error) {
    throw new InvalidContainerRecordError(row.id, ['environmentVars is not valid JSON'], { cause: error });
  }
  return checkEnvironment('environmentVars', parsed);
}

/** A Service row in the record's words: a transport service's protocol is its TransportService's. */
function serviceOfRow(service: z.infer<typeof serviceRow>): ContainerService {
  const protocol = service.transportService?.protocol;
  return {
    id: service.id ?? null,
    type: service.type,
    internalPort: service.internalPort ?? null,
    ...(protocol !== undefined && protocol !== null ? { protocol } : {}),
  };
}

/** The columns saveProvisioned writes, in Manager's names. */
export function managerColumns(identity: {
  providerId: string;
  macAddress: string | null;
  ipAddress: string | null;
  templateDefaults?: { environment: Readonly<Record<string, string>>; entrypoint: string | null } | undefined;
}): Record<string, unknown> {
  const columns: Record<string, unknown> = {
    containerId: identity.providerId,
    macAddress: identity.macAddress,
    ipv4Address: identity.ipAddress,
  };
  if (identity.templateDefaults) {
    const { environment, entrypoint } = identity.templateDefaults;
    columns['environmentVars'] = Object.keys(environment).length > 0 ? JSON.stringify(environment) : null;
    columns['entrypoint'] = entrypoint;
  }
  return columns;
}
