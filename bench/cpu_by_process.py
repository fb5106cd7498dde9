#!/usr/bin/env python3
"""Where a command's CPU time goes, by kind of process: runs COMMAND and, every INTERVAL seconds,
reads each process's user and system time from /proc, keeping the last value seen per process. At
the end it prints the CPU-seconds of each kind, user and system apart, (case workers, compile workers, the reference
libraries' compiler, hkcheck itself, the rest) beside the command's own total from wait4, so the
share the sampling missed (processes that lived less than one interval) is shown too.

    bench/cpu_by_process.py [--interval 0.2] [--out FILE] [--timeline FILE] -- COMMAND...

--timeline also writes, for each second of the run, how many cores each kind kept busy: where a
run left the machine idle (a start that waits for compilers, a tail of one long case).

Exit code: the command's."""
import argparse
import os
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")
COMPILER_NAMES = {"cc1plus", "g++", "c++", "as", "ld", "collect2", "ld.bfd", "ld.gold", "clang++", "clang"}


def kind_of(comm, cmdline):
    if "--compile-worker" in cmdline:
        return "compile workers (NVRTC, hipRTC)"
    if "--worker" in cmdline:
        return "case workers"
    if comm in COMPILER_NAMES or comm.startswith("x86_64-linux-gnu-") or comm.startswith("g++"):
        return "reference and host compilers"
    if cmdline and os.path.basename(cmdline[0]) == "hkcheck":
        return "hkcheck (the run itself)"
    return "other"


def read_process(pid):
    """(comm, cmdline, start time, (user, system) cpu seconds) of pid, or None when it is gone. A process that
    has exited but is not yet reaped (a zombie) has an empty cmdline and keeps its times."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return None
    comm = stat[stat.index("(") + 1:stat.rindex(")")]
    fields = stat[stat.rindex(")") + 2:].split()
    utime, stime, start = int(fields[11]), int(fields[12]), int(fields[19])  # fields 14, 15, 22 of proc(5)
    return comm, cmdline, start, (utime / TICK, stime / TICK)


def descendants(root):
    """Every pid whose chain of parents reaches root (root included)."""
    parent = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
            parent[int(name)] = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found = set()
    for pid in parent:
        p, chain = pid, []
        while p in parent and p not in found and p != root and len(chain) < 64:
            chain.append(p)
            p = parent[p]
        if p == root or p in found:
            found.update(chain)
    found.add(root)
    return found


def timeline(samples, kinds, step=1.0):
    """Busy cores per kind in each step of the run, from the cumulative samples."""
    rows = [f"{'second':>6s} {'busy':>5s}  " + "  ".join(f"{k[:14]:>14s}" for k in kinds)]
    prev_t, prev = 0.0, {}
    edge = step
    for n, (t, totals) in enumerate(samples):
        if t < edge and n < len(samples) - 1:
            continue
        span = max(t - prev_t, 1e-9)
        cores = {k: (totals.get(k, 0.0) - prev.get(k, 0.0)) / span for k in kinds}
        rows.append(f"{prev_t:6.1f} {sum(cores.values()):5.1f}  " + "  ".join(f"{cores[k]:14.1f}" for k in kinds))
        prev_t, prev = t, totals
        edge = t + step
    return "\n".join(rows) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--interval", type=float, default=0.2)
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--timeline", help="write the cores each kind kept busy, second by second, to this file")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no COMMAND after --")
    began = time.monotonic()
    proc = subprocess.Popen(cmd)
    last = {}  # (pid, start time) -> [kind, (user, system) seconds]: one entry per process, zombie or not
    status = None
    samples = []  # (seconds since the start, {kind: CPU-seconds so far})
    while status is None:
        for pid in descendants(proc.pid):
            seen = read_process(pid)
            if seen:
                comm, cmdline, started, cpu = seen
                entry = last.setdefault((pid, started), [None, (0.0, 0.0)])
                if cmdline or entry[0] is None:  # a zombie keeps the kind it was seen with alive
                    entry[0] = kind_of(comm, cmdline)
                entry[1] = cpu
        totals = {}
        for kind, (user, system) in last.values():
            totals[kind] = totals.get(kind, 0.0) + user + system
        samples.append((time.monotonic() - began, totals))
        time.sleep(a.interval)
        waited, status_word, usage = os.wait4(proc.pid, os.WNOHANG)
        if waited == proc.pid:
            status = os.waitstatus_to_exitcode(status_word)
            total, total_sys = usage.ru_utime + usage.ru_stime, usage.ru_stime
    wall = time.monotonic() - began
    by_kind = {}  # kind -> [user, system]
    for kind, (user, system) in last.values():
        sums = by_kind.setdefault(kind, [0.0, 0.0])
        sums[0] += user
        sums[1] += system
    lines = [f"{'kind of process':36s} {'CPU s':>9s} {'of it sys':>9s}"]
    for kind, (user, system) in sorted(by_kind.items(), key=lambda kv: -sum(kv[1])):
        lines.append(f"{kind:36s} {user + system:9.1f} {system:9.1f}")
    sampled = sum(sum(v) for v in by_kind.values())
    sampled_sys = sum(v[1] for v in by_kind.values())
    lines.append(f"{'sampled in all':36s} {sampled:9.1f} {sampled_sys:9.1f}")
    lines.append(f"{'the command in all (wait4)':36s} {total:9.1f} {total_sys:9.1f}   wall {wall:.1f} s, "
                 f"{total / wall:.1f} cores busy on average of {os.cpu_count()}")
    text = "\n".join(lines)
    if a.timeline:
        with open(a.timeline, "w") as f:
            f.write(timeline(samples, sorted(by_kind, key=lambda k: -sum(by_kind[k]))))
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
