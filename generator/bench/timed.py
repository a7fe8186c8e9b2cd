#!/usr/bin/env python3
"""Runs a command once; prints its wall time in ms (three decimals) and peak RSS in KB, or exits
with the command's failure. The clock is read right around the spawn and the wait, so the
measuring shell's own process starts (5-10 ms with `date` and a shell) are not counted: small
documents take less than that. The peak RSS is the child's own, from `wait4`'s resource usage, so
no measuring process (GNU time took about 1 ms to start) stands between the clock and the tool.

    timed.py LOG COMMAND [ARG...]
"""
import os
import sys
import time

log, command = sys.argv[1], sys.argv[2:]
with open(log, "wb") as out:
    actions = [(os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, out.fileno(), 2)]
    # A fresh Python's first spawn costs it 0.4-0.8 ms more than the next ones (`/bin/true`: 1.1-1.5
    # ms, then 0.7), which would be counted to whichever tool came first: spawn once untimed.
    os.wait4(os.posix_spawn("/bin/true", ["true"], os.environ), 0)
    start = time.perf_counter()
    pid = os.posix_spawnp(command[0], command, os.environ, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - start
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit(1)
# Linux reports ru_maxrss in KB.
print(f"{elapsed * 1000:.3f} {usage.ru_maxrss}")
