// openTerminal() and execCommand(): a terminal, or one command, in a workload's container
// (pods/exec over a WebSocket: src/kube/exec-session.ts), reached through the workload's
// labels and its current rollout (container-target.ts), never by a Pod name.
//
// Without a command, a terminal runs bash, else sh: the runtime's "executable file not
// found" ends one try and the next starts with what the caller typed so far (nothing ran
// it), until the shell answers; with neither, ShellNotFoundError. Every wait is bounded:
// the connect (connectTimeoutMs), silence (pings), and the session when maxSessionMs is
// given; close() ends the command and releases the socket and timers.
import { InvalidOptionError } from '../../errors/input.js';
import { ExecFailedError, ShellNotFoundError } from '../../errors/exec.js';
import type { KubernetesClient } from '../../kube/client.js';
import type { ExecExit, ExecSession } from '../../kube/exec-session.js';
import { findContainer, kubeletError, type ContainerTarget } from './container-target.js';

export type { ExecExit } from '../../kube/exec-session.js';

/** The shells a terminal tries, in order, when the caller names no command. */
export const DEFAULT_SHELLS: readonly (readonly string[])[] = [['bash'], ['sh']];
/** Bound on the WebSocket upgrade when the caller gives none. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
/** What a terminal keeps of the caller's input to give the next shell while none answered. */
const MAX_REPLAY_BYTES = 64 * 1024;
/** How long close() waits for the terminal to answer each key it types before the hangup. */
export const CLOSE_KEY_WAIT_MS = 300;
/** What close() types under a tty: Ctrl-C ends the foreground program, Ctrl-D twice ends a reader of its input and then the shell. */
const CLOSING_KEYS = ['\u0003', '\u0004', '\u0004'];

export interface TerminalOptions {
  /** The argv to run; default: bash, else sh. */
  readonly command?: readonly string[];
  /** A pseudo-terminal (output on one stream; resize applies); default true. */
  readonly tty?: boolean;
  /** Whether the command reads stdin; default true. */
  readonly stdin?: boolean;
  /** The terminal's size at the start, in character cells. */
  readonly columns?: number;
  readonly rows?: number;
  readonly onStdout?: (data: Buffer) => void;
  /** Only without a tty (a tty's output all comes on stdout). */
  readonly onStderr?: (data: Buffer) => void;
  /** Bound on reaching the container (the WebSocket upgrade); default 15000. */
  readonly connectTimeoutMs?: number;
  /** Close the session after this long (ExecSessionTimeoutError); default: none. */
  readonly maxSessionMs?: number;
  /** Between pings; a session silent that long after one is lost. Default 20000. */
  readonly pingIntervalMs?: number;
  /** Manager's container id the workload must carry. */
  readonly containerId?: string | number;
  /** The Manager installation the workload must belong to. */
  readonly instance?: string;
  /** Aborts finding the container and connecting (after that, use close()). */
  readonly signal?: AbortSignal;
}

export interface Terminal {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  /** The command running (the shell found, once one answered). */
  readonly command: readonly string[];
  /** Sends to the command's stdin. */
  write(data: string | Uint8Array): void;
  /** The terminal's new size, in character cells. */
  resize(columns: number, rows: number): void;
  /** Ends stdin (the command reads its end; needs the v5 protocol). */
  closeStdin(): void;
  /** Ends the command and the session; resolves once the socket is closed. */
  close(): Promise<void>;
  /** The exit code; null when closed first; rejects with why there is none. */
  readonly exit: Promise<ExecExit>;
}

/** Opens a terminal (or a command with streams) in the workload's current container. */
export async function openTerminal(client: KubernetesClient, providerId: string, options: TerminalOptions = {}): Promise<Terminal> {
  const commands = options.command === undefined ? DEFAULT_SHELLS : [checkCommand(options.command)];
  checkSize(options);
  const openPodExec = client.openPodExec?.bind(client);
  if (openPodExec === undefined) throw new InvalidOptionError('client', 'client cannot open pods/exec (it has no openPodExec)');
  const target = await findContainer(client, providerId, 'exec', {
    containerId: options.containerId === undefined ? undefined : String(options.containerId),
    instance: options.instance,
    signal: options.signal,
  });
  return new ShellTerminal(openPodExec, target, commands, options).start();
}

