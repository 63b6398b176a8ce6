// What every read-only cluster command shares: errors to one line (or a JSON error record),
// exit codes by error class, usage hints.
import { UsageError } from '../../errors/input.js';
import { exitCodeFor } from '../exit-codes.js';
import { errorRecord, formatErrorLine } from '../format.js';
import type { CliIo } from '../io.js';

export async function runCommand(
  name: string,
  argv: readonly string[],
  io: CliIo,
  body: (setJson: (json: boolean) => void) => Promise<number>,
): Promise<number> {
  let json =
    argv.some((arg, i) => (arg === '-o' || arg === '--output') && argv[i + 1] === 'json') ||
    argv.includes('--output=json') ||
    argv.includes('-ojson');
  try {
    return await body((value) => (json = value));
  } catch (error) {
    if (json) io.stdout(JSON.stringify(errorRecord(error)));
    io.stderr(formatErrorLine(error));
    if (error instanceof UsageError) io.stderr(`Run "kube-provision ${name} --help" for the flags.`);
    return exitCodeFor(error);
  }
}
