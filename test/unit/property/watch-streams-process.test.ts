// The hostile watch streams over real sockets, in a process of their own: the real
// transport, informers and waiters with real timers, against a loopback HTTP server that
// plays generated streams (test/support/watch-junk-process.ts). The process must settle
// every waiter, report no uncaught exception, and then exit on its own, without
// process.exit: anything left open (a socket, a timer, a watch) would keep it alive.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../support/watch-junk-process.ts', import.meta.url));
const undiciStandIn = fileURLToPath(new URL('../../support/undici-stand-in.mjs', import.meta.url));
const STREAMS = 300;

it(`${STREAMS} hostile streams over loopback HTTP: every waiter settles, nothing uncaught, the process exits on its own`, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', undiciStandIn, script], {
    env: { ...process.env, STREAMS: String(STREAMS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A bound for a hung process, not a speed target: it normally ends within seconds.
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
  );
  clearTimeout(killer);
  expect(stderr).toBe('');
  expect(signal, 'the process had to be killed: something kept it alive').toBeNull();
  expect(code).toBe(0);
  const figures = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
    streams: number;
    settled: number;
    outcomes: Record<string, number>;
    faults: number;
    uncaught: number;
  };
  console.log(`[reliability] watch streams over sockets: ${JSON.stringify(figures)}`);
  expect(figures.streams).toBe(STREAMS);
  expect(figures.settled).toBe(STREAMS);
  expect(figures.uncaught).toBe(0);
  expect(figures.outcomes.untyped ?? 0).toBe(0);
  expect(figures.faults).toBeGreaterThan(0);
}, 120_000);
