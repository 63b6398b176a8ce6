// Which values of a kubeconfig are secrets, for the masker (src/mask.ts). Only real
// secrets are: a token, a password (and the basic-auth pair as it goes on the wire, in
// base64), client key data, exec plugin `env` values, an exec argument that follows a
// token-like flag (`--token X`, `--token=X`), an auth-provider's token or secret, a
// password in a server or proxy URL; and, once a request is prepared, what an exec plugin
// returned. A cluster
// name, a region, a user name or a plugin's other arguments are not: masking them would
// rewrite the names of everything they appear in.
import { isCredentialName } from '../mask.js';

/** The client-node KubeConfig fields read here, structurally (no runtime import). */
export interface CredentialSource {
  readonly users: readonly {
    readonly token?: unknown;
    readonly username?: unknown;
    readonly password?: unknown;
    readonly keyData?: unknown;
    readonly exec?: unknown;
    readonly authProvider?: unknown;
  }[];
  readonly clusters: readonly { readonly server?: unknown; readonly proxyUrl?: unknown }[];
}

/** The secret values of a loaded kubeconfig (client-node's KubeConfig), all users and clusters. */
export function credentialValues(config: CredentialSource): string[] {
  const values: string[] = [];
  const push = (value: unknown): void => {
    if (typeof value === 'string' && value !== '') values.push(value);
  };
  for (const user of config.users) {
    push(user.token);
    push(user.password);
    // What goes on the wire for basic auth: the pair in base64. (Not the pair as text: its
    // first half is the user name, which is no secret; the password is masked on its own.)
    if (typeof user.username === 'string' && typeof user.password === 'string') {
      push(Buffer.from(`${user.username}:${user.password}`).toString('base64'));
    }
    values.push(...keyMaterial(user.keyData));
    const exec = asRecord(user.exec);
    if (exec) {
      values.push(...execArgumentSecrets(exec.args));
      if (Array.isArray(exec.env)) for (const variable of exec.env) push(asRecord(variable)?.value);
    }
    const provider = asRecord(asRecord(user.authProvider)?.config);
    if (provider) for (const [key, value] of Object.entries(provider)) if (isCredentialName(key)) push(value);
  }
  for (const cluster of config.clusters) {
    for (const url of [cluster.server, cluster.proxyUrl]) values.push(...urlCredentials(url));
  }
  return values;
}

/** The arguments of an exec plugin that are secrets: the value after a token-like flag. */
export function execArgumentSecrets(args: unknown): string[] {
  if (!Array.isArray(args)) return [];
  const list = args as readonly unknown[];
  const found: string[] = [];
  list.forEach((arg, index) => {
    if (typeof arg !== 'string' || !arg.startsWith('-')) return;
    const equals = arg.indexOf('=');
    const flag = equals < 0 ? arg : arg.slice(0, equals);
    if (!isCredentialName(flag.replace(/^-+/, ''))) return;
    const value = equals < 0 ? list[index + 1] : arg.slice(equals + 1);
    if (typeof value === 'string' && value !== '' && (equals >= 0 || !value.startsWith('-'))) found.push(value);
  });
  return found;
}

/** The credentials an exec plugin (or any authenticator) put into prepared request options. */
export function preparedCredentials(options: { headers?: unknown; key?: unknown; auth?: unknown }): string[] {
  const values: string[] = [];
  const headers = asRecord(options.headers);
  const authorization = headers && (headers.Authorization ?? headers.authorization);
  if (typeof authorization === 'string') {
    const space = authorization.indexOf(' ');
    values.push(space > 0 ? authorization.slice(space + 1) : authorization);
  }
  if (typeof options.auth === 'string') {
    // Basic auth "user:password": the pair as it goes on the wire (base64), and the password.
    values.push(Buffer.from(options.auth).toString('base64'));
    if (options.auth.includes(':')) values.push(options.auth.slice(options.auth.indexOf(':') + 1));
  }
  const key = Buffer.isBuffer(options.key) ? options.key.toString('utf8') : options.key;
  values.push(...keyMaterial(key));
  return values;
}

/** Key material in the forms it may take: the base64 kubeconfig value, the PEM, its body lines. */
export function keyMaterial(value: unknown): string[] {
  if (typeof value !== 'string' || value === '') return [];
  const pem = value.includes('-----BEGIN') ? value : Buffer.from(value, 'base64').toString('utf8');
  const forms = [value, pem];
  for (const line of pem.split(/\r?\n/)) if (line.length >= 16 && !line.startsWith('-----')) forms.push(line);
  return forms;
}

function urlCredentials(url: unknown): string[] {
  if (typeof url !== 'string') return [];
  try {
    const parsed = new URL(url);
    if (!parsed.password) return [];
    return [parsed.password, decodeURIComponentSafe(parsed.password)];
  } catch {
    return [];
  }
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
