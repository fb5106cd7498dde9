#!/usr/bin/env python3
"""Where a run's time went, from its test_results.json: the sums of each timed part over the
cases (inputs, reference, compile, compare, kernel, and the rest of each case's wall time) and
the slowest cases with their parts. A run's critical path is its slowest case; its total CPU
side is the sums. Where the results have them (cpu_ms), the CPU-seconds of each part too, over
every thread of the workers, and the cases that cost the most CPU.
    bench/where_time_goes.py RESULTS.json [TOP]"""
import json
import sys

PARTS = ["inputs", "reference", "compile", "compare", "kernel"]
CPU_PARTS = ["inputs", "reference", "reference_store", "compare"]


def part(c, k):
    return c.get("timings_ms", {}).get(k, 0) or 0


def cpu(c, k):
    return (c.get("cpu_ms") or {}).get(k, 0) or 0


def other(c):
    return part(c, "wall") - sum(part(c, k) for k in PARTS) - part(c, "worker_start")


def main():
    d = json.load(open(sys.argv[1]))
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    cases = d["cases"]
    print(f"wall {d['run']['wall_s']:.1f} s, {len(cases)} cases, Σ case wall {sum(part(c, 'wall') for c in cases) / 1000:.1f} s")
    print("  ".join(f"Σ {k} {sum(part(c, k) for c in cases) / 1000:.1f} s" for k in PARTS) + f"  Σ other {sum(other(c) for c in cases) / 1000:.1f} s")
    for c in sorted(cases, key=lambda c: -part(c, "wall"))[:top]:
        parts = " ".join(f"{k} {part(c, k) / 1000:.1f}" for k in PARTS[:4])
        print(f"  {c['kernel'][:28]:28} {c['case'][:32]:32} wall {part(c, 'wall') / 1000:5.1f}  {parts}  other {other(c) / 1000:.1f}")
    total = sum(cpu(c, "case") for c in cases)
    if total == 0:
        return
    rest = total - sum(cpu(c, k) for c in cases for k in CPU_PARTS)
    print(f"CPU of the workers' cases {total / 1000:.1f} s: " + "  ".join(f"{k} {sum(cpu(c, k) for c in cases) / 1000:.1f}" for k in CPU_PARTS) +
          f"  other (compiles, launches, the rest) {rest / 1000:.1f}")
    for c in sorted(cases, key=lambda c: -cpu(c, "case"))[:top]:
        parts = " ".join(f"{k} {cpu(c, k) / 1000:.1f}" for k in CPU_PARTS)
        print(f"  {c['kernel'][:28]:28} {c['case'][:32]:32} CPU {cpu(c, 'case') / 1000:5.1f}  {parts}")


if __name__ == "__main__":
    main()
