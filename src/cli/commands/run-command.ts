// What every command shares: its output (masked, one line per event: output.ts), and its
// errors printed one way with the exit code of their class.
import { Output, asksForJson } from '../output.js';
import type { CliIo } from '../io.js';

export async function runCommand(
  name: string,
  argv: readonly string[],
  io: CliIo,
  body: (output: Output) => Promise<number>,
): Promise<number> {
  const output = new Output(io, asksForJson(argv));
  try {
    return await body(output);
  } catch (error) {
    return output.fail(error, name);
  }
}
