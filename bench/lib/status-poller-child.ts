// Child process of `npm run bench:soak`: the Helm-style BASELINE for a live status list,
// written for this benchmark: one LIST of the namespace's Deployments every 2 s (the next
// one starts 2 s after the previous one answered), as a dashboard that polls would. It
// records, for each Deployment, every resourceVersion it saw and when its answer arrived.
// One keep-alive https.Agent, as client-go reuses its connections. On `finish` (IPC) it
// writes its sightings and CPU time to the result file and exits.
//   node --import tsx bench/lib/status-poller-child.ts <kubeconfig> <namespace> <intervalMs> <result.json>
import https from 'node:https';
import { writeFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { hrNow } from './stats.js';

export interface PollerSighting {
  readonly name: string;
  readonly resourceVersion: string;
  readonly at: number;
}

export interface StatusPollerResult {
  readonly sightings: readonly PollerSighting[];
  readonly lists: number;
  readonly failures: number;
  readonly cpuMs: number;
}

const [kubeconfigPath = '', namespace = '', intervalText = '2000', resultPath = ''] = process.argv.slice(2);
const intervalMs = Number(intervalText);
const config = new KubeConfig();
config.loadFromFile(kubeconfigPath);
const server = config.getCurrentCluster()?.server;
if (!server) throw new Error(`no current cluster in ${kubeconfigPath}`);
const base: https.RequestOptions = {};
await config.applyToHTTPSOptions(base);
const agent = new https.Agent({ keepAlive: true, ca: base.ca, cert: base.cert, key: base.key });
const headers = { ...(base.headers as Record<string, string>), Accept: 'application/json' };
const path = `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/deployments`;

const sightings: PollerSighting[] = [];
const lastSeen = new Map<string, string>();
let lists = 0;
let failures = 0;
let stopped = false;
let timer: NodeJS.Timeout | undefined;
const cpuStart = process.cpuUsage();

function list(): Promise<{ items: { metadata: { name: string; resourceVersion: string } }[] }> {
  lists += 1;
  return new Promise((resolve, reject) => {
    const request = https.request(new URL(path, server), { method: 'GET', agent, headers, timeout: 30_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        if (response.statusCode !== 200) reject(new Error(`HTTP ${response.statusCode}`));
        else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as never);
      });
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
    request.end();
  });
}

async function tick(): Promise<void> {
  try {
    const answer = await list();
    const at = hrNow();
    for (const item of answer.items) {
      const { name, resourceVersion } = item.metadata;
      if (lastSeen.get(name) === resourceVersion) continue;
      lastSeen.set(name, resourceVersion);
      sightings.push({ name, resourceVersion, at });
    }
  } catch {
    failures += 1;
  }
  if (!stopped) timer = setTimeout(() => void tick(), intervalMs);
}

process.on('message', () => {
  stopped = true;
  if (timer) clearTimeout(timer);
  const cpu = process.cpuUsage(cpuStart);
  const result: StatusPollerResult = { sightings, lists, failures, cpuMs: (cpu.user + cpu.system) / 1000 };
  writeFileSync(resultPath, JSON.stringify(result));
  agent.destroy();
  process.disconnect?.();
});
void tick();
process.send?.({ type: 'ready' });
