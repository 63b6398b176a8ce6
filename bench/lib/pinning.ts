// CPU pinning and niceness for the control plane and the measured clients (taskset and
// renice), as bench/run.ts does: the control plane is the environment, the clients are
// what is measured, and on a 2-core machine they should not queue behind each other.
import { execFileSync } from 'node:child_process';

/** Pins every thread of each process to `cpus` (a taskset list); false if taskset failed. */
export function pinProcesses(cpus: string, pids: readonly number[]): boolean {
  try {
    for (const pid of pids) execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function renice(niceness: number, pids: readonly number[]): void {
  if (niceness > 0 && pids.length > 0) execFileSync('renice', ['-n', String(niceness), '-p', ...pids.map(String)], { stdio: 'ignore' });
}
