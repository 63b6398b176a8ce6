// Checks of a kubeconfig that client-node does not make, so that every problem is a
// KubeconfigInvalidError naming the field before any request, instead of a raw error (exit
// 1) at the first request or a value quietly passed on:
//   - the document's shape: a number where a string belongs (`namespace: 123` would reach
//     the manifest; `namespace: 0` would be dropped for "default"), a list that is not one;
//   - files it names (certificate-authority, client-certificate, client-key, token-file)
//     that cannot be read;
//   - TLS material that Node cannot use: an invalid client-key-data, a certificate and key
//     that do not match, a CA that is not PEM.
// Messages name fields, files and error codes only, never a value: values may be secrets.
import { readFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import yaml from 'js-yaml';
import { KubeconfigInvalidError } from '../errors/kubeconfig.js';
import { namespaceProblem } from '../input/fields.js';

type FieldType = 'string' | 'boolean' | 'list' | 'object';

const CLUSTER_FIELDS: Readonly<Record<string, FieldType>> = {
  server: 'string',
  'certificate-authority': 'string',
  'certificate-authority-data': 'string',
  'insecure-skip-tls-verify': 'boolean',
  'tls-server-name': 'string',
  'proxy-url': 'string',
};

const USER_FIELDS: Readonly<Record<string, FieldType>> = {
  token: 'string',
  'token-file': 'string',
  username: 'string',
  password: 'string',
  'client-certificate': 'string',
  'client-certificate-data': 'string',
  'client-key': 'string',
  'client-key-data': 'string',
  as: 'string',
  exec: 'object',
  'auth-provider': 'object',
};

const CONTEXT_FIELDS: Readonly<Record<string, FieldType>> = { cluster: 'string', user: 'string', namespace: 'string' };

/** Parses the kubeconfig text; a YAML error names its line only (the text may hold secrets). */
export function parseKubeconfigText(path: string, text: string): unknown {
  try {
    return yaml.load(text);
  } catch (error) {
    const line = (error as { mark?: { line?: number } }).mark?.line;
    throw new KubeconfigInvalidError(path, `not valid YAML${line !== undefined ? ` at line ${line + 1}` : ''}`);
  }
}

/** The first problem with the document's shape, as "field path: rule", or undefined. */
export function kubeconfigDocumentProblem(document: unknown): string | undefined {
  if (!isRecord(document)) return 'not a valid kubeconfig (expected a mapping with clusters, contexts and users)';
  const currentContext = document['current-context'];
  if (currentContext != null && typeof currentContext !== 'string') return `current-context ${typeRule('string', currentContext)}`;
  const sections: [string, string, Readonly<Record<string, FieldType>>][] = [
    ['clusters', 'cluster', CLUSTER_FIELDS],
    ['users', 'user', USER_FIELDS],
    ['contexts', 'context', CONTEXT_FIELDS],
  ];
  for (const [section, inner, fields] of sections) {
    const entries = document[section];
    if (entries == null) continue;
    if (!Array.isArray(entries)) return `${section} ${typeRule('list', entries)}`;
    for (const [index, entry] of entries.entries()) {
      const at = `${section}[${index}]`;
      if (!isRecord(entry)) return `${at} ${typeRule('object', entry)}`;
      if (typeof entry.name !== 'string' || entry.name === '') return `${at}.name must be a non-empty string`;
      const body = entry[inner];
      if (body == null) continue;
      if (!isRecord(body)) return `${at}.${inner} ${typeRule('object', body)}`;
      for (const [field, type] of Object.entries(fields)) {
        const value = body[field];
        if (value != null && !hasType(value, type)) return `${at}.${inner}.${field} ${typeRule(type, value)}`;
      }
      if (inner === 'user') {
        const problem = execProblem(body.exec, `${at}.user.exec`) ?? authProviderProblem(body['auth-provider'], `${at}.user.auth-provider`);
        if (problem) return problem;
      }
    }
  }
  return undefined;
}

function execProblem(exec: unknown, at: string): string | undefined {
  if (!isRecord(exec)) return undefined;
  if (typeof exec.command !== 'string' || exec.command === '') return `${at}.command must be a non-empty string`;
  if (exec.apiVersion != null && typeof exec.apiVersion !== 'string') return `${at}.apiVersion ${typeRule('string', exec.apiVersion)}`;
  if (exec.args != null) {
    if (!Array.isArray(exec.args)) return `${at}.args ${typeRule('list', exec.args)}`;
    const bad = exec.args.findIndex((arg) => typeof arg !== 'string');
    if (bad !== -1) return `${at}.args[${bad}] ${typeRule('string', exec.args[bad])}`;
  }
  if (exec.env != null) {
    if (!Array.isArray(exec.env)) return `${at}.env ${typeRule('list', exec.env)}`;
    for (const [index, variable] of exec.env.entries()) {
      if (!isRecord(variable)) return `${at}.env[${index}] ${typeRule('object', variable)}`;
      if (typeof variable.name !== 'string' || variable.name === '') return `${at}.env[${index}].name must be a non-empty string`;
      if (typeof variable.value !== 'string') return `${at}.env[${index}].value ${typeRule('string', variable.value)}`;
    }
  }
  return undefined;
}

function authProviderProblem(provider: unknown, at: string): string | undefined {
  if (!isRecord(provider)) return undefined;
  if (typeof provider.name !== 'string') return `${at}.name ${typeRule('string', provider.name)}`;
  if (provider.config != null) {
    if (!isRecord(provider.config)) return `${at}.config ${typeRule('object', provider.config)}`;
    for (const [key, value] of Object.entries(provider.config)) {
      if (value != null && typeof value !== 'string' && !isRecord(value)) return `${at}.config.${key} ${typeRule('string', value)}`;
    }
  }
  return undefined;
}

/** Files client-node reads while loading (token-file of every user): each must be readable. */
export function kubeconfigLoadFileProblem(document: unknown): string | undefined {
  if (!isRecord(document) || !Array.isArray(document.users)) return undefined;
  for (const [index, entry] of (document.users as unknown[]).entries()) {
    const file = isRecord(entry) && isRecord(entry.user) ? entry.user['token-file'] : undefined;
    if (typeof file === 'string' && file !== '') {
      const problem = unreadable(file);
      if (problem) return `users[${index}].user.token-file ${file} cannot be read (${problem})`;
    }
  }
  return undefined;
}

/** What client-node resolved for the current context (its Cluster and User objects). */
export interface TlsSource {
  readonly cluster: { readonly name: string; readonly caData?: string; readonly caFile?: string };
  readonly user:
    | {
        readonly name: string;
        readonly certData?: string;
        readonly certFile?: string;
        readonly keyData?: string;
        readonly keyFile?: string;
      }
    | undefined;
}

/**
 * Reads and checks the TLS material of the current context, as client-node will hand it to
 * Node at the first request: a file that cannot be read, a CA, certificate or key that is
 * not valid PEM, or a certificate and key that do not match, is reported now.
 */
export function checkTlsMaterial(path: string, source: TlsSource): void {
  const { cluster, user } = source;
  const fail = (detail: string): never => {
    throw new KubeconfigInvalidError(path, detail);
  };
  const material = (owner: string, fileField: string, file: string | undefined, data: string | undefined): Buffer | undefined => {
    if (file) {
      try {
        return readFileSync(file);
      } catch (error) {
        return fail(`${owner} ${fileField} file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    }
    return data ? Buffer.from(data, 'base64') : undefined;
  };
  const clusterName = `cluster "${cluster.name}"`;
  const ca = material(clusterName, 'certificate-authority', cluster.caFile, cluster.caData);
  if (ca) {
    try {
      createSecureContext({ ca });
      new X509Certificate(ca);
    } catch {
      fail(`${clusterName} certificate-authority${cluster.caFile ? '' : '-data'} is not a PEM certificate`);
    }
  }
  if (!user) return;
  const userName = `user "${user.name}"`;
  const cert = material(userName, 'client-certificate', user.certFile, user.certData);
  const key = material(userName, 'client-key', user.keyFile, user.keyData);
  const keyField = `client-key${user.keyFile ? '' : '-data'}`;
  const certField = `client-certificate${user.certFile ? '' : '-data'}`;
  if (cert && !key) fail(`${userName} has a ${certField} but no client-key`);
  if (key && !cert) fail(`${userName} has a ${keyField} but no client-certificate`);
  if (!cert || !key) return;
  try {
    createPrivateKey(key);
  } catch {
    fail(`${userName} ${keyField} is not a PEM private key`);
  }
  try {
    new X509Certificate(cert);
  } catch {
    fail(`${userName} ${certField} is not a PEM certificate`);
  }
  try {
    createSecureContext({ cert, key });
  } catch {
    fail(`${userName} ${certField} and ${keyField} do not belong together`);
  }
}

/** The problem with a namespace taken from the kubeconfig, or undefined. */
export function contextNamespaceProblem(contextName: string, namespace: unknown): string | undefined {
  if (namespace === undefined) return undefined;
  if (typeof namespace !== 'string') return `context "${contextName}" namespace ${typeRule('string', namespace)}`;
  const problem = namespaceProblem(namespace);
  return problem ? `context "${contextName}" namespace ${problem}` : undefined;
}

function unreadable(file: string): string | undefined {
  try {
    readFileSync(file);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'error';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function hasType(value: unknown, type: FieldType): boolean {
  if (type === 'list') return Array.isArray(value);
  if (type === 'object') return isRecord(value);
  return typeof value === type;
}

function typeRule(type: FieldType, value: unknown): string {
  const article = type === 'object' ? 'a mapping' : type === 'list' ? 'a list' : `a ${type}`;
  const got = Array.isArray(value) ? 'a list' : value === null ? 'null' : typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
  return `must be ${article} (got ${got})`;
}
