// `kube-provision ui`: the live page for one namespace on 127.0.0.1, until interrupted.
import { UsageError } from '../../errors/input.js';
import { KubernetesApi, type KubernetesApiOptions } from '../../kube/kubernetes-api.js';
import type { UiBackend } from '../../ui/backend.js';
import { libraryBackend } from '../../ui/library-backend.js';
import { LiveHub } from '../../ui/live-hub.js';
import { DEFAULT_UI_PORT, startUiServer } from '../../ui/server.js';
import { EXIT, exitCodeFor } from '../exit-codes.js';
import { formatErrorLine } from '../format.js';
import type { CliIo } from '../io.js';
import { apiOptionsFrom, INSTANCE_FLAG_OPTION, INSTANCE_FLAG_USAGE, instanceFlag, parseFlags } from './cluster-flags.js';

export const UI_USAGE = `Usage: kube-provision ui [flags]

Serve a live page of every managed workload in a namespace: its status as it changes, the
progress of each operation as it happens, start/stop/restart/delete buttons, and a
terminal and the log of each workload's container.
Listens on 127.0.0.1 only, without authentication: anyone who can open the page on this
machine can act on the workloads. Runs until interrupted (Ctrl-C).

      --port N                 port on 127.0.0.1 (default ${DEFAULT_UI_PORT}; 0 picks a free one)
${INSTANCE_FLAG_USAGE}
      --kubeconfig PATH        kubeconfig (default: $KUBECONFIG, then ~/.kube/config)
      --context NAME           kubeconfig context (default: current-context)
  -n, --namespace NAME         namespace (default: the context's, else "default")
      --insecure-skip-tls-verify  do not verify the API server's certificate
      --request-timeout DUR    bound on each API request (default 75s)
  -h, --help`;

export interface UiCommandDeps {
  /** The library's functions by default; tests pass their own. */
  readonly backend?: UiBackend;
  /** Called once the page is served (tests read the URL from here). */
  readonly onListening?: (url: string) => void;
}

export async function runUiCommand(argv: readonly string[], io: CliIo, deps: UiCommandDeps = {}): Promise<number> {
  let hub: LiveHub | undefined;
  let server: Awaited<ReturnType<typeof startUiServer>> | undefined;
  try {
    const parsed = parseUiArgs(argv);
    if (parsed === 'help') {
      io.stdout(UI_USAGE);
      return EXIT.ok;
    }
    const api = KubernetesApi.fromConfig(parsed.api);
    hub = new LiveHub({
      api,
      namespace: api.namespace,
      backend: deps.backend ?? libraryBackend(),
      ...(parsed.instance !== undefined ? { instance: parsed.instance } : {}),
    });
    // One line per terminal and log pane when it ends, on this command's output.
    server = await startUiServer({ hub, port: parsed.port, log: io.stdout }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') throw new UsageError(`port ${parsed.port} on 127.0.0.1 is in use: choose another with --port`);
      throw error;
    });
    io.stdout(`Live page for namespace ${api.namespace}: ${server.url}`);
    io.stdout('No authentication: listening on 127.0.0.1 only; anyone who can open it on this machine can act on the workloads.');
    io.stdout('Press Ctrl-C to stop.');
    deps.onListening?.(server.url);
    await untilAborted(io.signal);
    return EXIT.ok;
  } catch (error) {
    io.stderr(formatErrorLine(error));
    if (error instanceof UsageError) io.stderr('Run "kube-provision ui --help" for the flags.');
    return exitCodeFor(error);
  } finally {
    await server?.close();
    hub?.close();
  }
}

interface UiCommand {
  readonly api: KubernetesApiOptions;
  readonly port: number;
  readonly instance: string | undefined;
}

function parseUiArgs(argv: readonly string[]): UiCommand | 'help' {
  const parsed = parseFlags(argv, {
    port: { type: 'string' },
    ...INSTANCE_FLAG_OPTION,
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    namespace: { type: 'string', short: 'n' },
    'insecure-skip-tls-verify': { type: 'boolean' },
    'request-timeout': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  const flags = parsed.values;
  if (flags.help) return 'help';
  const port = flags.port === undefined ? DEFAULT_UI_PORT : Number(flags.port);
  if (!/^\d{1,5}$/.test(flags.port ?? '0') || port > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, not "${flags.port}"`);
  }
  return { api: apiOptionsFrom(flags), port, instance: instanceFlag(flags.instance) };
}

function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) throw new UsageError('kube-provision ui runs until interrupted: it needs a signal to stop on');
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
