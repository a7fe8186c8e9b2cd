#!/usr/bin/env python3
"""Runs a command once; prints its wall time in ms (three decimals) and peak RSS in KB, or exits
with the command's failure. The clock is read right around the spawn and the wait, so the
measuring shell's own process starts (5-10 ms with `date` and a shell) are not counted: small
documents take less than that. GNU time reads the peak RSS (a forked Python would count its own);
both tools pay its start alike (about 1 ms).

    timed.py LOG COMMAND [ARG...]
"""
import os
import sys
import tempfile
import time

log, command = sys.argv[1], sys.argv[2:]
with tempfile.NamedTemporaryFile() as rss, open(log, "wb") as out:
    argv = ["/usr/bin/time", "-o", rss.name, "-f", "%M", *command]
    actions = [(os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, out.fileno(), 2)]
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(1)
    peak_kb = open(rss.name).read().split()[-1]
print(f"{elapsed * 1000:.3f} {peak_kb}")
