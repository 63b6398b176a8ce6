// Helpers for tests on the real node (the `realnode` project, test/realnode/global-setup.ts):
// a namespace whose pods run there, specs for containers that serve files over HTTP, and a
// plain HTTP client to reach an address from this machine (through kube-proxy for a
// Service address), the way Manager's nginx would.
import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { inject } from 'vitest';

import { HTTPD_PORT, REAL_NODE_IMAGES } from '../../scripts/control-plane/real-node/images.js';
import { REAL_NODE_NAMESPACE_ANNOTATIONS } from '../../scripts/control-plane/real-node/node.js';
import { CONTAINER_ID_LABEL, reconfigure, restart, start, stop } from '../../src/index.js';
import type { KubernetesClient } from '../../src/index.js';
import { REAL_NODE_ENV_VAR } from './cluster-env.js';
import type { RealNodeEnv } from './cluster-env.js';
import { kubectl, kubectlJson, sampleSpec, uniqueName } from './kube.js';

export { HTTPD_INDEX, HTTPD_PORT, MISSING_IMAGE, REAL_NODE_IMAGES, SEEDED_FILES } from '../../scripts/control-plane/real-node/images.js';

/** The running real node. Throws (never skips) outside the `realnode` project. */
export function realNodeEnv(): RealNodeEnv {
  const provided = inject('realNode');
  const fromVars = process.env[REAL_NODE_ENV_VAR];
  const env = provided ?? (fromVars === undefined ? undefined : (JSON.parse(fromVars) as RealNodeEnv));
  if (env === undefined) {
    throw new Error('no real node: run these tests with `vitest run --project realnode` (test/realnode/global-setup.ts starts it)');
  }
  return env;
}

/** A fresh namespace whose pods the API server steers to the real node (and only there). */
export function createRealNodeNamespace(prefix: string): string {
  const name = uniqueName(prefix);
  kubectl(['create', 'namespace', name]);
  kubectl(['annotate', 'namespace', name, ...Object.entries(REAL_NODE_NAMESPACE_ANNOTATIONS).map(([key, value]) => `${key}=${value}`)]);
  return name;
}

/** A spec for the real node: small, with one of our images (give it an entrypoint: busybox's `sh` alone exits at once). */
export function realSpec(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return sampleSpec({ image: REAL_NODE_IMAGES.busybox, cpus: 0.1, memoryMb: 64, env: {}, entrypoint: undefined, ...overrides });
}

/**
 * `sh -c script` as the container's process, stopping at once on SIGTERM: a process with
 * PID 1 gets no default signal handlers, so without the trap every stop would wait out the
 * 30 s grace period. The script's last command runs in the background, and the shell
 * waits for it (a trap only runs between commands).
 */
export function shellEntrypoint(script: string): string[] {
  return ['sh', '-c', `trap 'kill $child 2>/dev/null; exit 0' TERM; ${script} & child=$!; wait $child`];
}

/**
 * A container that runs `beforeServe` (a shell line, e.g. appending to a file) at every
 * start, then serves `dir` over HTTP on `port` with busybox httpd.
 */
export function servingSpec(options: { dir: string; beforeServe?: string; port?: number }, overrides: Record<string, unknown> = {}) {
  const port = options.port ?? HTTPD_PORT;
  const before = options.beforeServe === undefined ? '' : `${options.beforeServe}; `;
  return realSpec({
    image: REAL_NODE_IMAGES.httpd,
    entrypoint: shellEntrypoint(`mkdir -p ${options.dir}; ${before}httpd -f -v -p ${port} -h ${options.dir}`),
    ...overrides,
  });
}

export interface MachineResponse {
  readonly status: number;
  readonly body: string;
}

/** One GET from this machine, bounded in time, on a connection of its own. */
export function getFromMachine(url: string, timeoutMs = 3_000): Promise<MachineResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * GETs `url` until it answers 200 with a body `accept` takes (kube-proxy programs a new
 * endpoint within moments, not at once), and returns that body; fails with the last answer.
 */
