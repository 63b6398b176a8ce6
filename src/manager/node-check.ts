// The connection check Manager runs when a Kubernetes node is saved: the node's settings
// validated, then the library's check() against them (the GPU capacity counted in the
// node's kubeGpuResource). The answer holds the settings
// (path, context, namespace, TLS) and the report, never the kubeconfig's contents.
import { check, type CheckReport, type OperationName } from '../index.js';
import { kubernetesNodeConfig, type KubernetesNodeConfig } from './node-config.js';
import { tokenNodeClient } from './providers/kubernetes-client.js';

export interface KubernetesNodeCheckOptions {
  /** `{ cpus, memoryMb }` of a typical container: also check the namespace's LimitRanges and ResourceQuotas. */
  readonly spec?: unknown;
  /** Default `lifecycle`: every permission Manager's operations need. */
  readonly needs?: OperationName;
  /** Bound on the whole check (default 10000). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface KubernetesNodeCheck {
  /** The report is ok: the node can be saved and used. */
  readonly ok: boolean;
  /** The node's validated settings (never the kubeconfig's contents or the token). */
  readonly settings: KubernetesNodeConfig;
  readonly report: CheckReport;
}

/**
 * Validates the node's settings (throws KubernetesNodeConfigError, before any file is read)
 * and checks the cluster they point at, a kubeconfig's or an apiUrl's with its token. What
 * the cluster answers is in the report: a missing kubeconfig, an unknown context, an
 * unreachable API, 401, 403, TLS, a missing namespace or verb each make their own failing
 * item; nothing else throws.
 */
export async function checkKubernetesNode(node: unknown, options: KubernetesNodeCheckOptions = {}): Promise<KubernetesNodeCheck> {
  const settings = kubernetesNodeConfig(node);
  const target =
    settings.credentials === 'token'
      ? tokenNodeClient(node as { secret?: unknown }, settings)
      : {
          kubeconfigPath: settings.kubeconfigPath,
          ...(settings.kubeContext !== undefined ? { context: settings.kubeContext } : {}),
          namespace: settings.kubeNamespace,
          tlsVerify: settings.tlsVerify,
        };
  // A node that offers GPUs to Manager (nvidiaAvailable) or names its resource: the gpus item warns when no node has it.
  const record = node as { nvidiaAvailable?: unknown; kubeGpuResource?: unknown };
  const offersGpus = record.nvidiaAvailable === true || Boolean(record.kubeGpuResource);
  const report = await check(target, {
    ...(options.spec !== undefined ? { spec: options.spec } : {}),
    ...(offersGpus ? { gpuResource: settings.gpu.resource } : {}),
    ...(options.needs !== undefined ? { needs: options.needs } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { ok: report.ok, settings, report };
}
