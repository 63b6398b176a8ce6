// Test certificates made with openssl at run time: a self-signed server certificate for
// 127.0.0.1 and a client certificate with its key, in a fresh temporary folder.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  readonly dir: string;
  readonly serverCertPem: string;
  readonly serverKeyPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
}

export interface SelfSignedOptions {
  /** Default `/CN=127.0.0.1`. */
  readonly subject?: string;
  /** subjectAltName; default `IP:127.0.0.1`, `null` for none. */
  readonly san?: string | null;
  /** openssl's -newkey and -pkeyopt arguments; default EC P-256. */
  readonly keyType?: readonly string[];
}

export interface SelfSigned {
  readonly certPath: string;
  readonly keyPath: string;
  readonly certPem: string;
  readonly keyPem: string;
}

const EC_P256 = ['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];

/** A self-signed certificate (for a loopback server by default) in `dir`/`name`.crt and .key. */
export function selfSigned(dir: string, name: string, options: SelfSignedOptions = {}): SelfSigned {
  const certPath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  const san = options.san === undefined ? 'IP:127.0.0.1' : options.san;
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      ...(options.keyType ?? EC_P256),
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '2',
      '-subj',
      options.subject ?? '/CN=127.0.0.1',
      ...(san ? ['-addext', `subjectAltName=${san}`] : []),
    ],
    { stdio: 'ignore' },
  );
  return { certPath, keyPath, certPem: readFileSync(certPath, 'utf8'), keyPem: readFileSync(keyPath, 'utf8') };
}

export function makeTestCertificates(prefix = 'kp-tls-'): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const server = selfSigned(dir, 'server');
  const client = selfSigned(dir, 'client', { subject: '/O=system:masters/CN=kp-matrix-user', san: null, keyType: ['rsa:2048'] });
  return { dir, serverCertPem: server.certPem, serverKeyPem: server.keyPem, clientCertPem: client.certPem, clientKeyPem: client.keyPem };
}
