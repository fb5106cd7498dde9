"""Part "run_record" of the audit: the record of a run, as --resume, merge, diff and rerun.sh read
it back (issue 28). Each attack is something a careless user does, on a kernel project of its own
outside hkcheck's tree (a correct kernel, a wrong copy, a reference of the project's own), run on
the host backend. audit.py calls part_run_record(audit, args, tools), tools being audit.py itself
(run_hk, fresh_folder, load_json, describe_rc, leftovers)."""
import json
import os
import shutil
import sys
import subprocess
import time

PART = "run_record"

AXPY = """template <typename T>
__global__ void axpy(T* out, const T* x, const T* y, T a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
"""
REFERENCE = """#include "reference.h"
HK_REFERENCE(team_axpy) { ctx.matrix("out") = ctx.num("a") * ctx.matrix("x") + ctx.matrix("y"); }
"""


def axpy_kernel(name, source, cases):
    return {"name": name, "source": source, "entry": "axpy<float>", "reference": "team_axpy", "params": {"n": 1000, "a": 1.5},
            "cases": cases,
            "tensors": [{"name": "x", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                        {"name": "y", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "uniform", "low": -2, "high": 2}},
                        {"name": "out", "dtype": "f32", "shape": ["n"], "role": "out", "tolerance": {"ulps": 1, "atol": 1e-6}}],
            "args": ["out", "x", "y", {"dtype": "f32", "value": "a"}, {"dtype": "i32", "value": "n"}],
            "launch": {"grid": ["ceil_div(n, 256)"], "block": [256]}}


def write_manifest(path, kernels):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hkcheck_manifest": 1, "kernels": kernels}, indent=1))


def make_project(root):
    """team_axpy (6 cases: a sweep of 5 and "big"), team_axpy2 (2 cases) in manifests/, and in
    wrong/ a kernel that computes a*x - y."""
    (root / "kernels").mkdir(parents=True)
    (root / "references").mkdir()
    (root / "kernels" / "axpy.cu").write_text(AXPY)
    (root / "kernels" / "axpy_wrong.cu").write_text(AXPY.replace("+ y[i]", "- y[i]"))
    (root / "references" / "axpy.cpp").write_text(REFERENCE)
    write_manifest(root / "manifests" / "axpy.json", [axpy_kernel(
        "team_axpy", "../kernels/axpy.cu", [{"sweep": {"n": [1, 7, 100, 1000, 4096]}}, {"name": "big", "params": {"n": 3000}}])])
    write_manifest(root / "manifests" / "axpy2.json", [axpy_kernel("team_axpy2", "../kernels/axpy.cu", [{"sweep": {"n": [1, 100]}}])])
    write_manifest(root / "wrong" / "axpy_wrong.json", [axpy_kernel("team_axpy_wrong", "../kernels/axpy_wrong.cu",
                                                                    [{"name": "n1000", "params": {"n": 1000}}])])


class Attacks:
    def __init__(self, audit, tools, work):
        self.audit, self.t, self.work = audit, tools, work
        self.base = work / "project"
        self.cache = work / "cache"
        make_project(self.base)

    def project(self, name):
        """A copy of the project of its own, for an attack that edits it."""
        dest = self.work / name
        shutil.copytree(self.base, dest)
        return dest

    def hk(self, args, cwd, limit=240, env=None):
        tag = self.audit.new_tag(PART)
        full = ["--backend", "host", "--jobs", "1", "--cache-dir", str(self.cache)] + args if args and args[0] not in ("merge", "diff") else args
        r = self.t.run_hk(self.audit, full, tag, cwd, limit)
        left = self.t.leftovers(tag)
        if left:
            self.audit.finding(PART, f"hkcheck {' '.join(map(str, args))}: {len(left)} process(es) left running", keep=cwd)
        return r

    def results(self, out):
        doc, _ = self.t.load_json(out / "test_results.json")
        return doc or {}

    def case_names(self, out):
        return sorted(c.get("case") for c in self.results(out).get("cases", []))

    def probe(self, what, ok, keep, detail=""):
        if ok:
            self.audit.held(what)
        else:
            self.audit.finding(PART, what, keep=keep, extra=detail)


