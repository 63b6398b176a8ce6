// The kube-provision command, as a function of argv and output streams (tests call it
// directly; main.ts wires it to the process). It never calls process.exit: when the
// provisioning ends, nothing is left open and the process ends on its own.
import { KubernetesApi } from '../kube/kubernetes-api.js';
import { provision$ } from '../workload/operations/provision.js';
import { parseWorkloadSpec } from '../input/workload-spec.js';
import type { ProvisionEvent } from '../rollout/events.js';
import { CREATE_USAGE, parseCreateArgs, specFromStdin, withFlags, type InputSources } from './args.js';
import { readStdin } from './stdin.js';
import { InvalidSpecError } from '../errors/input.js';
import { escapeControlCharacters } from '../text.js';
import { EXIT } from './exit-codes.js';
import { describeEvent, formatEventLine } from './format.js';
import { Output, asksForJson } from './output.js';
import { runCheck } from './commands/check.js';
import { runNodes } from './commands/nodes.js';
import { runGet } from './commands/get.js';
import { runStatus } from './commands/status.js';
import { runLifecycleCommand } from './commands/lifecycle.js';
import { LIFECYCLE_COMMANDS, type LifecycleCommandName } from './commands/lifecycle-args.js';
import { runUiCommand } from './commands/ui.js';
import { runExec } from './commands/exec.js';
import { runLogs } from './commands/logs.js';
import type { CliIo } from './io.js';

const TOP_USAGE = `Usage: kube-provision <command> [flags]

Commands:
  create       provision a Manager container as a Deployment and wait for its rollout
  get          list the Manager workloads of a namespace with their status, or show one
  status       show one workload's status; --watch follows it
  start        scale a stopped workload to 1 and wait until it runs
  stop         scale a workload to 0 and wait until its pods are gone
  restart      roll out a new pod from the same template and wait for it
  reconfigure  change env, entrypoint, CPU, memory or image and wait for the rollout
  delete       delete a workload and wait until it and its pods are gone
  exec         run a command, or with -it a shell, in a workload's container
  logs         print a workload's container log; -f follows it
  check        check that the cluster, the credentials and the namespace will work
  nodes        list the cluster's nodes: Ready, schedulable, IPs, CPU and memory in use
  ui           serve a live page of the namespace's workloads on 127.0.0.1

Run "kube-provision <command> --help" for the flags.`;

/** Commands with a file of their own in commands/. */
const COMMANDS: Readonly<Record<string, (argv: readonly string[], io: CliIo) => Promise<number>>> = {
  check: runCheck,
  nodes: runNodes,
  get: runGet,
  status: runStatus,
  ui: runUiCommand,
  exec: runExec,
  logs: runLogs,
};

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(TOP_USAGE);
    return command === undefined ? EXIT.invalidInput : EXIT.ok;
  }
  const other = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (other) return other(rest, io);
  if (LIFECYCLE_COMMANDS.has(command)) return runLifecycleCommand(command as LifecycleCommandName, rest, io);
  if (command !== 'create') {
    io.stderr(`error: unknown command "${escapeControlCharacters(command)}"`);
    io.stderr('');
    io.stderr(TOP_USAGE);
    return EXIT.invalidInput;
  }
  const output = new Output(io, asksForJson(rest));
  let sources: InputSources | undefined;
  try {
    const stdin = specFromStdin(rest) ? await readStdin(io.stdin ?? process.stdin, io.signal) : undefined;
    const parsed = parseCreateArgs(rest, stdin === undefined ? undefined : () => stdin);
    if (parsed === 'help') {
      io.stdout(CREATE_USAGE);
      return EXIT.ok;
    }
    output.json = parsed.output === 'json';
    sources = parsed.sources;
    // Input errors first: exit 2 without reading a kubeconfig or touching a cluster.
    parseWorkloadSpec(parsed.spec);
    const api = KubernetesApi.fromConfig(parsed.api);
    output.useClient(api);
    const events$ = provision$(api, parsed.spec, {
      timeoutMs: parsed.timeoutMs,
      keepOnFailure: parsed.keepOnFailure,
      ...(io.signal ? { signal: io.signal } : {}),
      ...(parsed.progressDeadlineSeconds !== undefined ? { progressDeadlineSeconds: parsed.progressDeadlineSeconds } : {}),
      ...(parsed.onDrift !== undefined ? { onDrift: parsed.onDrift } : {}),
    });
    const providerId = await new Promise<string>((resolve, reject) => {
      let last: ProvisionEvent | undefined;
      let lastText = '';
      events$.subscribe({
        next: (event) => {
          last = event;
          if (output.json) {
            output.value(event);
            return;
          }
          // A status change that reads the same in words is one line for a human.
          const text = describeEvent(event);
          if (text !== lastText) output.out(formatEventLine(event));
          lastText = text;
        },
        error: reject,
        complete: () => resolve(last?.providerId ?? ''),
      });
    });
    if (!output.json) output.out(providerId);
    return EXIT.ok;
  } catch (caught) {
    // Spec problems name the flag (or spec file field) the user typed, not the API field.
    return output.fail(caught instanceof InvalidSpecError && sources ? withFlags(caught, sources) : caught, 'create');
  }
}
