// Child process: the Helm-3-style BASELINE, written for this benchmark. It creates the
// same Deployments (same manifest: the library's buildDeployment) and then waits for each
// one the way `helm install --wait` (Helm 3) does: GET the Deployment every 2 s, starting
// at once, until rolloutStatus() says Complete. One independent poller per provisioning
// (as N concurrent `helm --wait` runs would poll). Helm's readiness check also lists the
// ReplicaSets on every tick; this baseline sends only the GET, so its request count is a
// LOWER bound on Helm 3's.
//
// It talks HTTP through one keep-alive https.Agent (as client-go reuses its connections),
// so its CPU figures are not inflated by a TLS handshake per request.
import https from 'node:https';
import type { V1Deployment } from '@kubernetes/client-node';
import { KubeConfig } from '@kubernetes/client-node';
import type { MutableRecord } from './protocol.js';
import { ChildMeter, benchSpec, deploymentName, describeError, loadLibrary, readChildInput } from './child-harness.js';
import { hrNow } from './stats.js';

const REQUEST_TIMEOUT_MS = 30_000;

const input = readChildInput();
const meter = new ChildMeter();
const library = await loadLibrary(input.impl);

const config = new KubeConfig();
config.loadFromFile(input.kubeconfigPath);
const server = config.getCurrentCluster()?.server;
if (!server) throw new Error(`no current cluster in ${input.kubeconfigPath}`);
const base: https.RequestOptions = {};
await config.applyToHTTPSOptions(base);
const agent = new https.Agent({
  keepAlive: true,
  ca: base.ca,
  cert: base.cert,
  key: base.key,
  ...(base.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
});
const headers = { ...(base.headers as Record<string, string>), Accept: 'application/json' };

function requestJson<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  meter.requests += 1;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<T>((resolve, reject) => {
    const request = https.request(new URL(server + path), {
      method,
      agent,
      timeout: REQUEST_TIMEOUT_MS,
      headers:
        payload === undefined ? headers : { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
    });
    request.on('timeout', () => request.destroy(new Error(`${method} ${path} timed out`)));
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve(JSON.parse(text) as T);
        else reject(new Error(`${method} ${path}: HTTP ${status} ${text.slice(0, 200)}`));
      });
    });
    request.end(payload);
  });
}

const collection = `/apis/apps/v1/namespaces/${encodeURIComponent(input.namespace)}/deployments`;
const records: MutableRecord[] = [];
let created = 0;
let failedBeforeCreate = 0;
let settled = 0;
const timers = new Set<NodeJS.Timeout>();
/** Memory mode: set once the heap is sampled; every poller stops at its next tick. */
let stopped = false;

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        resolve();
      },
      Math.max(0, ms),
    );
    timers.add(timer);
  });

async function provisionAndPoll(index: number, record: MutableRecord, onCreated: () => void): Promise<void> {
  const spec = library.parseWorkloadSpec(benchSpec(input, index));
  const manifest = library.buildDeployment(spec, { namespace: input.namespace });
  await requestJson<V1Deployment>('POST', collection, manifest);
  record.createdAt = hrNow();
  onCreated();
  const deadline = record.createdAt + input.timeoutMs;
  const pollStart = hrNow();
  // Fixed-rate ticks from the first poll (apimachinery's non-sliding PollUntil, immediate).
  for (let tick = 0; !stopped; tick += 1) {
    const deployment = await requestJson<V1Deployment>('GET', `${collection}/${encodeURIComponent(record.name)}`);
    record.steps += 1;
    const status = library.rolloutStatus(deployment);
    if (status.state === 'Complete') {
      record.readyAt = hrNow();
      record.completeResourceVersion = deployment.metadata?.resourceVersion;
      return;
    }
    if (status.state === 'Failed') throw new Error(`rollout failed: ${status.reason}: ${status.message}`);
    const next = pollStart + (tick + 1) * input.pollIntervalMs;
    if (next > deadline) throw new Error(`timed out after ${input.timeoutMs} ms (last: ${status.reason})`);
    await sleep(next - hrNow());
  }
}

meter.begin();
await new Promise<void>((resolve) => {
  const maybeSampleHeap = (): void => {
    if (input.mode !== 'memory' || created + failedBeforeCreate !== input.count) return;
    setImmediate(() => {
      meter.sampleHeap(settled);
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      resolve();
    });
  };
  for (let index = 0; index < input.count; index += 1) {
    const record: MutableRecord = { name: deploymentName(index), startedAt: hrNow(), steps: 0 };
    records.push(record);
    provisionAndPoll(index, record, () => {
      created += 1;
      maybeSampleHeap();
    })
      .catch((error: unknown) => {
        record.error = describeError(error);
        if (record.createdAt === undefined) {
          failedBeforeCreate += 1;
          maybeSampleHeap();
        }
      })
      .finally(() => {
        settled += 1;
        if (settled === input.count) resolve();
      });
  }
});
for (const timer of timers) clearTimeout(timer);
agent.destroy();
await meter.finish(input, records);
