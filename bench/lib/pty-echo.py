#!/usr/bin/env python3
# Keystroke echo latency through a command that needs a terminal (`kubectl exec -it`,
# `kube-provision exec -it`): runs ARGV under a pseudo-terminal of its own, waits until a
# key typed comes back (the remote terminal's echo), then types COUNT keys one at a time,
# each timed from the write to its echo read back. Ends the remote command with Ctrl-C.
# Prints JSON: {"latenciesMs": [...], "startsMs": [...], "rssKb": RSS of ARGV's process once connected}.
#   python3 bench/lib/pty-echo.py COUNT ARGV...
import fcntl
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
import tty

count = int(sys.argv[1])
argv = sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    # No echo of our own: every key seen back is the remote terminal's.
    tty.setraw(0)
    os.execvp(argv[0], argv)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))


def read_until(wanted, seconds):
    deadline = time.monotonic() + seconds
    seen = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return False
        try:
            seen += os.read(fd, 65536)
        except OSError:
            return False
        if wanted in seen:
            return True


def rss_kb():
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def user_system():
    # The process's user and system CPU time (all threads), ms (/proc/PID/stat, clock ticks).
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(fields[11]) * 1000 / tick, int(fields[12]) * 1000 / tick
    except OSError:
        return 0, 0


def schedstat():
    # Summed over the process's threads: ns on a CPU, ns runnable but waiting for one.
    running = waiting = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as stat:
                fields = stat.read().split()
                running += int(fields[0])
                waiting += int(fields[1])
    except OSError:
        pass
    return running, waiting


connected = False
for _ in range(120):
    os.write(fd, b"r")
    if read_until(b"r", 0.5):
        connected = True
        break
if not connected:
    print(json.dumps({"error": "no echo within 60 s"}))
    sys.exit(1)
# Late echoes of the keys typed while connecting.
read_until(b"\x00", 0.5)
rss = rss_kb()
keys = b"abcdefghijklmnopqstuvwxyz"
latencies = []
starts = []
before = schedstat()
times_before = user_system()
# CPU per key in each third of the keys: a fresh process's first keys pay for its JIT warming up.
thirds = []
for index in range(count):
    if count >= 3 and index in (count // 3, 2 * count // 3):
        thirds.append(schedstat())
    key = keys[index % len(keys) : index % len(keys) + 1]
    started = time.monotonic()
    starts.append(started * 1000)
    os.write(fd, key)
    if not read_until(key, 10):
        break
    latencies.append((time.monotonic() - started) * 1000)
after = schedstat()
times_after = user_system()
marks = [before, *thirds, after]
cpu_us_per_key_thirds = [(b[0] - a[0]) / 1000 / max(1, count // 3) for a, b in zip(marks, marks[1:])] if len(thirds) == 2 else []
keys_typed = max(1, len(latencies))
cpu_us_per_key = (after[0] - before[0]) / 1000 / keys_typed
wait_us_per_key = (after[1] - before[1]) / 1000 / keys_typed
user_us_per_key = (times_after[0] - times_before[0]) * 1000 / keys_typed
system_us_per_key = (times_after[1] - times_before[1]) * 1000 / keys_typed
os.write(fd, b"\x03")
for _ in range(50):
    done, _ = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    time.sleep(0.1)
else:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
# startsMs: each key's write on CLOCK_MONOTONIC (ms), to lay the keys against the client's GC pauses.
# cpuUsPerKey, waitUsPerKey: ARGV's process (all its threads) on a CPU, and runnable but waiting for one, per key.
print(json.dumps({"latenciesMs": latencies, "startsMs": starts, "rssKb": rss, "cpuUsPerKey": cpu_us_per_key, "waitUsPerKey": wait_us_per_key, "cpuUsPerKeyThirds": cpu_us_per_key_thirds, "userUsPerKey": user_us_per_key, "systemUsPerKey": system_us_per_key}))
