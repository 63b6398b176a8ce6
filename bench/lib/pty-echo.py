#!/usr/bin/env python3
# Keystroke echo latency through a command that needs a terminal (`kubectl exec -it`,
# `kube-provision exec -it`): runs ARGV under a pseudo-terminal of its own, waits until a
# key typed comes back (the remote terminal's echo), then types COUNT keys one at a time,
# each timed from the write to its echo read back. Ends the remote command with Ctrl-C.
# Prints JSON: {"latenciesMs": [...], "rssKb": RSS of ARGV's process once connected}.
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
for index in range(count):
    key = keys[index % len(keys) : index % len(keys) + 1]
    started = time.monotonic()
    os.write(fd, key)
    if not read_until(key, 10):
        break
    latencies.append((time.monotonic() - started) * 1000)
os.write(fd, b"\x03")
for _ in range(50):
    done, _ = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    time.sleep(0.1)
else:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
print(json.dumps({"latenciesMs": latencies, "rssKb": rss}))
