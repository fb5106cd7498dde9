#!/usr/bin/env python3
"""Run options that must not change a verdict do not (issue: --time changed verdicts).

Runs the known-bad corpus on the host backend once plainly and once under each option that only
changes how a case is run or reported, and compares each case's verdict underneath its
expectation (actual_status, else status) with the plain run's. The corpus holds a bug of every
kind hkcheck reports (faults, hangs, races, leaks, reads outside a tensor, unwritten shared
memory), so an option that disturbs one kind shows here.

One kind is seen differently by design: a kernel whose device state outlives a launch (LEAK in a
reused worker) is FLAKY under --repeat, where its second launch sees the state, and passes under
--isolation case, where nothing runs before it. Those two, for the kernels the plain run calls
LEAK, are the only differences allowed.

  verdicts_under_every_option.py HKCHECK CORPUS OUT
"""
import json
import os
import shutil
import subprocess
import sys

OPTIONS = {
    "time": ["--time"],
    "repeat": ["--repeat", "2"],
    "one_seed": ["--seeds", "0..0"],
    "isolation_case": ["--isolation", "case"],
    "jobs_1": ["--jobs", "1"],
}


def verdicts(hkcheck, corpus, out, extra):
    seed = [] if "--seeds" in extra else ["--seed", "0"]
    cmd = [hkcheck, "--backend", "host", "--manifests", corpus, "--no-repro", "--out", out] + seed + extra
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    path = os.path.join(out, "test_results.json")
    if not os.path.exists(path):
        sys.exit(f"{' '.join(cmd)}: no results; exit {proc.returncode}:\n{proc.stdout[-3000:]}")
    with open(path) as f:
        cases = json.load(f)["cases"]
    # --seeds names each copy '<case> seed=N'; the verdict underneath an XFAIL is actual_status.
    return {(c["kernel"], c["case"].removesuffix(" seed=0")): c.get("actual_status") or c["status"] for c in cases}


def main():
    hkcheck, corpus, out = sys.argv[1:4]
    shutil.rmtree(out, ignore_errors=True)
    base = verdicts(hkcheck, corpus, os.path.join(out, "plain"), [])
    problems = []
    stateful = {k for (k, _), v in base.items() if v == "LEAK"}
    allowed = {"repeat": lambda was, now: now == "FLAKY", "isolation_case": lambda was, now: was == "LEAK" and now == "PASS"}
    for name, extra in OPTIONS.items():
        got = verdicts(hkcheck, corpus, os.path.join(out, name), extra)
        if set(got) != set(base):
            problems.append(f"{name}: other cases: {sorted(set(got) ^ set(base))[:5]}")
        diff = [f"{name}: {k} / {c}: {base[(k, c)]} plainly, {got[(k, c)]} with {' '.join(extra)}"
                for (k, c) in sorted(set(got) & set(base))
                if got[(k, c)] != base[(k, c)] and not (k in stateful and name in allowed and allowed[name](base[(k, c)], got[(k, c)]))]
        print(f"{' '.join(extra)}: {len(got)} cases, {len(diff)} verdicts differ from the plain run's (beyond a stateful kernel's)")
        problems += diff
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
