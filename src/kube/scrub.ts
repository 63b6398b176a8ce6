// The scrubber every relayed message passes through. Text the library builds itself never
// holds a credential; text it relays can: an API server (or a proxy) may echo the request,
// Authorization header included, in a Status message or a condition message, and an exec
// credential plugin may print its arguments, its environment or the token it minted.
//
// A Scrubber knows every credential value of the loaded kubeconfig (tokens, passwords,
// basic-auth pairs, exec plugin `env` values and arguments, auth-provider secrets, client
// keys, credentials in URLs) and, once a request has been prepared, the credentials an exec
// plugin returned. It masks each of them wherever it appears, also in the forms an echo
// takes: JSON-escaped, URL-encoded, base64 (basic auth). Values of fewer than 4 characters
// are masked only where they stand as a whole word, so a one-letter password does not mask
// every letter of a message.

import { KubeProvisionerError } from '../errors/base.js';

export const MASK = '***';

const MIN_ANYWHERE = 4;
const FEW = 4;

/** The client-node KubeConfig fields read here, structurally (no runtime import). */
export interface CredentialSource {
  readonly users: readonly {
    readonly token?: unknown;
    readonly username?: unknown;
    readonly password?: unknown;
    readonly keyData?: unknown;
    readonly keyFile?: unknown;
    readonly exec?: unknown;
    readonly authProvider?: unknown;
  }[];
  readonly clusters: readonly { readonly server?: unknown; readonly proxyUrl?: unknown }[];
}

export class Scrubber {
  private readonly secrets = new Set<string>();
  private anywhere: string[] = [];
  private short: string[] = [];
  private wholeWord: RegExp | undefined;
  private pattern: RegExp | undefined;

  /** A scrubber for `values` (and their derived forms); more can be added later. */
  constructor(values: Iterable<unknown> = []) {
    for (const value of values) this.addValue(value);
    this.rebuild();
  }

  /** Adds credential values (strings; anything else is ignored). */
  add(...values: unknown[]): void {
    const before = this.secrets.size;
    for (const value of values) this.addValue(value);
    if (this.secrets.size !== before) this.rebuild();
  }

  /** How many distinct masked strings (values and their derived forms) it knows. */
  get size(): number {
    return this.secrets.size;
  }

  /** True when `text` may hold a credential (exact: false means none is there). */
  mayContain(text: string): boolean {
    // A few values: plain searches. Many (key material and its lines): one regular
    // expression over the text, which is faster than a search per value.
    if (this.pattern && this.secrets.size > FEW) {
      this.pattern.lastIndex = 0;
      return this.pattern.test(text);
    }
    for (const secret of this.anywhere) if (text.includes(secret)) return true;
    if (this.wholeWord && this.short.some((secret) => text.includes(secret))) {
      this.wholeWord.lastIndex = 0;
      return this.wholeWord.test(text);
    }
    return false;
  }

  /** `text` with every credential replaced by `***`. */
  scrub(text: string): string {
    if (!this.pattern || !this.mayContain(text)) return text;
    return text.replace(this.pattern, MASK);
  }

  /** A deep copy of a decoded JSON value with every string (keys included) scrubbed. */
  scrubValue<T>(value: T): T {
    return this.scrubDeep(value, 0) as T;
  }

  /**
   * The error with every credential masked in its message, stack and `cause` chain. The
   * project's own errors are scrubbed in place; any other error (a client or system error,
   * whose extra fields may hold a request's headers or a spawn's arguments) is replaced by a
   * plain copy keeping only its name, code, message and cause.
   */
  scrubError<E>(error: E): E {
    return this.scrubErrorDeep(error, 0) as E;
  }

  private scrubErrorDeep(error: unknown, depth: number): unknown {
    if (!(error instanceof Error)) return typeof error === 'string' ? this.scrub(error) : error;
    if (depth > 8) return new Error('(cause chain cut)');
    const cause = 'cause' in error ? this.scrubErrorDeep(error.cause, depth + 1) : undefined;
    if (error instanceof KubeProvisionerError) {
      error.message = this.scrub(error.message);
      if (error.stack) error.stack = this.scrub(error.stack);
      if ('cause' in error) Object.defineProperty(error, 'cause', { value: cause, writable: true, configurable: true });
      return error;
    }
    const copy = new Error(this.scrub(error.message), 'cause' in error ? { cause } : undefined);
    Object.defineProperty(copy, 'name', { value: error.name, configurable: true, writable: true });
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' || typeof code === 'number') Object.assign(copy, { code });
    copy.stack = `${error.name}: ${copy.message}`;
    return copy;
  }