def resume_attacks(a):
    p = a.project("resume")
    for label, args, expected in [
        ("-k", ["-k", "n=1", "-k", "big", "team_axpy"], ["big", "n=1", "n=100", "n=1000"]),
        ("--exclude", ["--exclude", "n=4096", "--exclude", "big", "team_axpy"], ["n=1", "n=100", "n=1000", "n=7"]),
        ("a kernel/case pattern", ["team_axpy/n=1*"], ["n=1", "n=100", "n=1000"]),
    ]:
        out = p / f"out_{label.strip('-').split()[0]}"
        first = a.hk(args + ["--out", out], p)
        again = a.hk(["--resume", out], p)
        names = a.case_names(out)
        a.probe(f"--resume of an unchanged run ({label}) keeps every result", "changed since" not in again.stderr, out, again.stderr[-2000:])
        a.probe(f"--resume keeps {label}: the run's cases {expected}, no others", first.rc == 0 and again.rc == 0 and names == sorted(expected),
                out, f"{a.t.describe_rc(first.rc)}, then {a.t.describe_rc(again.rc)}: {names}\n{again.stderr[-2000:]}")

    # --last-failed: the resumed run takes the cases it chose, though its source is gone.
    full = p / "out_full"
    a.hk(["--out", full, "team_axpy"], p)
    earlier = a.results(full)
    for c in earlier.get("cases", []):
        if c.get("case") == "n=100":
            c["status"] = "FAIL"
    (p / "earlier").mkdir()
    (p / "earlier" / "test_results.json").write_text(json.dumps(earlier))
    out = p / "out_last_failed"
    first = a.hk(["--last-failed", p / "earlier", "--out", out], p)
    shutil.rmtree(p / "earlier")
    again = a.hk(["--resume", out], p)
    a.probe("--resume keeps the cases --last-failed chose", first.rc == 0 and again.rc == 0 and a.case_names(out) == ["n=100"], out,
            f"{a.t.describe_rc(first.rc)}, then {a.t.describe_rc(again.rc)}: {a.case_names(out)}\n{again.stderr[-2000:]}")

    # --shard: recorded in the run, and a resumed shard stays that shard.
    out = p / "out_shard"
    first = a.hk(["--shard", "1/2", "--out", out], p)
    shard = a.case_names(out)
    again = a.hk(["--resume", out], p)
    spec = a.results(out).get("run", {}).get("spec", {})
    a.probe("--resume of --shard 1/2 stays that shard, and the shard is in run.spec",
            first.rc == 0 and again.rc == 0 and a.case_names(out) == shard and 0 < len(shard) < 8 and
            spec.get("selection", {}).get("shard") == "1/2", out, f"{shard} then {a.case_names(out)}; spec {spec}\n{again.stderr[-2000:]}")

    # A conflicting option is refused, naming it.
    r = a.hk(["--resume", p / "out_k", "-k", "n=100"], p)
    a.probe("--resume -k with another pattern than the run's is refused, naming -k", r.rc == 2 and "used -k" in r.stderr, p / "out_k",
            f"{a.t.describe_rc(r.rc)}\n{r.stderr[-2000:]}")


def stale_result_attacks(a):
    # The kernel made wrong after a run that passed: --resume must not keep the PASS results.
    p = a.project("stale_kernel")
    out = p / "out"
    first = a.hk(["--out", out, "team_axpy"], p)
    (p / "kernels" / "axpy.cu").write_text(AXPY.replace("+ y[i]", "- y[i]"))
    again = a.hk(["--resume", out], p)
    s = a.results(out).get("summary", {})
    a.probe("--resume after the kernel went wrong runs its cases again (FAIL), keeping no PASS",
            first.rc == 0 and again.rc == 1 and s.get("PASS") == 0, out, f"{a.t.describe_rc(again.rc)}, summary {s}\n{again.stderr[-2000:]}")

    # A case's params changed in the manifest: the result must have the manifest's params.
    p = a.project("stale_params")
    out = p / "out"
    a.hk(["--out", out, "team_axpy"], p)
    m = json.loads((p / "manifests" / "axpy.json").read_text())
    m["kernels"][0]["cases"][1]["params"]["n"] = 2000
    (p / "manifests" / "axpy.json").write_text(json.dumps(m))
    again = a.hk(["--resume", out], p)
    big = [c for c in a.results(out).get("cases", []) if c.get("case") == "big"]
    n = big[0].get("params", {}).get("n") if big else None
    a.probe("--resume after a case's params changed runs it with the manifest's params", again.rc == 0 and n == 2000, out,
            f"{a.t.describe_rc(again.rc)}: big has n={n}\n{again.stderr[-2000:]}")

    # A NOT_RUN line in the journal is no result: its case runs again.
    p = a.project("not_run_line")
    out = p / "out"
    a.hk(["--out", out, "team_axpy"], p)
    journal = (out / "results.jsonl").read_text()
    (out / "results.jsonl").write_text(journal.replace('"status":"PASS"', '"status":"NOT_RUN"', 1))
    again = a.hk(["--resume", out], p)
    s = a.results(out).get("summary", {})
    a.probe("--resume runs again a case whose journal line is NOT_RUN", again.rc == 0 and s.get("NOT_RUN") == 0 and s.get("PASS") == 6,
            out, f"{a.t.describe_rc(again.rc)}, summary {s}\n{again.stderr[-2000:]}")


