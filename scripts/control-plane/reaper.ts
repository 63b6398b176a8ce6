// A watchdog that outlives us: if our process dies without cleaning up (SIGKILL, a crashed
// test run), it kills every pid recorded in the cluster's pid file and removes the work
// dir. It is a tiny detached shell loop, so it does not depend on Node being healthy.
//
// The parent is identified by pid AND start time (field 22 of /proc/<pid>/stat), so a
// recycled pid is never mistaken for it; a zombie parent counts as dead.
import { spawn } from 'node:child_process';

const REAPER_SCRIPT = String.raw`
parent=$1; pidfile=$2; workdir=$3; remove=$4
# Fields of /proc/<pid>/stat after "(comm) ": $1 is the state, $20 the start time.
stat_of() { sed -e 's/^.*) //' "/proc/$1/stat" 2>/dev/null; }
parent_start=$(stat_of "$parent" | awk '{ print $20 }')
[ -n "$parent_start" ] || exit 1
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
[ "$remove" = 1 ] && rm -rf "$workdir"
exit 0
`;

export interface Reaper {
  readonly pid: number;
  /** Ends the watchdog (and its sleep) after a normal shutdown. */
  dismiss(): void;
}

export function startReaper(options: { parentPid: number; pidFile: string; workDir: string; removeWorkDir: boolean }): Reaper {
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      REAPER_SCRIPT,
      'kube-provisioner-reaper',
      String(options.parentPid),
      options.pidFile,
      options.workDir,
      options.removeWorkDir ? '1' : '0',
    ],
    { detached: true, stdio: 'ignore', cwd: '/' },
  );
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the control-plane reaper (/bin/sh)');
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
