// The live page's server and hub against requests a hostile page or a clumsy script could
// send: it acts in its one namespace only, runs one operation per workload (the same one
// joins it, another is refused) and a bounded number at once, serves a bounded number of
// viewers with one snapshot for all, shows a cluster it cannot reach, and answers odd
// requests (a bad percent-encoding, `//live.js`, HEAD on the stream, a spec with thousands
// of bad names) as a client error, in bounded size. A real HTTP server on loopback with a
// fake backend (Subjects) and the fake client; the library backend against a closed port.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEVER, Subject, type Observable } from 'rxjs';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import type { ClusterConnection, LifecycleOperation, OperationEvent, UiBackend, WorkloadStatusEvent } from '../../src/ui/backend.js';
import { libraryBackend } from '../../src/ui/library-backend.js';
import { unreachableKubeconfig } from '../support/unreachable-kubeconfig.js';
import { LiveHub } from '../../src/ui/live-hub.js';
import { ACTION_HEADER, allowedHostsFor, startUiServer, webDir, type UiServer } from '../../src/ui/server.js';
import { FakeKubernetes } from '../support/fake-kube.js';

const NS = 'team-a';

/** The JSON body of an answer. */
const json = (answer: { body: string }): { joined?: boolean; operationId?: string } & Record<string, unknown> =>
  JSON.parse(answer.body) as { joined?: boolean; operationId?: string };

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: http.IncomingHttpHeaders;
}

const opened: { hub: LiveHub; server: UiServer }[] = [];

afterEach(async () => {
  for (const { hub, server } of opened.splice(0)) {
    await server.close();
    hub.close();
  }
});

async function page(backend: Partial<UiBackend> = {}, options: { maxRunningOperations?: number; maxViewers?: number } = {}) {
  const statuses = new Subject<WorkloadStatusEvent>();
  const hub = new LiveHub({
    api: new FakeKubernetes(NS),
    namespace: NS,
    backend: { statuses$: () => statuses, ...backend },
    ...(options.maxRunningOperations !== undefined ? { maxRunningOperations: options.maxRunningOperations } : {}),
  });
  const server = await startUiServer({ hub, port: 0, ...(options.maxViewers !== undefined ? { maxViewers: options.maxViewers } : {}) });
  opened.push({ hub, server });
  return { hub, server, statuses };
}

/** One request, raw (any path, any Host); `keepOpen` resolves at the headers and leaves the stream open. */
function request(
  server: UiServer,
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string>; keepOpen?: boolean } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: server.port,
        method,
        path,
        headers: {
          Host: `127.0.0.1:${server.port}`,
          ...(method === 'POST' ? { [ACTION_HEADER]: '1', 'Content-Type': 'application/json' } : {}),
          ...options.headers,
        },
      },
      (res) => {
        if (options.keepOpen) {
          resolve({ status: res.statusCode ?? 0, body: '', headers: res.headers });
          return;
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A lifecycle operation that runs until the test ends it, counting how often it was started. */
function holding(): { operation: LifecycleOperation; started: string[]; finish: Subject<OperationEvent> } {
  const started: string[] = [];
  const finish = new Subject<OperationEvent>();
  return {
    started,
    finish,
    operation: (_api, providerId) => {
      started.push(providerId);
      return finish;
    },
  };
}

describe('one namespace: the page acts in its own only', () => {
  it('an action on another namespace is refused (403) and never reaches the backend', async () => {
    const remove = vi.fn<LifecycleOperation>(() => NEVER);
    const { server } = await page({ remove$: remove });
    const answer = await request(server, 'POST', '/api/workloads/kube-system/coredns/remove');
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({
      name: 'OtherNamespaceError',
      message: expect.stringContaining('serves namespace team-a only'),
    });
    expect(remove).not.toHaveBeenCalled();
  });

  it('a spec naming another namespace is invalid input (400, naming the field); one naming none gets the page namespace', async () => {
    const provision = vi.fn((_api: unknown, _spec: unknown): Observable<OperationEvent> => NEVER);
    const { server } = await page({ provision$: provision });
    const spec = { containerId: 1, nodeId: 1, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 64 };
    const refused = await request(server, 'POST', '/api/workloads', { body: JSON.stringify({ ...spec, namespace: 'kube-system' }) });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ name: 'InvalidSpecError', issues: [{ path: 'namespace' }] });
    expect(provision).not.toHaveBeenCalled();
    const accepted = await request(server, 'POST', '/api/workloads', { body: JSON.stringify(spec) });
    expect(accepted.status).toBe(202);
    expect(JSON.parse(accepted.body)).toMatchObject({ providerId: 'team-a/web' });
    expect(provision.mock.calls[0]?.[1]).toMatchObject({ namespace: NS });
  });
});

