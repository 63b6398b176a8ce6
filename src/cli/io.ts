// Where a command writes and what interrupts it: every command takes these, so tests run a
// command with arrays for streams, and main.ts wires them to the process.
export interface CliIo {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
  /** Aborts the provisioning (main.ts connects SIGINT and SIGTERM). */
  readonly signal?: AbortSignal;
  /** What `-f -` reads; default: the process's stdin. */
  readonly stdin?: NodeJS.ReadableStream;
  /** Bytes out and the local terminal (exec); main.ts gives the process's. */
  readonly terminal?: CliTerminalIo;
}

/**
 * The process's streams as bytes and its terminal, for `exec`: output exactly as the
 * command wrote it (no line added, nothing escaped) and a local terminal put in raw mode.
 */
export interface CliTerminalIo {
  writeStdout(data: Uint8Array): void;
  writeStderr(data: Uint8Array): void;
  /** Whether stdin is a terminal (-t needs one). */
  readonly stdinIsTty: boolean;
  setRawMode(raw: boolean): void;
  /** The local terminal's size, if stdout is one. */
  size(): { readonly columns: number; readonly rows: number } | undefined;
  /** Calls `listener` when the local terminal is resized (SIGWINCH); returns the undo. */
  onResize(listener: () => void): () => void;
}
