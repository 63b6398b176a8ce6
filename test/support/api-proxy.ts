// A loopback HTTPS proxy in front of the real kube-apiserver, for fault injection and
// for counting what a client sends. It terminates TLS with its own self-signed
// certificate (made with openssl), forwards each request to the apiserver, and can:
//   - answer chosen requests itself (e.g. 410 Gone to a watch),
//   - go silent: stop forwarding data on every open response without closing the socket
//     (a half-open connection, as after a NAT or load-balancer drop),
//   - count requests and watch connections by resource.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { monotonicNow } from './monotonic-clock.js';
import { selfSigned } from './tls.js';

export interface ProxiedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly watch: boolean;
  /** When the proxy received it (high-resolution wall clock, comparable across processes). */
  readonly at: number;
}

export type Interception =
  | { readonly status: number; readonly body: unknown }
  /** Answer 200 and stream these watch events, then end. */
  | { readonly watchEvents: readonly unknown[] };

export interface RequestCounts {
  requests: number;
  watches: number;
  lists: number;
  gets: number;
  creates: number;
  /** The most watches open at once, per resource (the path's last segment). */
  peakOpenWatches: Record<string, number>;
  /** The most watches open at once, per path (namespace and resource). */
  peakOpenWatchesByPath: Record<string, number>;
  /** Response body bytes sent to the client (what it received from the API server). */
  bytesReceived: number;
}

export class ApiProxy {
  readonly counts: RequestCounts = {
    requests: 0,
    watches: 0,
    lists: 0,
    gets: 0,
    creates: 0,
    peakOpenWatches: {},
    peakOpenWatchesByPath: {},
    bytesReceived: 0,
  };
  private readonly openWatchesByResource = new Map<string, number>();
  private readonly openWatchesByPath = new Map<string, number>();
  /** Every request, in order. */
  readonly log: ProxiedRequest[] = [];
  /** Return an Interception to answer a request instead of forwarding it. */
  intercept: ((request: ProxiedRequest) => Interception | undefined) | undefined;
  private silent = false;
  private readonly sockets = new Set<Socket>();
  private readonly openUpstreams = new Map<http.IncomingMessage, http.ServerResponse>();

  private constructor(
    private readonly server: https.Server,
    private readonly upstream: URL,
    private readonly upstreamCa: string | undefined,
    readonly caPem: string,
    private readonly dir: string,
  ) {}

