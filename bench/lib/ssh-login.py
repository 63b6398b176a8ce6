#!/usr/bin/env python3
# SSH logins for bench:system-containers, from a process of their own: a spawn from the
# measured process (fork of a large Node process, tens of ms on a loaded machine) blocks its
# event loop and would delay the very watch events whose detection the benchmark times.
# Reads "KEY ADDRESS" lines on stdin; for each, tries `ssh root@ADDRESS true` every 100 ms
# until one succeeds, then prints "KEY ok MS" (MS: CLOCK_MONOTONIC in ms, the clock of the
# benchmark's hrNow), or "KEY failed SECONDS REASON" after the bound.
#   python3 bench/lib/ssh-login.py KEY_FILE TIMEOUT_SECONDS
import subprocess
import sys
import threading
import time

key_file = sys.argv[1]
timeout = float(sys.argv[2])
lock = threading.Lock()
OPTIONS = ["-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"]


def say(line):
    with lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def login(key, address):
    deadline = time.monotonic() + timeout
    reason = ""
    while time.monotonic() < deadline:
        try:
            done = subprocess.run(
                # No stdin for ssh: it would read the lines meant for this process and set the
                # shared pipe non-blocking, which ends the loop below as if at its end.
                ["ssh", "-n", "-i", key_file, *OPTIONS, "-o", "ConnectTimeout=5", f"root@{address}", "true"],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=15,
            )
            if done.returncode == 0:
                say(f"{key} ok {time.monotonic() * 1000}")
                return
            reason = done.stderr.decode("utf8", "replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
            reason = reason[0]
        except subprocess.TimeoutExpired:
            reason = "no answer within 15 s"
        time.sleep(0.1)
    say(f"{key} failed {timeout} {reason}")


for line in sys.stdin:
    words = line.split()
    if len(words) == 2:
        threading.Thread(target=login, args=(words[0], words[1]), daemon=True).start()
