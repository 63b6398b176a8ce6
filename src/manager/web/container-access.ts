// What a terminal or log session in Manager's server may reach, decided before anything
// reaches the cluster: Manager's own authorization (its hook) names the user, the container
// row and its node; the rows then say which Deployment, on which cluster; the caps say
// whether one more session may open. A refusal is an HTTP status and Manager's words.
import type { IncomingMessage } from 'node:http';
import { KubeProvisionerError, escapeControlCharacters, maskCredentials, type KubernetesClient } from '../../index.js';
import { plainNode } from '../kit/node-api.js';
import { NODE_TYPE } from '../kit/node-model.js';
import type { KubernetesClientFactory } from '../providers/kubernetes-client.js';
import type { NodeRecord } from '../providers/types.js';

/** The route's parameters, as Manager's routes name them (`/sites/:siteId/containers/:id`). */
export interface ContainerRouteParams {
  readonly siteId: string;
  readonly id: string;
}

/** What Manager's authorization grants: who asks, and the container row with its node (Sequelize instances or plain rows). */
export interface ContainerAccess {
  /** The user, as the session log line and the per-user cap name them. */
  readonly user: string;
  /** Manager's Container: its `id` and its provider ID `containerId`. */
  readonly container: unknown;
  /** The container's Node. */
  readonly node: unknown;
}

/**
 * Manager's rule (owner, collaborators, admins) for one request. It resolves to the access
 * granted, or throws: an error with a 4xx `status` (Manager's ApiError) is answered with that
 * status and its message; any other is answered 500 without its message.
 */
export type AuthorizeContainerAccess = (request: IncomingMessage, params: ContainerRouteParams) => Promise<ContainerAccess>;

export interface ContainerSessionOptions {
  readonly authorize: AuthorizeContainerAccess;
  /** The cluster client of a node; default: from its columns, one per distinct node configuration. */
  readonly clientFor?: KubernetesClientFactory;
  /** This Manager's installation ID (MANAGER_INSTANCE_ID): the workload must carry it. */
  readonly instance?: string | undefined;
  /** Sessions one user may have open at once; default 4. */
  readonly maxSessionsPerUser?: number;
  /** Sessions open at once on one container; default 4. */
  readonly maxSessionsPerContainer?: number;
  /** Close a session after this long; default: no bound. */
  readonly maxSessionMs?: number;
  /** Where the one line per session goes; default console.log. */
  readonly log?: (line: string) => void;
}

export const DEFAULT_MAX_SESSIONS_PER_USER = 4;
export const DEFAULT_MAX_SESSIONS_PER_CONTAINER = 4;

/** A request refused before the cluster: its HTTP status, a code and Manager-style words. */
export class SessionRefusedError extends KubeProvisionerError {
  override readonly name = 'SessionRefusedError';
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.status = status;
    this.code = code;
  }
}

/** The session's target, from the rows Manager's hook returned. */
export interface SessionTarget {
  readonly user: string;
  readonly containerId: string;
  readonly providerId: string;
  readonly node: NodeRecord;
}

/** Runs the hook and reads the rows; every refusal is a SessionRefusedError. */
export async function authorizeSession(
  authorize: AuthorizeContainerAccess,
  request: IncomingMessage,
  params: ContainerRouteParams,
): Promise<SessionTarget> {
  let access: ContainerAccess;
  try {
    access = await authorize(request, params);
  } catch (error) {
    throw refusalOf(error);
  }
  const user = typeof access?.user === 'string' ? access.user : '';
  if (user === '') throw new SessionRefusedError(401, 'unauthorized', 'Unauthorized');
  const container = plainRow(access.container);
  const node = plainNode(access.node);
  const containerId = typeof container.id === 'number' || typeof container.id === 'string' ? String(container.id) : params.id;
  if (node.nodeType !== NODE_TYPE) {
    throw new SessionRefusedError(
      409,
      'not_kubernetes',
      `Container ${containerId} runs on node ${String(node.name)} (${String(node.nodeType)}): a terminal and its log are served only for kubernetes nodes`,
    );
  }
  if (typeof container.containerId !== 'string' || container.containerId === '') {
    throw new SessionRefusedError(409, 'not_provisioned', `Container ${containerId} is not created on its node yet`);
  }
  return { user, containerId, providerId: container.containerId, node };
}

