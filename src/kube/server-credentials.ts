// Credentials without a kubeconfig file: an API server URL, a bearer token (for example a
// ServiceAccount token) and how to verify the server's certificate. For callers that keep
// these in their own storage (Manager's Node row: apiUrl, secret, tlsVerify). Loads
// nothing from disk or the environment, and never puts the token in a message.
import { InvalidOptionError } from '../errors/input.js';
import { DEFAULT_NAMESPACE } from '../input/names.js';
import type { RequestCredentials } from './http-transport.js';

export interface ServerOptions {
  /** The API server, e.g. `https://10.0.0.1:6443`. Plain http only with `tlsVerify: false`. */
  readonly server: string;
  /** Sent as `Authorization: Bearer <token>`. Never logged or put in an error. */
  readonly token: string;
  /**
   * PEM certificate(s) of the CA that signed the server's certificate, as text or base64
   * (a kubeconfig's `certificate-authority-data`). Default: Node's trusted CAs.
   */
  readonly caData?: string;
  /** TLS verification of the API server. On unless explicitly `false`. */
  readonly tlsVerify?: boolean;
  /** Namespace for specs that name none; default `default`. */
  readonly namespace?: string;
}

export interface ServerCredentials {
  readonly credentials: RequestCredentials;
  readonly server: string;
  readonly namespace: string;
}

export function serverCredentials(options: ServerOptions): ServerCredentials {
  const tlsVerify = options.tlsVerify !== false;
  const server = serverUrl(options.server, tlsVerify);
  const token = options.token;
  // A header value with a line break or control character would be refused by Node with
  // an error; say which option is wrong instead, without quoting the secret.
  if (typeof token !== 'string' || token.length === 0 || /[\s\p{Cc}]/u.test(token)) {
    throw new InvalidOptionError('token', 'token must be a non-empty bearer token without whitespace or control characters');
  }
  const ca = options.caData === undefined ? undefined : caPem(options.caData);
  const headers = { Authorization: `Bearer ${token}` };
  return {
    server,
    namespace: options.namespace ?? DEFAULT_NAMESPACE,
    credentials: {
      applyToHTTPSOptions: (request) => {
        request.headers = { ...request.headers, ...headers };
        request.rejectUnauthorized = tlsVerify;
        if (ca !== undefined) request.ca = ca;
        return Promise.resolve();
      },
    },
  };
}

function serverUrl(text: string, tlsVerify: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidOptionError('server', 'server must be an absolute URL such as https://10.0.0.1:6443');
  }
  if (url.username || url.password) throw new InvalidOptionError('server', 'server URL must not embed credentials');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidOptionError('server', `server must be an https URL (got ${url.protocol})`);
  }
  if (url.protocol === 'http:' && tlsVerify) {
    throw new InvalidOptionError('server', 'server uses plain http; that is only allowed with TLS verification explicitly off');
  }
  if (url.search || url.hash) throw new InvalidOptionError('server', 'server URL must not have a query or fragment');
  return url.origin + url.pathname.replace(/\/$/, '');
}

/** A kubeconfig's base64 CA data, or PEM text as it is. */
function caPem(data: string): string {
  if (data.includes('-----BEGIN')) return data;
  const decoded = Buffer.from(data, 'base64').toString('utf8');
  if (!decoded.includes('-----BEGIN CERTIFICATE-----')) {
    throw new InvalidOptionError('caData', 'caData must be PEM certificate text, or its base64 encoding');
  }
  return decoded;
}
