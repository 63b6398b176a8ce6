// What Manager's node routes (routers/api/v1/nodes.js) need for the kubernetes node type:
// the kit's columns taken from a form or JSON body, and the check validateNodeInput makes
// before a node is saved, so a node that could not reach its cluster is refused with 400
// naming the column, instead of failing every create job later.
import { kubernetesNodeConfig } from '../node-config.js';
import { KubernetesNodeConfigError, type NodeConfigIssue } from '../errors.js';
import { checkKubernetesNode } from '../node-check.js';
import { columnFailure, type FailureFacts } from '../node-column-failures.js';
import { NODES_TABLE } from './migration.js';
import { MANAGER_NODE_COLUMNS, NODE_COLUMN_NAMES } from './node-columns.js';

/**
 * The kit's columns from a request body (or a node), for `Node.create` and `node.update`,
 * as Manager's routes take its own: an absent or empty field is null (so an update clears
 * it); any other value is kept as it is, for the check to judge.
 */
export function nodeFields(input: unknown): Record<string, unknown> {
  const record = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  return Object.fromEntries(
    NODE_COLUMN_NAMES.map((name) => [name, record[name] === undefined || record[name] === '' ? null : record[name]]),
  );
}

/**
 * Why a kubernetes node with these fields cannot be saved, in one line naming the node and
 * every column at fault (KubernetesNodeConfigError's message), or undefined when it can.
 * `input` is what the node will hold: the request body, over the saved node on an update
 * (the form leaves `secret` out when it is unchanged). Like Manager's routes, it takes
 * `tlsVerify` as a form sends it ("true", "false", or empty).
 */
export function nodeInputProblem(input: unknown): string | undefined {
  const record = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const issues = [...configIssues({ ...record, ...nodeFields(record), tlsVerify: formFlag(record['tlsVerify']) }), ...columnIssues(record)];
  return issues.length > 0 ? new KubernetesNodeConfigError(record, issues).message : undefined;
}

function configIssues(form: Record<string, unknown>): readonly NodeConfigIssue[] {
  try {
    kubernetesNodeConfig(form);
    return [];
  } catch (error) {
    if (error instanceof KubernetesNodeConfigError) return error.issues;
    throw error;
  }
}

/**
 * Manager's own columns a kubernetes node fills: a value longer than the column holds is
 * refused here, naming it, rather than by the database (PostgreSQL answers "value too
 * long", a 500). The value itself is never quoted (the secret is a token).
 */
function columnIssues(record: Record<string, unknown>): NodeConfigIssue[] {
  return MANAGER_NODE_COLUMNS.flatMap((column) => {
    const value = record[column.name];
    if (typeof value !== 'string' || value.length <= column.length) return [];
    const widened = column.widenedFrom !== undefined ? ", once the kit's migrations widened it" : '';
    return [
      {
        field: column.name,
        message: `must be at most ${column.length} characters (Manager's ${NODES_TABLE}.${column.name} column holds no more${widened}; it has ${value.length})`,
      },
    ];
  });
}

/** Bound on the cluster check when a node is saved (a route answers within it). */
export const NODE_SAVE_CHECK_TIMEOUT_MS = 10_000;

export interface NodeSaveCheckOptions {
  /** Bound on the cluster check; default NODE_SAVE_CHECK_TIMEOUT_MS. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * What nodeInputProblem says, then what the node's cluster says, in one line naming each
 * column to change, or undefined when the node can be saved. The cluster is asked what a
 * column decides (checkKubernetesNode): the kubeconfig file and its context, the TLS
 * verification, the token, the namespace, and, unless kubePersistence is off, the named or
 * default StorageClass. An API server that does not answer cannot be checked then: the node
 * is saved, and a job on it names the cause. Other findings of the check (permissions, GPUs)
 * do not stop a save.
 */
export async function nodeSaveProblem(input: unknown, options: NodeSaveCheckOptions = {}): Promise<string | undefined> {
  const problem = nodeInputProblem(input);
  if (problem) return problem;
  const record = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const form: Record<string, unknown> = { ...record, ...nodeFields(record), tlsVerify: formFlag(record['tlsVerify']) };
  const { settings, report } = await checkKubernetesNode(form, {
    needs: 'create',
    timeoutMs: options.timeoutMs ?? NODE_SAVE_CHECK_TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const issues: NodeConfigIssue[] = [];
  const add = (facts: FailureFacts): void => {
    const failure = columnFailure(facts, settings.credentials);
    if (failure && !issues.some((issue) => issue.field === failure.column))
      issues.push({ field: failure.column, message: failure.message });
  };
  for (const item of report.items) {
    if (item.status === 'fail' && item.id !== 'api' && item.id !== 'storage') {
      add({ error: item.error ?? (item.id === 'namespace' ? 'NotFoundError' : ''), message: item.message });
    }
  }
  const storage = report.items.find((item) => item.id === 'storage');
  if (form['kubePersistence'] !== 'off' && storage?.storageClasses !== undefined) {
    const named = form['kubeStorageClass'];
    if (typeof named === 'string' && named !== '') {
      if (!storage.storageClasses.includes(named)) add({ error: 'StorageClassNotFoundError', message: storage.message });
    } else if (storage.defaultStorageClass === null) {
      add({ error: 'NoDefaultStorageClassError', message: storage.message, classes: storage.storageClasses });
    }
  }
  return issues.length > 0 ? new KubernetesNodeConfigError(record, issues).message : undefined;
}

/** A checkbox as forms and JSON send it; anything else is left for the check to refuse. */
function formFlag(value: unknown): unknown {
  if (value === '' || value === null || value === undefined) return null;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}
