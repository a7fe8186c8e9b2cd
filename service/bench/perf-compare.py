#!/usr/bin/env python3
"""Two builds' CPU by function, in µs per request, from one system-wide `perf record` of a
paired run (`PERF=... service/bench/paired.sh`, which prints this command with its arguments).

Each sample of either service's process is counted under its leaf function; dividing by the
requests that process answered makes the two builds comparable although they ran in turns.
Prints both totals, then the functions whose cost differs most, cheaper first.

Usage: perf-compare.py PERF_DATA PID_A REQUESTS_A PID_B REQUESTS_B [ROWS] [HZ]
"""
import collections
import re
import subprocess
import sys


def main():
    data, pid_a, req_a, pid_b, req_b = sys.argv[1:6]
    rows = int(sys.argv[6]) if len(sys.argv) > 6 else 20
    hz = int(sys.argv[7]) if len(sys.argv) > 7 else 999  # paired.sh records at 999 Hz
    script = subprocess.run(
        ["perf", "script", "-i", data, "-F", "pid,ip,sym", "-G"],
        capture_output=True, text=True, check=True,
    ).stdout
    counts = {pid_a: collections.Counter(), pid_b: collections.Counter()}
    for line in script.splitlines():
        fields = line.split(None, 2)
        if len(fields) < 2 or fields[0] not in counts:
            continue
        symbol = fields[2] if len(fields) > 2 else "[unknown]"
        # Rust's hashes and offsets differ between builds of the same function.
        symbol = re.sub(r"::h[0-9a-f]{16}", "", symbol)
        symbol = re.sub(r"\+0x[0-9a-f]+$", "", symbol.strip())
        counts[fields[0]][symbol] += 1
    requests = {pid_a: int(req_a), pid_b: int(req_b)}

    def us(pid, samples):
        return samples * 1e6 / hz / requests[pid]

    print(f"A (pid {pid_a}): {us(pid_a, sum(counts[pid_a].values())):.1f} µs a request")
    print(f"B (pid {pid_b}): {us(pid_b, sum(counts[pid_b].values())):.1f} µs a request")
    table = []
    for f in set(counts[pid_a]) | set(counts[pid_b]):
        a, b = us(pid_a, counts[pid_a][f]), us(pid_b, counts[pid_b][f])
        table.append((b - a, a, b, f))
    table.sort()
    print(f"{'B - A':>7} {'A':>7} {'B':>7}  function (µs a request)")
    shown = table if len(table) <= 2 * rows else table[:rows] + [None] + table[-rows:]
    for row in shown:
        if row is None:
            print("    ...")
            continue
        diff, a, b, function = row
        print(f"{diff:+7.2f} {a:7.2f} {b:7.2f}  {function[:110]}")


if __name__ == "__main__":
    main()
