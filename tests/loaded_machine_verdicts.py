#!/usr/bin/env python3
"""A loaded machine must not change a verdict (issue: TIMEOUT for kernels that never ran).

Runs a project twice on the host backend with a short --timeout and no compiled kernels in the
cache: once on an idle machine, once beside BUSY processes that each spin on a core. The case
timeout is the kernel's, from its first launch; the compiles that wait for the CPU have
--compile-timeout. So both runs must give every case the same verdict, and neither a TIMEOUT.
The reference libraries of the first run are handed to the second (they are not what this checks,
and compiling Eigen beside the spinners would take minutes).

  loaded_machine_verdicts.py HKCHECK PROJECT OUT [BUSY]
"""
import json
import os
import shutil
import subprocess
import sys
import time

KERNEL_TIMEOUT_S = "3"  # far above any of the project's kernels, far below a compile under load


def run(hkcheck, project, out, cache):
    cmd = [hkcheck, "--backend", "host", "--root", project, "--no-repro", "--jobs", "2", "--timeout", KERNEL_TIMEOUT_S,
           "--cache-dir", cache, "--out", out]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.monotonic() - t0
    path = os.path.join(out, "test_results.json")
    if not os.path.exists(path):
        sys.exit(f"no {path}; hkcheck exited {proc.returncode}:\n{proc.stdout[-3000:]}")
    with open(path) as f:
        cases = json.load(f)["cases"]
    return {f'{c["kernel"]} / {c["case"]}': (c["status"], c.get("message", "")) for c in cases}, wall


def main():
    hkcheck, project, out = sys.argv[1:4]
    busy = int(sys.argv[4]) if len(sys.argv) > 4 else 16
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    idle_cache, loaded_cache = os.path.join(out, "idle-cache"), os.path.join(out, "loaded-cache")
    idle, idle_wall = run(hkcheck, project, os.path.join(out, "idle"), idle_cache)
    os.makedirs(loaded_cache)
    shutil.copytree(os.path.join(idle_cache, "references"), os.path.join(loaded_cache, "references"))
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    try:
        time.sleep(1)
        loaded, loaded_wall = run(hkcheck, project, os.path.join(out, "loaded"), loaded_cache)
    finally:
        for p in spinners:
            p.kill()
        for p in spinners:
            p.wait()
    print(f"idle: {len(idle)} cases in {idle_wall:.1f} s; beside {busy} busy processes: {len(loaded)} cases in {loaded_wall:.1f} s")
    problems = []
    if set(idle) != set(loaded):
        problems.append(f"different cases: {sorted(set(idle) ^ set(loaded))}")
    for name in sorted(set(idle) & set(loaded)):
        if idle[name][0] != loaded[name][0]:
            problems.append(f"{name}: {idle[name][0]} idle, {loaded[name][0]} loaded: {loaded[name][1][:300]}")
    for label, verdicts in (("idle", idle), ("loaded", loaded)):
        problems += [f"{label}: {n}: TIMEOUT: {m[:300]}" for n, (s, m) in verdicts.items() if s == "TIMEOUT"]
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