export async function eventuallyServes(url: string, accept: (body: string) => boolean = () => true, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = 'nothing yet';
  for (;;) {
    try {
      const response = await getFromMachine(url);
      if (response.status === 200 && accept(response.body)) return response.body;
      last = `HTTP ${response.status}: ${response.body.slice(0, 200)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() >= deadline) throw new Error(`${url} did not serve what was expected within ${timeoutMs} ms (last: ${last})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface PodJson {
  readonly metadata: { readonly name: string; readonly uid: string; readonly deletionTimestamp?: string };
  readonly spec: { readonly nodeName?: string };
  readonly status: {
    readonly podIP?: string;
    readonly containerStatuses?: readonly { readonly containerID?: string; readonly restartCount: number }[];
  };
}

/** The pods of one workload (by its container-id label), not being deleted. */
export function podsOf(namespace: string, containerId: number): PodJson[] {
  const list = kubectlJson<{ items: PodJson[] }>(['get', 'pods', '-n', namespace, '-l', `${CONTAINER_ID_LABEL}=${containerId}`]);
  return list.items.filter((pod) => pod.metadata.deletionTimestamp === undefined);
}

/** The real node's StorageClass: static local volumes, bound when a pod is scheduled. */
export const REAL_NODE_STORAGE_CLASS = 'real-node-local';

/** Makes REAL_NODE_STORAGE_CLASS (idempotent), the cluster's default class when `asDefault`. */
export function ensureLocalStorageClass(asDefault = true): void {
  const storageClass = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: REAL_NODE_STORAGE_CLASS,
      annotations: { 'storageclass.kubernetes.io/is-default-class': String(asDefault) },
    },
    provisioner: 'kubernetes.io/no-provisioner',
    volumeBindingMode: 'WaitForFirstConsumer',
    reclaimPolicy: 'Retain',
  };
  kubectl(['apply', '-f', '-'], { input: JSON.stringify(storageClass) });
}

/**
 * A static local PersistentVolume on the real node, backed by a fresh directory under the
 * node's volumes dir (removed with the node): a claim of the class binds it when its pod
 * is scheduled, by the real PV controller and scheduler. Returns the volume's name and dir.
 */
export function offerLocalVolume(sizeGi = 1): { name: string; dir: string } {
  ensureLocalStorageClass();
  const { nodeName, volumesDir } = realNodeEnv();
  const name = uniqueName('rn-pv');
  const dir = join(volumesDir, name);
  mkdirSync(dir, { mode: 0o777 });
  const volume = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      capacity: { storage: `${sizeGi}Gi` },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: REAL_NODE_STORAGE_CLASS,
      local: { path: dir },
      nodeAffinity: {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [nodeName] }] }] },
      },
    },
  };
  kubectl(['create', '-f', '-'], { input: JSON.stringify(volume) });
  return { name, dir };
}

// ---- end-to-end helpers (the network and data issues' claims on the real node) -----------

/**
 * A shell line appending one line per start of the container to `file`: `start <ns since
 * the epoch>`, unique per start, so that a file's lines count its starts and tell them apart.
 */
export function appendStartLine(file: string): string {
  return `echo "start $(date +%s%N)" >> ${file}`;
}

/**
 * A container that appends a line to `dir`/`file` at every start and serves `dir` over HTTP
 * (busybox httpd on HTTPD_PORT): GET /`file` shows every start the file has kept.
 */
export function startCountingSpec(options: { dir: string; file?: string; port?: number }, overrides: Record<string, unknown> = {}) {
  const file = options.file ?? 'starts.txt';
  return servingSpec(
    { dir: options.dir, beforeServe: appendStartLine(`${options.dir}/${file}`), ...(options.port ? { port: options.port } : {}) },
    overrides,
  );
}

/** The start lines a URL serves (the file startCountingSpec writes), once it serves at least `atLeast`. */
export async function startLinesAt(url: string, atLeast = 1, timeoutMs = 15_000): Promise<string[]> {
  const body = await eventuallyServes(url, (text) => startLines(text).length >= atLeast, timeoutMs);
  return startLines(body);
}

export function startLines(text: string): string[] {
  return text.split('\n').filter((line) => line.startsWith('start '));
}

/** The ClusterIP of a Service, read with kubectl (a cross-check beside the library's own address). */
export function serviceClusterIp(namespace: string, name: string): string {
  return kubectlJson<{ spec: { clusterIP: string } }>(['get', 'service', name, '-n', namespace]).spec.clusterIP;
}

/** What a lifecycle step did, for the assertion after it. */
export type LifecycleStep = 'stop+start' | 'restart' | 'reconfigure';

/**
 * Takes a workload through stop and start, restart, and a reconfigure (an env change: a new
 * pod template, so a new Pod), each awaited by the library, and calls `after` once each is
 * done, with the Pod that now runs (a new one every time).
 */
export async function throughLifecycle(
  client: KubernetesClient,
  providerId: string,
  containerId: number,
  after: (step: LifecycleStep, pod: string) => Promise<void>,
  timeoutMs = 60_000,
): Promise<void> {
  const namespace = providerId.split('/')[0] ?? '';
  const podNow = (): string => podsOf(namespace, containerId)[0]?.metadata.name ?? '';
  await stop(client, providerId, { timeoutMs });
  await start(client, providerId, { timeoutMs });
  await after('stop+start', podNow());
  await restart(client, providerId, { timeoutMs });
  await after('restart', podNow());
  await reconfigure(client, providerId, { env: { RECONFIGURED_AT: String(Date.now()) } }, { timeoutMs });
  await after('reconfigure', podNow());
}
