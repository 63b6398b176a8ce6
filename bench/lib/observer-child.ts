// The independent observer's own process: client-node's Watch (not our transport) on each
// resource it is given, straight to the API server (not through the measured clients'
// proxy). A process of its own, so that a parent busy with its benchmark's requests never
// delays a stamp: each event is stamped (hrNow) as it arrives, reduced to what the
// benchmarks measure (observations.ts), and sent to the parent in order. Each resource is
// listed first (its objects stamped as ADDED) and watched from the list's version, so a
// server close resumes from a version the server knows; a gap (410 Gone) is reported.
// Usage: observer-child.ts <input.json> (ObserverChildInput); messages in observer-protocol.ts.
import { readFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { OBSERVED_PATHS, observe, type ObservationsOf, type ObservedResource } from './observations.js';
import type { ObserverChildInput, ObserverMessage, ObserverParentMessage } from './observer-protocol.js';
import { hrNow } from './stats.js';

const input = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as ObserverChildInput;
const config = new KubeConfig();
config.loadFromFile(input.kubeconfigPath);
const send = (message: ObserverMessage): void => {
  if (process.connected) process.send?.(message);
};

const controllers = new Map<ObservedResource, AbortController>();
let stopped = false;
let pending: Array<{ resource: ObservedResource; observation: ObservationsOf[ObservedResource] }> = [];
let flushScheduled = false;
const flush = (): void => {
  flushScheduled = false;
  if (pending.length === 0) return;
  const batch = pending;
  pending = [];
  send({ type: 'events', events: batch });
};

/** Stamps one object's event and queues it for the parent. */
function record(resource: ObservedResource, type: string, object: { metadata?: { resourceVersion?: string } }, at: number): void {
  const version = object.metadata?.resourceVersion;
  if (!version) return;
  const observation = observe(resource, { type, resourceVersion: version, at }, object);
  if (!observation) return;
  pending.push({ resource, observation });
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flush);
  }
}

/**
 * Lists `resource` (each item stamped as ADDED when the list arrived) and returns the list's
 * resourceVersion, for the watch to start from: a watch without one would send the whole
 * state as one burst of events, and no single event's version is a point to resume from.
 */
async function list(resource: ObservedResource): Promise<string> {
  const url = new URL(config.getCurrentCluster()?.server + OBSERVED_PATHS[resource](input.namespace));
  const options: RequestOptions = { method: 'GET', headers: { accept: 'application/json' } };
  await config.applyToHTTPSOptions(options);
  const body = await new Promise<string>((resolve, reject) => {
    const req = request(url, options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`list ${url.pathname}: HTTP ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.setTimeout(60_000, () => req.destroy(new Error(`list ${url.pathname}: no answer within 60 s`)));
    req.on('error', reject);
    req.end();
  });
  const at = hrNow();
  const parsed = JSON.parse(body) as { metadata?: { resourceVersion?: string }; items?: { metadata?: { resourceVersion?: string } }[] };
  for (const item of parsed.items ?? []) record(resource, 'ADDED', item, at);
  const version = parsed.metadata?.resourceVersion;
  if (!version) throw new Error(`list ${url.pathname}: no resourceVersion`);
  return version;
}

/** Watches `resource` from `resourceVersion`; a server close resumes from the last version seen (bookmarks included). */
async function watch(resource: ObservedResource, resourceVersion: string): Promise<void> {
  let lastVersion = resourceVersion;
  let established = false;
  let failure: unknown;
  let gone = false;
  const path = OBSERVED_PATHS[resource](input.namespace);
  const controller = await new Watch(config).watch(
    path,
    // Long enough for any run; a server close is re-watched from the last version.
    { timeoutSeconds: 3600, allowWatchBookmarks: true, resourceVersion: lastVersion },
    (type: string, object: { metadata?: { resourceVersion?: string }; code?: number; message?: string }) => {
      const at = hrNow();
      if (type === 'ERROR') {
        // 410 Gone: the versions since lastVersion are compacted away; this watch cannot go on without a gap.
        gone = true;
        fail(resource, `watch from ${lastVersion} ended: ${object.code ?? ''} ${object.message ?? ''}`);
        return;
      }
      const version = object.metadata?.resourceVersion;
      if (!version) return;
      lastVersion = version;
      if (type !== 'BOOKMARK') record(resource, type, object, at);
    },
    (error: unknown) => {
      if (!established) {
        failure = error ?? new Error('closed before it was established');
        return;
      }
      if (stopped || gone) return;
      send({ type: 'reconnect', resource });
      setTimeout(() => {
        if (!stopped) void watch(resource, lastVersion).catch((cause: unknown) => fail(resource, cause));
      }, 100);
    },
  );
  if (failure !== undefined)
    throw new Error(`observer: watch on ${path} failed: ${failure instanceof Error ? failure.message : 'unknown error'}`);
  established = true;
  controllers.set(resource, controller);
  if (stopped) controller.abort();
}

function fail(resource: ObservedResource, cause: unknown): void {
  send({ type: 'failed', resource, message: cause instanceof Error ? cause.message : String(cause) });
}

process.on('message', (message: ObserverParentMessage) => {
  // Everything stamped so far goes first: the parent reads its events after 'flushed'.
  flush();
  if (message.type === 'flush') {
    send({ type: 'flushed' });
    return;
  }
  stopped = true;
  for (const controller of controllers.values()) controller.abort();
  controllers.clear();
  process.disconnect?.();
});
process.on('disconnect', () => {
  stopped = true;
  for (const controller of controllers.values()) controller.abort();
});

try {
  for (const resource of input.resources) await watch(resource, await list(resource));
  send({ type: 'ready' });
} catch (error) {
  fail(input.resources[0]!, error);
  process.disconnect?.();
}
