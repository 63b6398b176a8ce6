// Where a command writes and what interrupts it: every command takes these, so tests run a
// command with arrays for streams, and main.ts wires them to the process.
export interface CliIo {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
  /** Aborts the provisioning (main.ts connects SIGINT and SIGTERM). */
  readonly signal?: AbortSignal;
  /** What `-f -` reads; default: the process's stdin. */
  readonly stdin?: NodeJS.ReadableStream;
}
