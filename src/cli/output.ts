// Every line the CLI prints goes out through an Output: masked (src/mask.ts) with the
// credentials of the client once there is one (the credential shapes before), control
// characters escaped so one event is one line, and JSON written as one safe line of masked
// values. Errors end the same way for every command: a JSON error record with -o json, one
// `error: ...` line, the usage hint for a usage error, and the exit code of its class.
import { UsageError } from '../errors/input.js';
import { maskCredentials, maskOf, maskValueWith, type MaskText } from '../mask.js';
import { escapeControlCharacters, jsonLine } from '../text.js';
import { exitCodeFor } from './exit-codes.js';
import { errorRecord, formatErrorLine } from './format.js';

export interface OutputStreams {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
}

export class Output {
  private mask: MaskText = maskCredentials;

  /** `json`: -o json (read from argv before parsing, so that a usage error is JSON too). */
  constructor(
    private readonly io: OutputStreams,
    public json = false,
  ) {}

  /** From now on, also mask what this client knows. */
  useClient(client: { readonly scrub?: MaskText }): void {
    this.mask = maskOf(client);
  }

  out(line: string): void {
    this.io.stdout(this.clean(line));
  }

  /** A container's log line: masked, its tabs kept, other control characters escaped. */
  logLine(line: string): void {
    this.io.stdout(
      this.mask(line)
        .split('\t')
        .map((part) => escapeControlCharacters(part))
        .join('\t'),
    );
  }

  err(line: string): void {
    this.io.stderr(this.clean(line));
  }

  /** One value as one line of JSON on stdout. */
  value(value: unknown): void {
    this.io.stdout(jsonLine(maskValueWith(value, this.mask)));
  }

  /** Prints the error as every command does, and returns its exit code. */
  fail(error: unknown, command: string): number {
    if (this.json) this.value(errorRecord(error));
    this.err(formatErrorLine(error));
    if (error instanceof UsageError) this.err(`Run "kube-provision ${command} --help" for the flags.`);
    return exitCodeFor(error);
  }

  private clean(line: string): string {
    return escapeControlCharacters(this.mask(line));
  }
}

/** Whether argv asks for JSON output, read before parsing so that a usage error is JSON too. */
export function asksForJson(argv: readonly string[]): boolean {
  return (
    argv.some((arg, i) => (arg === '-o' || arg === '--output') && argv[i + 1] === 'json') ||
    argv.includes('--output=json') ||
    argv.includes('-ojson')
  );
}
