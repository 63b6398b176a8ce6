// A FAKE API server on 127.0.0.1 for the terminal and log tests: plain HTTP answering the
// few reads the library makes (the workload's Deployment, its Pods by label, one Pod, a
// watch of Pods), pods/log by a handler each test gives, and the pods/exec WebSocket
// upgrade (a `ws` server) by a handler each test gives, speaking the channel protocol as
// the test makes it. The real transport, client and library code talk to it through
// KubernetesApi.fromServer. It is no kube-apiserver: the integration and real-node suites
// check the same paths against real ones.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { V1Deployment, V1Pod } from '../../src/kube/objects.js';
import { KubernetesApi } from '../../src/kube/kubernetes-api.js';
import { CONTAINER_ID_LABEL, MANAGED_LABEL } from '../../src/input/labels.js';
import { deployment as deploymentFixture, containerStatus, pod as podFixture, states } from './fixtures.js';

export const NS = 'default';
export const WORKLOAD = 'web';
export const CONTAINER = 'manager';
export const LABELS = { [MANAGED_LABEL]: 'true', [CONTAINER_ID_LABEL]: '42' };

export interface ExecRequest {
  readonly pod: string;
  readonly command: readonly string[];
  readonly query: URLSearchParams;
  readonly protocol: string;
  /** The Authorization header the upgrade carried. */
  readonly authorization: string | undefined;
}

export type ExecHandler = (socket: WebSocket, request: ExecRequest) => void;
export type LogHandler = (pod: string, query: URLSearchParams, res: http.ServerResponse, req: http.IncomingMessage) => void;

export interface FakePodApi {
  readonly client: KubernetesApi;
  readonly url: string;
  deployment: V1Deployment;
  pods: V1Pod[];
  exec: ExecHandler;
  log: LogHandler;
  /** Protocols the fake speaks, in its order of preference. */
  protocols: readonly string[];
  /** Upgrades and log requests seen. */
  readonly seen: { exec: ExecRequest[]; logs: { pod: string; query: URLSearchParams }[]; openSockets: number; openLogs: number };
  /** Sends a watch event to every open Pod watch. */
  podEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: V1Pod): void;
  /** Answers the upgrade with this status and Status body instead (403, 500, ...). */
  refuseExec: { statusCode: number; message: string } | undefined;
  /** Never answers the upgrade (the connect bound). */
  silentExec: boolean;
  /** Whether the WebSocket peer answers pings (default true). */
  answerPings: boolean;
  close(): Promise<void>;
}

/** A running Pod of the workload, its container run named `containerID`. */
export function workloadPod(
  name: string,
  containerID = `containerd://${name}-1`,
  options: { terminated?: boolean; restartedFrom?: string } = {},
): V1Pod {
  const status = containerStatus({
    state: options.terminated ? states.terminated(0, 'Completed') : states.running(),
    ...(options.restartedFrom ? { lastState: states.terminated(1, 'Error'), restartCount: 1 } : {}),
  });
  const lastState = options.restartedFrom
    ? { terminated: { ...status.lastState?.terminated, containerID: options.restartedFrom } }
    : status.lastState;
  return podFixture({
    name,
    labels: LABELS,
    containerStatuses: [{ ...status, containerID, ...(lastState ? { lastState } : {}) } as never],
  });
}

export interface FakePodApiOptions {
  /** Serve HTTPS with this certificate (the client trusts it through caData). */
  readonly tls?: { readonly certPem: string; readonly keyPem: string };
}

