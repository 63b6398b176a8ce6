// A local HTTPS stand-in for kube-apiserver, enough for one `kube-provision create` to run to
// the end: it accepts the create, serves streaming-list watches (the new Deployment already
// complete, then the bookmark that ends the initial events) and plain lists. It records when
// each TLS handshake finished and when each request arrived (epoch milliseconds, sub-ms), so
// the startup benchmark can tell a process's cold start from its first round trip.
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { selfSigned } from '../../test/support/tls.js';
import { hrNow } from './stats.js';

export interface StubEvent {
  readonly at: number;
  readonly kind: 'secure-connection' | 'request';
  readonly method?: string;
  readonly path?: string;
}

export interface StubApiServer {
  readonly url: string;
  readonly kubeconfigPath: string;
  readonly events: StubEvent[];
  close(): Promise<void>;
}

const TOKEN = 'startup-bench-token';

function completeDeployment(body: { metadata?: { name?: string; namespace?: string; labels?: Record<string, string> } }): object {
  return {
    ...body,
    metadata: { ...body.metadata, uid: 'uid-startup', generation: 1, resourceVersion: '2' },
    status: {
      observedGeneration: 1,
      replicas: 1,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      conditions: [
        { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet "x" has successfully progressed.' },
      ],
    },
  };
}

export async function startStubApiServer(dir: string): Promise<StubApiServer> {
  const { certPem: cert, keyPem } = selfSigned(dir, 'stub');
  const events: StubEvent[] = [];
  const created = new Map<string, object>();
  const server = https.createServer({ cert, key: keyPem }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://stub');
    events.push({ at: hrNow(), kind: 'request', method: req.method ?? 'GET', path: url.pathname });
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const json = (status: number, body: object) =>
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      const isDeployments = url.pathname.endsWith('/deployments');
      if (req.method === 'POST' && isDeployments) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { metadata?: { name?: string } };
        const deployment = completeDeployment(body);
        created.set(body.metadata?.name ?? '', deployment);
        json(201, deployment);
        return;
      }
      if (url.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const items = isDeployments ? [...created.values()] : [];
        for (const object of items) res.write(`${JSON.stringify({ type: 'ADDED', object })}\n`);
        if (url.searchParams.get('sendInitialEvents') === 'true') {
          const bookmark = { metadata: { resourceVersion: '3', annotations: { 'k8s.io/initial-events-end': 'true' } } };
          res.write(`${JSON.stringify({ type: 'BOOKMARK', object: bookmark })}\n`);
        }
        return; // stays open until the client is done
      }
      if (isDeployments || url.pathname.endsWith('/pods')) {
        json(200, { items: isDeployments ? [...created.values()] : [], metadata: { resourceVersion: '3' } });
        return;
      }
      const name = decodeURIComponent(url.pathname.split('/').pop() ?? '');
      const deployment = created.get(name);
      if (deployment) json(200, deployment);
      else json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
    });
  });
  server.on('secureConnection', () => events.push({ at: hrNow(), kind: 'secure-connection' }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfigPath,
    `apiVersion: v1
kind: Config
current-context: stub
clusters:
- name: stub
  cluster:
    server: ${url}
    certificate-authority-data: ${Buffer.from(cert).toString('base64')}
contexts:
- name: stub
  context: { cluster: stub, user: stub, namespace: startup }
users:
- name: stub
  user:
    token: ${TOKEN}
`,
  );
  return {
    url,
    kubeconfigPath,
    events,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
