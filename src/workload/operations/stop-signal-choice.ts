// Whether a system container's Pod names systemd's stop signal (`lifecycle.stopSignal`):
// only where the cluster keeps the field, since one that drops it would store a Pod
// without it. The cluster is asked once per client and namespace for the process (a
// server-side dry run, kube/stop-signal-probe.ts); an answer is kept, a failure is not.
// When it cannot be asked, the Pod goes without the field, and a `warned` event says so.
import { EMPTY, defer, mergeMap, of, type Observable, type SchedulerLike } from 'rxjs';
import { KubeProvisionerError } from '../../errors/base.js';
import { isSystemContainer } from '../../input/system-container.js';
import type { WorkloadSpec } from '../../input/workload-spec.js';
import type { KubernetesClient } from '../../kube/client.js';
import { probeStopSignal, type StopSignalSupport } from '../../kube/stop-signal-probe.js';
import type { ProvisionWarnedEvent } from '../../rollout/events.js';
import { isoTime } from '../../rx/clock-time.js';
import { fromAbortable } from '../../rx/from-abortable.js';
import { oneLine } from '../../text.js';

const answers = new WeakMap<KubernetesClient, Map<string, StopSignalSupport>>();

/** The cluster's answer, asked at most once per client and namespace while it answers. */
async function stopSignalSupport(client: KubernetesClient, namespace: string, signal: AbortSignal): Promise<StopSignalSupport> {
  const known = answers.get(client)?.get(namespace);
  if (known) return known;
  const support = await probeStopSignal(client, namespace, signal);
  answers.set(client, (answers.get(client) ?? new Map<string, StopSignalSupport>()).set(namespace, support));
  return support;
}

/**
 * For a system container: asks (or recalls) whether the cluster keeps the stop signal and
 * passes the answer to `choose` before completing; emits one `warned` event when it cannot
 * be asked (`choose(false)` then). Another container: nothing is asked.
 */
export function chooseStopSignal$(
  client: KubernetesClient,
  spec: WorkloadSpec,
  target: { readonly namespace: string; readonly name: string; readonly providerId: string },
  scheduler: SchedulerLike,
  choose: (stopSignals: boolean) => void,
): Observable<ProvisionWarnedEvent> {
  if (!isSystemContainer(spec)) return EMPTY;
  return defer(() => {
    const failure: { error?: unknown } = {};
    return fromAbortable((signal) =>
      stopSignalSupport(client, target.namespace, signal).catch((error: unknown) => {
        if (signal.aborted) throw error;
        failure.error = error;
        return 'dropped' as const;
      }),
    ).pipe(
      mergeMap((support) => {
        choose(support === 'kept');
        return 'error' in failure ? of(warned(target, failure.error, scheduler)) : EMPTY;
      }),
    );
  });
}

function warned(
  target: { readonly namespace: string; readonly name: string; readonly providerId: string },
  error: unknown,
  scheduler: SchedulerLike,
): ProvisionWarnedEvent {
  // Project errors carry short messages without credentials; anything else is named only.
  const why =
    error instanceof KubeProvisionerError ? `${error.name}: ${oneLine(error.message)}` : `unexpected ${(error as Error)?.name ?? 'error'}`;
  return {
    type: 'warned',
    at: isoTime(scheduler),
    namespace: target.namespace,
    name: target.name,
    providerId: target.providerId,
    reason: 'StopSignalUnknown',
    message:
      `cannot tell whether the cluster keeps a Pod's lifecycle.stopSignal: a dry-run create of a Deployment in namespace ` +
      `${target.namespace} failed (${why}); the Pod goes without it, so only the image's STOPSIGNAL SIGRTMIN+3 halts systemd at once`,
  };
}