/** For the README's hostile-input table: what the page's limits held against. */
const figures = { stopRequests: 0, operationsStarted: 0, badEnvNames: 0, answerBytes: 0, viewersRefusedOver: 0 };
afterAll(() => console.log(`[reliability] live page: ${JSON.stringify(figures)}`));

describe('bounded operations', () => {
  it('2,000 POST .../stop on one workload start one operation: the others join it (200)', async () => {
    const stop = holding();
    const { server, hub } = await page({ stop$: stop.operation });
    // In waves of 200 at once: 2,000 connections at once overflow the loopback backlog on a busy machine.
    const answers: Awaited<ReturnType<typeof request>>[] = [];
    for (let wave = 0; wave < 10; wave += 1) {
      answers.push(...(await Promise.all(Array.from({ length: 200 }, () => request(server, 'POST', '/api/workloads/team-a/web/stop')))));
    }
    expect(stop.started).toEqual(['team-a/web']);
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 200 && json(answer).joined === true)).toHaveLength(1999);
    expect(new Set(answers.map((answer) => json(answer).operationId)).size).toBe(1);
    expect(hub.runningOperations).toBe(1);
    figures.stopRequests += answers.length;
    figures.operationsStarted += stop.started.length;
  }, 60_000);

  it('another operation on a workload with one running is refused (409, naming the running one)', async () => {
    const stop = holding();
    const start = holding();
    const { server } = await page({ stop$: stop.operation, start$: start.operation });
    const first = await request(server, 'POST', '/api/workloads/team-a/web/stop');
    const second = await request(server, 'POST', '/api/workloads/team-a/web/start');
    expect(second.status).toBe(409);
    expect(JSON.parse(second.body)).toMatchObject({ name: 'OperationInProgressError', operationId: json(first).operationId });
    expect(start.started).toEqual([]);
    // Once it ended, the workload takes another.
    stop.finish.complete();
    expect((await request(server, 'POST', '/api/workloads/team-a/web/start')).status).toBe(202);
  });

  it('at most maxRunningOperations at once: one more is refused (429, Retry-After)', async () => {
    const stop = holding();
    const { server } = await page({ stop$: stop.operation }, { maxRunningOperations: 3 });
    for (const name of ['a', 'b', 'c']) expect((await request(server, 'POST', `/api/workloads/team-a/${name}/stop`)).status).toBe(202);
    const refused = await request(server, 'POST', '/api/workloads/team-a/d/stop');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('5');
    expect(JSON.parse(refused.body)).toMatchObject({ name: 'PageBusyError' });
    expect(stop.started).toEqual(['team-a/a', 'team-a/b', 'team-a/c']);
  });

  it('at most maxViewers event streams; every new viewer shares one snapshot', async () => {
    const { server, hub } = await page({}, { maxViewers: 20 });
    const snapshot = vi.spyOn(hub, 'snapshot');
    const streams = await Promise.all(Array.from({ length: 20 }, () => request(server, 'GET', '/api/events', { keepOpen: true })));
    expect(streams.every((answer) => answer.status === 200)).toBe(true);
    expect(hub.channel.viewerCount).toBe(20);
    expect(snapshot).toHaveBeenCalledTimes(1);
    const refused = await request(server, 'GET', '/api/events');
    expect(refused.status).toBe(503);
    figures.viewersRefusedOver = hub.channel.viewerCount;
    expect(JSON.parse(refused.body)).toMatchObject({ name: 'PageBusyError' });
  });
});

describe('a cluster that cannot be reached is shown as such', () => {
  it('the backend says connecting, then unreachable: the snapshot and a connection event say so', async () => {
    const connection = new Subject<ClusterConnection>();
    const { hub } = await page({ connection$: () => connection });
    expect(hub.snapshot().connection).toEqual({ state: 'connecting' });
    connection.next({ state: 'unreachable', message: 'Kubernetes API at https://10.0.0.1 is unreachable: connect ECONNREFUSED' });
    expect(hub.snapshot().connection).toMatchObject({ state: 'unreachable', message: expect.stringContaining('ECONNREFUSED') });
  });

  it('the state is never masked: a token that starts like a word the message holds hides the word, not the state', async () => {
    // 16+ characters: an echo of its first 10 ("unreachabl") counts as the token, cut short.
    const { path: kubeconfigPath } = unreachableKubeconfig({ token: 'unreachable-token-0123', namespace: NS });
    const connection = new Subject<ClusterConnection>();
    const api = KubernetesApi.fromConfig({ kubeconfigPath });
    const hub = new LiveHub({ api, namespace: NS, backend: { statuses$: () => NEVER, connection$: () => connection } });
    try {
      connection.next({ state: 'unreachable', message: 'Kubernetes API at https://127.0.0.1:1 is unreachable: connect ECONNREFUSED' });
      expect(hub.snapshot().connection).toEqual({
        state: 'unreachable',
        message: 'Kubernetes API at https://127.0.0.1:1 is ***: connect ECONNREFUSED',
      });
    } finally {
      hub.close();
    }
  });

  it('the library backend against a closed port: unreachable within seconds, in the client words', async () => {
    const { path: kubeconfigPath } = unreachableKubeconfig({ token: 'closed-port-token', namespace: NS });
    const api = KubernetesApi.fromConfig({ kubeconfigPath });
    const hub = new LiveHub({ api, namespace: NS, backend: libraryBackend() });
    try {
      expect(hub.snapshot().connection?.state).toBe('connecting');
      await vi.waitFor(() => expect(hub.snapshot().connection?.state).toBe('unreachable'), { timeout: 10_000, interval: 50 });
      expect(hub.snapshot().connection?.message).toMatch(/is unreachable/);
    } finally {
      hub.close();
    }
  });
});

