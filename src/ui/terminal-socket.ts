// One browser terminal: a WebSocket from the page bridged to a terminal in the workload's
// container (openTerminal). The page sends JSON text frames ({type:'input', data} and
// {type:'resize', columns, rows}); the server sends the output as binary frames and JSON
// text frames for what happens to the session ({type:'open'} once connected, {type:'ready'}
// with the shell that answered at its first output, {type:'exit'}, {type:'error'}). The socket is pinged so proxies and the browser keep it open while the
// user reads (openTerminal pings the cluster side), and a page that stops answering is cut;
// a terminal with neither input nor output for `idleMs` is closed. Whatever ends the session
// (the tab closed, the shell exited, idle, an error, the server closing) closes the remote
// shell, the socket and every timer, and logs the session's one line.
import type { ErrorForViewers } from '../sse/error-for-viewers.js';
import type { Terminal, TerminalOptions } from '../workload/reads/terminal.js';
import type { SessionTicket } from './sessions.js';

/** Without input or output for this long, a page's terminal is closed. */
export const DEFAULT_TERMINAL_IDLE_MS = 30 * 60_000;
/** Between pings of the page's socket; a page that has not answered the one before is gone. */
export const DEFAULT_PAGE_PING_MS = 20_000;
/** Output waiting for a page that does not read it; past it the session is closed. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** Input kept while the terminal is being opened. */
const MAX_EARLY_INPUT_BYTES = 64 * 1024;

export interface TerminalSocketOptions {
  readonly idleMs: number;
  readonly pingIntervalMs: number;
  /** The error as the page may see it (masked). */
  readonly forViewers: (error: unknown) => ErrorForViewers;
  /** The close code for a failure: 4000 + the HTTP status the server would answer. */
  readonly closeCodeFor: (error: unknown) => number;
}

/** A frame's payload as ws hands it over. */
type RawData = Buffer | ArrayBuffer | Buffer[];

/**
 * What the bridge uses of a ws WebSocket, declared here so that the package's declarations
 * need no types of ws (it is bundled, not a dependency).
 */
export interface PageSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  readonly OPEN: number;
  readonly CLOSED: number;
  send(data: string | Buffer, options?: { binary?: boolean }): void;
  ping(): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: 'pong' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'message', listener: (data: RawData, isBinary: boolean) => void): unknown;
  once(event: 'close', listener: () => void): unknown;
}

type Open = (options: Pick<TerminalOptions, 'columns' | 'rows' | 'onStdout'>) => Promise<Terminal>;

/**
 * Bridges `socket` to the terminal `open` opens. `end` ends it from outside (the server
 * closing); `released` resolves once the terminal is closed too (after the socket, which
 * closes first).
 */