  /** Starts a proxy for the API server of `kubeconfigPath` (its current context). */
  static async start(kubeconfigPath: string): Promise<ApiProxy> {
    const config = new KubeConfig();
    config.loadFromFile(kubeconfigPath);
    const cluster = config.getCurrentCluster();
    if (!cluster) throw new Error('proxy: kubeconfig has no current cluster');
    const dir = mkdtempSync(join(tmpdir(), 'kp-proxy-'));
    const { certPem: caPem, keyPem } = selfSigned(dir, 'proxy');
    const upstreamCa = cluster.caData
      ? Buffer.from(cluster.caData, 'base64').toString('utf8')
      : cluster.caFile
        ? readFileSync(cluster.caFile, 'utf8')
        : undefined;
    const server = https.createServer({ cert: caPem, key: keyPem });
    const proxy = new ApiProxy(server, new URL(cluster.server), upstreamCa, caPem, dir);
    server.on('request', (req, res) => proxy.handle(req, res));
    server.on('connection', (socket: Socket) => {
      proxy.sockets.add(socket);
      socket.on('close', () => proxy.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A copy of `kubeconfigPath` whose current cluster is this proxy (same credentials). */
  writeKubeconfig(kubeconfigPath: string): string {
    const config = new KubeConfig();
    config.loadFromFile(kubeconfigPath);
    const current = config.getCurrentCluster()!;
    config.clusters = config.clusters.map((c) =>
      c.name === current.name ? { ...c, server: this.url, caData: Buffer.from(this.caPem).toString('base64'), caFile: undefined } : c,
    );
    const path = join(this.dir, `kubeconfig-${Math.random().toString(36).slice(2)}`);
    writeFileSync(path, config.exportConfig());
    return path;
  }

  /** Stops forwarding data on every open response; sockets stay open (half-open drop). */
  goSilent(): void {
    this.silent = true;
    for (const [upstream, res] of this.openUpstreams) silence(upstream, res);
  }

  /** New requests are forwarded again; responses silenced before stay silent. */
  recover(): void {
    this.silent = false;
  }

  get openWatches(): number {
    return this.openUpstreams.size;
  }

  async close(): Promise<void> {
    for (const upstream of this.openUpstreams.keys()) upstream.destroy();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.upstream);
    const request: ProxiedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      watch: url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1',
      at: monotonicNow(),
    };
    this.record(request);
    if (request.watch) this.trackOpenWatch(request, res);
    const interception = this.intercept?.(request);
    if (interception) {
      req.resume();
      if ('watchEvents' in interception) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        for (const event of interception.watchEvents) res.write(`${JSON.stringify(event)}\n`);
        res.end();
      } else {
        res.writeHead(interception.status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(interception.body));
      }
      return;
    }
    if (this.silent) {
      req.resume(); // never answer: the client sees a connection that went quiet
      return;
    }
    const upstreamRequest = https.request(url, {
      method: req.method,
      headers: { ...req.headers, host: this.upstream.host },
      ...(this.upstreamCa ? { ca: this.upstreamCa } : {}),
    });
    upstreamRequest.on('response', (upstream) => {
      this.openUpstreams.set(upstream, res);
      upstream.on('close', () => this.openUpstreams.delete(upstream));
      // An upstream reset (apiserver overloaded or restarting) ends this response only.
      upstream.on('error', () => res.destroy());
      res.writeHead(upstream.statusCode ?? 502, upstream.headers);
      // Node sends the headers with the first body chunk; a watch with nothing to report yet
      // would then look unanswered to its client (client-go waits for them), as the apiserver
      // flushes them at once.
      if (request.watch) res.flushHeaders();
      upstream.on('data', (chunk: Buffer) => (this.counts.bytesReceived += chunk.length));
      upstream.pipe(res);
      if (this.silent) silence(upstream, res);
    });
    upstreamRequest.on('error', () => res.destroy());
    res.on('close', () => upstreamRequest.destroy());
    req.on('error', () => upstreamRequest.destroy());
    req.pipe(upstreamRequest);
  }

  private trackOpenWatch(request: ProxiedRequest, res: http.ServerResponse): void {
    const resource = request.path.slice(request.path.lastIndexOf('/') + 1);
    const open = (this.openWatchesByResource.get(resource) ?? 0) + 1;
    this.openWatchesByResource.set(resource, open);
    this.counts.peakOpenWatches[resource] = Math.max(this.counts.peakOpenWatches[resource] ?? 0, open);
    const openOnPath = (this.openWatchesByPath.get(request.path) ?? 0) + 1;
    this.openWatchesByPath.set(request.path, openOnPath);
    this.counts.peakOpenWatchesByPath[request.path] = Math.max(this.counts.peakOpenWatchesByPath[request.path] ?? 0, openOnPath);
    res.on('close', () => {
      this.openWatchesByResource.set(resource, (this.openWatchesByResource.get(resource) ?? 1) - 1);
      this.openWatchesByPath.set(request.path, (this.openWatchesByPath.get(request.path) ?? 1) - 1);
    });
  }

  private record(request: ProxiedRequest): void {
    this.log.push(request);
    this.counts.requests += 1;
    if (request.watch) this.counts.watches += 1;
    else if (request.method === 'POST') this.counts.creates += 1;
    else if (request.method === 'GET' && /\/(deployments|pods)$/.test(request.path)) this.counts.lists += 1;
    else if (request.method === 'GET') this.counts.gets += 1;
  }
}

function silence(upstream: http.IncomingMessage, res: http.ServerResponse): void {
  upstream.unpipe(res);
  upstream.pause();
}

/** The metav1.Status a real apiserver sends for a too-old resourceVersion. */
export const GONE_STATUS = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'too old resource version: 1 (2)',
  reason: 'Expired',
  code: 410,
};