function refusalOf(error: unknown): SessionRefusedError {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    return new SessionRefusedError(status, typeof code === 'string' ? code : 'refused', message, { cause: error });
  }
  return new SessionRefusedError(500, 'internal', "The container's access could not be checked", { cause: error });
}

function plainRow(row: unknown): Record<string, unknown> {
  const candidate = row as { get?: (options: { plain: true }) => unknown } | null;
  const plain = candidate && typeof candidate.get === 'function' ? candidate.get({ plain: true }) : row;
  return typeof plain === 'object' && plain !== null ? (plain as Record<string, unknown>) : {};
}

/** The open sessions per user and per container, and the caps on them. */
export class SessionLimits {
  private readonly perUser = new Map<string, number>();
  private readonly perContainer = new Map<string, number>();
  private readonly maxPerUser: number;
  private readonly maxPerContainer: number;

  constructor(options: Pick<ContainerSessionOptions, 'maxSessionsPerUser' | 'maxSessionsPerContainer'>) {
    this.maxPerUser = positiveCount('maxSessionsPerUser', options.maxSessionsPerUser ?? DEFAULT_MAX_SESSIONS_PER_USER);
    this.maxPerContainer = positiveCount('maxSessionsPerContainer', options.maxSessionsPerContainer ?? DEFAULT_MAX_SESSIONS_PER_CONTAINER);
  }

  get open(): number {
    let total = 0;
    for (const count of this.perUser.values()) total += count;
    return total;
  }

  /** Takes a place for the session, or refuses with 429; the function returned gives it back (once). */
  take(target: SessionTarget): () => void {
    const containerKey = `${target.node.id}/${target.containerId}`;
    if ((this.perUser.get(target.user) ?? 0) >= this.maxPerUser) {
      throw new SessionRefusedError(429, 'too_many_sessions', `User ${target.user} has ${this.maxPerUser} sessions open already`);
    }
    if ((this.perContainer.get(containerKey) ?? 0) >= this.maxPerContainer) {
      throw new SessionRefusedError(
        429,
        'too_many_sessions',
        `Container ${target.containerId} has ${this.maxPerContainer} sessions open already`,
      );
    }
    bump(this.perUser, target.user, 1);
    bump(this.perContainer, containerKey, 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      bump(this.perUser, target.user, -1);
      bump(this.perContainer, containerKey, -1);
    };
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

export function positiveCount(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new SessionOptionError(option, value, 'a whole number of at least 1');
  return value;
}

export function positiveMs(option: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new SessionOptionError(option, value, 'a number of milliseconds above 0');
  return value;
}

/** A handler's option out of its rule: names the option, the value and the rule. */
export class SessionOptionError extends KubeProvisionerError {
  override readonly name = 'SessionOptionError';
  readonly option: string;
  constructor(option: string, value: unknown, rule: string) {
    super(`${option} must be ${rule}, got ${JSON.stringify(value) ?? String(value)}`);
    this.option = option;
  }
}

/** The client of the target's node. */
export async function sessionClient(clientFor: KubernetesClientFactory, target: SessionTarget): Promise<KubernetesClient> {
  return clientFor(target.node);
}

/** One line per session: who, which container, how long, how it ended; never what was typed or shown. */
export function sessionLine(
  kind: 'terminal' | 'logs',
  target: SessionTarget | undefined,
  startedAt: number,
  now: number,
  outcome: string,
): string {
  const who = target ? `user ${target.user}, container ${target.containerId} (${target.providerId})` : 'no session';
  const seconds = ((now - startedAt) / 1000).toFixed(1);
  return escapeControlCharacters(maskCredentials(`${kind} session: ${who}, ${seconds} s, ${outcome}`));
}

/** A refusal's line, for the same log: the status and why, never the request's headers. */
export function refusalLine(kind: 'terminal' | 'logs', params: ContainerRouteParams, refusal: SessionRefusedError): string {
  return escapeControlCharacters(
    maskCredentials(`${kind} refused: container ${params.id} of site ${params.siteId}, ${refusal.status} ${refusal.message}`),
  );
}

/** How an error reads to the browser and the log: its name and message (the library's carry no credential). */
export function errorWords(error: unknown): string {
  if (error instanceof Error) return maskCredentials(`${error.name}: ${error.message}`);
  return maskCredentials(String(error));
}
