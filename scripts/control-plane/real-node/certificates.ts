// TLS between kube-apiserver and the real kubelet, both ways verified: one throw-away CA
// signs the kubelet's serving certificate (for the node's IP and name) and the client
// certificate the API server presents to it (for logs, exec, port-forward). The kubelet
// accepts only that CA's clients, so nobody else on the network can use its port.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface KubeletPki {
  readonly caFile: string;
  readonly kubeletCertFile: string;
  readonly kubeletKeyFile: string;
  readonly apiserverClientCertFile: string;
  readonly apiserverClientKeyFile: string;
}

const EC_P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const DAYS = ['-days', '7'];

export function makeKubeletPki(dir: string, nodeName: string, nodeIp: string): KubeletPki {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pki: KubeletPki = {
    caFile: join(dir, 'ca.crt'),
    kubeletCertFile: join(dir, 'kubelet.crt'),
    kubeletKeyFile: join(dir, 'kubelet.key'),
    apiserverClientCertFile: join(dir, 'apiserver-kubelet-client.crt'),
    apiserverClientKeyFile: join(dir, 'apiserver-kubelet-client.key'),
  };
  const caKey = join(dir, 'ca.key');
  openssl([...EC_P256, '-keyout', caKey, '-out', pki.caFile, ...DAYS, '-subj', '/CN=kube-provisioner-real-node-ca']);
  const signed = (keyFile: string, certFile: string, subject: string, extensions: readonly string[]): void =>
    openssl([
      ...EC_P256,
      '-keyout',
      keyFile,
      '-out',
      certFile,
      ...DAYS,
      '-subj',
      subject,
      '-CA',
      pki.caFile,
      '-CAkey',
      caKey,
      ...extensions.flatMap((extension) => ['-addext', extension]),
    ]);
  signed(pki.kubeletKeyFile, pki.kubeletCertFile, `/CN=system:node:${nodeName}/O=system:nodes`, [
    `subjectAltName=IP:${nodeIp},DNS:${nodeName}`,
    'extendedKeyUsage=serverAuth',
    'basicConstraints=critical,CA:FALSE',
  ]);
  signed(pki.apiserverClientKeyFile, pki.apiserverClientCertFile, '/CN=kube-apiserver-kubelet-client/O=system:masters', [
    'extendedKeyUsage=clientAuth',
    'basicConstraints=critical,CA:FALSE',
  ]);
  return pki;
}

function openssl(args: readonly string[]): void {
  try {
    execFileSync('openssl', ['req', '-x509', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString('utf8') ?? '';
    throw new Error(`openssl req failed: ${stderr.trim() || (error as Error).message}`, { cause: error });
  }
}
