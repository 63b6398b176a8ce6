// A Kubernetes node's columns as Manager stores them, read once and by one set of rules for
// both uses: the provider before it provisions, and the check Manager runs when a node is
// saved. The cluster comes from the row only: a kubeconfig (kubeconfigPath, kubeContext), or
// an API server URL with a bearer token (apiUrl, secret); kubeNamespace and tlsVerify apply
// to both. Every problem is reported at once by column, no value is ever quoted back (a
// kubeconfig pasted where its path belongs, a token), and nothing falls back to ambient
// state (no $KUBECONFIG, no ~/.kube/config).
import { isAbsolute } from 'node:path';
import {
  DEFAULT_GPU_RESOURCE,
  DEFAULT_NAMESPACE,
  dns1123LabelProblem,
  dns1123SubdomainProblem,
  gpuResourceProblem,
  persistedPathsIssues,
} from '../index.js';
import { KubernetesNodeConfigError, type NodeConfigIssue } from './errors.js';
import { MAX_DNS_SUBDOMAIN_LENGTH, MAX_KUBECONFIG_PATH_LENGTH, MAX_PERSIST_PATHS_LENGTH } from './kit/node-columns.js';

/** How a node reaches its cluster, validated; never the kubeconfig's contents or the token. */
export type KubernetesNodeConfig =
  | {
      readonly credentials: 'kubeconfig';
      readonly kubeconfigPath: string;
      /** Undefined: the kubeconfig's current-context. */
      readonly kubeContext: string | undefined;
      readonly kubeNamespace: string;
      /** False only when the node says so explicitly. */
      readonly tlsVerify: boolean;
      readonly gpu: GpuSettings;
    }
  | {
      /** `apiUrl` is the API server; the node's `secret` is the bearer token. */
      readonly credentials: 'token';
      readonly apiUrl: string;
      readonly kubeNamespace: string;
      readonly tlsVerify: boolean;
      readonly gpu: GpuSettings;
    };