export async function startFakePodApi(options: FakePodApiOptions = {}): Promise<FakePodApi> {
  const watches = new Set<http.ServerResponse>();
  const handleProtocols = (offered: Set<string>): string | false => fake.protocols.find((protocol) => offered.has(protocol)) ?? false;
  const wss = new WebSocketServer({ noServer: true, handleProtocols });
  // A peer that never answers pings: the half-open connection a proxy leaves behind.
  const deaf = new WebSocketServer({ noServer: true, handleProtocols, autoPong: false });
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    if (path === `/apis/apps/v1/namespaces/${NS}/deployments/${WORKLOAD}`) return json(200, fake.deployment);
    if (path.startsWith('/apis/apps/v1/'))
      return json(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', message: 'not found', code: 404 });
    if (path === `/api/v1/namespaces/${NS}/pods`) {
      if (url.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.flushHeaders();
        watches.add(res);
        res.on('close', () => watches.delete(res));
        return;
      }
      return json(200, { kind: 'PodList', metadata: { resourceVersion: '100' }, items: fake.pods });
    }
    const logMatch = /^\/api\/v1\/namespaces\/[^/]+\/pods\/([^/]+)\/log$/.exec(path);
    if (logMatch) {
      const pod = logMatch[1] ?? '';
      fake.seen.logs.push({ pod, query: url.searchParams });
      fake.seen.openLogs += 1;
      res.on('close', () => {
        fake.seen.openLogs -= 1;
      });
      fake.log(pod, url.searchParams, res, req);
      return;
    }
    const podMatch = /^\/api\/v1\/namespaces\/[^/]+\/pods\/([^/]+)$/.exec(path);
    if (podMatch) {
      const found = fake.pods.find((pod) => pod.metadata?.name === podMatch[1]);
      return found
        ? json(200, found)
        : json(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', message: 'pods not found', code: 404 });
    }
    json(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', message: `no ${path}`, code: 404 });
  };
  const server = options.tls
    ? https.createServer({ cert: options.tls.certPem, key: options.tls.keyPem }, handler)
    : http.createServer(handler);
  const upgrades = new Set<Duplex>();
  server.on('upgrade', (req, socket, head) => {
    upgrades.add(socket);
    socket.on('close', () => upgrades.delete(socket));
    const url = new URL(req.url ?? '/', 'http://fake');
    const match = /^\/api\/v1\/namespaces\/[^/]+\/pods\/([^/]+)\/exec$/.exec(url.pathname);
    if (!match) {
      socket.destroy();
      return;
    }
    if (fake.silentExec) return;
    if (fake.refuseExec) {
      const body = JSON.stringify({
        kind: 'Status',
        status: 'Failure',
        message: fake.refuseExec.message,
        code: fake.refuseExec.statusCode,
      });
      socket.end(
        `HTTP/1.1 ${fake.refuseExec.statusCode} Refused\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      return;
    }
    (fake.answerPings ? wss : deaf).handleUpgrade(req, socket, head, (ws) => {
      const request = {
        pod: match[1] ?? '',
        command: url.searchParams.getAll('command'),
        query: url.searchParams,
        protocol: ws.protocol,
        authorization: req.headers.authorization,
      };
      fake.seen.exec.push(request);
      fake.seen.openSockets += 1;
      ws.on('close', () => {
        fake.seen.openSockets -= 1;
      });
      fake.exec(ws, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakePodApi = {
    client: KubernetesApi.fromServer({
      server: url,
      token: 'fake-token',
      ...(options.tls ? { caData: options.tls.certPem } : { tlsVerify: false }),
      namespace: NS,
      requestTimeoutMs: 2_000,
    }),
    url,
    deployment: deploymentFixture({ name: WORKLOAD, labels: LABELS }),
    pods: [workloadPod('web-7c9f5d-aaaaa')],
    exec: (socket) => socket.close(),
    log: (_pod, _query, res) => res.end(),
    protocols: ['v5.channel.k8s.io', 'v4.channel.k8s.io'],
    seen: { exec: [], logs: [], openSockets: 0, openLogs: 0 },
    podEvent(type, pod) {
      for (const res of watches) res.write(`${JSON.stringify({ type, object: pod })}\n`);
    },
    refuseExec: undefined,
    silentExec: false,
    answerPings: true,
    async close() {
      for (const res of watches) res.destroy();
      for (const server of [wss, deaf]) {
        for (const client of server.clients) client.terminate();
        server.close();
      }
      server.closeAllConnections();
      for (const socket of upgrades) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

/** A frame on a channel, as the kubelet sends it. */
export function frame(channel: number, payload: string | Buffer = ''): Buffer {
  return Buffer.concat([Buffer.of(channel), typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload]);
}

/** The Status frame (channel 3) the kubelet sends when the command ended with `exitCode`. */
export function exitFrame(exitCode: number): Buffer {
  return frame(
    3,
    JSON.stringify(
      exitCode === 0
        ? { metadata: {}, status: 'Success' }
        : {
            metadata: {},
            status: 'Failure',
            message: `command terminated with non-zero exit code: error executing command [sh -c exit ${exitCode}], exit code ${exitCode}`,
            reason: 'NonZeroExitCode',
            details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
          },
    ),
  );
}

/** The Status frame when the runtime cannot find the executable. */
export function notFoundFrame(program: string): Buffer {
  return frame(
    3,
    JSON.stringify({
      metadata: {},
      status: 'Failure',
      message: `failed to exec in container: failed to start exec "abc": OCI runtime exec failed: exec failed: unable to start container process: exec: "${program}": executable file not found in $PATH: unknown`,
      reason: 'InternalError',
      details: { causes: [{ message: 'some detail' }] },
    }),
  );
}
