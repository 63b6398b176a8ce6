// `kube-provision start|stop|restart|reconfigure|delete PROVIDER_ID`: the lifecycle
// operations, printed like create: one human line per event (or one JSON object per line
// with -o json), the provider ID alone on the last line, and create's exit codes.
import type { Observable } from 'rxjs';
import { KubernetesApi } from '../../kube/kubernetes-api.js';
import type { LifecycleEvent } from '../../workload/toolkit/lifecycle-events.js';
import { describeLifecycleEvent } from '../../workload/toolkit/lifecycle-words.js';
import { parseWorkloadChanges } from '../../workload/operations/workload-changes.js';
import { reconfigure$ } from '../../workload/operations/reconfigure.js';
import { remove$ } from '../../workload/operations/remove.js';
import { restart$ } from '../../workload/operations/restart.js';
import { start$ } from '../../workload/operations/start.js';
import { stop$ } from '../../workload/operations/stop.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { runCommand } from './run-command.js';
import { InvalidSpecError } from '../../errors/input.js';
import { lifecycleUsage, parseLifecycleArgs, withChangeFlags, type LifecycleCommand, type LifecycleCommandName } from './lifecycle-args.js';

export async function runLifecycleCommand(command: LifecycleCommandName, argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(command, argv, io, async (output) => {
    const parsed = parseLifecycleArgs(command, argv);
    if (parsed === 'help') {
      io.stdout(lifecycleUsage(command));
      return EXIT.ok;
    }
    output.json = parsed.output === 'json';
    // Input errors first: exit 2 without reading a kubeconfig or touching a cluster.
    if (parsed.changes) {
      try {
        parseWorkloadChanges(parsed.changes);
      } catch (error) {
        throw error instanceof InvalidSpecError ? withChangeFlags(error) : error;
      }
    }
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
