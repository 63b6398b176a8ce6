// A watchdog that outlives us: if our process dies without cleaning up (SIGKILL, a crashed
// test run), it kills every pid recorded in the cluster's pid file and removes the work
// dir. It is a tiny detached shell loop, so it does not depend on Node being healthy.
//
// The parent is identified by pid AND start time (field 22 of /proc/<pid>/stat), so a
// recycled pid is never mistaken for it; a zombie parent counts as dead.
//
// A locked reaper (startLockedReaper) also holds a machine-wide flock for its whole life
// and, after the kill, runs a cleanup command before it lets go of the lock: whoever takes
// the lock next finds the machine clean (the real node's host state needs this).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

const REAPER_SCRIPT = String.raw`
parent=$1; pidfile=$2; workdir=$3; remove=$4; after_dir=$5
shift 5
# Fields of /proc/<pid>/stat after "(comm) ": $1 is the state, $20 the start time.
stat_of() { sed -e 's/^.*) //' "/proc/$1/stat" 2>/dev/null; }
parent_start=$(stat_of "$parent" | awk '{ print $20 }')
[ -n "$parent_start" ] || exit 1
echo ready 2>/dev/null
alive() { stat_of "$parent" | awk -v s="$parent_start" '$1 != "Z" && $20 == s { ok = 1 } END { exit ok ? 0 : 1 }'; }
while alive; do sleep 0.5; done
pids=$(cat "$pidfile" 2>/dev/null)
[ -n "$pids" ] && kill -TERM $pids 2>/dev/null
i=0
while [ $i -lt 30 ]; do
  any=0
  for p in $pids; do kill -0 "$p" 2>/dev/null && any=1; done
  [ $any -eq 0 ] && break
  sleep 0.1; i=$((i + 1))
done
[ -n "$pids" ] && kill -KILL $pids 2>/dev/null
[ $# -gt 0 ] && (cd "$after_dir" && "$@") >/dev/null 2>&1
[ "$remove" = 1 ] && rm -rf --one-file-system "$workdir"
exit 0
`;

export interface Reaper {
  readonly pid: number;
  /** Ends the watchdog (and its sleep) after a normal shutdown; a locked reaper's lock goes with it. */
  dismiss(): void;
}

export interface ReaperOptions {
  readonly parentPid: number;
  readonly pidFile: string;
  readonly workDir: string;
  readonly removeWorkDir: boolean;
  /** Run after the kill (and before the work dir goes), from `afterKillDir`. */
  readonly afterKill?: readonly string[];
  readonly afterKillDir?: string;
}

export function startReaper(options: ReaperOptions): Reaper {
  const child = spawn('/bin/sh', ['-c', REAPER_SCRIPT, 'kube-provisioner-reaper', ...reaperArgs(options)], {
    detached: true,
    stdio: 'ignore',
    cwd: '/',
  });
  child.unref();
  return reaperOf(child, 'could not start the control-plane reaper (/bin/sh)');
}

export interface LockedReaperOptions extends ReaperOptions {
  /** The flock(1) file held while the reaper lives. */
  readonly lockFile: string;
  readonly lockTimeoutMs: number;
  /** Describes who holds the lock, for the error when it cannot be had in time. */
  readonly describeHolder: () => string;
}

/** Exit status flock(1) is told to use when the lock cannot be had in time. */
const LOCK_TIMEOUT_STATUS = 75;

/** Resolves once the lock is held; rejects, naming the lock and its holder, after `lockTimeoutMs`. */
export function startLockedReaper(options: LockedReaperOptions): Promise<Reaper> {
  const seconds = Math.max(1, Math.ceil(options.lockTimeoutMs / 1000));
  // -o: the lock's descriptor stays with flock itself, so nothing the script starts inherits it.
  const child = spawn(
    'flock',
    [
      '-w',
      String(seconds),
      '-E',
      String(LOCK_TIMEOUT_STATUS),
      '-o',
      options.lockFile,
      '/bin/sh',
      '-c',
      REAPER_SCRIPT,
      'kube-provisioner-reaper',
      ...reaperArgs(options),
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'ignore'], cwd: '/' },
  );
  return new Promise<Reaper>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const settle = (outcome: () => void): void => {
      lines.close();
      child.stdout?.destroy();
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      outcome();
    };
    lines.once('line', () =>
      settle(() => {
        child.unref();
        resolve(reaperOf(child, 'flock started without a pid'));
      }),
    );
    child.once('error', (error) =>
      settle(() => reject(new Error(`could not run flock(1) for ${options.lockFile}: ${error.message} (util-linux)`, { cause: error }))),
    );
    child.once('exit', (code) =>
      settle(() =>
        reject(
          new Error(
            code === LOCK_TIMEOUT_STATUS
              ? `the machine-wide lock ${options.lockFile} was not free within ${seconds} s: ${options.describeHolder()}`
              : `flock ${options.lockFile} exited with ${String(code)} before taking the lock`,
          ),
        ),
      ),
    );
  });
}

function reaperArgs(options: ReaperOptions): string[] {
  return [
    String(options.parentPid),
    options.pidFile,
    options.workDir,
    options.removeWorkDir ? '1' : '0',
    options.afterKillDir ?? '/',
    ...(options.afterKill ?? []),
  ];
}

function reaperOf(child: ChildProcess, noPidMessage: string): Reaper {
  const pid = child.pid;
  if (pid === undefined) throw new Error(noPidMessage);
  return {
    pid,
    dismiss: () => {
      // Its own process group (detached): signal the group so its sleep ends too.
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
}