export function bridgeTerminal(
  socket: PageSocket,
  open: Open,
  size: { columns: number; rows: number },
  ticket: SessionTicket,
  options: TerminalSocketOptions,
): { end: (outcome: string) => void; released: Promise<void> } {
  let terminal: Terminal | undefined;
  let finished = false;
  let answeredPing = true;
  let announced = false;
  let opening = true;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let idleTimer: NodeJS.Timeout | undefined;
  const early: { type: 'input' | 'resize'; data?: string; columns?: number; rows?: number }[] = [];
  let earlyBytes = 0;

  const sendJson = (message: object): void => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };
  const finish = (outcome: string, code = 1000, reason = ''): void => {
    if (finished) return;
    finished = true;
    clearInterval(pinger);
    clearTimeout(idleTimer);
    ticket.end(outcome);
    // close() ends the shell too (openTerminal types Ctrl-C, Ctrl-D under a tty), then the session.
    if (terminal) void terminal.close().finally(release);
    else if (!opening) release();
    if (socket.readyState === socket.CLOSED) return;
    if (socket.readyState === socket.OPEN) socket.close(code, reason);
    // A page that does not answer the close is cut.
    const cut = setTimeout(() => socket.terminate(), 2_000);
    socket.once('close', () => clearTimeout(cut));
  };
  const fail = (error: unknown, outcome: string): void => {
    const viewed = options.forViewers(error);
    sendJson({ type: 'error', ...viewed });
    finish(`${outcome}: ${viewed.name}: ${viewed.message}`, options.closeCodeFor(error), viewed.name);
  };
  const touch = (): void => {
    // The shell's last words (its answer to close()) come after the end: no new idle bound then.
    if (finished) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      const seconds = Math.round(options.idleMs / 1000);
      sendJson({ type: 'error', name: 'TerminalIdleError', message: `no input or output for ${seconds}s: the terminal was closed` });
      finish(`idle for ${seconds}s`, 4408, 'TerminalIdleError');
    }, options.idleMs);
  };

  const pinger = setInterval(() => {
    if (!answeredPing) {
      finish('the page stopped answering pings');
      socket.terminate();
      return;
    }
    answeredPing = false;
    socket.ping();
  }, options.pingIntervalMs);
  socket.on('pong', () => (answeredPing = true));
  socket.on('close', () => finish('closed by the page'));
  socket.on('error', (error) => finish(`socket error: ${error.message}`));
  socket.on('message', (raw: RawData, isBinary: boolean) => {
    const message = isBinary ? undefined : parseMessage(raw);
    if (message === undefined) {
      sendJson({
        type: 'error',
        name: 'BadMessageError',
        message: 'a message must be JSON: {type:"input",data} or {type:"resize",columns,rows}',
      });
      finish('closed: the page sent a message that is not one of ours', 4400, 'BadMessageError');
      return;
    }
    touch();
    if (!terminal) {
      earlyBytes += message.data?.length ?? 0;
      if (earlyBytes > MAX_EARLY_INPUT_BYTES) {
        fail(new Error(`more than ${MAX_EARLY_INPUT_BYTES} bytes typed before the terminal opened`), 'refused');
        return;
      }
      early.push(message);
      return;
    }
    apply(terminal, message);
  });

  const apply = (target: Terminal, message: (typeof early)[number]): void => {
    if (message.type === 'input') target.write(message.data ?? '');
    else target.resize(message.columns!, message.rows!);
  };

  touch();
  open({
    ...size,
    onStdout: (data) => {
      touch();
      if (socket.readyState !== socket.OPEN) return;
      // The shell that answers first is the one that runs (bash, else sh: see openTerminal).
      if (!announced && terminal) {
        announced = true;
        sendJson({ type: 'ready', command: terminal.command, pod: terminal.pod, container: terminal.container });
      }
      if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
        finish('closed: the page did not keep up with the output', 4413, 'SlowPageError');
        return;
      }
      socket.send(data, { binary: true });
    },
  }).then(
    (opened) => {
      opening = false;
      if (finished) {
        void opened.close().finally(release);
        return;
      }
      terminal = opened;
      sendJson({ type: 'open', pod: opened.pod, container: opened.container });
      for (const message of early.splice(0)) apply(opened, message);
      opened.exit.then(
        (exit) => {
          sendJson({ type: 'exit', exitCode: exit.exitCode });
          finish(`the shell exited (${exit.exitCode ?? 'closed'})`);
        },
        (error: unknown) => {
          fail(error, 'ended');
        },
      );
    },
    (error: unknown) => {
      opening = false;
      if (finished) release();
      else fail(error, 'not opened');
    },
  );
  return { end: (outcome) => finish(outcome, 1001, 'server closing'), released };
}

/** A page's message, or undefined when it is not one: input text, or a size in character cells. */
function parseMessage(raw: RawData): { type: 'input' | 'resize'; data?: string; columns?: number; rows?: number } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : Buffer.concat(raw as Buffer[]).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const message = value as { type?: unknown; data?: unknown; columns?: unknown; rows?: unknown };
  if (message.type === 'input' && typeof message.data === 'string') return { type: 'input', data: message.data };
  if (message.type === 'resize' && isCells(message.columns) && isCells(message.rows)) {
    return { type: 'resize', columns: message.columns, rows: message.rows };
  }
  return undefined;
}

export function isCells(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= 65535;
}
