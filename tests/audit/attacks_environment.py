"""Part "environment" of the audit (tests/audit/README.md, part 9): the doors beside the kernel
process, and the ordinary environments hkcheck must survive.

- A header edited where a kernel reaches it through "../", on an -isystem folder, and a reference's
  own header outside references/: the warm rerun and --resume give the cold run's verdict.
- A manifest option that runs a program (-B<dir>/ with a planted `as`) or writes outside --out
  (-MD -MF<path>) is refused naming the option, and nothing of it runs or is written.
- As root: a temporary reference folder another user (65534) made is refused, never built into.
- A secret in hkcheck's environment: the kernel cannot read it, and no report holds it.
- A kernel source outside the project (a path, or a link inside to a file outside): refused and
  nothing of it in the results; --allow-outside-root takes it.
- A compile worker that leaves a child behind: nothing of the compile-only run outlives it.
- As root, NVRTC and hipRTC (which compile inside hkcheck's processes) read as the compile user:
  a project in a 0700 home, its kernel's folder 0700, compiles; a kernel that includes a file only
  root may read is a COMPILE_ERROR saying so, and the file's text is in no output.
- ulimit -v 1 GB: a cold run passes; 300 MB: each case an ERROR saying memory, no abort.
- ulimit -n 40: the run adapts and passes; ulimit -n 12: exit 2 naming the limit.
- A project folder whose name holds a newline, a quote and a backslash: its kernel passes.
- A kernel whose compile warns 20,000 times, run as 10 cases: the results stay small.
- stderr closed, stderr on /dev/full, a reader that goes away (`| head -c 1`), and SIGHUP: the run
  ends as it would otherwise, its results written, never exit 134/141.

Called by audit.py with its own module (`h`) for the shared helpers.
"""
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

PART = "environment"

KERNEL = r"""// out = x * FACTOR_A * FACTOR_B * FACTOR_C: one factor from a header beside the kernel, one
// through "../", one on an -isystem folder.
#include "hkcheck.h"
#include "beside.h"
#include "../shared/parent.h"
#include <sys_factor.h>
HK_KERNEL void audit_env_scale(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * (FACTOR_A * FACTOR_B * FACTOR_C);
}
"""

REFERENCE = '#include "reference.h"\n#include "../shared/ref_factor.h"\nHK_REFERENCE(audit_env_scale) { ctx.matrix("out") = kRefFactor * ctx.matrix("x"); }\n'


def make_project(folder, options=None):
    for sub in ("kernels/scale", "shared", "sys", "manifests", "references"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "kernels/scale/scale.cu").write_text(KERNEL)
    (folder / "kernels/scale/beside.h").write_text("#define FACTOR_A 1.0f\n")
    (folder / "shared/parent.h").write_text("#define FACTOR_B 2.0f\n")
    (folder / "sys/sys_factor.h").write_text("#define FACTOR_C 1.0f\n")
    (folder / "shared/ref_factor.h").write_text("constexpr double kRefFactor = 2.0;\n")
    (folder / "references/audit_env_scale.cpp").write_text(REFERENCE)
    entry = {"name": "audit_env_scale", "source": "../kernels/scale/scale.cu", "entry": "audit_env_scale", "reference": "audit_env_scale",
             # -I under NVRTC, which has no -isystem
             "options": {"all": options or [], "host": ["-isystem", "../sys"], "hiprtc": ["-isystem", "../sys"], "nvrtc": ["-I", "../sys"]},
             "params": {"n": 1000}, "cases": [{"name": "n=1000"}],
             "tensors": [{"name": "x", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "uniform", "low": -1, "high": 1}},
                         {"name": "out", "dtype": "f32", "shape": ["n"], "role": "out", "tolerance": {"atol": 0, "rtol": 0, "why": "exact"}}],
             "args": ["out", "x", {"dtype": "i32", "value": "n"}], "launch": {"grid": [4], "block": [256]}}
    (folder / "manifests/env.json").write_text(json.dumps({"hkcheck_manifest": 1, "kernels": [entry]}, indent=1))
    return folder


