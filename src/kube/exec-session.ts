// ExecSession: one pods/exec WebSocket speaking the Kubernetes channel protocol. Every
// frame starts with its channel: 0 stdin, 1 stdout, 2 stderr, 3 the Status that ends the
// command (JSON), 4 the terminal size (JSON {Width, Height}); v5.channel.k8s.io adds 255,
// a close frame ([255, channel]) that ends one channel, so the command sees stdin's end.
//
// What other clients leave out (client-node 2.0.1 among them), this does: a ping at an
// interval below the idle bounds of proxies, and a session that stays silent across one
// interval (no pong, no frame) is called lost; an optional bound on the whole session; one
// exit promise that always settles (the exit code, the failure the kubelet reported, or the
// loss); and close(), which ends the command (stdin's close frame, then the WebSocket
// closed, and cut if the server does not answer the close), releasing every timer and the
// socket. A closed WebSocket ends the command's streams at the kubelet, which hangs up a
// terminal's pty.
import type { WebSocket } from 'ws';
import { ExecConnectionLostError, ExecFailedError, ExecSessionTimeoutError, type ContainerRef } from '../errors/exec.js';
import { setLongTimeout, type LongTimeout } from '../rx/long-timer.js';
import { oneLine } from '../text.js';
import { toStatus } from './translate-error.js';

export const EXEC_PROTOCOL_V5 = 'v5.channel.k8s.io';
export const EXEC_PROTOCOL_V4 = 'v4.channel.k8s.io';
/** Offered in this order: the server picks the first it speaks. */
export const EXEC_PROTOCOLS: readonly string[] = [EXEC_PROTOCOL_V5, EXEC_PROTOCOL_V4];

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const STATUS = 3;
const RESIZE = 4;
const CLOSE = 255;

/** Below the 30 s after which proxies (and Dashboard users behind them) drop idle sockets. */
export const DEFAULT_PING_INTERVAL_MS = 20_000;
/** How long close() waits for the server's answer to the close frame before cutting the socket. */
export const CLOSE_GRACE_MS = 2_000;

/** How a session ended: the command's exit code, or null when the caller closed it first. */
export interface ExecExit {
  readonly exitCode: number | null;
}

export interface ExecSessionHandlers {
  readonly onStdout?: (data: Buffer) => void;
  readonly onStderr?: (data: Buffer) => void;
}

export interface ExecSessionOptions extends ExecSessionHandlers {
  readonly where: ContainerRef;
  readonly pingIntervalMs?: number;
  /** Close the session after this long (ExecSessionTimeoutError); default: no bound. */
  readonly maxSessionMs?: number;
}

export class ExecSession {
  /** Settles once: the exit code, null after close(), or why there is none. */
  readonly exit: Promise<ExecExit>;
  /** The channel protocol the server chose. */
  readonly protocol: string;
  private settle!: { resolve: (exit: ExecExit) => void; reject: (error: Error) => void };
  private settled = false;
  private stdinOpen = true;
  private heard = true;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private sessionTimer: LongTimeout | undefined;
  private closeTimer: LongTimeout | undefined;
  private socketClosed: Promise<void>;
  private outcome: { exit: ExecExit } | { error: Error } | undefined;

  /** @internal ws's types stay out of the published declarations: ws is bundled, not a dependency. */
  constructor(
    private readonly socket: WebSocket,
    private readonly options: ExecSessionOptions,
  ) {
    this.protocol = socket.protocol;
    this.exit = new Promise<ExecExit>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // A caller that only awaits close() must not see an unhandled rejection.
    this.exit.catch(() => undefined);
    this.socketClosed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('message', (data: Buffer, isBinary: boolean) => this.receive(data, isBinary));
    socket.on('pong', () => {
      this.heard = true;
    });
    socket.on('error', (error) =>
      this.end({ error: new ExecConnectionLostError(options.where, oneLine(error.message), { cause: error }) }),
    );
    socket.on('close', (code, reason) => this.onSocketClose(code, reason.toString('utf8')));
    const pingIntervalMs = options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    this.pingTimer = setInterval(() => this.ping(pingIntervalMs), pingIntervalMs);
    if (options.maxSessionMs !== undefined) {
      const bound = options.maxSessionMs;
      this.sessionTimer = setLongTimeout(() => {
        this.outcome ??= { error: new ExecSessionTimeoutError(options.where, bound) };
        void this.close();
      }, bound);
    }
  }

