// The kube-provision command, as a function of argv and output streams (tests call it
// directly; main.ts wires it to the process). It never calls process.exit: when the
// provisioning ends, nothing is left open and the process ends on its own.
import { KubernetesApi } from '../kube/kubernetes-api.js';
import { provision$ } from '../workload/provision.js';
import { parseWorkloadSpec } from '../spec/workload-spec.js';
import type { ProvisionEvent } from '../rollout/events.js';
import { CREATE_USAGE, parseCreateArgs } from './args.js';
import { UsageError } from '../errors.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { describeEvent, errorRecord, formatErrorLine, formatEventLine } from './format.js';

export interface CliIo {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
  /** Aborts the provisioning (main.ts connects SIGINT and SIGTERM). */
  readonly signal?: AbortSignal;
}

const TOP_USAGE = `Usage: kube-provision <command> [flags]

Commands:
  create    provision a Manager container as a Deployment and wait for its rollout

Run "kube-provision create --help" for the flags.`;

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(TOP_USAGE);
    return command === undefined ? EXIT.invalidInput : EXIT.ok;
  }
  if (command !== 'create') {
    io.stderr(`error: unknown command "${command}"\n\n${TOP_USAGE}`);
    return EXIT.invalidInput;
  }

  let json =
    rest.some((arg, i) => (arg === '-o' || arg === '--output') && rest[i + 1] === 'json') ||
    rest.includes('--output=json') ||
    rest.includes('-ojson');
  try {
    const parsed = parseCreateArgs(rest);
    if (parsed === 'help') {
      io.stdout(CREATE_USAGE);
      return EXIT.ok;
    }
    json = parsed.output === 'json';
    // Input errors first: exit 2 without reading a kubeconfig or touching a cluster.
    parseWorkloadSpec(parsed.spec);
    const api = KubernetesApi.fromConfig(parsed.api);
    const events$ = provision$(api, parsed.spec, {
      timeoutMs: parsed.timeoutMs,
      keepOnFailure: parsed.keepOnFailure,
      ...(io.signal ? { signal: io.signal } : {}),
      ...(parsed.progressDeadlineSeconds !== undefined ? { progressDeadlineSeconds: parsed.progressDeadlineSeconds } : {}),
    });
    const providerId = await new Promise<string>((resolve, reject) => {
      let last: ProvisionEvent | undefined;
      let lastText = '';
      events$.subscribe({
        next: (event) => {
          last = event;
          if (json) {
            io.stdout(JSON.stringify(event));
            return;
          }
          // A status change that reads the same in words is one line for a human.
          const text = describeEvent(event);
          if (text !== lastText) io.stdout(formatEventLine(event));
          lastText = text;
        },
        error: reject,
        complete: () => resolve(last?.providerId ?? ''),
      });
    });
    if (!json) io.stdout(providerId);
    return EXIT.ok;
  } catch (error) {
    if (json) io.stdout(JSON.stringify(errorRecord(error)));
    io.stderr(formatErrorLine(error));
    if (error instanceof UsageError) io.stderr('Run "kube-provision create --help" for the flags.');
    return exitCodeFor(error);
  }
}
