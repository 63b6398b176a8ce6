// The columns a Kubernetes node adds to Manager's Nodes table: one entry each, the single
// place they are listed. The migration adds them, the model attributes declare them, the
// node routes take them from a form, and the store reads them, all from this table, so a
// new column is one more entry here. Lengths are the rules' own limits (node-config.ts),
// so a value the rules accept always fits its column, on every database Manager supports.

/** The longest kubeconfig path a node may name (PATH_MAX on Linux). */
export const MAX_KUBECONFIG_PATH_LENGTH = 4096;
/** A context name, and a RuntimeClass name: at most a DNS subdomain. */
export const MAX_DNS_SUBDOMAIN_LENGTH = 253;
/** A namespace: a DNS label. */
export const MAX_NAMESPACE_LENGTH = 63;
/** The persisted paths: absolute directories separated by spaces (data's rule). */
export const MAX_PERSIST_PATHS_LENGTH = 4096;
/** `on` or `off` (kubePersistence, kubeUserNamespaces). */
export const MAX_PERSISTENCE_LENGTH = 3;
/** An extended resource name: a DNS subdomain prefix, `/`, and a name of up to 63 characters. */
export const MAX_RESOURCE_NAME_LENGTH = 253 + 1 + 63;

export interface NodeColumn {
  /** The column and attribute name, in Manager's camelCase. */
  readonly name: string;
  /** `string` is a VARCHAR of `length`; `text` has no length. */
  readonly type: 'string' | 'text';
  readonly length?: number;
  /** What the column holds, one line (the migration's column comment). */
  readonly description: string;
}

export const NODE_COLUMNS: readonly NodeColumn[] = Object.freeze([
  {
    name: 'kubeconfigPath',
    type: 'string',
    length: MAX_KUBECONFIG_PATH_LENGTH,
    description: 'kubernetes: absolute path of the kubeconfig file on the Manager host (or use apiUrl and secret)',
  },
  {
    name: 'kubeContext',
    type: 'string',
    length: MAX_DNS_SUBDOMAIN_LENGTH,
    description: "kubernetes: the kubeconfig's context to use; empty: its current-context",
  },
  {
    name: 'kubeNamespace',
    type: 'string',
    length: MAX_NAMESPACE_LENGTH,
    description: "kubernetes: the namespace of the node's containers; empty: default",
  },
  {
    name: 'kubeGpuResource',
    type: 'string',
    length: MAX_RESOURCE_NAME_LENGTH,
    description: 'kubernetes: the extended resource a GPU container requests; empty: nvidia.com/gpu',
  },
  {
    name: 'kubeGpuRuntimeClass',
    type: 'string',
    length: MAX_DNS_SUBDOMAIN_LENGTH,
    description: 'kubernetes: the RuntimeClass of a GPU container (e.g. nvidia); empty: the cluster default',
  },
  {
    name: 'kubeStorageClass',
    type: 'string',
    length: MAX_DNS_SUBDOMAIN_LENGTH,
    description: "kubernetes: the StorageClass of each container's volume; empty: the cluster's default class",
  },
  {
    name: 'kubePersistPaths',
    type: 'string',
    length: MAX_PERSIST_PATHS_LENGTH,
    description: 'kubernetes: the persisted directories, absolute, separated by spaces; empty: /etc /home /opt /root /srv /usr /var',
  },
  {
    name: 'kubePersistence',
    type: 'string',
    length: MAX_PERSISTENCE_LENGTH,
    description: 'kubernetes: off turns the volume off (files live as long as the Pod); empty or on: a volume',
  },
  {
    name: 'kubeSystemRuntimeClass',
    type: 'string',
    length: MAX_DNS_SUBDOMAIN_LENGTH,
    description:
      'kubernetes: the RuntimeClass of a system container (systemd as PID 1), one with writable cgroups; empty: the cluster default',
  },
  {
    name: 'kubeUserNamespaces',
    type: 'string',
    length: MAX_PERSISTENCE_LENGTH,
    description: "kubernetes: on runs each container in a user namespace of its own (hostUsers: false); empty or off: the host's users",
  },
]);

export const NODE_COLUMN_NAMES: readonly string[] = Object.freeze(NODE_COLUMNS.map((column) => column.name));

/**
 * Manager's own Nodes columns a kubernetes node relies on, and what each holds once the kit's
 * migrations ran: the node rule refuses, naming the column, a value longer than `length`.
 * `secret` holds the bearer token of a token-mode node (a `kubectl create token` is about a
 * thousand characters, over Manager's VARCHAR(255)), so the kit's migration widens it to
 * TEXT (`widenedFrom` says what it was); the others keep Manager's length.
 */
export interface ManagerNodeColumn {
  readonly name: string;
  readonly type: 'string' | 'text';
  /** The most characters a value may have (for `text`, the least any database's TEXT holds: MySQL's 65,535 bytes). */
  readonly length: number;
  /** Manager's own length, for a column the kit's migration widens (and its undo narrows back to). */
  readonly widenedFrom?: number;
}

/** MySQL's TEXT, the smallest TEXT of the databases Sequelize serves (a token is ASCII: one byte a character). */
export const MAX_TEXT_LENGTH = 65_535;

export const MANAGER_NODE_COLUMNS: readonly ManagerNodeColumn[] = Object.freeze([
  { name: 'name', type: 'string', length: 255 },
  { name: 'apiUrl', type: 'string', length: 255 },
  { name: 'secret', type: 'text', length: MAX_TEXT_LENGTH, widenedFrom: 255 },
]);