def merge_attacks(a):
    p = a.project("merge")
    parts = [p / "part1", p / "part2"]
    for k, part in enumerate(parts, 1):
        a.hk(["--source", "hip", "--shard", f"{k}/2", "--out", part], p)
    r = a.hk(["merge", p / "merged", *parts], p)
    run = a.results(p / "merged").get("run", {})
    a.probe("merge keeps run.spec.source_vendor (and the rest of the run record)",
            r.rc == 0 and run.get("spec", {}).get("source_vendor") == "hip", p, f"{a.t.describe_rc(r.rc)}: {run}")
    r = a.hk(["merge", p / "half", parts[0]], p)
    a.probe("merge refuses one shard of two", r.rc == 2 and not (p / "half" / "test_results.json").exists(), p,
            f"{a.t.describe_rc(r.rc)}\n{r.stderr[-2000:]}")
    before = (parts[0] / "test_results.json").read_bytes()
    r = a.hk(["merge", parts[0], *parts], p)
    a.probe("merge refuses to write over one of its parts", r.rc == 2 and (parts[0] / "test_results.json").read_bytes() == before, p,
            f"{a.t.describe_rc(r.rc)}\n{r.stderr[-2000:]}")
    r = a.hk(["merge", p / "twice", parts[0], parts[0], parts[1]], p)
    a.probe("merge refuses a shard given twice", r.rc == 2, p, f"{a.t.describe_rc(r.rc)}\n{r.stderr[-2000:]}")


def diff_attacks(a):
    p = a.project("diff")
    full = p / "full"
    a.hk(["--out", full], p)
    doc = a.results(full)

    def variant(name, change):
        d = json.loads(json.dumps(doc))
        change(d)
        (p / name).mkdir()
        (p / name / "test_results.json").write_text(json.dumps(d))
        return p / name

    future = variant("future", lambda d: d.update(schema_version=99))
    r = a.hk(["diff", full, future], p)
    a.probe("diff refuses a results file of an unknown schema_version", r.rc == 2 and "schema_version" in r.stderr, p,
            f"{a.t.describe_rc(r.rc)}\n{r.stderr[-2000:]}")
    dup = variant("duplicate", lambda d: d["cases"].append(dict(d["cases"][0], status="FAIL")))
    r = a.hk(["diff", full, dup], p)
    a.probe("diff refuses a run holding one case twice", r.rc == 2, p, f"{a.t.describe_rc(r.rc)}\n{r.stdout[-2000:]}")

    def interrupted(d):
        d["run"]["interrupted"] = "SIGINT"
        for c in d["cases"][1:6]:
            c.update(status="NOT_RUN", reason="", actual_status=None)
    stopped = variant("interrupted", interrupted)
    r = a.hk(["diff", full, stopped, "--fail-on", "change"], p)
    a.probe("diff --fail-on change fails when B was interrupted (5 cases NOT_RUN)", r.rc == 1, p, f"{a.t.describe_rc(r.rc)}\n{r.stdout[-2000:]}")
    r = a.hk(["diff", full, stopped], p)
    a.probe("diff (--fail-on regression, the default) fails when B did not run cases A passed", r.rc == 1, p,
            f"{a.t.describe_rc(r.rc)}\n{r.stdout[-2000:]}")

    # B lost a kernel to a manifest error.
    m = json.loads((p / "manifests" / "axpy2.json").read_text())
    m["kernels"][0]["launch"]["block"] = "256"
    (p / "manifests" / "axpy2.json").write_text(json.dumps(m))
    lost = p / "lost"
    b = a.hk(["--out", lost], p)
    r = a.hk(["diff", full, lost, "--fail-on", "change"], p)
    a.probe("diff --fail-on change fails when B lost a kernel to a manifest error", b.rc == 2 and r.rc == 1, p,
            f"B {a.t.describe_rc(b.rc)}, diff {a.t.describe_rc(r.rc)}\n{r.stdout[-2000:]}")
    r = a.hk(["diff", full, lost, "--fail-on", "regression"], p)
    a.probe("diff --fail-on regression fails when B lost a kernel to a manifest error", b.rc == 2 and r.rc == 1, p,
            f"B {a.t.describe_rc(b.rc)}, diff {a.t.describe_rc(r.rc)}\n{r.stdout[-2000:]}")


