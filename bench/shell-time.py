#!/usr/bin/python3
"""bench/shell-time.py RUNS SHELL RRSYNC INCOMING_DIR COMMAND

Runs, alternately and RUNS times each, as the current (unprivileged) user:
  postern-shell -c COMMAND        from exec to its decision (a refusal ends
                                  the process right after the decision and its
                                  audit record), policy load included;
  rrsync -wo INCOMING_DIR         with SSH_ORIGINAL_COMMAND=COMMAND, from exec
                                  to its own refusal: rrsync's start-up.
Each is timed around fork+exec+wait, so both carry the same process cost;
/bin/true, timed the same way, shows that floor. Prints the medians and the
ratios to rrsync and to the floor.
"""
import os
import statistics
import subprocess
import sys
import time


def timed(argv, env):
    t0 = time.perf_counter_ns()
    p = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t1 = time.perf_counter_ns()
    return (t1 - t0) / 1e6, p.returncode, p.stderr.decode(errors="replace")


def main():
    runs, shell, rrsync, incoming, command = sys.argv[1:6]
    runs = int(runs)
    conn = "192.0.2.7 40000 192.0.2.1 22"
    shell_env = {"SSH_CONNECTION": conn}
    rrsync_env = {"SSH_ORIGINAL_COMMAND": command, "SSH_CONNECTION": conn,
                  "PATH": "/usr/bin:/bin"}
    shell_ms, rrsync_ms, floor_ms = [], [], []
    for i in range(runs + 3):
        f = timed(["/bin/true"], {})
        s = timed([shell, "-c", command], shell_env)
        r = timed([rrsync, "-wo", "-no-del", "-no-overwrite", "-munge", incoming],
                  rrsync_env)
        if i == 0:
            print("postern-shell said: " + s[2].strip().splitlines()[0])
            print("rrsync said:        " + r[2].strip().splitlines()[0])
            if s[1] == 0 or r[1] == 0:
                sys.exit("bench/shell: the command was not refused; nothing to time")
        if i >= 3:              # the first runs warm the page cache
            shell_ms.append(s[0])
            rrsync_ms.append(r[0])
            floor_ms.append(f[0])
    ms = statistics.median(shell_ms)
    mr = statistics.median(rrsync_ms)
    print("postern-shell exec->decision: median %.2f ms (p90 %.2f, %d runs)"
          % (ms, statistics.quantiles(shell_ms, n=10)[-1], runs))
    print("rrsync start-up->decision:    median %.2f ms (p90 %.2f, %d runs)"
          % (mr, statistics.quantiles(rrsync_ms, n=10)[-1], runs))
    mf = statistics.median(floor_ms)
    print("/bin/true (process floor):    median %.2f ms" % mf)
    print("ratio postern-shell / rrsync: %.3f" % (ms / mr))
    print("ratio postern-shell / floor:  %.2f" % (ms / mf))


main()
