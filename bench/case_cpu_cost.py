#!/usr/bin/env python3
"""The CPU cost a big case adds around its kernel: inputs, reference read-back and "other" (wall
minus compile, inputs, kernel, reference and compare), for two hkcheck builds side by side.

Each build runs bench/manifests/cpu_cost.json (big cases of the suite's kernels, sized to fit a
small machine) on the host backend twice: cold (empty cache folder) and warm (the same folder:
compiles and references read back). Prints per case and in all the figures of each build and
the ratio base/new.

    python3 bench/case_cpu_cost.py --base BASE/hkcheck --new build/hkcheck [-- more hkcheck options]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

PARTS = ("compile", "inputs", "kernel", "reference", "compare", "worker_start")


def run(hkcheck, root, manifests, cache, out, extra):
    cmd = [hkcheck, "--backend", "host", "--tier", "all", "--root", root, "--manifests", manifests, "--cache-dir", cache,
           "--out", out, "--jobs", "1", "--no-repro"] + extra
    t = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.monotonic() - t
    path = os.path.join(out, "test_results.json")
    if not os.path.exists(path):
        sys.exit(f"{' '.join(cmd)} wrote no results (exit {proc.returncode}):\n{proc.stdout[-3000:]}")
    cases = json.load(open(path))["cases"]
    rows = {}
    for c in cases:
        t = c["timings_ms"]
        other = t["wall"] - sum(t.get(p, 0) or 0 for p in PARTS)
        rows[f"{c['kernel']}/{c['case']}"] = {"status": c["status"], "inputs": t["inputs"], "reference": t["reference"],
                                              "other": other, "wall": t["wall"], "ref_cached": t.get("reference_cached")}
    return wall, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="the hkcheck to compare against")
    ap.add_argument("--new", required=True, help="the hkcheck measured")
    ap.add_argument("--root", default=os.getcwd(), help="the project (default: the current folder)")
    ap.add_argument("--manifests", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "manifests"))
    ap.add_argument("extra", nargs="*", help="more hkcheck options, after --")
    a = ap.parse_args()
    figures = {}
    with tempfile.TemporaryDirectory(prefix="hk-cpu-cost-") as tmp:
        for name, exe in (("base", a.base), ("new", a.new)):
            cache = os.path.join(tmp, name, "cache")
            for mode in ("cold", "warm"):
                figures[(name, mode)] = run(os.path.abspath(exe), a.root, a.manifests, cache, os.path.join(tmp, name, mode), a.extra)
    for mode in ("cold", "warm"):
        print(f"== {mode} (ms; ratio = base / new)")
        print(f"{'case':34} {'part':9} {'base':>9} {'new':>9} {'ratio':>6}")
        base, new = figures[("base", mode)][1], figures[("new", mode)][1]
        for case in sorted(base):
            if case not in new:
                continue
            if base[case]["status"] != new[case]["status"]:
                print(f"{case}: verdict {base[case]['status']} (base) != {new[case]['status']} (new)")
            for part in ("inputs", "reference", "other", "wall"):
                b, n = base[case][part], new[case][part]
                print(f"{case:34} {part:9} {b:9.0f} {n:9.0f} {b / n if n > 0 else float('nan'):6.2f}")
        sb = sum(r["inputs"] + r["other"] for r in base.values())
        sn = sum(r["inputs"] + r["other"] for r in new.values())
        print(f"{'all cases':34} {'in+other':9} {sb:9.0f} {sn:9.0f} {sb / sn if sn > 0 else float('nan'):6.2f}")
        print(f"{'hkcheck process':34} {'wall s':9} {figures[('base', mode)][0]:9.2f} {figures[('new', mode)][0]:9.2f}"
              f" {figures[('base', mode)][0] / figures[('new', mode)][0]:6.2f}")


if __name__ == "__main__":
    main()
