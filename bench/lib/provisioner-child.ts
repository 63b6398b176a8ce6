// Child process: N concurrent provisionings with our library (provision$, the Observable
// form of provision(), so the progress events' resourceVersion can be recorded). Run by
// bench/run.ts as `node --expose-gc --import tsx bench/lib/provisioner-child.ts <input.json>`.
// In memory mode it samples the heap once all N wait, then unsubscribes them all.
import type { Subscription } from 'rxjs';
import type { MutableRecord } from './protocol.js';
import { ChildMeter, benchSpec, deploymentName, describeError, loadLibrary, readChildInput, withWatchEvents } from './child-harness.js';
import { hrNow } from './stats.js';

const input = readChildInput();
const meter = new ChildMeter();
const library = await loadLibrary(input.impl);
const rawApi = library.KubernetesApi.fromConfig({
  kubeconfigPath: input.kubeconfigPath,
  namespace: input.namespace,
  onRequest: () => (meter.requests += 1),
});
// The latest Deployment and EndpointSlice event of each workload as it reached our watch,
// before the library judged it: the later of the two is the arrival of the completing change.
const deploymentArrivals = new Map<string, { resourceVersion: string; at: number }>();
const sliceArrivals = new Map<string, number>();
const api =
  input.traceArrivals === true
    ? withWatchEvents(rawApi, (kind, _type, object, deliver) => {
        const at = hrNow();
        if (kind === 'deployments' && object.metadata?.name !== undefined) {
          deploymentArrivals.set(object.metadata.name, { resourceVersion: object.metadata.resourceVersion ?? '', at });
        } else if (kind === 'endpointslices') {
          const service = object.metadata?.labels?.['kubernetes.io/service-name'];
          if (service !== undefined) sliceArrivals.set(service, at);
        }
        deliver();
      })
    : rawApi;
const arrivalOf = (name: string, resourceVersion: string): number | undefined => {
  const deployment = deploymentArrivals.get(name);
  if (deployment?.resourceVersion !== resourceVersion) return undefined;
  return Math.max(deployment.at, sliceArrivals.get(name) ?? 0);
};

// The library's default informer settings, plus a record of every retried failure.
const informers = new library.InformerRegistry({
  onRetry: (error, delayMs) => meter.informerRetries.push(`${describeError(error)} (retry in ${Math.round(delayMs)} ms)`),
});
const records: MutableRecord[] = [];
const subscriptions: Subscription[] = [];
let created = 0;
let failedBeforeCreate = 0;
let settled = 0;

meter.begin();
await new Promise<void>((resolve) => {
  // Memory mode: once every provisioning is created (subscribed to the shared informers
  // and waiting), or failed before it could be, the heap is sampled (after the current
  // callbacks) and every waiter is stopped.
  const maybeSampleHeap = (): void => {
    if (input.mode !== 'memory' || created + failedBeforeCreate !== input.count) return;
    setImmediate(() => {
      meter.sampleHeap(settled);
      for (const subscription of subscriptions) subscription.unsubscribe();
      resolve();
    });
  };
  const settle = (): void => {
    settled += 1;
    if (settled === input.count) resolve();
  };
  for (let index = 0; index < input.count; index += 1) {
    const record: MutableRecord = { name: deploymentName(index), startedAt: hrNow(), steps: 0 };
    records.push(record);
    const subscription = library.provision$(api, benchSpec(input, index), { timeoutMs: input.timeoutMs, informers }).subscribe({
      next: (event) => {
        switch (event.type) {
          case 'created':
          case 'adopted':
            record.createdAt = hrNow();
            created += 1;
            maybeSampleHeap();
            break;
          case 'progress':
            record.steps += 1;
            record.completeResourceVersion = event.resourceVersion;
            record.completeAt = hrNow();
            if (input.traceArrivals === true) record.completeArrivedAt = arrivalOf(record.name, event.resourceVersion ?? '');
            break;
          case 'ready':
            record.readyAt = hrNow();
            break;
        }
      },
      error: (error: unknown) => {
        record.error = describeError(error);
        if (record.createdAt === undefined) {
          failedBeforeCreate += 1;
          maybeSampleHeap();
        }
        settle();
      },
      complete: settle,
    });
    subscriptions.push(subscription);
  }
});
await meter.finish(input, records);
// No process.exit(): the parent reports whether this process ends on its own.