/** What a container with nvidiaRequested asks of this node's cluster (kubeGpuResource, kubeGpuRuntimeClass). */
export interface GpuSettings {
  readonly resource: string;
  /** Undefined: the cluster's default RuntimeClass. */
  readonly runtimeClass: string | undefined;
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

const isSet = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

/**
 * The node's cluster settings, defaults applied (current-context, namespace `default`, TLS
 * verified). `node` is Manager's Node record or the form that will become one. Throws
 * KubernetesNodeConfigError listing each column at fault. The apiUrl's and secret's own
 * rules (https, no whitespace in the token) are KubernetesApi.fromServer's, applied when the
 * client is made.
 */
export function kubernetesNodeConfig(node: unknown): KubernetesNodeConfig {
  const record = (typeof node === 'object' && node !== null ? node : {}) as Record<string, unknown>;
  const issues: NodeConfigIssue[] = [];
  if (typeof node !== 'object' || node === null) issues.push({ field: '(node)', message: 'must be an object with the node settings' });

  const { kubeconfigPath, kubeContext, apiUrl, secret } = record;
  const byToken = !isSet(kubeconfigPath) && isSet(apiUrl);
  if (isSet(kubeconfigPath) && isSet(apiUrl)) {
    issues.push({ field: 'apiUrl', message: 'is set as well as kubeconfigPath; set one of them (a kubeconfig, or apiUrl and secret)' });
  }
  if (byToken) {
    if (typeof apiUrl !== 'string') issues.push({ field: 'apiUrl', message: 'must be a string (the API server URL)' });
    else {
      const problem = apiUrlProblem(apiUrl);
      if (problem) issues.push({ field: 'apiUrl', message: problem });
    }
    if (isSet(kubeContext)) issues.push({ field: 'kubeContext', message: 'applies only with kubeconfigPath' });
    if (!isSet(secret)) {
      issues.push({ field: 'secret', message: 'is missing: apiUrl needs the bearer token (a ServiceAccount token) in secret' });
    } else if (typeof secret !== 'string') {
      issues.push({ field: 'secret', message: 'must be a string (a bearer token)' });
    }
  } else {
    const problem = kubeconfigPathProblem(kubeconfigPath);
    if (problem) issues.push({ field: 'kubeconfigPath', message: problem });
    const contextProblem = kubeContextProblem(kubeContext);
    if (contextProblem) issues.push({ field: 'kubeContext', message: contextProblem });
  }

  const kubeNamespace = record.kubeNamespace;
  if (isSet(kubeNamespace)) {
    if (typeof kubeNamespace !== 'string') issues.push({ field: 'kubeNamespace', message: 'must be a string (a namespace name)' });
    else {
      const problem = dns1123LabelProblem(kubeNamespace);
      if (problem) issues.push({ field: 'kubeNamespace', message: problem });
    }
  }

  const tlsVerify = record.tlsVerify;
  if (tlsVerify !== undefined && tlsVerify !== null && typeof tlsVerify !== 'boolean') {
    issues.push({ field: 'tlsVerify', message: 'must be true or false (absent means true)' });
  }

  issues.push(...gpuIssues(record));
  issues.push(...storageIssues(record));
  issues.push(...systemIssues(record));

  if (issues.length > 0) throw new KubernetesNodeConfigError(record, issues);
  const common = {
    kubeNamespace: (kubeNamespace as string | null | undefined) || DEFAULT_NAMESPACE,
    tlsVerify: tlsVerify !== false,
    gpu: gpuOf(record),
  };
  if (byToken) return { credentials: 'token', apiUrl: apiUrl as string, ...common };
  return {
    credentials: 'kubeconfig',
    kubeconfigPath: kubeconfigPath as string,
    kubeContext: (kubeContext as string | null | undefined) || undefined,
    ...common,
  };
}

/**
 * The node's GPU settings alone (a node whose client Manager builds itself has no
 * kubeconfigPath to check). Throws KubernetesNodeConfigError naming the column at fault.
 */
export function nodeGpuSettings(node: unknown): GpuSettings {
  const record = (typeof node === 'object' && node !== null ? node : {}) as Record<string, unknown>;
  const issues = gpuIssues(record);
  if (issues.length > 0) throw new KubernetesNodeConfigError(record, issues);
  return gpuOf(record);
}

function gpuIssues(record: Record<string, unknown>): NodeConfigIssue[] {
  const issues: NodeConfigIssue[] = [];
  for (const [field, problemOf] of [
    ['kubeGpuResource', gpuResourceProblem],
    ['kubeGpuRuntimeClass', dns1123SubdomainProblem],
  ] as const) {
    const value = record[field];
    if (!isSet(value)) continue;
    const problem = typeof value === 'string' ? problemOf(value) : 'must be a string';
    if (problem) issues.push({ field, message: problem });
  }
  return issues;
}

/** The storage columns by their rules, so a saved value always fits its column. */
function storageIssues(record: Record<string, unknown>): NodeConfigIssue[] {
  const issues: NodeConfigIssue[] = [];
  const { kubePersistence, kubeStorageClass, kubePersistPaths } = record;
  if (isSet(kubePersistence) && kubePersistence !== 'on' && kubePersistence !== 'off') {
    issues.push({ field: 'kubePersistence', message: 'must be "on" or "off" (empty means on: every container gets a volume)' });
  }
  if (isSet(kubeStorageClass)) {
    const problem =
      typeof kubeStorageClass === 'string' ? dns1123SubdomainProblem(kubeStorageClass) : 'must be a string (a StorageClass name)';
    if (problem) issues.push({ field: 'kubeStorageClass', message: problem });
  }
  if (isSet(kubePersistPaths)) {
    if (typeof kubePersistPaths !== 'string')
      issues.push({ field: 'kubePersistPaths', message: 'must be a string (absolute directories separated by spaces)' });
    else if (kubePersistPaths.length > MAX_PERSIST_PATHS_LENGTH) {
      issues.push({ field: 'kubePersistPaths', message: `must be at most ${MAX_PERSIST_PATHS_LENGTH} characters` });
    } else issues.push(...persistPathsIssues(kubePersistPaths));
  }
  return issues;
}

/** How the node runs system containers and user namespaces (kubeSystemRuntimeClass, kubeUserNamespaces). */
export interface SystemContainerSettings {
  /** Undefined: the cluster's default RuntimeClass. */
  readonly runtimeClass: string | undefined;
  /** Each container runs with `hostUsers: false`. */
  readonly userNamespaces: boolean;
}

/** The node's system container settings alone. Throws KubernetesNodeConfigError naming the column at fault. */
export function nodeSystemSettings(node: unknown): SystemContainerSettings {
  const record = (typeof node === 'object' && node !== null ? node : {}) as Record<string, unknown>;
  const issues = systemIssues(record);
  if (issues.length > 0) throw new KubernetesNodeConfigError(record, issues);
  return {
    runtimeClass: (record.kubeSystemRuntimeClass as string | null | undefined) || undefined,
    userNamespaces: record.kubeUserNamespaces === 'on',
  };
}

function systemIssues(record: Record<string, unknown>): NodeConfigIssue[] {
  const issues: NodeConfigIssue[] = [];
  const { kubeSystemRuntimeClass, kubeUserNamespaces } = record;
  if (isSet(kubeSystemRuntimeClass)) {
    const problem =
      typeof kubeSystemRuntimeClass === 'string'
        ? dns1123SubdomainProblem(kubeSystemRuntimeClass)
        : 'must be a string (a RuntimeClass name)';
    if (problem) issues.push({ field: 'kubeSystemRuntimeClass', message: problem });
  }
  if (isSet(kubeUserNamespaces) && kubeUserNamespaces !== 'on' && kubeUserNamespaces !== 'off') {
    issues.push({ field: 'kubeUserNamespaces', message: 'must be "on" or "off" (empty means off: the host\'s users)' });
  }
  return issues;
}

/** The list of paths splits as the provider splits it. */
export function nodePersistPaths(kubePersistPaths: string | null | undefined): string[] | undefined {
  return kubePersistPaths?.trim() ? kubePersistPaths.trim().split(/\s+/) : undefined;
}

/**
 * The node's paths by the create's own rule (the library's persistedPathsIssues, which
 * every create on the node applies to them as storage.paths), so a node is refused when
 * saved rather than every container on it later. Each problem names the path and its place.
 */
function persistPathsIssues(kubePersistPaths: string): NodeConfigIssue[] {
  const paths = nodePersistPaths(kubePersistPaths);
  if (paths === undefined) return [];
  return persistedPathsIssues(paths).map((issue) => {
    const index = issue.path[0];
    const which = typeof index === 'number' ? ` path ${index + 1} (${JSON.stringify(paths[index])?.slice(0, 80) ?? 'missing'})` : '';
    return { field: 'kubePersistPaths', message: `${which ? `${which.trim()} ` : ''}${issue.message}` };
  });
}

function gpuOf(record: Record<string, unknown>): GpuSettings {
  return {
    resource: (record.kubeGpuResource as string | null | undefined) || DEFAULT_GPU_RESOURCE,
    runtimeClass: (record.kubeGpuRuntimeClass as string | null | undefined) || undefined,
  };
}

function kubeconfigPathProblem(path: unknown): string | undefined {
  if (!isSet(path)) {
    return (
      'is missing: set kubeconfigPath (with kubeContext and kubeNamespace), or apiUrl and secret; ' +
      "a node never uses the process's $KUBECONFIG or ~/.kube/config"
    );
  }
  if (typeof path !== 'string') return 'must be a string (a file path)';
  if (/[\r\n]/.test(path)) return "must be a file path, not the kubeconfig's contents (it has a line break)";
  if (CONTROL_CHARACTER.test(path)) return 'must not contain control characters';
  if (path.length > MAX_KUBECONFIG_PATH_LENGTH) return `must be at most ${MAX_KUBECONFIG_PATH_LENGTH} characters`;
  if (!isAbsolute(path)) return "must be an absolute path (Manager's working directory is no stable base; ~ is not expanded)";
  return undefined;
}

/** A URL that cannot be one, or that carries credentials (they belong in `secret`); never quoted back. */
function apiUrlProblem(apiUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    return 'must be an absolute URL such as https://10.0.0.1:6443';
  }
  if (url.username || url.password) return 'must not hold credentials (user:password@): put the bearer token in secret';
  return undefined;
}

function kubeContextProblem(context: unknown): string | undefined {
  if (!isSet(context)) return undefined;
  if (typeof context !== 'string') return 'must be a string (a context name in the kubeconfig)';
  if (CONTROL_CHARACTER.test(context)) return 'must not contain control characters';
  if (context.trim() !== context) return 'must not start or end with spaces';
  if (context.length > MAX_DNS_SUBDOMAIN_LENGTH) return `must be at most ${MAX_DNS_SUBDOMAIN_LENGTH} characters`;
  return undefined;
}
