// Child processes of the local control plane: each one logs to its own file (never to
// our stdout), runs in its own process group (a Ctrl-C in the terminal reaches us, not
// it, so we stop things in order) and is stopped by its pid: SIGTERM, then SIGKILL.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly error?: Error;
}

export interface ComponentSpec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly logFile: string;
  readonly env?: NodeJS.ProcessEnv;
}

export interface ComponentProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Settles once the process has exited (or failed to spawn). */
  readonly exited: Promise<ExitInfo>;
  hasExited(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs: number): Promise<void>;
  /** Synchronous last resort for process-exit handlers. */
  killNow(): void;
}

export function startComponent(spec: ComponentSpec): ComponentProcess {
  const logFd = openSync(spec.logFile, 'a');
  try {
    const child = spawn(spec.command, [...spec.args], {
      stdio: ['ignore', logFd, logFd],
      detached: true,
      env: spec.env ?? process.env,
    });
    let exitInfo: ExitInfo | undefined;
    const exited = new Promise<ExitInfo>((resolve) => {
      child.once('exit', (code, signal) => resolve((exitInfo = { code, signal })));
      child.once('error', (error) => resolve((exitInfo = { code: null, signal: null, error })));
    });
    // Our event loop must not wait for the control plane; stop() and the exit hooks end it.
    child.unref();
    const pid = child.pid ?? -1;
    const hasExited = (): boolean => exitInfo !== undefined || pid < 0;
    const signal = (name: NodeJS.Signals): void => {
      if (!hasExited()) sendSignal(pid, name);
    };
    return {
      name: spec.name,
      pid,
      logFile: spec.logFile,
      exited,
      hasExited,
      killNow: () => signal('SIGKILL'),
      stop: async (graceMs) => {
        if (hasExited()) return;
        // Keep our event loop alive until the exit event has been seen.
        child.ref();
        signal('SIGTERM');
        if (await settlesWithin(exited, graceMs)) return;
        signal('SIGKILL');
        await exited;
      },
    };
  } finally {
    closeSync(logFd);
  }
}

/** A process counts as gone when it no longer exists or is a zombie nobody reaped yet. */
export function isAlive(pid: number): boolean {
  const state = procStat(pid)?.state;
  return state !== undefined && state !== 'Z';
}

/** From /proc/<pid>/stat: the state letter and the process group; undefined once the process is gone. */
export function procStat(pid: number): { readonly state: string; readonly processGroup: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "(comm) " (comm may hold spaces and parentheses): state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', processGroup: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/** The last lines of a component's log, for error messages. */
export function tailLog(logFile: string, lineCount = 40): string {
  try {
    const lines = readFileSync(logFile, 'utf8').trimEnd().split('\n');
    return lines.slice(-lineCount).join('\n');
  } catch (error) {
    return `(log ${logFile} unreadable: ${(error as Error).message})`;
  }
}

export function describeExit(info: ExitInfo): string {
  if (info.error !== undefined) return `failed to start: ${info.error.message}`;
  return info.signal !== null ? `was killed by ${info.signal}` : `exited with code ${String(info.code)}`;
}

function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    // ESRCH: it is already gone, which is what we wanted.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
