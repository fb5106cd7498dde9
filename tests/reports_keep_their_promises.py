#!/usr/bin/env python3
"""End to end: the reports of runs full of failures keep their promises (docs/results.md, docs/ci.md).

A manifest folder of many kernels that do not compile (each in its own file, each log long), one
kernel that computes wrong values and one that writes past its buffer, generated here:
- test_results.md stays under 60,000 characters, run on the host backend and compile-only;
- junit.xml is well-formed; each failure or error has a one-line message that is more than its
  verdict and a body with what went wrong (the mismatch, the guard, the compiler log);
- with -x, the cases left NOT_RUN are <skipped>, not <error>.
Usage: reports_keep_their_promises.py HKCHECK WORK [--compile-only-arch ARCH]"""
import argparse
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

BUDGET = 60000
problems = []


def check(ok, what):
    if not ok:
        problems.append(what)
    return ok


def kernel(name, source, entry, cases=1):
    return {"name": name, "source": f"../kernels/{source}", "entry": entry, "reference": "copy", "params": {"n": 100},
            "cases": [{"name": f"n=100 #{i}"} for i in range(cases)],
            "tensors": [{"name": "x", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                        {"name": "out", "dtype": "f32", "shape": ["n"], "role": "out", "tolerance": {"atol": 0, "rtol": 0}}],
            "args": ["out", "x", {"dtype": "i32", "value": "n"}], "launch": {"grid": ["ceil_div(n, 64)"], "block": [64]}}


def make_project(root, broken):
    kernels = root / "kernels"
    kernels.mkdir(parents=True)
    entries = []
    for i in range(broken):
        lines = [f"  out[{j}] = undeclared_{i}_{j} + x[{j}];" for j in range(40)]  # forty errors, each its own
        (kernels / f"broken_{i}.cu").write_text('#include "hkcheck.h"\n\nHK_KERNEL void broken_%d(f32* out, const f32* x, int n) {\n%s\n}\n'
                                                % (i, "\n".join(lines)))
        entries.append(kernel(f"broken_{i}", f"broken_{i}.cu", f"broken_{i}", cases=2))
    (kernels / "wrong.cu").write_text('#include "hkcheck.h"\n\n'
                                      'HK_KERNEL void off_by_one(f32* out, const f32* x, int n) {\n'
                                      '  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n'
                                      '  if (i < n) out[i] = x[i] + (i == 7 ? 1.0f : 0.0f);\n}\n\n'
                                      'HK_KERNEL void past_end(f32* out, const f32* x, int n) {\n'
                                      '  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n'
                                      '  if (i <= n) out[i] = x[i < n ? i : n - 1];\n}\n')
    entries = [kernel("a_off_by_one", "wrong.cu", "off_by_one"), kernel("a_past_end", "wrong.cu", "past_end")] + entries
    (root / "manifests").mkdir()
    import json
    (root / "manifests" / "broken.json").write_text(json.dumps({"hkcheck_manifest": 1, "kernels": entries}, indent=1))
    return root / "manifests"


def run(hkcheck, args, expected):
    p = subprocess.run([hkcheck] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    check(p.returncode == expected, f"{' '.join(args)}: exit {p.returncode}, expected {expected}\n{p.stdout[-3000:]}")


def markdown_fits(out, label):
    md = (out / "test_results.md").read_text(encoding="utf-8")
    check(len(md) < BUDGET, f"{label}: test_results.md has {len(md)} characters")
    print(f"{label}: test_results.md {len(md)} characters")
    return md


def junit_cases(path, label):
    try:
        return ET.parse(path).getroot().iter("testcase")
    except ET.ParseError as e:
        check(False, f"{label}: {path} is not well-formed XML: {e}")
        return []


def judged(case):
    return next((e for e in case if e.tag in ("failure", "error")), None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("hkcheck")
    ap.add_argument("work", type=Path)
    ap.add_argument("--compile-only-arch", default="")
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    manifests = make_project(a.work / "project", 60)
    common = ["--manifests", str(manifests), "--no-repro"]

    # Every case on the host backend: 120 COMPILE_ERROR, a FAIL, a guard breach.
    out = a.work / "host"
    run(a.hkcheck, ["--backend", "host"] + common + ["--out", str(out), "--junit", str(out / "junit.xml")], 1)
    md = markdown_fits(out, "host run")
    check("more compile log(s): see test_results.json" in md or "more line(s): test_results.json" in md,
          "host run: the compile logs are not summed up with a pointer to test_results.json")
    seen = set()
    for case in junit_cases(out / "junit.xml", "host run"):
        element = judged(case)
        if element is None:
            continue
        name, message, body = case.get("classname"), element.get("message", ""), (element.text or "")
        check(message not in ("", element.get("type")), f"junit {name}: message is only {message!r}")
        check("\n" not in message, f"junit {name}: message is more than one line")
        check(body.strip() != "", f"junit {name}: empty body")
        if name == "a_off_by_one":
            seen.add(name)
            check("first mismatch at [7]" in body, f"junit {name}: the mismatch is not in the body: {body[:500]}")
        elif name == "a_past_end":
            seen.add(name)
            check("guard of out" in body, f"junit {name}: the guard breach is not in the body: {body[:500]}")
        elif name == "broken_3":
            seen.add(name)
            check("compiler log:" in body and "undeclared_3_0" in body, f"junit {name}: the compiler log is not in the body")
    check(seen == {"a_off_by_one", "a_past_end", "broken_3"}, f"host run: junit lacks failures for {seen}")

    # -x: the cases after the first failure are NOT_RUN, and skipped in JUnit.
    out = a.work / "exitfirst"
    run(a.hkcheck, ["--backend", "host", "-x", "--jobs", "1"] + common + ["--out", str(out), "--junit", str(out / "junit.xml")], 1)
    not_run = 0
    for case in junit_cases(out / "junit.xml", "-x run"):
        element = judged(case)
        check(element is None or element.get("type") != "NOT_RUN", f"-x run: {case.get('classname')} NOT_RUN is an <{element.tag if element is not None else ''}>")
        skipped = case.find("skipped")
        not_run += skipped is not None and skipped.get("message", "").startswith("NOT_RUN")
    check(not_run > 0, "-x run: no NOT_RUN case is <skipped>")

    # Compile-only: every kernel's log, each long, and its own message.
    if a.compile_only_arch:
        out = a.work / "compile_only"
        run(a.hkcheck, ["--compile-only", "--arch", a.compile_only_arch] + common + ["--out", str(out), "--junit", str(out / "junit.xml")], 1)
        markdown_fits(out, "compile-only run")
        check(len(list(junit_cases(out / "junit.xml", "compile-only run"))) > 0, "compile-only run: no testcase in junit.xml")

    for p in problems:
        print("problem:", p)
    print("ok" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