  private scrubDeep(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.scrub(value);
    if (value === null || typeof value !== 'object' || depth > 64) return value;
    if (Array.isArray(value)) return value.map((item) => this.scrubDeep(item, depth + 1));
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(copy, this.scrub(key), {
        value: this.scrubDeep(item, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }

  private addValue(value: unknown): void {
    if (typeof value !== 'string' || value.length === 0) return;
    for (const form of derivedForms(value)) if (form.length > 0) this.secrets.add(form);
  }

  private rebuild(): void {
    const all = [...this.secrets].sort((a, b) => b.length - a.length);
    this.anywhere = all.filter((secret) => secret.length >= MIN_ANYWHERE);
    const short = all.filter((secret) => secret.length < MIN_ANYWHERE);
    this.short = short;
    this.wholeWord = short.length ? new RegExp(short.map(wholeWordPattern).join('|'), 'g') : undefined;
    const parts = [...this.anywhere.map(escapeRegExp), ...short.map(wholeWordPattern)];
    this.pattern = parts.length ? new RegExp(parts.join('|'), 'g') : undefined;
  }
}

/** The credential values of a loaded kubeconfig (client-node's KubeConfig), all users and clusters. */
export function credentialValues(config: CredentialSource, readFile: (path: string) => string | undefined = () => undefined): string[] {
  const values: string[] = [];
  const push = (value: unknown): void => {
    if (typeof value === 'string' && value !== '') values.push(value);
  };
  for (const user of config.users) {
    push(user.token);
    push(user.password);
    if (typeof user.username === 'string' && typeof user.password === 'string') {
      // Half of the pair: masked too, so an echo never shows who logs in with what.
      push(user.username);
      // What goes on the wire for basic auth, and what an echo of that header shows.
      push(Buffer.from(`${user.username}:${user.password}`).toString('base64'));
    }
    for (const key of [user.keyData, typeof user.keyFile === 'string' ? readFile(user.keyFile) : undefined]) {
      push(key);
      values.push(...keyMaterial(key));
    }
    const exec = asRecord(user.exec);
    if (exec) {
      if (Array.isArray(exec.args)) {
        for (const arg of exec.args) {
          push(arg);
          // "--token=abc" also hides "abc", which a plugin may print on its own.
          if (typeof arg === 'string' && arg.includes('=')) push(arg.slice(arg.indexOf('=') + 1));
        }
      }
      if (Array.isArray(exec.env)) for (const variable of exec.env) push(asRecord(variable)?.value);
    }
    const provider = asRecord(asRecord(user.authProvider)?.config);
    if (provider) for (const value of Object.values(provider)) push(value);
  }
  for (const cluster of config.clusters) {
    for (const url of [cluster.server, cluster.proxyUrl]) values.push(...urlCredentials(url));
  }
  return values;
}

/** The credentials an exec plugin (or any authenticator) put into prepared request options. */
export function preparedCredentials(options: { headers?: unknown; key?: unknown; auth?: unknown }): string[] {
  const values: string[] = [];
  const headers = asRecord(options.headers);
  const authorization = headers && (headers.Authorization ?? headers.authorization);
  if (typeof authorization === 'string') {
    values.push(authorization);
    const space = authorization.indexOf(' ');
    if (space > 0) values.push(authorization.slice(space + 1));
  }
  if (typeof options.auth === 'string') values.push(Buffer.from(options.auth).toString('base64'));
  const key = Buffer.isBuffer(options.key) ? options.key.toString('utf8') : options.key;
  if (typeof key === 'string') values.push(key, ...keyMaterial(key));
  return values;
}

/** Key material in the forms it may take: the base64 kubeconfig value, the PEM, its body lines. */
function keyMaterial(value: unknown): string[] {
  if (typeof value !== 'string' || value === '') return [];
  const pem = value.includes('-----BEGIN') ? value : Buffer.from(value, 'base64').toString('utf8');
  const forms = [pem];
  for (const line of pem.split(/\r?\n/)) if (line.length >= 16 && !line.startsWith('-----')) forms.push(line);
  return forms;
}

function urlCredentials(url: unknown): string[] {
  if (typeof url !== 'string') return [];
  try {
    const parsed = new URL(url);
    const found: string[] = [];
    for (const part of [parsed.username, parsed.password]) {
      if (part) found.push(part, decodeURIComponentSafe(part));
    }
    if (found.length) found.push(`${parsed.username}:${parsed.password}`);
    return found;
  } catch {
    return [];
  }
}

function derivedForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  let uri = secret;
  try {
    uri = encodeURIComponent(secret);
  } catch {
    // A lone surrogate cannot be URL-encoded; the raw form is still masked.
  }
  return [...new Set([secret, json, uri])];
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

function wholeWordPattern(secret: string): string {
  return `(?<![A-Za-z0-9])${escapeRegExp(secret)}(?![A-Za-z0-9])`;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
