// Child process: N concurrent stop-then-start cycles with our library (stop$ then start$
// per workload, every workload at once), through the run's counting proxy. Run by
// bench/lifecycle.ts as `node --import tsx bench/lib/lifecycle-child.ts <input.json>`.
import { readFileSync, writeFileSync } from 'node:fs';
import { lastValueFrom, tap } from 'rxjs';
import { describeError, loadLibrary } from './child-harness.js';
import type { CycleRecord, LifecycleChildInput, LifecycleChildResult } from './lifecycle-protocol.js';
import { hrNow } from './stats.js';

const inputPath = process.argv[2];
if (!inputPath) throw new Error('usage: lifecycle-child.ts <input.json>');
const input = JSON.parse(readFileSync(inputPath, 'utf8')) as LifecycleChildInput;
const library = await loadLibrary(input.impl);
let requests = 0;
const api = library.KubernetesApi.fromConfig({
  kubeconfigPath: input.kubeconfigPath,
  namespace: input.namespace,
  onRequest: () => (requests += 1),
});
const informers = new library.InformerRegistry();
const options = { timeoutMs: input.timeoutMs, informers };

type Mutable = { -readonly [K in keyof CycleRecord]: CycleRecord[K] };

async function cycle(providerId: string): Promise<CycleRecord> {
  const record: Mutable = { providerId };
  try {
    record.stopStartedAt = hrNow();
    await lastValueFrom(
      library.stop$(api, providerId, options).pipe(
        tap((event) => {
          if (event.type === 'stopped') record.stopChanged = event.changed;
        }),
      ),
    );
    record.stopEndedAt = hrNow();
    record.startStartedAt = hrNow();
    await lastValueFrom(
      library.start$(api, providerId, options).pipe(
        tap((event) => {
          if (event.type === 'progress') record.startResourceVersion = event.resourceVersion;
          if (event.type === 'started') record.startChanged = event.changed;
        }),
      ),
    );
    record.startEndedAt = hrNow();
  } catch (error) {
    record.error = describeError(error);
  }
  return record;
}

const cpuStart = process.cpuUsage();
const startedAt = hrNow();
const records = await Promise.all(input.providerIds.map(cycle));
const wallMs = hrNow() - startedAt;
const cpu = process.cpuUsage(cpuStart);
// Let aborted sockets and cleared timers go, then see what is still open.
await new Promise((resolve) => setTimeout(resolve, 300));
const result: LifecycleChildResult = {
  records,
  wallMs,
  cpuMs: (cpu.user + cpu.system) / 1000,
  peakRssMiB: process.resourceUsage().maxRSS / 1024,
  requestsSent: requests,
  activeHandlesAfter: process.getActiveResourcesInfo().filter((name) => /TCP|TLS|Timeout|Immediate/.test(name)),
};
writeFileSync(input.resultPath, JSON.stringify(result));
// No process.exit(): the parent reports whether this process ends on its own.
