// Run as its own process (tsx) by test/unit/property/watch-streams-process.test.ts: the
// generated hostile watch streams, served over a real loopback HTTP server to the real
// KubernetesApi transport, informers and waiters, with real timers. Prints one JSON line of
// figures and then simply returns: it never calls process.exit, so the process ends only if
// nothing (socket, timer, watch) outlived the work.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { config as rxConfig } from 'rxjs';
import { KubeProvisionerError } from '../../src/errors/base.js';
import { RolloutFailedError, RolloutTimeoutError } from '../../src/errors/rollout.js';
import { InformerRegistry } from '../../src/informers/registry.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { awaitRollout } from '../../src/rollout/await-rollout.js';
import { deadline } from '../../src/rx/deadline.js';
import { deploymentSnapshots, podSnapshots } from '../../src/members/deployment/member.js';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../src/informers/reflector.js';
import { CONTAINER_ID, NAME, UID, bodyChunks, deploymentObject, podObject, watchStreams } from './watch-junk.js';

const STREAMS = Number(process.env.STREAMS ?? 300);
const AT_ONCE = 25;
const WAIT_MS = 3_000;

const uncaught: unknown[] = [];
rxConfig.onUnhandledError = (error) => uncaught.push(error);
process.on('uncaughtException', (error) => uncaught.push(error));
process.on('unhandledRejection', (error) => uncaught.push(error));

const streams = fc.sample(watchStreams, { numRuns: STREAMS, seed: Number(process.env.SEED ?? 2025) });
const watchesSeen = new Map<string, number>();

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const match = /\/namespaces\/ns-(\d+)\/(deployments|pods)$/.exec(url.pathname);
  if (!match) {
    res.writeHead(404).end();
    return;
  }
  const index = Number(match[1]);
  const kind = match[2] as 'deployments' | 'pods';
  const stream = streams[index]!;
  const healthy = kind === 'deployments' ? deploymentObject('complete', 2000) : podObject('ready', 2000, 'a1');
  if (url.searchParams.get('watch') !== 'true') {
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ items: [healthy], metadata: { resourceVersion: '2000' } }));
    return;
  }
  const key = `${index}/${kind}`;
  const seen = (watchesSeen.get(key) ?? 0) + 1;
  watchesSeen.set(key, seen);
  res.writeHead(200, { 'Content-Type': 'application/json' });
  if (seen > 1) {
    // Recovery: the healthy state, then the watch stays open until the client leaves.
    const initial = url.searchParams.get('sendInitialEvents') === 'true';
    res.write(`${JSON.stringify({ type: initial ? 'ADDED' : 'MODIFIED', object: healthy })}\n`);
    if (initial) {
      const end = { metadata: { resourceVersion: '2000', annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } };
      res.write(`${JSON.stringify({ type: 'BOOKMARK', object: end })}\n`);
    }
    return;
  }
  for (const chunk of bodyChunks(stream, kind)) res.write(chunk);
  if (stream.ending[kind] === 'cut') res.destroy();
  else res.end();
});

await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const dir = mkdtempSync(join(tmpdir(), 'kp-junk-'));
const kubeconfigPath = join(dir, 'config');
writeFileSync(
  kubeconfigPath,
  `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${(server.address() as AddressInfo).port}"}}]\n` +
    'users: [{name: u, user: {token: junk-stream-t0ken}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n',
);
const api = KubernetesApi.fromConfig({ kubeconfigPath, tlsVerify: false, requestTimeoutMs: 5_000 });
let faults = 0;
const registry = new InformerRegistry({ backoff: { initialMs: 1, maxMs: 20, factor: 2, jitter: 0.2 }, onRetry: () => (faults += 1) });

const outcomes: Record<string, number> = {};
let next = 0;
async function worker(): Promise<void> {
  while (next < streams.length) {
    const index = next++;
    const namespace = `ns-${index}`;
    await new Promise<void>((resolve) => {
      awaitRollout(
        { namespace, name: NAME, uid: UID, providerId: `${namespace}/${NAME}` },
        deploymentSnapshots(registry, api, namespace, NAME),
        podSnapshots(registry, api, namespace, CONTAINER_ID),
      )
        .pipe(deadline(WAIT_MS, () => new RolloutTimeoutError({ namespace, name: NAME }, WAIT_MS, undefined)))
        .subscribe({
          complete: () => {
            outcomes.ready = (outcomes.ready ?? 0) + 1;
            resolve();
          },
          error: (error: unknown) => {
            const kind =
              error instanceof RolloutFailedError
                ? 'failed'
                : error instanceof RolloutTimeoutError
                  ? 'timeout'
                  : error instanceof KubeProvisionerError
                    ? 'api-error'
                    : 'untyped';
            outcomes[kind] = (outcomes[kind] ?? 0) + 1;
            resolve();
          },
        });
    });
  }
}

await Promise.all(Array.from({ length: AT_ONCE }, worker));
server.closeAllConnections();
await new Promise((resolve) => server.close(resolve));
rmSync(dir, { recursive: true, force: true });
// Deployment "uid-web" is what every stream's healthy state carries; "deploymentObject" also
// made the junk, so both ends of the wire speak the same shapes.
console.log(
  JSON.stringify({
    streams: streams.length,
    settled: Object.values(outcomes).reduce((a, b) => a + b, 0),
    outcomes,
    faults,
    uncaught: uncaught.length,
  }),
);
