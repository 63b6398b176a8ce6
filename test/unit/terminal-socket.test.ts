// bridgeTerminal (src/ui/terminal-socket.ts) with a fake page socket and a fake terminal, on
// fake timers: whatever ends a session leaves no timer behind, even when the shell answers
// its close with output (openTerminal types Ctrl-C and Ctrl-D, and the shell echoes them).
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { bridgeTerminal } from '../../src/ui/terminal-socket.js';
import type { Terminal, TerminalOptions } from '../../src/workload/reads/terminal.js';

class FakePageSocket extends EventEmitter {
  readonly OPEN = 1;
  readonly CLOSED = 3;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: unknown[] = [];
  send(data: string | Buffer): void {
    this.sent.push(data);
  }
  ping(): void {}
  close(): void {
    this.readyState = this.CLOSED;
    this.emit('close');
  }
  terminate(): void {
    this.close();
  }
}

function fakeTerminal(onStdout: (data: Buffer) => void): Terminal {
  return {
    command: ['sh'],
    pod: 'web-1',
    container: 'web',
    write: () => undefined,
    resize: () => undefined,
    // The shell's answer to the keys close() types.
    close: () => {
      onStdout(Buffer.from('^C\r\nexit\r\n'));
      return Promise.resolve();
    },
    exit: new Promise(() => undefined),
  } as unknown as Terminal;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('bridgeTerminal', () => {
  it('closing the page ends the session with no timer left, though the shell answers the close', async () => {
    const socket = new FakePageSocket();
    const ended: string[] = [];
    const bridge = bridgeTerminal(
      socket,
      (options: Pick<TerminalOptions, 'columns' | 'rows' | 'onStdout'>) =>
        Promise.resolve(fakeTerminal((data) => options.onStdout?.(data))),
      { columns: 80, rows: 24 },
      { end: (outcome) => ended.push(outcome) },
      { idleMs: 30 * 60_000, pingIntervalMs: 20_000, forViewers: () => ({ name: 'Error', message: 'x' }), closeCodeFor: () => 4500 },
    );
    await vi.advanceTimersByTimeAsync(0);
    socket.close();
    await bridge.released;
    expect(ended).toEqual(['closed by the page']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