describe('odd requests are client errors, in bounded size', () => {
  it('a bad percent-encoding in a path: 400, not 500', async () => {
    const { server } = await page({ stop$: () => NEVER });
    const answer = await request(server, 'POST', '/api/workloads/team-a/%E0%A4%A/stop');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ name: 'BadRequestError' });
  });

  it('//live.js is no page (404), not index.html', async () => {
    const { server } = await page();
    const answer = await request(server, 'GET', '//live.js');
    expect(answer.status).toBe(404);
    expect(answer.body).not.toContain('<html');
  });

  it('HEAD /api/events answers the headers and attaches no viewer', async () => {
    const { server, hub } = await page();
    const answer = await request(server, 'HEAD', '/api/events');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(hub.channel.viewerCount).toBe(0);
  });

  it('a spec with 6,000 bad variable names: a bounded answer listing the first problems and counting the rest', async () => {
    const { server } = await page({ provision$: () => NEVER });
    // Names that start with a digit are no variable names.
    const env = Object.fromEntries(Array.from({ length: 6000 }, (_, index) => [`${index}`, 'x']));
    const body = JSON.stringify({ containerId: 1, nodeId: 1, hostname: 'web', image: 'nginx:1.27', cpus: 1, memoryMb: 64, env });
    expect(body.length).toBeLessThan(64 * 1024);
    const answer = await request(server, 'POST', '/api/workloads', { body });
    expect(answer.status).toBe(400);
    const error = JSON.parse(answer.body) as { issues: unknown[]; omittedIssues: number; message: string };
    expect(error.issues).toHaveLength(50);
    expect(error.omittedIssues).toBe(5950);
    expect(error.message).toMatch(/; and 5950 more problems$/);
    expect(answer.body.length).toBeLessThan(32 * 1024);
    figures.badEnvNames += Object.keys(env).length;
    figures.answerBytes = Math.max(figures.answerBytes, answer.body.length);
  });

  it('port 80: a browser sends Host without the port, and is answered', () => {
    expect(allowedHostsFor(80)).toEqual(new Set(['127.0.0.1:80', 'localhost:80', '127.0.0.1', 'localhost']));
    expect(allowedHostsFor(8765)).toEqual(new Set(['127.0.0.1:8765', 'localhost:8765']));
  });
});

describe("webDir(): the package's own web/ folder only", () => {
  it('never an ancestor web/ of another package, nor one above no package at all', () => {
    const root = mkdtempSync(join(tmpdir(), 'kp-webdir-'));
    const ancestorWeb = join(root, 'web');
    mkdirSync(ancestorWeb);
    writeFileSync(join(ancestorWeb, 'index.html'), '<p>not ours</p>');
    // A folder below it that is another package: its web/ is missing, the ancestor's is not taken.
    const other = join(root, 'other', 'dist');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(root, 'other', 'package.json'), JSON.stringify({ name: 'someone-else' }));
    expect(() => webDir(other)).toThrow(/web\/ folder .* is missing/);
    // No package.json at all above: nothing is served either.
    const loose = join(root, 'loose', 'src', 'ui');
    mkdirSync(loose, { recursive: true });
    expect(() => webDir(loose)).toThrow(/web\/ folder .* is missing/);
    // Ours: the package root's web/.
    expect(webDir()).toBe(join(import.meta.dirname, '..', '..', 'web'));
    // From the built code: dist/package.json (a nameless module-type marker) is passed, the package's is used.
    const built = join(root, 'pkg', 'dist', 'cli');
    mkdirSync(built, { recursive: true });
    mkdirSync(join(root, 'pkg', 'web'));
    writeFileSync(join(root, 'pkg', 'web', 'index.html'), '<p>ours</p>');
    writeFileSync(join(root, 'pkg', 'package.json'), JSON.stringify({ name: 'kube-provisioner' }));
    writeFileSync(join(root, 'pkg', 'dist', 'package.json'), JSON.stringify({ type: 'commonjs' }));
    expect(webDir(built)).toBe(join(root, 'pkg', 'web'));
  });
});