class Environment:
    def __init__(self, audit, args, h):
        self.audit, self.args, self.h = audit, args, h
        self.work = h.fresh_folder(audit, PART)
        self.n = 0

    def probe(self, ok, what, why="", keep=None):
        if ok:
            self.audit.held(what)
        else:
            self.audit.finding(PART, what, keep=keep, extra=why)

    def command(self, project, cache, out, *more):
        return [self.audit.hkcheck, "--backend", "host", "--jobs", "1", "--no-repro", "--root", str(project), "--cache-dir", str(cache),
                "--out", str(out)] + [str(m) for m in more]

    def run(self, label, project, cache, *more, bound=240):
        self.n += 1
        out = self.work / f"{self.n:02d}-{label}"
        r = self.h.run_hk(self.audit, self.command(project, cache, out, *more)[1:], self.audit.new_tag("env"), self.work, bound)
        doc, _ = self.h.load_json(out / "test_results.json")
        return r, doc, out

    @staticmethod
    def verdict(doc):
        cases = (doc or {}).get("cases", [])
        return cases[0]["status"] if len(cases) == 1 else None

    # -- every byte that decides a verdict is in the key ------------------------------------------

    def stale_headers(self):
        project, cache = make_project(self.work / "stale"), self.work / "stale-cache"
        r, doc, last = self.run("stale-cold", project, cache)
        self.probe(self.verdict(doc) == "PASS", "stale headers: the project as written passes", r.stderr[-1500:], last)
        for header in ("shared/parent.h", "sys/sys_factor.h", "shared/ref_factor.h"):
            path = project / header
            was = path.read_text()
            path.write_text(was.replace("2.0", "3.0").replace("1.0", "3.0"))
            r, doc, folder = self.run("stale-warm", project, cache)
            self.probe(self.verdict(doc) == "FAIL", f"stale headers: {header} edited, the warm rerun fails", f"got {self.verdict(doc)}", folder)
            resumed = self.work / f"resume-{header.replace('/', '_')}"
            subprocess.run(["cp", "-r", str(last), str(resumed)], check=True)
            r = self.h.run_hk(self.audit, self.command(project, cache, resumed, "--resume", resumed)[1:], self.audit.new_tag("env"), self.work, 240)
            doc, _ = self.h.load_json(resumed / "test_results.json")
            self.probe(self.verdict(doc) == "FAIL", f"stale headers: {header} edited, --resume of a passed run fails", f"got {self.verdict(doc)}",
                       resumed)
            path.write_text(was)
            r, doc, last = self.run("stale-undone", project, cache)
            self.probe(self.verdict(doc) == "PASS", f"stale headers: {header} as it was passes again", f"got {self.verdict(doc)}", last)

    # -- hostile options ---------------------------------------------------------------------------

    def hostile_options(self):
        planted = self.work / "planted"
        planted.mkdir()
        marker = self.work / "as-ran-as-root"
        (planted / "as").write_text(f"#!/bin/sh\ntouch {marker}\nexec /usr/bin/as \"$@\"\n")
        (planted / "as").chmod(0o755)
        depfile = self.work / "outside-out.d"
        for label, options in (("-B", ["-B" + str(planted) + "/"]), ("-MD -MF", ["-MD", "-MF" + str(depfile)])):
            project = make_project(self.work / f"opt{self.n}", options)
            r, doc, folder = self.run("hostile-option", project, self.work / "opt-cache")
            errors = " ".join((doc or {}).get("run", {}).get("manifest_errors", []) or (doc or {}).get("manifest_errors", []))
            self.probe(f"compiler option '{options[0]}' is not allowed" in errors + r.stderr, f"hostile options: {label} is refused, named",
                       (errors or r.stderr)[-1500:], folder)
        self.probe(not marker.exists(), "hostile options: the planted `as` never ran")
        self.probe(not depfile.exists(), "hostile options: nothing was written outside --out")

    # -- trusted folders ---------------------------------------------------------------------------

    def planted_reference_folder(self):
        shared = self.work / "shared-cache"
        shared.mkdir()
        os.chmod(shared, 0o777)
        r, doc, out = self.run("shared-cache", make_project(self.work / "shared-project"), shared)
        self.probe(r.rc == 2 and "its group or others can write to it" in r.stderr and doc is None,
                   "trusted folders: a --cache-dir others may write to is refused before anything runs", r.stderr[-1500:], out)
        if os.geteuid() != 0:
            print("audit: environment: not root, the planted-folder probe is skipped", flush=True)
            return
        tmp = self.work / "tmp"
        tmp.mkdir()
        planted = tmp / f"hkcheck-references-{os.getuid()}"
        planted.mkdir(mode=0o777)
        os.chmod(planted, 0o777)
        os.chown(planted, 65534, 65534)
        project = make_project(self.work / "planted-project")
        out = self.work / "planted-out"
        cmd = [self.audit.hkcheck, "--backend", "host", "--jobs", "1", "--no-repro", "--root", str(project), "--no-cache", "--out", str(out)]
        env = dict(os.environ, TMPDIR=str(tmp), NO_COLOR="1")
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
        doc, _ = self.h.load_json(out / "test_results.json")
        self.probe(self.verdict(doc) != "PASS" and "owned by uid 65534" in json.dumps(doc) + r.stderr,
                   "trusted folders: a temporary reference folder of uid 65534 is refused, said", r.stderr[-1500:], out)
        self.probe(not any(planted.iterdir()), "trusted folders: nothing was built into the planted folder")

    # -- hkcheck's own output ----------------------------------------------------------------------

    def streams(self):
        project, cache = make_project(self.work / "streams"), self.work / "streams-cache"
        cases = (("stderr closed", "2>&-"), ("stderr on /dev/full", "2>/dev/full"), ("stdout closed", ">&-"),
                 ("a reader that goes away", "2>&1 | head -c 1 >/dev/null"))
        for label, redirect in cases:
            out = self.work / f"streams-{label.replace(' ', '_').replace('/', '_')}"
            cmd = " ".join(self.h.shlex_quote(c) for c in self.command(project, cache, out)) + " " + redirect
            r = self.run_shell(cmd)
            doc, _ = self.h.load_json(out / "test_results.json")
            self.probe(r == 0 and self.verdict(doc) == "PASS", f"streams: {label}: exit 0 and the results written",
                       f"exit {r}, verdict {self.verdict(doc)}", out)

    def run_shell(self, cmd):
        """cmd's own exit status (the first command of a pipeline), through a file."""
        status = self.work / f"status-{self.n}"
        self.n += 1
        subprocess.run(["bash", "-c", f"{cmd}; echo ${{PIPESTATUS[0]}} > {status}"], timeout=240, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            return int(status.read_text().strip())
        except (OSError, ValueError):
            return None

    def sighup(self):
        """SIGHUP while a case runs: the reports are written, the case NOT_RUN or done, exit 129."""
        project, cache = make_project(self.work / "hup"), self.work / "hup-cache"
        out = self.work / "hup-out"
        p = self.h.start_hk(self.audit, self.command(project, cache, out, "--seeds", "0..199")[1:], self.audit.new_tag("hup"), self.work)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (out / "results.jsonl").exists():
            time.sleep(0.1)
        time.sleep(0.5)
        p.send_signal(signal.SIGHUP)
        try:
            p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            self.h.kill_group(p.pid)
            p.communicate()
        doc, _ = self.h.load_json(out / "test_results.json")
        interrupted = (doc or {}).get("run", {}).get("interrupted") or (doc or {}).get("interrupted")
        self.probe(p.returncode == 129 and doc is not None, "SIGHUP: exit 129 with the reports written",
                   f"{self.h.describe_rc(p.returncode)}, results {'written' if doc else 'missing'}, interrupted {interrupted}", out)


def part_environment(audit, args, h):
    e = Environment(audit, args, h)
    e.stale_headers()
    e.hostile_options()
    e.planted_reference_folder()
    e.streams()
    e.sighup()
    secret_environment(e)
    big_compile_log(e)
    odd_project_path(e)
    descriptor_limits(e)
    compile_only_leftovers(e)
    in_process_compilers_under_root(e)
    sources_outside(e)
    address_space_limits(e)


SECRET_KERNEL = r"""// Fails when it can read the secret of hkcheck's environment; prints what it sees.
#include "hkcheck.h"
#include <cstdio>
#include <cstdlib>
HK_KERNEL void audit_env_secret(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const char* secret = std::getenv("AUDIT_SECRET_TOKEN");
  if (i == 0) std::printf("the kernel sees AUDIT_SECRET_TOKEN=%s\n", secret ? secret : "(nothing)");
  if (i < n) out[i] = x[i] * (secret ? 3.0f : 2.0f);
}
"""


def secret_environment(e):
    """A secret in hkcheck's environment never reaches the kernel, nor so the results."""
    project = make_project(e.work / "secret")
    (project / "kernels/scale/scale.cu").write_text(SECRET_KERNEL)
    (project / "shared/parent.h").write_text("")
    doc = json.loads((project / "manifests/env.json").read_text())
    doc["kernels"][0].update({"name": "audit_env_secret", "entry": "audit_env_secret"})
    (project / "manifests/env.json").write_text(json.dumps(doc))
    out = e.work / "secret-out"
    env = dict(os.environ, AUDIT_SECRET_TOKEN="hunter2-do-not-leak", NO_COLOR="1")
    r = subprocess.run(e.command(project, e.work / "secret-cache", out), env=env, capture_output=True, text=True, timeout=240)
    doc, _ = e.h.load_json(out / "test_results.json")
    text = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    e.probe(e.verdict(doc) == "PASS", "environment: the kernel does not see hkcheck's secret", f"verdict {e.verdict(doc)}\n{r.stderr[-1500:]}", out)
    e.probe("hunter2" not in text + r.stdout + r.stderr, "environment: the secret is in no report and no output", keep=out)


def big_compile_log(e):
    """A kernel whose compile warns 20,000 times, run as 10 cases: each record keeps a bounded log."""
    project = make_project(e.work / "warnings")
    source = project / "kernels/scale/scale.cu"
    source.write_text("".join(f'#warning "warning number {i} of a chatty header"\n' for i in range(20000)) + KERNEL)
    doc = json.loads((project / "manifests/env.json").read_text())
    doc["kernels"][0]["cases"] = [{"sweep": {"n": list(range(991, 1001))}}]
    doc["kernels"][0]["launch"]["grid"] = [4]
    (project / "manifests/env.json").write_text(json.dumps(doc))
    r, results, out = e.run("warnings", project, e.work / "warnings-cache")
    cases = (results or {}).get("cases", [])
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    e.probe(len(cases) == 10 and all(c["status"] == "PASS" for c in cases), "compile logs: 10 cases of a chatty kernel pass",
            r.stderr[-1500:], out)
    e.probe(size < 8 << 20, f"compile logs: the results of 10 cases with a 20,000-warning log stay small ({size >> 10} KiB)", keep=out)


def odd_project_path(e):
    """A project folder whose name holds a newline, a quote and a backslash: its kernel compiles and passes."""
    project = make_project(e.work / 'odd\nname "quoted" back\\slash')
    r, doc, out = e.run("odd-path", project, e.work / "odd-cache")
    e.probe(e.verdict(doc) == "PASS", "paths: a project folder with a newline, a quote and a backslash in its name passes",
            f"verdict {e.verdict(doc)}: {((doc or {}).get('cases') or [{}])[0].get('message', '')[:300]}\n{r.stderr[-800:]}", out)


def descriptor_limits(e):
    """Under ulimit -n 40 the run adapts and passes; under 12 it says the limit and exits 2."""
    project, cache = make_project(e.work / "fds"), e.work / "fds-cache"
    for limit, expect in ((40, 0), (12, 2)):
        out = e.work / f"fds-{limit}"
        cmd = f"ulimit -n {limit}; " + " ".join(e.h.shlex_quote(c) for c in e.command(project, cache, out))
        rc = e.run_shell(cmd + f" 2> {e.h.shlex_quote(str(out) + '.err')}")
        err = (e.work / f"fds-{limit}.err").read_text(errors="replace") if (e.work / f"fds-{limit}.err").exists() else ""
        doc, _ = e.h.load_json(out / "test_results.json")
        ok = rc == expect and (e.verdict(doc) == "PASS" if expect == 0 else "descriptor limit (ulimit -n) is 12" in err)
        e.probe(ok, f"descriptors: under ulimit -n {limit}: exit {expect}" + (" and PASS" if expect == 0 else ", the limit named"),
                f"exit {rc}, verdict {e.verdict(doc)}: {err[-600:]}", out if doc else None)


def compile_only_leftovers(e):
    """A compile worker that leaves a child (as a compiler's helper may): nothing of the
    compile-only run outlives it. Through NVRTC, where this machine has it."""
    if not os.path.exists("/usr/local/cuda/include/nvrtc.h"):
        print("audit: environment: no NVRTC here, the compile-only probe is skipped", flush=True)
        return
    wrapper = e.work / "leaky-compile-worker"
    # The subshell exits at once: its sleep is an orphan before the worker even starts, so no walk
    # of the worker's descendants finds it; only a subreaper above it does.
    wrapper.write_text(f"#!/bin/sh\n(setsid sleep 300 &)\nexec {e.h.shlex_quote(e.audit.hkcheck)} \"$@\"\n")
    wrapper.chmod(0o755)
    project = make_project(e.work / "co-leak")
    tag = e.audit.new_tag("coleak")
    out = e.work / "co-leak-out"
    r = e.h.run_hk(e.audit, ["--compile-only", "--arch", "sm_90", "--worker-exe", wrapper, "--root", project, "--cache-dir",
                             e.work / "co-cache", "--out", out], tag, e.work, 240)
    left = e.h.leftovers(tag, 2.0)
    e.probe(r.rc == 0 and not left, "compile only: a compile worker's child does not outlive the run",
            f"exit {r.rc}; left: {left[:3]}\n{r.stderr[-800:]}", out)


def in_process_compilers_under_root(e):
    """As root: NVRTC and hipRTC compile inside hkcheck's own processes, yet read files as the
    compile user, as the host backend's compilers do. For each of them this machine has."""
    if os.geteuid() != 0:
        print("audit: environment: not root, the in-process compiler probe is skipped", flush=True)
        return
    archs = ["sm_90"] if os.path.exists("/usr/local/cuda/include/nvrtc.h") else []
    hiprtc = os.environ.get("HKCHECK_HIPRTC_ROOT") or os.path.expanduser("~/.cache/hkcheck/hiprtc")
    archs += ["gfx942"] if os.path.exists(os.path.join(hiprtc, "versions.txt")) else []
    if not archs:
        print("audit: environment: neither NVRTC nor a fetched hipRTC here, the in-process compiler probe is skipped", flush=True)
        return
    home = e.work / "rtc-home"
    project = make_project(home / "project")
    home.chmod(0o700)
    # The kernel's own folder nobody else may search (its files are linked for the compile); its
    # "../shared/parent.h" is found through ../sys/.., reached through a descriptor of the project.
    (project / "kernels/scale").chmod(0o700)
    secret = home / "secret.h"
    secret.write_text("not C++ at all: AUDIT_SECRET_XYZZY\n")
    secret.chmod(0o600)
    (project / "kernels/scale/leak.cu").write_text(f'#include "{secret}"\n' + KERNEL.replace("audit_env_scale", "audit_env_leak"))
    doc = json.loads((project / "manifests/env.json").read_text())
    doc["kernels"].append(dict(doc["kernels"][0], name="audit_env_leak", source="../kernels/scale/leak.cu", entry="audit_env_leak"))
    (project / "manifests/env.json").write_text(json.dumps(doc))
    for arch in archs:
        out = e.work / f"rtc-root-{arch}"
        r = e.h.run_hk(e.audit, ["--compile-only", "--arch", arch, "--root", project, "--cache-dir", e.work / "rtc-cache", "--out", out],
                       e.audit.new_tag("rtcroot"), e.work, 300)
        results, _ = e.h.load_json(out / "test_results.json")
        text = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file()) if out.exists() else ""
        verdicts = {c["kernel"]: c["status"] for c in (results or {}).get("cases", [])}
        e.probe(verdicts.get("audit_env_scale") == "PASS", f"in-process compiles under root: {arch}: a project in a private home compiles",
                f"{verdicts}\n{r.stderr[-800:]}", out)
        e.probe(verdicts.get("audit_env_leak") == "COMPILE_ERROR" and "Permission denied" in text and "uid 65533" in text
                and "XYZZY" not in text + r.stdout + r.stderr, f"in-process compiles under root: {arch}: a root-only include is refused, unquoted",
                f"{verdicts}\n{r.stderr[-800:]}", out)


