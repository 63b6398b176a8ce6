// kube-provision exec PROVIDER_ID [-i] [-t] -- CMD...: a command in the workload's
// container, in kubectl's manner: its output as it comes, its exit status as ours; -i gives
// it our stdin (ended with our stdin's end), -t a terminal: the local one in raw mode,
// resized on SIGWINCH, a shell (bash, else sh) when no command is given.
import { UsageError } from '../../errors/input.js';
import { KubernetesApi } from '../../kube/kubernetes-api.js';
import { containerIdOption } from '../../workload/toolkit/read-options.js';
import { openTerminal, type Terminal } from '../../workload/reads/terminal.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo, CliTerminalIo } from '../io.js';
import {
  apiOptionsFrom,
  CLUSTER_FLAG_OPTIONS,
  CLUSTER_FLAGS_USAGE,
  INSTANCE_FLAG_OPTION,
  INSTANCE_FLAG_USAGE,
  instanceFlag,
  parseFlags,
} from './cluster-flags.js';
import { runCommand } from './run-command.js';
import { earlyAddress, workloadAddress } from './workload-address.js';

export const EXEC_USAGE = `Usage: kube-provision exec PROVIDER_ID [-i] [-t] [flags] -- COMMAND [ARG...]

Run a command in the workload's container (its current Pod, found by its labels), or with
-it and no command, a shell (bash, else sh). PROVIDER_ID is namespace/name, or a name in the
namespace of -n. The command is an argv, not shell text: for a pipeline, run sh -c '...'.

  -i, --stdin                  give the command this process's stdin (its end ends the command's)
  -t, --tty                    a terminal: this one in raw mode, resized with it; needs a terminal on stdin
      --container-id ID        Manager's container id the workload must carry
${INSTANCE_FLAG_USAGE}
${CLUSTER_FLAGS_USAGE}
  -h, --help

Exit codes: the command's exit status once it ran; before that 2 invalid input, 4 no answer
in time, 5 API or kubeconfig error (no running container, no shell, forbidden, the kubelet
unreachable, the session lost), 7 no such workload, 130 interrupted.`;

export async function runExec(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand('exec', argv, io, async () => {
    const dashes = argv.indexOf('--');
    const flags = dashes === -1 ? argv : argv.slice(0, dashes);
    const command = dashes === -1 ? [] : argv.slice(dashes + 1);
    const { values, positionals } = parseFlags(
      flags,
      {
        ...CLUSTER_FLAG_OPTIONS,
        ...INSTANCE_FLAG_OPTION,
        stdin: { type: 'boolean', short: 'i' },
        tty: { type: 'boolean', short: 't' },
        'container-id': { type: 'string' },
      },
      true,
    );
    if (values.help) {
      io.stdout(EXEC_USAGE);
      return EXIT.ok;
    }
    if (values.output !== undefined) throw new UsageError('--output does not apply to exec: the command writes what it writes');
    if (positionals.length > 1) {
      throw new UsageError(`exec takes one PROVIDER_ID before "--" and the command after it (got ${positionals.join(' ')} before "--")`);
    }
    if (positionals.length === 0) throw new UsageError('exec needs a PROVIDER_ID (namespace/name)');
    if (command.length === 0 && !values.tty) throw new UsageError('exec needs a command after "--", or -it for a shell');
    if (command[0] === '') throw new UsageError('the command after "--" must not start with an empty word');
    const local = io.terminal;
    if (values.tty && !local?.stdinIsTty) throw new UsageError('-t needs a terminal on stdin: drop -t to run the command without one');
    const containerId = containerIdOption(values['container-id']);
    const instance = instanceFlag(values.instance);
    const early = earlyAddress(positionals[0], values.namespace);
    const api = KubernetesApi.fromConfig(apiOptionsFrom(values));
    const providerId = early ?? workloadAddress(positionals[0]!, values.namespace, api.namespace);
    const write = (to: 'writeStdout' | 'writeStderr') => (data: Buffer) => {
      if (local) local[to](data);
      else io[to === 'writeStdout' ? 'stdout' : 'stderr'](data.toString('utf8'));
    };
    const size = values.tty ? local?.size() : undefined;
    const terminal = await openTerminal(api, providerId, {
      ...(command.length > 0 ? { command } : {}),
      tty: values.tty === true,
      stdin: values.stdin === true,
      ...(size ? { columns: size.columns, rows: size.rows } : {}),
      onStdout: write('writeStdout'),
      onStderr: write('writeStderr'),
      ...(containerId !== undefined ? { containerId } : {}),
      ...(instance !== undefined ? { instance } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
    });
    const release = attach(terminal, io, local, { stdin: values.stdin === true, tty: values.tty === true });
    try {
      const exit = await terminal.exit;
      return exit.exitCode ?? EXIT.aborted;
    } finally {
      release();
      await terminal.close();
    }
  });
}

/** Wires the local side to the session: stdin, raw mode, resizes, an interrupt; returns the undo. */
function attach(terminal: Terminal, io: CliIo, local: CliTerminalIo | undefined, use: { stdin: boolean; tty: boolean }): () => void {
  const undo: (() => void)[] = [];
  if (use.tty && local) {
    local.setRawMode(true);
    undo.push(() => local.setRawMode(false));
    undo.push(
      local.onResize(() => {
        const size = local.size();
        if (size) terminal.resize(size.columns, size.rows);
      }),
    );
  }
  if (use.stdin) {
    const input = io.stdin ?? process.stdin;
    const onData = (chunk: Buffer | string): void => terminal.write(chunk);
    const onEnd = (): void => terminal.closeStdin();
    input.on('data', onData);
    input.on('end', onEnd);
    undo.push(() => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.pause();
    });
  }
  // Without a terminal, Ctrl-C is ours: the session ends (in raw mode it goes to the command).
  const onAbort = (): void => void terminal.close();
  io.signal?.addEventListener('abort', onAbort, { once: true });
  undo.push(() => io.signal?.removeEventListener('abort', onAbort));
  return () => {
    for (const step of undo.reverse()) step();
  };
}
