#!/usr/bin/env node
// Entry point of the kube-provision command.
import { runCli } from './run.js';

const controller = new AbortController();
const onSignal = (): void => controller.abort(new Error('interrupted'));
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);

runCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  signal: controller.signal,
  terminal: {
    writeStdout: (data) => process.stdout.write(data),
    writeStderr: (data) => process.stderr.write(data),
    stdinIsTty: process.stdin.isTTY === true,
    setRawMode: (raw) => {
      if (process.stdin.isTTY) process.stdin.setRawMode(raw);
    },
    size: () => (process.stdout.isTTY ? { columns: process.stdout.columns, rows: process.stdout.rows } : undefined),
    onResize: (listener) => {
      process.stdout.on('resize', listener);
      return () => process.stdout.off('resize', listener);
    },
  },
}).then(
  (code) => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
