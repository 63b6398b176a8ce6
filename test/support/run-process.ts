// Runs a Node program to its end as a user would (from the repository root), collecting what
// it printed. A process that does not end on its own within `killAfterMs` is killed, and its
// code is then null: the tests read that as "something kept it alive".
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ProcessRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** From the spawn to the close, in milliseconds. */
  readonly ms: number;
  /** From its first output on stdout to the close (how long it lingered after reporting). */
  readonly closedAfterOutputMs: number;
}

export interface RunOptions {
  /** The child's environment; default this process's. */
  readonly env?: NodeJS.ProcessEnv;
  readonly killAfterMs?: number;
}

/** `node ARGS...` with this process's Node binary. */
export function runNode(args: readonly string[], options: RunOptions = {}): Promise<ProcessRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args], { cwd: REPOSITORY_ROOT, env: options.env ?? process.env });
    let stdout = '';
    let stderr = '';
    let firstOutputAt = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      firstOutputAt ||= Date.now();
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      const closedAt = Date.now();
      resolve({ code, stdout, stderr, ms: closedAt - started, closedAfterOutputMs: closedAt - (firstOutputAt || closedAt) });
    });
  });
}