  /** Sends to the command's stdin; ignored once stdin or the session is closed. */
  write(data: string | Uint8Array): void {
    if (!this.stdinOpen || this.socket.readyState !== this.socket.OPEN) return;
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    if (bytes.length === 0) return;
    this.socket.send(Buffer.concat([Buffer.of(STDIN), bytes]));
  }

  /** A terminal's new size, in character cells. */
  resize(columns: number, rows: number): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    const size = JSON.stringify({ Width: Math.max(0, Math.floor(columns)), Height: Math.max(0, Math.floor(rows)) });
    this.socket.send(Buffer.concat([Buffer.of(RESIZE), Buffer.from(size, 'utf8')]));
  }

  /**
   * Ends stdin: the command reads its end (v5's close frame). Under v4 there is no way to
   * say so but to close the session, so this does nothing there: a command that reads
   * stdin to its end needs v5.
   */
  closeStdin(): void {
    if (!this.stdinOpen) return;
    this.stdinOpen = false;
    if (this.protocol === EXEC_PROTOCOL_V5 && this.socket.readyState === this.socket.OPEN) this.socket.send(Buffer.of(CLOSE, STDIN));
  }

  /**
   * Ends the session and the command: stdin closed, then the WebSocket; the socket is cut
   * if the server does not answer within CLOSE_GRACE_MS. Resolves once the socket is
   * closed and every timer released. `exit` settles with null (no exit code) unless the
   * command's status came first.
   */
  close(): Promise<void> {
    if (this.socket.readyState === this.socket.CLOSED) return Promise.resolve();
    this.closeStdin();
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) this.socket.close(1000);
    this.closeTimer ??= setLongTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS);
    return this.socketClosed;
  }

  private ping(intervalMs: number): void {
    if (!this.heard) {
      this.outcome ??= { error: new ExecConnectionLostError(this.options.where, `no answer to a ping within ${intervalMs} ms`) };
      this.socket.terminate();
      return;
    }
    this.heard = false;
    if (this.socket.readyState === this.socket.OPEN) this.socket.ping();
  }

  private receive(data: Buffer, isBinary: boolean): void {
    this.heard = true;
    // The binary protocols never send text frames; one would be a server bug: dropped.
    if (!isBinary || data.length === 0) return;
    const channel = data[0];
    const payload = data.subarray(1);
    if (channel === STDOUT) {
      if (payload.length > 0) this.options.onStdout?.(payload);
    } else if (channel === STDERR) {
      if (payload.length > 0) this.options.onStderr?.(payload);
    } else if (channel === STATUS) {
      if (payload.length > 0) this.outcome ??= this.statusOutcome(payload.toString('utf8'));
    }
  }

  /** The Status on channel 3: Success is exit 0, NonZeroExitCode carries the code, anything else a failure. */
  private statusOutcome(text: string): { exit: ExecExit } | { error: Error } {
    let status: ReturnType<typeof toStatus>;
    try {
      status = toStatus(JSON.parse(text) as unknown);
    } catch {
      return { error: new ExecFailedError(this.options.where, `the status channel sent ${JSON.stringify(oneLine(text).slice(0, 200))}`) };
    }
    if (status.status === 'Success') return { exit: { exitCode: 0 } };
    const code = status.details?.causes?.find((cause) => cause.reason === 'ExitCode')?.message;
    if (status.reason === 'NonZeroExitCode' && code !== undefined && /^\d+$/.test(code)) return { exit: { exitCode: Number(code) } };
    return { error: new ExecFailedError(this.options.where, oneLine(status.message) || 'no message', status.reason) };
  }

  private onSocketClose(code: number, reason: string): void {
    const closedByCaller = !this.stdinOpen && this.closeTimer !== undefined;
    this.end(
      this.outcome ??
        (closedByCaller
          ? { exit: { exitCode: null } }
          : {
              error: new ExecConnectionLostError(
                this.options.where,
                `the server closed the connection (${code}${reason ? ` ${oneLine(reason)}` : ''}) without the command's exit status`,
              ),
            }),
    );
  }

  /** Settles `exit` once and releases the timers; the socket is closed or closing. */
  private end(outcome: { exit: ExecExit } | { error: Error }): void {
    clearInterval(this.pingTimer);
    this.sessionTimer?.clear();
    if (this.socket.readyState === this.socket.CLOSED) this.closeTimer?.clear();
    else if (this.socket.readyState === this.socket.OPEN) this.socket.terminate();
    if (this.settled) return;
    this.settled = true;
    this.stdinOpen = false;
    if ('exit' in outcome) this.settle.resolve(outcome.exit);
    else this.settle.reject(outcome.error);
  }
}
