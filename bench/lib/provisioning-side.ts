// One side of a benchmark that times provisionings without and with one extra object
// (bench/network.ts, bench/storage.ts): independent observers on the namespace, a counting
// proxy, one provisioning child, and what it did, with the child's exit said in the notes.
import type { RequestCounts } from '../../test/support/api-proxy.js';
import type { ChildInput } from './protocol.js';
import type { ProxyRequestSummary } from './proxy-protocol.js';
import { runChild, startProxy, type ChildRun } from './runners.js';

/** How long after the last provisioning the proxy's counts are read (late requests count). */
const SETTLE_MS = 500;

export interface ProvisioningSide<O> {
  readonly run: ChildRun;
  readonly counts: RequestCounts;
  readonly requestLog: readonly ProxyRequestSummary[];
  /** Stopped, with every event they stamped. */
  readonly observers: O;
}

/**
 * Runs `child` (N provisionings in `namespace`) behind a fresh proxy while `observe`'s
 * observers watch; every process it starts is ended before it returns. `label` heads the
 * notes it adds (`N=10 ports=true`).
 */
export async function runProvisioningSide<O extends Readonly<Record<string, { stop(): Promise<void> }>>>(options: {
  readonly adminKubeconfig: string;
  readonly namespace: string;
  readonly label: string;
  readonly child: Omit<ChildInput, 'resultPath' | 'kubeconfigPath' | 'namespace' | 'kind' | 'pollIntervalMs' | 'mode'>;
  readonly observe: () => Promise<O>;
  readonly notes: string[];
}): Promise<ProvisioningSide<O>> {
  const { adminKubeconfig, namespace, label, notes } = options;
  const observers = await options.observe();
  try {
    const proxy = await startProxy(adminKubeconfig);
    try {
      const run = await runChild({
        ...options.child,
        kind: 'provisioner',
        kubeconfigPath: proxy.kubeconfigPath,
        namespace,
        pollIntervalMs: 2000,
        mode: 'latency',
      });
      await new Promise((resolveSettle) => setTimeout(resolveSettle, SETTLE_MS));
      const { counts, log: requestLog } = await proxy.report();
      if (run.exitCode !== 0 && run.exitedOnItsOwn) notes.push(`${label}: child exited ${run.exitCode}: ${run.stderrTail.slice(-400)}`);
      if (!run.exitedOnItsOwn) notes.push(`${label}: the child did not exit on its own`);
      return { run, counts, requestLog, observers };
    } finally {
      proxy.kill();
    }
  } finally {
    for (const observer of Object.values(observers)) await observer.stop();
  }
}