# A worker binary of another hkcheck build: it speaks another protocol version at its hello.
OTHER_PROTOCOL_WORKER = """import os, sys, time
dev = {"backend": "host", "name": "other build", "arch": "x86", "driver_version": "", "runtime_version": "",
       "max_threads_per_block": 1024, "max_block": [1024, 1024, 64], "max_grid": [1, 1, 1], "shared_per_block": 0,
       "shared_per_block_optin": 0, "total_memory": 0, "multiprocessors": 1, "warp_size": 32}
import json
os.write(3, (json.dumps({"type": "hello", "protocol": 99, "ok": True, "device": dev}) + "\\n").encode())
for line in sys.stdin:
    os.write(3, (json.dumps({"type": "result", "id": json.loads(line).get("id"), "result": {"status": "PASS"}}) + "\\n").encode())
"""


def protocol_attacks(a):
    p = a.project("protocol")
    worker = p / "other_worker.py"
    worker.write_text("#!" + sys.executable + "\n" + OTHER_PROTOCOL_WORKER)
    worker.chmod(0o755)
    r = a.hk(["--worker-exe", worker, "--out", p / "out"], p)
    said = r.stderr + json.dumps(a.results(p / "out"))
    passed = [c for c in a.results(p / "out").get("cases", []) if c.get("status") == "PASS"]
    a.probe("a worker of another protocol version is refused at its hello, by name, and nothing passes",
            r.rc not in (0, None) and not passed and "another hkcheck build" in said, p,
            f"{a.t.describe_rc(r.rc)}, {len(passed)} PASS\n{r.stderr[-2000:]}")


def rerun_attacks(a):
    p = a.project("rerun")
    out = p / "out"
    settings = ["--host-profile", "mi325x", "--tier", "all", "--repeat", "3", "--source", "hip", "--timeout", "17"]
    first = a.hk(settings + ["--manifests", "wrong", "--out", out], p)
    reruns = sorted(out.glob("repro/*/*/rerun.sh"))
    if first.rc != 1 or len(reruns) != 1:
        a.audit.finding(PART, f"the wrong kernel's run: {a.t.describe_rc(first.rc)}, {len(reruns)} rerun.sh", keep=out,
                        extra=first.stderr[-2000:])
        return
    text = reruns[0].read_text()
    missing = [o for o in ("--host-profile mi325x", "--tier all", "--repeat 3", "--source hip", "--timeout 17", "--backend host")
               if o not in text]
    a.probe("rerun.sh carries the run's settings (host profile, tier, repeat, source, timeout, backend)", not missing, out,
            f"missing {missing}:\n{text}")
    # Run from elsewhere with the audited binary: the project's reference must be found.
    env = dict(os.environ, HKCHECK=a.audit.hkcheck, NO_COLOR="1")
    t0 = time.monotonic()
    try:
        r = subprocess.run(["sh", str(reruns[0]), "--cache-dir", str(a.cache), "--jobs", "1"], cwd="/", env=env, capture_output=True,
                           text=True, timeout=240)
        rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        rc, err = None, "no exit within 240 s"
    again = a.results(reruns[0].parent.parent / (reruns[0].parent.name + ".rerun"))
    statuses = [c.get("status") for c in again.get("cases", [])]
    a.probe("rerun.sh of a project outside hkcheck's tree reaches the same verdict (FAIL)", rc == 1 and statuses == ["FAIL"],
            reruns[0].parent, f"exit {rc} after {time.monotonic() - t0:.0f} s, {statuses}\n{err[-2000:]}")


def part_run_record(audit, args, tools):
    t0 = time.monotonic()
    p0, f0 = audit.passed, audit.failed
    work = tools.fresh_folder(audit, PART)
    a = Attacks(audit, tools, work)
    first = a.hk(["--out", work / "warm", "--manifests", a.base / "manifests"], a.base)
    if first.rc != 0:
        audit.finding(PART, f"the correct project does not pass ({tools.describe_rc(first.rc)})", keep=work, extra=first.stderr[-3000:])
        return
    for attacks in (resume_attacks, stale_result_attacks, merge_attacks, diff_attacks, protocol_attacks, rerun_attacks):
        attacks(a)
    print(f"part {PART}: {audit.passed - p0} held, {audit.failed - f0} findings, {time.monotonic() - t0:.0f} s", flush=True)