def sources_outside(e):
    """A manifest naming a file outside the project (a pull request's, say) for its source, or a
    link inside it to one: refused, named, nothing of it in the results; --allow-outside-root
    takes it. The other kernel of the manifest still runs."""
    # Outside any repository: the audit's own folder may lie inside this one (ctest's build/).
    import tempfile
    secret = Path(tempfile.mkdtemp(prefix="hkcheck-audit-secret-")) / "ci-secret.cu"
    secret.write_text("// CI_SECRET_hunter3\n")
    for label, name in (("a path outside", str(secret)), ("a link inside to a file outside", "../kernels/scale/link.cu")):
        project = make_project(e.work / f"outside-{label.split()[1]}")
        (project / "kernels/scale/link.cu").symlink_to(secret)
        doc = json.loads((project / "manifests/env.json").read_text())
        other = dict(doc["kernels"][0], name="audit_env_outside", source=name)
        doc["kernels"].append(other)
        (project / "manifests/env.json").write_text(json.dumps(doc))
        r, results, out = e.run("outside", project, e.work / "outside-cache")
        text = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file()) if out.exists() else ""
        verdicts = {c["kernel"]: c["status"] for c in (results or {}).get("cases", [])}
        e.probe(verdicts.get("audit_env_scale") == "PASS" and verdicts.get("audit_env_outside") == "ERROR" and "lies outside the project" in text
                and "CI_SECRET" not in text + r.stderr, f"sources: {label} is refused and nothing of it reported", f"{verdicts}\n{r.stderr[-800:]}", out)
    r, results, out = e.run("outside-allowed", project, e.work / "outside-cache", "--allow-outside-root")
    verdicts = {c["kernel"]: c["status"] for c in (results or {}).get("cases", [])}
    e.probe(verdicts.get("audit_env_outside") not in (None, "ERROR"), "sources: --allow-outside-root takes it", f"{verdicts}", out)
    shutil.rmtree(secret.parent, ignore_errors=True)


