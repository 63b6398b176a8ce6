// A Kubernetes node's settings as Manager stores them (kubeconfigPath, kubeContext,
// kubeNamespace, tlsVerify), validated before anything is read or sent: every problem is
// reported at once by field name, no value is ever quoted back, and nothing falls back
// to ambient state (no $KUBECONFIG, no ~/.kube/config): the path is required.
import { isAbsolute } from 'node:path';
import { DEFAULT_NAMESPACE, dns1123LabelProblem } from '../index.js';
import { InvalidNodeConfigError, type NodeConfigIssue } from './errors.js';

/** Validated settings of one Kubernetes node (no kubeconfig contents: its path only). */
export interface KubernetesNodeSettings {
  readonly kubeconfigPath: string;
  /** Undefined: the kubeconfig's current-context. */
  readonly kubeContext: string | undefined;
  readonly kubeNamespace: string;
  /** False only when the node says so explicitly. */
  readonly tlsVerify: boolean;
}

const MAX_PATH_LENGTH = 4096;
const MAX_CONTEXT_LENGTH = 253;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * The node's Kubernetes settings, defaults applied (namespace `default`, TLS verified).
 * `node` is Manager's Node record or the form that will become one. Throws
 * InvalidNodeConfigError naming each field at fault.
 */
export function parseKubernetesNodeConfig(node: unknown): KubernetesNodeSettings {
  const record = (typeof node === 'object' && node !== null ? node : {}) as Record<string, unknown>;
  const issues: NodeConfigIssue[] = [];
  if (typeof node !== 'object' || node === null) issues.push({ field: '(node)', message: 'must be an object with the node settings' });

  const kubeconfigPath = record.kubeconfigPath;
  if (kubeconfigPath === undefined || kubeconfigPath === null || kubeconfigPath === '') {
    issues.push({ field: 'kubeconfigPath', message: 'is required: the absolute path of the kubeconfig file Manager reads for this node' });
  } else if (typeof kubeconfigPath !== 'string') {
    issues.push({ field: 'kubeconfigPath', message: 'must be a string (a file path)' });
  } else if (/[\r\n]/.test(kubeconfigPath)) {
    issues.push({ field: 'kubeconfigPath', message: "must be a file path, not the kubeconfig's contents (it has a line break)" });
  } else if (CONTROL_CHARACTER.test(kubeconfigPath)) {
    issues.push({ field: 'kubeconfigPath', message: 'must not contain control characters' });
  } else if (kubeconfigPath.length > MAX_PATH_LENGTH) {
    issues.push({ field: 'kubeconfigPath', message: `must be at most ${MAX_PATH_LENGTH} characters` });
  } else if (!isAbsolute(kubeconfigPath)) {
    issues.push({
      field: 'kubeconfigPath',
      message: "must be an absolute path (Manager's working directory is no stable base; ~ is not expanded)",
    });
  }

  const kubeContext = record.kubeContext;
  if (kubeContext !== undefined && kubeContext !== null && kubeContext !== '') {
    if (typeof kubeContext !== 'string')
      issues.push({ field: 'kubeContext', message: 'must be a string (a context name in the kubeconfig)' });
    else if (CONTROL_CHARACTER.test(kubeContext)) issues.push({ field: 'kubeContext', message: 'must not contain control characters' });
    else if (kubeContext.trim() !== kubeContext) issues.push({ field: 'kubeContext', message: 'must not start or end with spaces' });
    else if (kubeContext.length > MAX_CONTEXT_LENGTH) {
      issues.push({ field: 'kubeContext', message: `must be at most ${MAX_CONTEXT_LENGTH} characters` });
    }
  }

  const kubeNamespace = record.kubeNamespace;
  if (kubeNamespace !== undefined && kubeNamespace !== null && kubeNamespace !== '') {
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

  if (issues.length > 0) throw new InvalidNodeConfigError(nodeLabel(record), issues);
  return {
    kubeconfigPath: kubeconfigPath as string,
    kubeContext: (kubeContext as string | null | undefined) || undefined,
    kubeNamespace: (kubeNamespace as string | null | undefined) || DEFAULT_NAMESPACE,
    tlsVerify: tlsVerify !== false,
  };
}

function nodeLabel(record: Record<string, unknown>): string | undefined {
  const { name, id } = record;
  if (typeof name === 'string' && name && !CONTROL_CHARACTER.test(name)) return name.slice(0, 253);
  if (typeof id === 'number' || (typeof id === 'string' && id && !CONTROL_CHARACTER.test(id))) return String(id).slice(0, 253);
  return undefined;
}
