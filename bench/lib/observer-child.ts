// The independent observer's own process: client-node's Watch (not our transport) on each
// resource it is given, straight to the API server (not through the measured clients'
// proxy). A process of its own, so that a parent busy with its benchmark's requests never
// delays a stamp: each event is stamped (hrNow) as it arrives, reduced to what the
// benchmarks measure (observations.ts), and sent to the parent in order.
// Usage: observer-child.ts <input.json> (ObserverChildInput); messages in observer-protocol.ts.
import { readFileSync } from 'node:fs';
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

/** Watches `resource` from `resourceVersion` (or now); a server close resumes from the last version seen. */
async function watch(resource: ObservedResource, resourceVersion: string): Promise<void> {
  let lastVersion = resourceVersion;
  let established = false;
  let failure: unknown;
  const path = OBSERVED_PATHS[resource](input.namespace);
  const controller = await new Watch(config).watch(
    path,
    // Long enough for any run; a server close is re-watched from the last version.
    { timeoutSeconds: 3600, ...(lastVersion ? { resourceVersion: lastVersion } : {}) },
    (type: string, object: { metadata?: { resourceVersion?: string } }) => {
      const at = hrNow();
      const version = object.metadata?.resourceVersion;
      if (type === 'BOOKMARK' || type === 'ERROR' || !version) return;
      lastVersion = version;
      const observation = observe(resource, { type, resourceVersion: version, at }, object);
      if (!observation) return;
      pending.push({ resource, observation });
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    },
    (error: unknown) => {
      if (!established) {
        failure = error ?? new Error('closed before it was established');
        return;
      }
      if (stopped) return;
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
  for (const resource of input.resources) await watch(resource, '');
  send({ type: 'ready' });
} catch (error) {
  fail(input.resources[0]!, error);
  process.disconnect?.();
}
