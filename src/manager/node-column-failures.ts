// The failures an admin fixes by changing a kubernetes node's column, in one table: what the
// library says (an error, or the cluster check's item), the column to change, and how. Both
// moments use it: saving the node (nodeSaveProblem, over checkKubernetesNode's report) and a
// job on the node (the Kubernetes provider's create and lifecycle), so a message names the
// node's column, never the library's option (`storage.storageClass`) or CLI flag.
import { NodeSettingError } from './errors.js';
import type { KubernetesNodeConfig } from './node-config.js';

/** What the table knows of a failure: its error class, its words, and what the error carries. */
export interface FailureFacts {
  /** The error's `name` (KubeconfigNotFoundError, ...). */
  readonly error: string;
  readonly message: string;
  /** NoDefaultStorageClassError: the classes the cluster has. */
  readonly classes?: readonly string[];
}

export interface ColumnFailure {
  /** The Node column to change. */
  readonly column: string;
  /** What is wrong and what to set it to, in the node's words; one line. */
  readonly message: string;
}

type Credentials = KubernetesNodeConfig['credentials'];

interface Row {
  /** Whether the row is this failure's. */
  readonly matches: (facts: FailureFacts) => boolean;
  readonly column: (credentials: Credentials) => string;
  readonly message: (facts: FailureFacts, credentials: Credentials) => string;
}

const NAMESPACE_MISSING = /namespaces? "?([a-z0-9-]+)"? (?:not found|does not exist)/;

const byName =
  (...names: string[]) =>
  (facts: FailureFacts): boolean =>
    names.includes(facts.error);

/** The table. Order matters only where two rows could match: the first wins. */
const ROWS: readonly Row[] = [
  {
    matches: byName('KubeconfigNotFoundError'),
    column: () => 'kubeconfigPath',
    message: () => 'names no kubeconfig file Manager can read: name an existing, readable file on the Manager host',
  },
  {
    matches: byName('KubeconfigInvalidError', 'ExecPluginError'),
    column: () => 'kubeconfigPath',
    message: (facts) => `names a kubeconfig that does not work (${facts.message}): fix the file or name another`,
  },
  {
    matches: byName('UnknownContextError'),
    column: () => 'kubeContext',
    message: (facts) => `is not a context of the kubeconfig (${facts.message}): name one it has, or leave it empty for its current-context`,
  },
  {
    matches: byName('TlsError'),
    column: () => 'tlsVerify',
    message: (facts) =>
      `is on, and the API server's certificate is not trusted (${facts.message}): give Manager the cluster's CA (NODE_EXTRA_CA_CERTS), or set tlsVerify to false`,
  },
  {
    matches: byName('UnauthorizedError'),
    column: (credentials) => (credentials === 'token' ? 'secret' : 'kubeconfigPath'),
    message: (_facts, credentials) =>
      credentials === 'token'
        ? 'was refused by the API server (401): set a valid bearer token, e.g. a new `kubectl create token`'
        : "names a kubeconfig whose user the API server refused (401): renew the user's credentials in the file",
  },
  {
    matches: byName('ApiUnreachableError', 'ApiTimeoutError'),
    column: (credentials) => (credentials === 'token' ? 'apiUrl' : 'kubeconfigPath'),
    message: (facts, credentials) =>
      `${credentials === 'token' ? 'is' : 'names a kubeconfig whose server is'} not reachable from Manager (${facts.message}): check the address, or the network`,
  },
  {
    matches: byName('NoDefaultStorageClassError'),
    column: () => 'kubeStorageClass',
    message: (facts) =>
      'is empty and the cluster has no default StorageClass, so no container on this node can get its volume: ' +
      (facts.classes && facts.classes.length > 0
        ? `set kubeStorageClass to one of ${facts.classes.join(', ')}`
        : 'the cluster has no StorageClass at all; install one and set kubeStorageClass to it') +
      ', or set kubePersistence to off (each container then loses its files with its Pod)',
  },
  {
    matches: byName('StorageClassNotFoundError'),
    column: () => 'kubeStorageClass',
    message: () => "names a StorageClass the cluster does not have: name one of the cluster's, or leave it empty for its default",
  },
  {
    matches: (facts) => facts.error === 'NotFoundError' && NAMESPACE_MISSING.test(facts.message),
    column: () => 'kubeNamespace',
    message: (facts) =>
      `names a namespace the cluster does not have (${NAMESPACE_MISSING.exec(facts.message)?.[1] ?? 'it'}): create it, or name an existing one`,
  },
];

/** The row of a failure, or undefined when no column of the node fixes it. */
export function columnFailure(facts: FailureFacts, credentials: Credentials): ColumnFailure | undefined {
  const row = ROWS.find((candidate) => candidate.matches(facts));
  return row ? { column: row.column(credentials), message: row.message(facts, credentials) } : undefined;
}

/** An error as the table reads it. */
export function factsOf(error: unknown): FailureFacts | undefined {
  if (!(error instanceof Error)) return undefined;
  const classes = (error as { classes?: unknown }).classes;
  return {
    error: error.name,
    message: error.message,
    ...(Array.isArray(classes) ? { classes: classes.filter((name): name is string => typeof name === 'string') } : {}),
  };
}

/**
 * A job's error, as the node's column to change (NodeSettingError, the error its cause), or
 * the error itself when no column fixes it.
 */
export function withNodeColumn(
  error: unknown,
  node: { readonly id?: unknown; readonly name?: unknown },
  credentials: Credentials,
): unknown {
  if (error instanceof NodeSettingError) return error;
  const facts = factsOf(error);
  const failure = facts && columnFailure(facts, credentials);
  return failure ? new NodeSettingError(node, failure.column, failure.message, { cause: error }) : error;
}

/** How a node's row reaches its cluster, as the table words its columns: a kubeconfig, or apiUrl and a token. */
export function credentialsOf(node: { readonly kubeconfigPath?: unknown }): Credentials {
  return typeof node.kubeconfigPath === 'string' && node.kubeconfigPath !== '' ? 'kubeconfig' : 'token';
}
