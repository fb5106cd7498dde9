#!/usr/bin/env python3
"""hkcheck's own rules never cost a project a kernel (tests/fixtures/no_why_project).

The project widens a tolerance without "why" over three cases. By default: one warning naming
the file and field, and every kernel runs; with --strict: a manifest error that leaves that
kernel out (exit 2, an ERROR row) and the other still runs; named, that kernel is its ERROR row
with its own error; --compile-only of that kernel: a row for it.

  project_rules_check.py HKCHECK PROJECT OUT
"""
import json
import os
import shutil
import subprocess
import sys


def run(hkcheck, project, out, *extra):
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([hkcheck, "--root", project, "--backend", "host", "--no-repro", "--out", out, *extra],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    path = os.path.join(out, "test_results.json")
    cases = json.load(open(path))["cases"] if os.path.exists(path) else []
    return p.returncode, p.stdout, {(c["kernel"], c["case"]): c["status"] for c in cases}, cases


def main():
    hkcheck, project, out = sys.argv[1:4]
    problems = []
    rc, text, cases, _ = run(hkcheck, project, os.path.join(out, "lax"))
    warnings = [l for l in text.splitlines() if "manifest warning" in l]
    if rc != 0 or len(cases) != 6 or set(cases.values()) != {"PASS"}:
        problems.append(f"default: exit {rc}, {len(cases)} cases {sorted(set(cases.values()))}; want 0, 6 PASS")
    if len(warnings) != 1 or "/kernels/0/tensors/1/tolerance" not in warnings[0] or "ops.json" not in warnings[0]:
        problems.append(f"default: want one warning naming ops.json and /kernels/0/tensors/1/tolerance, got {warnings}")
    rc, text, cases, _ = run(hkcheck, project, os.path.join(out, "strict"), "--strict")
    passed = sorted({k for (k, _), s in cases.items() if s == "PASS"})
    errors = sorted({k for (k, _), s in cases.items() if s == "ERROR"})
    if rc != 2 or passed != ["no_why_copy"] or errors != ["no_why_scale"] or "manifest error" not in text:
        problems.append(f"--strict: exit {rc}, PASS {passed}, ERROR {errors}; want 2, no_why_copy passing and no_why_scale an ERROR row")
    # Named, a kernel left out is its ERROR row with its own error, not "no kernel matches".
    rc, text, _, rows = run(hkcheck, project, os.path.join(out, "strict_named"), "--strict", "no_why_scale")
    messages = [c["message"] for c in rows if c["kernel"] == "no_why_scale" and c["status"] == "ERROR"]
    if "no kernel matches" in text or len(messages) != 1 or "/kernels/0/tensors/1/tolerance" not in messages[0]:
        problems.append(f"--strict no_why_scale: want its ERROR row naming /kernels/0/tensors/1/tolerance and no 'no kernel matches', got {messages}\n{text[-1500:]}")
    rc, text, cases, _ = run(hkcheck, project, os.path.join(out, "compile"), "--compile-only", "--arch", "sm_90", "no_why_scale")
    if rc not in (0, 3) or not any(k == "no_why_scale" for k, _ in cases):
        problems.append(f"--compile-only no_why_scale: exit {rc}, rows {sorted(cases)}: want a row for it\n{text[-1500:]}")
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