export interface ExecCommandOptions extends Omit<TerminalOptions, 'command' | 'tty' | 'stdin' | 'onStdout' | 'onStderr'> {
  /** Given to the command's stdin, which is then closed. */
  readonly input?: string | Uint8Array;
  /** Output kept per stream; past it the rest is dropped and `truncated` set. Default 1 MiB. */
  readonly maxOutputBytes?: number;
}

export interface ExecResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Whether output past maxOutputBytes was dropped. */
  readonly truncated: boolean;
}

/** Runs `command` in the workload's container to its end: its exit code and output. */
export async function execCommand(
  client: KubernetesClient,
  providerId: string,
  command: readonly string[],
  options: ExecCommandOptions = {},
): Promise<ExecResult> {
  const max = options.maxOutputBytes ?? 1024 * 1024;
  const kept = { stdout: [] as Buffer[], stderr: [] as Buffer[], stdoutBytes: 0, stderrBytes: 0, truncated: false };
  const keep = (stream: 'stdout' | 'stderr') => (data: Buffer) => {
    const bytes = stream === 'stdout' ? kept.stdoutBytes : kept.stderrBytes;
    const room = Math.max(0, max - bytes);
    if (data.length > room) kept.truncated = true;
    const part = data.subarray(0, room);
    kept[stream].push(part);
    if (stream === 'stdout') kept.stdoutBytes += part.length;
    else kept.stderrBytes += part.length;
  };
  const terminal = await openTerminal(client, providerId, {
    ...options,
    command,
    tty: false,
    stdin: options.input !== undefined,
    onStdout: keep('stdout'),
    onStderr: keep('stderr'),
  });
  if (options.input !== undefined) {
    terminal.write(options.input);
    terminal.closeStdin();
  }
  const exit = await terminal.exit.finally(() => terminal.close());
  return {
    exitCode: exit.exitCode ?? -1,
    stdout: Buffer.concat(kept.stdout).toString('utf8'),
    stderr: Buffer.concat(kept.stderr).toString('utf8'),
    truncated: kept.truncated,
  };
}

function checkCommand(command: readonly string[]): readonly string[] {
  if (!Array.isArray(command) || command.length === 0 || !command.every((word) => typeof word === 'string')) {
    throw new InvalidOptionError('command', 'command must be a non-empty list of strings (the argv to run)');
  }
  if (command[0] === '') throw new InvalidOptionError('command', 'command[0] (the program) must not be empty');
  return command;
}

function checkSize(options: TerminalOptions): void {
  for (const field of ['columns', 'rows'] as const) {
    const value = options[field];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0 && value <= 65535)) {
      throw new InvalidOptionError(field, `${field} must be a whole number from 1 to 65535 (got ${String(value)})`);
    }
  }
}

type OpenPodExec = NonNullable<KubernetesClient['openPodExec']>;

/** A terminal over one session at a time: the next shell's when the one before does not exist. */
class ShellTerminal implements Terminal {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  command: readonly string[];
  readonly exit: Promise<ExecExit>;
  private session: ExecSession | undefined;
  private settle!: { resolve: (exit: ExecExit) => void; reject: (error: unknown) => void };
  // Until a shell answers, what the caller typed (the next shell gets it) and the last size.
  private answered: boolean;
  private replay: Buffer[] = [];
  private replayBytes = 0;
  private size: { columns: number; rows: number } | undefined;
  private stdinClosed = false;
  private closed = false;
  private tried: string[] = [];
  private onOutput: (() => void) | undefined;

  constructor(
    private readonly openPodExec: OpenPodExec,
    private readonly target: ContainerTarget,
    private readonly commands: readonly (readonly string[])[],
    private readonly options: TerminalOptions,
  ) {
    this.namespace = target.namespace;
    this.pod = target.pod;
    this.container = target.container;
    this.command = commands[0] ?? [];
    // A caller's command has nothing to fall back to: no replay needed.
    this.answered = commands.length === 1;
    if (options.columns !== undefined && options.rows !== undefined) this.size = { columns: options.columns, rows: options.rows };
    this.exit = new Promise<ExecExit>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    this.exit.catch(() => undefined);
  }