def address_space_limits(e):
    """Under ulimit -v 1 GB a cold run passes; under 300 MB its reference compiles fail with the
    compiler's own "virtual memory exhausted", an ERROR per case, never an abort of hkcheck."""
    project = make_project(e.work / "vm")
    for limit_kb, expect_pass in ((1000000, True), (300000, False)):
        out = e.work / f"vm-{limit_kb}"
        cmd = f"ulimit -v {limit_kb}; " + " ".join(e.h.shlex_quote(c) for c in e.command(project, e.work / f"vm-cache-{limit_kb}", out))
        rc = e.run_shell(cmd + f" 2> {e.h.shlex_quote(str(out) + '.err')}")
        err = (e.work / f"vm-{limit_kb}.err").read_text(errors="replace") if (e.work / f"vm-{limit_kb}.err").exists() else ""
        doc, _ = e.h.load_json(out / "test_results.json")
        aborted = any(s in err for s in ("terminate called", "Aborted", "core dumped"))
        ok = not aborted and doc is not None and ((rc == 0 and e.verdict(doc) == "PASS") if expect_pass else
                                                 (rc == 1 and e.verdict(doc) == "ERROR" and "memory" in json.dumps(doc)))
        e.probe(ok, f"address space: under ulimit -v {limit_kb // 1000} MB: " + ("PASS" if expect_pass else "an ERROR that says memory, no abort"),
                f"exit {rc}, verdict {e.verdict(doc)}: {err[-600:]}", out if doc else None)
