// `kube-provision start|stop|restart|reconfigure|delete PROVIDER_ID`: the lifecycle
// operations, printed like create: one human line per event (or one JSON object per line
// with -o json), the provider ID alone on the last line, and create's exit codes.
import type { Observable } from 'rxjs';
import { KubernetesApi } from '../../kube/kubernetes-api.js';
import type { LifecycleEvent } from '../../workload/lifecycle-events.js';
import { parseWorkloadChanges } from '../../workload/workload-changes.js';
import { reconfigure$ } from '../../workload/reconfigure.js';
import { remove$ } from '../../workload/remove.js';
import { restart$ } from '../../workload/restart.js';
import { start$ } from '../../workload/start.js';
import { stop$ } from '../../workload/stop.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { runCommand } from './run-command.js';
import { lifecycleUsage, parseLifecycleArgs, type LifecycleCommand, type LifecycleCommandName } from './lifecycle-args.js';

export async function runLifecycleCommand(command: LifecycleCommandName, argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(command, argv, io, async (output) => {
    const parsed = parseLifecycleArgs(command, argv);
    if (parsed === 'help') {
      io.stdout(lifecycleUsage(command));
      return EXIT.ok;
    }
    output.json = parsed.output === 'json';
    // Input errors first: exit 2 without reading a kubeconfig or touching a cluster.
    if (parsed.changes) parseWorkloadChanges(parsed.changes);
    const api = KubernetesApi.fromConfig(parsed.api);
    output.useClient(api);
    await new Promise<void>((resolve, reject) => {
      let lastText = '';
      operation$(api, parsed, io.signal).subscribe({
        next: (event) => {
          if (output.json) {
            output.value(event);
            return;
          }
          // A status change that reads the same in words is one line for a human.
          const text = describeLifecycleEvent(event);
          if (text !== lastText) output.out(`${event.at.slice(11, 23)} ${text}`);
          lastText = text;
        },
        error: reject,
        complete: resolve,
      });
    });
    if (!output.json) output.out(parsed.providerId);
    return EXIT.ok;
  });
}

function operation$(api: KubernetesApi, parsed: LifecycleCommand, signal: AbortSignal | undefined): Observable<LifecycleEvent> {
  const options = {
    timeoutMs: parsed.timeoutMs,
    ...(signal ? { signal } : {}),
    ...(parsed.containerId !== undefined ? { containerId: parsed.containerId } : {}),
    ...(parsed.instance !== undefined ? { instance: parsed.instance } : {}),
  };
  switch (parsed.command) {
    case 'start':
      return start$(api, parsed.providerId, options);
    case 'stop':
      return stop$(api, parsed.providerId, options);
    case 'restart':
      return restart$(api, parsed.providerId, options);
    case 'reconfigure':
      return reconfigure$(api, parsed.providerId, parsed.changes ?? {}, {
        ...options,
        rollbackOnFailure: parsed.rollbackOnFailure === true,
      });
    case 'delete':
      return remove$(api, parsed.providerId, {
        ...options,
        containerId: parsed.containerId ?? '',
        ...(parsed.keepData ? { keepData: true } : {}),
      });
  }
}

/** The event in words, without its time. */
export function describeLifecycleEvent(event: LifecycleEvent): string {
  const id = event.providerId;
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;
  switch (event.type) {
    case 'progress':
    case 'waiting':
      return `${id} ${event.message}`;
    case 'diagnosed': {
      const { pod } = event;
      const detail = pod.message && pod.message !== pod.reason ? `: ${pod.message}` : '';
      return `${id} pod ${pod.pod}${pod.container ? ` (container ${pod.container})` : ''}: ${pod.reason}${detail}`;
    }
    case 'scaled':
      return `${id} scaled from ${event.previousReplicas} to ${event.replicas} (generation ${event.generation})`;
    case 'patched':
      return (
        `${id} pod template updated: ${event.fields.join(', ')} (generation ${event.generation})` +
        (event.replicas === 0 ? '; stopped, it stays stopped' : '')
      );
    case 'rollback':
      return `${id} rollout failed (${event.reason}): restoring the previous pod template (generation ${event.generation})`;
    case 'deleted':
      return event.kind === 'PersistentVolumeClaim'
        ? `${id} PersistentVolumeClaim ${event.object} deleted (its data goes with it); waiting for it to be gone`
        : `${id} ${event.kind} deleted; waiting for it and its pods to be gone`;
    case 'resized':
      return `${id} PersistentVolumeClaim ${event.object} grown from ${event.previous} to ${event.requested}: ${event.message}`;
    case 'kept':
      return `${id} PersistentVolumeClaim ${event.object} kept, with its data (--keep-data): a create for the same container re-attaches it`;
    case 'started':
      return event.changed ? `${id} running: started in ${seconds(event.durationMs)}` : `${id} already running: nothing to do`;
    case 'stopped':
      return event.changed ? `${id} stopped in ${seconds(event.durationMs)}` : `${id} already stopped: nothing to do`;
    case 'restarted':
      if (!event.running) return `${id} not running (stopped): it stays stopped, nothing was restarted`;
      return `${id} restarted in ${seconds(event.durationMs)}`;
    case 'reconfigured':
      if (!event.changed) return `${id} already as requested: nothing to change`;
      return (
        `${id} reconfigured (${event.fields.join(', ')}) in ${seconds(event.durationMs)}` +
        (event.replicas === 0 ? '; stopped, it stays stopped' : '')
      );
    case 'removed':
      if (!event.changed) return `${id} already gone: nothing to delete${event.storage === 'kept' ? ' (its claim is kept)' : ''}`;
      return `${id} deleted in ${seconds(event.durationMs)}${event.storage === 'kept' ? '; its claim is kept' : ''}`;
  }
}
