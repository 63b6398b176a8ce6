// The reproductions of a host process taken down by one bad watch line, kept as
// acceptance: a `null` line, a Pod with an empty spec, a Deployment whose `conditions` is
// not a list. Served by a local HTTP server standing in for kube-apiserver to the real
// transport, informers and provision(): the provisioning settles (here: ready, after the
// informer restarts its watch and skips what does not fit), every fault is reported through
// the informer's retry hook, and nothing is thrown at the process.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { config as rxConfig } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MalformedObjectError, MalformedResponseError } from '../../src/errors/api.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../src/informers/reflector.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { provision } from '../../src/workload/operations/provision.js';
import { deploymentObject, podObject } from '../support/watch-junk.js';

let server: http.Server;
let dir: string;
let kubeconfigPath: string;
const watches = { deployments: 0, pods: 0 };

const end = { type: 'BOOKMARK', object: { metadata: { resourceVersion: '50', annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } } };
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST') {
      res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify(deploymentObject('created', 10)));
      return;
    }
    const kind = url.pathname.endsWith('/pods') ? 'pods' : 'deployments';
    watches[kind] += 1;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    if (kind === 'deployments') {
      // First watch: a null line (the watch must restart). Second: conditions that are not a
      // list (skipped), then the completed rollout.
      if (watches.deployments === 1) {
        res.write('null\n');
        return;
      }
      const broken = deploymentObject('progressing', 20) as { status: Record<string, unknown> };
      broken.status.conditions = 'Available';
      res.write(line({ type: 'ADDED', object: broken }) + line(end));
      setTimeout(() => res.write(line({ type: 'MODIFIED', object: deploymentObject('complete', 60) })), 50);
      return;
    }
    // A Pod with an empty spec (skipped), then a healthy one.
    const empty = { ...podObject('pending', 21, 'a1'), spec: {} };
    res.write(line({ type: 'ADDED', object: empty }) + line({ type: 'ADDED', object: podObject('ready', 22, 'b2') }) + line(end));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  dir = mkdtempSync(join(tmpdir(), 'kp-hostile-'));
  kubeconfigPath = join(dir, 'config');
  writeFileSync(
    kubeconfigPath,
    `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${(server.address() as AddressInfo).port}"}}]\n` +
      'users: [{name: u, user: {token: t0ken}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n',
  );
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

it('a null line, a Pod with an empty spec and conditions that are not a list: provision() still settles, faults reported, nothing thrown', async () => {
  const thrown: unknown[] = [];
  const onError = (error: unknown) => thrown.push(error);
  const previous = rxConfig.onUnhandledError;
  rxConfig.onUnhandledError = onError;
  process.on('uncaughtException', onError);
  const faults: unknown[] = [];
  try {
    const api = KubernetesApi.fromConfig({ kubeconfigPath, tlsVerify: false });
    const informers = new InformerRegistry({
      backoff: { initialMs: 5, maxMs: 20, factor: 2, jitter: 0 },
      onRetry: (error) => faults.push(error),
    });
    const result = await provision(
      api,
      { containerId: 1, nodeId: 1, hostname: 'web', image: 'nginx', cpus: 1, memoryMb: 64 },
      { informers, timeoutMs: 10_000 },
    );
    expect(result.providerId).toBe('default/web');
  } finally {
    rxConfig.onUnhandledError = previous;
    process.off('uncaughtException', onError);
  }
  expect(thrown).toEqual([]);
  expect(faults).toContainEqual(expect.any(MalformedResponseError));
  expect(
    faults
      .filter((fault) => fault instanceof MalformedObjectError)
      .map((fault) => fault.field)
      .sort(),
  ).toEqual(['spec.containers', 'status.conditions']);
  expect(watches.deployments).toBeGreaterThanOrEqual(2);
});
