// Checks of a kubeconfig that client-node does not make, so that every problem is a
// KubeconfigInvalidError naming the field before any request, instead of a raw error (exit
// 1) at the first request or a value quietly passed on:
//   - the document's shape: a number where a string belongs (`namespace: 123` would reach
//     the manifest; `namespace: 0` would be dropped for "default"), a list that is not one;
//   - files its context names (certificate-authority, client-certificate, client-key,
//     token-file) that cannot be read, or are not regular files within the bound: they are
//     read here, once (read-file.ts), and handed to client-node as data, so that it never
//     reads a file itself (it would block: token-file of every user at load, the CA,
//     certificate and key at every request);
//   - TLS material that Node cannot use: an invalid client-key-data, a certificate and key
//     that do not match, a CA that is not PEM.
// Messages name fields, files and error codes only, never a value: values may be secrets.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { dirname, isAbsolute, join } from 'node:path';
import { createSecureContext } from 'node:tls';
import yaml from 'js-yaml';
import { KubeconfigInvalidError } from '../errors/kubeconfig.js';
import { namespaceProblem } from '../input/fields.js';
import { FILE_RULE, readRegularFile } from './read-file.js';

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

/** One piece of TLS material of the current context: where it came from, and its bytes. */
export interface Material {
  /** `cluster "c"` or `user "u"`, for messages. */
  readonly owner: string;
  /** The field it came from: `certificate-authority` (a file) or `certificate-authority-data`. */
  readonly field: string;
  readonly bytes: Buffer;
}

export interface ContextMaterial {
  readonly ca?: Material;
  readonly cert?: Material;
  readonly key?: Material;
}

export interface ReadContext {
  /** The document, the context's files turned into data, the other users' token files left out. */
  readonly document: Record<string, unknown>;
  readonly material: ContextMaterial;
}

/**
 * Reads the files the context names (the context given, else current-context): its
 * cluster's certificate-authority, its user's client-certificate, client-key and token-file
 * (a token-file is used only when there is no token, as client-node does), and checks an
 * auth-provider's tokenFile. Each must be a regular file within the bound; relative paths
 * are relative to the kubeconfig's folder, as kubectl reads them. The other users'
 * token-files are left out unread: no one uses them. A context that does not resolve is
 * left to the caller to report.
 */
export function readContextFiles(path: string, document: Record<string, unknown>, contextOption: string | undefined): ReadContext {
  const copy = structuredClone(document);
  const folder = dirname(path);
  const entries = (section: string): Record<string, unknown>[] =>
    Array.isArray(copy[section]) ? (copy[section] as unknown[]).filter(isRecord) : [];
  const named = (section: string, name: unknown) => entries(section).findIndex((entry) => entry.name === name);
  const contextName = contextOption ?? copy['current-context'];
  const context = entries('contexts')[named('contexts', contextName)]?.context;
  const clusterIndex = isRecord(context) ? named('clusters', context.cluster) : -1;
  const userIndex = isRecord(context) ? named('users', context.user) : -1;
  const read = (file: string, at: string): Buffer => {
    const result = readRegularFile(isAbsolute(file) ? file : join(folder, file));
    if (result.ok) return result.bytes;
    const rule = result.code === undefined ? `: every file a kubeconfig names must be ${FILE_RULE}` : '';
    throw new KubeconfigInvalidError(path, `${at} ${file} ${result.problem}${rule}`);
  };
  const material: { ca?: Material; cert?: Material; key?: Material } = {};
  const inline = (body: Record<string, unknown>, owner: string, field: string): Material | undefined => {
    const file = body[field];
    const data = body[`${field}-data`];
    delete body[field];
    if (typeof file === 'string' && file !== '') {
      const bytes = read(file, `${owner} ${field} file`);
      body[`${field}-data`] = bytes.toString('base64');
      return { owner, field, bytes };
    }
    return typeof data === 'string' && data !== '' ? { owner, field: `${field}-data`, bytes: Buffer.from(data, 'base64') } : undefined;
  };

  const cluster = entries('clusters')[clusterIndex];
  if (cluster && isRecord(cluster.cluster)) {
    const ca = inline(cluster.cluster, `cluster "${String(cluster.name)}"`, 'certificate-authority');
    if (ca) material.ca = ca;
  }
  entries('users').forEach((entry, index) => {
    const user = entry.user;
    if (!isRecord(user)) return;
    const tokenFile = user['token-file'];
    delete user['token-file'];
    if (index !== userIndex) return;
    if (typeof tokenFile === 'string' && tokenFile !== '' && (typeof user.token !== 'string' || user.token === '')) {
      const token = read(tokenFile, `users[${index}].user.token-file`).toString('utf8').trim();
      if (token === '') throw new KubeconfigInvalidError(path, `users[${index}].user.token-file ${tokenFile} is empty`);
      user.token = token;
    }
    const owner = `user "${String(entry.name)}"`;
    const cert = inline(user, owner, 'client-certificate');
    const key = inline(user, owner, 'client-key');
    if (cert) material.cert = cert;
    if (key) material.key = key;
    const provider = user['auth-provider'];
    const tokenFileOfProvider = isRecord(provider) && isRecord(provider.config) ? provider.config.tokenFile : undefined;
    if (typeof tokenFileOfProvider === 'string' && tokenFileOfProvider !== '') {
      read(tokenFileOfProvider, `users[${index}].user.auth-provider.config.tokenFile`);
    }
  });
  return { document: copy, material };
}

/**
 * Checks the TLS material of the current context as client-node will hand it to Node at
 * the first request: a CA, certificate or key that is not valid PEM, or a certificate and
 * key that do not match, is reported now.
 */
export function checkTlsMaterial(path: string, material: ContextMaterial): void {
  const fail = (detail: string): never => {
    throw new KubeconfigInvalidError(path, detail);
  };
  const { ca, cert, key } = material;
  if (ca) {
    try {
      createSecureContext({ ca: ca.bytes });
      new X509Certificate(ca.bytes);
    } catch {
      fail(`${ca.owner} ${ca.field} is not a PEM certificate`);
    }
  }
  if (cert && !key) fail(`${cert.owner} has a ${cert.field} but no client-key`);
  if (key && !cert) fail(`${key.owner} has a ${key.field} but no client-certificate`);
  if (!cert || !key) return;
  try {
    createPrivateKey(key.bytes);
  } catch {
    fail(`${key.owner} ${key.field} is not a PEM private key`);
  }
  try {
    new X509Certificate(cert.bytes);
  } catch {
    fail(`${cert.owner} ${cert.field} is not a PEM certificate`);
  }
  try {
    createSecureContext({ cert: cert.bytes, key: key.bytes });
  } catch {
    fail(`${cert.owner} ${cert.field} and ${key.field} do not belong together`);
  }
}

/** The problem with a namespace taken from the kubeconfig, or undefined. */
export function contextNamespaceProblem(contextName: string, namespace: unknown): string | undefined {
  if (namespace === undefined) return undefined;
  if (typeof namespace !== 'string') return `context "${contextName}" namespace ${typeRule('string', namespace)}`;
  const problem = namespaceProblem(namespace);
  return problem ? `context "${contextName}" namespace ${problem}` : undefined;
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