  async start(): Promise<Terminal> {
    await this.connect(0);
    return this;
  }

  private async connect(index: number): Promise<void> {
    const command = this.commands[index] ?? [];
    this.command = command;
    this.tried.push(command.join(' '));
    const heard = (forward: ((data: Buffer) => void) | undefined) => (data: Buffer) => {
      this.answered = true;
      this.onOutput?.();
      forward?.(data);
    };
    let session: ExecSession;
    try {
      session = await this.openPodExec(this.target.namespace, this.target.pod, {
        container: this.target.container,
        command,
        stdin: this.options.stdin ?? true,
        tty: this.options.tty ?? true,
        connectTimeoutMs: this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        onStdout: heard(this.options.onStdout),
        onStderr: heard(this.options.onStderr),
        ...(this.options.pingIntervalMs !== undefined ? { pingIntervalMs: this.options.pingIntervalMs } : {}),
        ...(this.options.maxSessionMs !== undefined ? { maxSessionMs: this.options.maxSessionMs } : {}),
        ...(this.options.signal ? { signal: this.options.signal } : {}),
      });
    } catch (error) {
      throw kubeletError(error, this.target);
    }
    this.session = session;
    if (this.size) session.resize(this.size.columns, this.size.rows);
    for (const chunk of this.replay) session.write(chunk);
    if (this.answered) this.replay = [];
    if (this.stdinClosed) session.closeStdin();
    if (this.closed) void session.close();
    session.exit.then(
      // The shell that close() ended has an exit code of its own: the caller closed first.
      (exit) => this.settle.resolve(this.closed ? { exitCode: null } : exit),
      (error: unknown) => this.onFailure(error, index),
    );
  }

  private onFailure(error: unknown, index: number): void {
    const next = index + 1;
    if (error instanceof ExecFailedError && error.notFound && !this.answered && !this.closed) {
      if (next < this.commands.length) {
        this.connect(next).catch((failure: unknown) => this.settle.reject(failure));
        return;
      }
      if (this.commands.length > 1) {
        this.settle.reject(new ShellNotFoundError(this.target, this.tried, { cause: error }));
        return;
      }
    }
    this.settle.reject(kubeletError(error, this.target));
  }

  write(data: string | Uint8Array): void {
    if (!this.answered) {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
      if (this.replayBytes + bytes.length <= MAX_REPLAY_BYTES) {
        this.replay.push(bytes);
        this.replayBytes += bytes.length;
      }
    }
    this.session?.write(data);
  }

  resize(columns: number, rows: number): void {
    this.size = { columns, rows };
    this.session?.resize(columns, rows);
  }

  closeStdin(): void {
    this.stdinClosed = true;
    this.session?.closeStdin();
  }

  async close(): Promise<void> {
    const session = this.session;
    const first = !this.closed;
    this.closed = true;
    if (first && session && (this.options.tty ?? true) && !this.stdinClosed) await this.endInTerminal(session);
    await session?.close();
  }

  /**
   * Ends what runs in the terminal as a user at it would: Ctrl-C, then Ctrl-D twice, each
   * given a moment (until the terminal answers or the bound). Closing stdin alone leaves the
   * runtime's terminal open (containerd keeps a tty's process running), so the shell and a
   * program in its foreground (a sleep) would outlive the session.
   */
  private async endInTerminal(session: ExecSession): Promise<void> {
    let ended = false;
    void session.exit.then(
      () => (ended = true),
      () => (ended = true),
    );
    for (const key of CLOSING_KEYS) {
      if (ended) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.onOutput = undefined;
          resolve();
        };
        const timer = setTimeout(done, CLOSE_KEY_WAIT_MS);
        this.onOutput = done;
        session.exit.then(done, done);
        session.write(key);
      });
    }
  }
}
