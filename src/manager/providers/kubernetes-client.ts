// The client of a Kubernetes node, from its record and nowhere else: its kubeconfig file,
// or its API URL and token. A node with neither fails before any request; the process's
// $KUBECONFIG and ~/.kube/config are never read for a node.
import { createHash } from 'node:crypto';
import { InvalidOptionError, KubernetesApi } from '../../index.js';
import type { KubernetesClient } from '../../index.js';
import { KubernetesNodeConfigError } from '../errors.js';
import { kubernetesNodeConfig, type KubernetesNodeConfig } from '../node-config.js';
import type { NodeRecord } from './types.js';

/**
 * Builds the client for a node. It receives the whole node record, so Manager can build it
 * from its own storage (a vault, a ServiceAccount token file, ...), e.g. with
 * `KubernetesApi.fromServer` or `KubernetesApi.fromConfig`.
 */
export type KubernetesClientFactory = (node: NodeRecord) => KubernetesClient | Promise<KubernetesClient>;

/**
 * The default client factory: from the node's columns only (kubernetesNodeConfig), one
 * KubernetesApi per distinct config, so informers are shared per node.
 */
export function nodeClientFactory(): KubernetesClientFactory {
  const clients = new Map<string, KubernetesClient>();
  return (node) => {
    const config = kubernetesNodeConfig(node);
    // A digest stands for the token in the key: the map never holds the secret itself.
    const key =
      config.credentials === 'kubeconfig'
        ? JSON.stringify([config.kubeconfigPath, config.kubeContext, config.kubeNamespace, config.tlsVerify])
        : JSON.stringify([config.apiUrl, digest(node.secret ?? ''), config.kubeNamespace, config.tlsVerify]);
    let client = clients.get(key);
    if (!client) {
      client =
        config.credentials === 'kubeconfig'
          ? KubernetesApi.fromConfig({
              kubeconfigPath: config.kubeconfigPath,
              ...(config.kubeContext !== undefined ? { context: config.kubeContext } : {}),
              namespace: config.kubeNamespace,
              tlsVerify: config.tlsVerify,
            })
          : tokenNodeClient(node, config);
      clients.set(key, client);
    }
    return client;
  };
}

/** The token node's client: KubernetesApi.fromServer, its option errors named by the node's columns. */
export function tokenNodeClient(
  node: { readonly id?: unknown; readonly name?: unknown; readonly secret?: unknown },
  config: Extract<KubernetesNodeConfig, { credentials: 'token' }>,
): KubernetesClient {
  try {
    return KubernetesApi.fromServer({
      server: config.apiUrl,
      token: typeof node.secret === 'string' ? node.secret : '',
      namespace: config.kubeNamespace,
      tlsVerify: config.tlsVerify,
    });
  } catch (error) {
    if (!(error instanceof InvalidOptionError)) throw error;
    const column = error.option === 'server' ? 'apiUrl' : error.option === 'token' ? 'secret' : error.option;
    // The core's rule, reworded for the column (it never quotes the token).
    throw new KubernetesNodeConfigError(node, [{ field: column, message: error.message.replace(/^(server|token)( URL)? /, '') }]);
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
