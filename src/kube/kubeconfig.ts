// Loads and validates a kubeconfig up front, so a wrong path, broken YAML or unknown
// context is reported before any request, with the project's error types. Unlike
// client-node's loadFromDefault() this never falls back to http://localhost:8080. The
// kubeconfig and every file its context names are read here, once, within bounds and
// without blocking on a pipe or a device (read-file.ts); client-node gets them as data.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeconfigInvalidError, KubeconfigNotFoundError, UnknownContextError } from '../errors/kubeconfig.js';
import { DEFAULT_NAMESPACE } from '../input/names.js';
import {
  checkTlsMaterial,
  contextNamespaceProblem,
  kubeconfigDocumentProblem,
  parseKubeconfigText,
  readContextFiles,
} from './kubeconfig-check.js';
import { FILE_RULE, readRegularFile } from './read-file.js';

export interface KubeconfigOptions {
  /** Path to a kubeconfig; default: $KUBECONFIG (first existing of its list), then ~/.kube/config. */
  readonly kubeconfigPath?: string;
  /** Context to use; default: the kubeconfig's current-context. */
  readonly context?: string;
  /** Namespace for specs that name none; default: the context's namespace, else `default`. */
  readonly namespace?: string;
  /**
   * TLS verification of the API server. On unless explicitly `false`: a kubeconfig's
   * `insecure-skip-tls-verify` alone does not turn it off.
   */
  readonly tlsVerify?: boolean;
}

/** @internal The published declarations leave it out: it holds client-node's KubeConfig, which the build bundles. */
export interface LoadedKubeconfig {
  readonly config: KubeConfig;
  readonly path: string;
  readonly context: string;
  readonly namespace: string;
  readonly server: string;
}

export function resolveKubeconfigPath(explicit: string | undefined, env = process.env): string {
  if (explicit) return explicit;
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (fromEnv.length > 0) return fromEnv.find((candidate) => existsSync(candidate)) ?? fromEnv[0]!;
  return join(homedir(), '.kube', 'config');
}

/** @internal */
export function loadKubeconfig(options: KubeconfigOptions = {}): LoadedKubeconfig {
  const path = resolveKubeconfigPath(options.kubeconfigPath);
  const file = readRegularFile(path);
  if (!file.ok) {
    if (file.code === 'ENOENT') throw new KubeconfigNotFoundError(path);
    const rule = file.code === undefined ? `: a kubeconfig must be ${FILE_RULE}` : '';
    throw new KubeconfigInvalidError(path, `the file ${file.problem}${rule}`);
  }
  const text = file.bytes.toString('utf8');
  if (!text.trim()) throw new KubeconfigInvalidError(path, 'the file is empty');

  // Types and files first: client-node would pass a number on, or fail with a raw error.
  const document = parseKubeconfigText(path, text);
  const shapeProblem = kubeconfigDocumentProblem(document);
  if (shapeProblem) throw new KubeconfigInvalidError(path, shapeProblem);
  const { document: withData, material } = readContextFiles(path, document as Record<string, unknown>, options.context);

  const config = new KubeConfig();
  try {
    // JSON is YAML: the document as read, its files as data.
    config.loadFromString(JSON.stringify(withData));
  } catch (error) {
    // js-yaml's message and reason quote the offending text, which may hold a token or a
    // password: keep only the position, and attach no cause that could be logged.
    throw new KubeconfigInvalidError(path, yamlProblem(error));
  }

  const contextNames = config.getContexts().map((context) => context.name);
  const contextName = options.context ?? config.getCurrentContext();
  if (!contextName) {
    throw new KubeconfigInvalidError(path, 'no current-context is set and no context was given');
  }
  const context = config.getContextObject(contextName);
  if (!context) throw new UnknownContextError(contextName, contextNames);
  config.setCurrentContext(contextName);

  const cluster = config.getCluster(context.cluster);
  if (!cluster) {
    throw new KubeconfigInvalidError(path, `context "${contextName}" names cluster "${context.cluster}", which is not defined`);
  }
  if (!cluster.server) throw new KubeconfigInvalidError(path, `cluster "${cluster.name}" has no server URL`);
  if (context.user && !config.getUser(context.user)) {
    throw new KubeconfigInvalidError(path, `context "${contextName}" names user "${context.user}", which is not defined`);
  }
  if (!context.user) {
    // client-node applies the cluster's CA and TLS settings only when the context has a
    // user; give anonymous contexts an empty one so their CA is trusted all the same.
    const anonymous = `${contextName}-anonymous`;
    config.users = [...config.users, { name: anonymous }];
    config.contexts = config.contexts.map((c) => (c.name === contextName ? { ...c, user: anonymous } : c));
  }
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch (error) {
    throw new KubeconfigInvalidError(path, `cluster "${cluster.name}" has an invalid server URL`, { cause: error });
  }
  if (server.username || server.password) {
    throw new KubeconfigInvalidError(path, `cluster "${cluster.name}" server URL must not embed credentials`);
  }

  const namespaceProblem = options.namespace === undefined ? contextNamespaceProblem(contextName, context.namespace) : undefined;
  if (namespaceProblem) throw new KubeconfigInvalidError(path, namespaceProblem);
  checkTlsMaterial(path, material);

  const skipTlsVerify = options.tlsVerify === false;
  if (server.protocol === 'http:' && !skipTlsVerify) {
    throw new KubeconfigInvalidError(
      path,
      `cluster "${cluster.name}" uses plain http; that is only allowed with TLS verification explicitly off`,
    );
  }
  if (cluster.skipTLSVerify !== skipTlsVerify) {
    config.clusters = config.clusters.map((c) => (c.name === cluster.name ? { ...c, skipTLSVerify: skipTlsVerify } : c));
  }

  return {
    config,
    path,
    context: contextName,
    namespace: options.namespace ?? context.namespace ?? DEFAULT_NAMESPACE,
    server: server.origin + server.pathname.replace(/\/$/, ''),
  };
}

function yamlProblem(error: unknown): string {
  const yaml = error as { name?: string; mark?: { line?: number } };
  // js-yaml 5 also throws for a document with no content (only comments), without a position.
  if (yaml?.name === 'YAMLException' && yaml.mark) {
    return `not valid YAML${yaml.mark?.line !== undefined ? ` at line ${yaml.mark.line + 1}` : ''}`;
  }
  // client-node's structural checks name a field path only ("clusters[0].cluster.server is missing").
  const message = error instanceof Error ? error.message : '';
  if (/^(clusters|users|contexts)\[\d+\][\w.]* is missing$/.test(message)) return message;
  return 'not a valid kubeconfig (expected clusters, contexts and users)';
}
