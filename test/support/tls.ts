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

export function makeTestCertificates(prefix = 'kp-tls-'): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const selfSigned = (name: string, subject: string, keyType: string[], san?: string): void => {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        ...keyType,
        '-nodes',
        '-keyout',
        join(dir, `${name}.key`),
        '-out',
        join(dir, `${name}.crt`),
        '-days',
        '2',
        '-subj',
        subject,
        ...(san ? ['-addext', `subjectAltName=${san}`] : []),
      ],
      { stdio: 'ignore' },
    );
  };
  selfSigned('server', '/CN=127.0.0.1', ['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'], 'IP:127.0.0.1');
  selfSigned('client', '/O=system:masters/CN=kp-matrix-user', ['rsa:2048']);
  return {
    dir,
    serverCertPem: readFileSync(join(dir, 'server.crt'), 'utf8'),
    serverKeyPem: readFileSync(join(dir, 'server.key'), 'utf8'),
    clientCertPem: readFileSync(join(dir, 'client.crt'), 'utf8'),
    clientKeyPem: readFileSync(join(dir, 'client.key'), 'utf8'),
  };
}
