"""Part "caches" of the audit (tests/audit/README.md): what hkcheck keeps between runs, and the
references it picks, attacked the way an accident or a careless user would.

A damaged cache entry (a truncated or substituted reference library, a truncated object every
library links, a truncated precompiled prelude, an edited prelude header, a truncated compiled
kernel) must be made again and said in the results, never used and never a CRASH; a reference
compile that never ends must stop at --compile-timeout, obey SIGINT and leave no compiler behind
even when hkcheck is killed by SIGKILL; a project's reference overrides a built-in one of the same
name; and a binary built in one checkout, run in another, uses that checkout's references only.

Called by audit.py with its own module (`h`) for the shared helpers: run_hk, start_hk, leftovers,
tagged_processes, load_json, fresh_folder, kill_group, shlex_quote.
"""
import json
import os
import shutil
import signal
import time
from pathlib import Path

PART = "caches"
ONE_SOFTMAX_CASE = "M=8,N=77,dtype=f32"

KERNELS = r"""// Two kernels judged by one reference (out = 2 x): the first is right, the second is not.
#include "hkcheck.h"
HK_KERNEL void audit_times_two(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * x[i];
}
HK_KERNEL void audit_times_three(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3.0f * x[i];
}
"""


def kernel_entry(name, entry, reference="audit_double"):
    return {"name": name, "source": "../kernels/scale.cu", "entry": entry, "reference": reference,
            "params": {"n": 1000}, "cases": [{"name": "n=1000", "params": {}}],
            "tensors": [{"name": "x", "dtype": "f32", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                        {"name": "out", "dtype": "f32", "shape": ["n"], "role": "out", "tolerance": {"atol": 1e-6, "rtol": 0}}],
            "args": ["out", "x", {"dtype": "i32", "value": "n"}],
            "launch": {"grid": ["ceil_div(n, 256)"], "block": [256]}}


def reference(factor, name="audit_double"):
    return f'#include "reference.h"\nHK_REFERENCE({name}) {{ ctx.matrix("out") = {factor} * ctx.matrix("x"); }}\n'


def make_project(folder, factor=2.0):
    """A kernel project: the two kernels, and the reference audit_double computing factor * x."""
    (folder / "kernels").mkdir(parents=True)
    (folder / "manifests").mkdir()
    (folder / "references").mkdir()
    (folder / "kernels" / "scale.cu").write_text(KERNELS)
    doc = {"hkcheck_manifest": 1, "kernels": [kernel_entry("audit_right", "audit_times_two"),
                                               kernel_entry("audit_wrong", "audit_times_three")]}
    (folder / "manifests" / "scale.json").write_text(json.dumps(doc, indent=1))
    (folder / "references" / "audit_double.cpp").write_text(reference(factor))
    return folder


class Caches:
    def __init__(self, audit, args, h):
        self.audit, self.args, self.h = audit, args, h
        self.work = h.fresh_folder(audit, PART)
        self.n = 0

    # -- running ---------------------------------------------------------------------------------

    def run(self, label, args, bound=240, cwd=None, binary=None):
        """One hkcheck run; returns (Result, results json or None, its folder)."""
        self.n += 1
        folder = self.work / f"{self.n:02d}-{label}"
        folder.mkdir(parents=True)
        out = folder / "out"
        tag = self.audit.new_tag("cache")
        saved = self.audit.hkcheck
        if binary:
            self.audit.hkcheck = str(binary)
        try:
            r = self.h.run_hk(self.audit, [a if not isinstance(a, Path) else str(a) for a in args] + ["--out", out], tag,
                              cwd or self.work, bound)
        finally:
            self.audit.hkcheck = saved
        (folder / "stderr.txt").write_text(r.stderr)
        (folder / "command.txt").write_text(" ".join(map(self.h.shlex_quote, r.cmd)) + "\n")
        left = self.h.leftovers(tag)
        self.probe(not left, f"{label}: no process of the run is left", f"{len(left)} left: {left[:3]}", folder)
        doc, _ = self.h.load_json(out / "test_results.json")
        return r, doc, folder

    def warm_cache(self):
        """A cache whose reference runtime object is built (runs with a short --compile-timeout
        must not spend it on that object): the first attack's, or made here."""
        cache = self.work / "cache"
        if not list(cache.glob("references/reference_context-*.o")):
            self.run("warm-up", self.host(make_project(self.work / "proj-warm"), cache))
        return cache

    def host(self, project, cache, *more):
        return ["--backend", "host", "--jobs", "1", "--no-repro", "--root", project, "--cache-dir", cache] + list(more)

    def probe(self, ok, what, why="", keep=None):
        if ok:
            self.audit.held(what)
        else:
            self.audit.finding(PART, what, keep=keep, extra=why)

    def verdicts(self, doc):
        return {c["kernel"]: c["status"] for c in (doc or {}).get("cases", [])}

    def notes(self, doc, kernel):
        """The notes of kernel's cases; of every case for kernel None."""
        return [n for c in (doc or {}).get("cases", []) if kernel is None or c["kernel"] == kernel for n in c.get("notes", [])]

    def expect_run(self, label, r, doc, folder, rc, verdicts, note=None, note_kernel="audit_right"):
        """The run ended by itself with rc, each kernel got its verdict, and (when given) a note of
        note_kernel's case holds note."""
        self.probe(not r.timed_out and r.rc == rc, f"{label}: exit {rc}",
                   f"{self.h.describe_rc(r.rc)}{' (killed at the bound)' if r.timed_out else ''}\n{r.stderr[-3000:]}", folder)
        got = self.verdicts(doc)
        for kernel, status in verdicts.items():
            self.probe(got.get(kernel) == status, f"{label}: {kernel} is {status}", f"got {got.get(kernel)}\n{r.stderr[-2000:]}", folder)
        if note:
            notes = self.notes(doc, note_kernel)
            self.probe(any(note in n for n in notes), f"{label}: the results say so ('{note}')", "notes: " + json.dumps(notes), folder)

    # -- helpers on a cache ----------------------------------------------------------------------

    @staticmethod
    def only(folder, pattern):
        found = sorted(Path(folder).glob(pattern))
        return found[0] if len(found) == 1 else None

    def compilers_naming(self, text):
        """Processes whose command line holds text (a compiler working on a file of this part)."""
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
                with open(f"/proc/{entry}/stat", "rb") as f:
                    st = f.read().decode("utf-8", "replace")
            except OSError:
                continue
            if text in cmd and not st[st.rfind(")") + 2:].startswith("Z") and int(entry) != os.getpid():
                found.append((int(entry), cmd[:200]))
        return found

    def wait_for_compiler(self, text, limit=60):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            found = [p for p in self.compilers_naming(text) if "cc1plus" in p[1]]
            if found:
                return found
            time.sleep(0.1)
        return []


# -- the attacks -------------------------------------------------------------------------------


def damaged_reference_library(c):
    """A truncated library was a SIGBUS (CRASH) on every later run; a substituted one decided the
    verdict (the wrong kernel PASSed)."""
    proj, cache = make_project(c.work / "proj"), c.work / "cache"
    r, doc, folder = c.run("first-run", c.host(proj, cache))
    c.expect_run("first run", r, doc, folder, 1, {"audit_right": "PASS", "audit_wrong": "FAIL"})
    lib = c.only(cache / "references", "audit_double-*.so")
    if lib is None:
        c.probe(False, "the reference library is in the cache", str(sorted(os.listdir(cache / "references"))))
        return
    os.truncate(lib, lib.stat().st_size // 2)
    r, doc, folder = c.run("truncated-library", c.host(proj, cache))
    c.expect_run("truncated reference library", r, doc, folder, 1, {"audit_right": "PASS", "audit_wrong": "FAIL"}, "was damaged")
    # The library of another project whose audit_double is 3 x: under this one's name it would
    # make the wrong kernel PASS. Copied alone, then with its seal.
    evil, evil_cache = make_project(c.work / "evil", factor=3.0), c.work / "evil-cache"
    r, doc, folder = c.run("evil-run", c.host(evil, evil_cache))
    c.expect_run("a reference of 3 x", r, doc, folder, 1, {"audit_right": "FAIL", "audit_wrong": "PASS"})
    evil_lib = c.only(evil_cache / "references", "audit_double-*.so")
    if evil_lib is None:
        c.probe(False, "the evil reference library is in its cache")
        return
    for with_seal in (False, True):
        shutil.copy2(evil_lib, lib)
        seal = Path(str(evil_lib) + ".seal")
        if with_seal and seal.exists():
            shutil.copy2(seal, str(lib) + ".seal")
        label = "substituted library" + (" and its seal" if with_seal else "")
        r, doc, folder = c.run(label.replace(" ", "-"), c.host(proj, cache))
        c.expect_run(label, r, doc, folder, 1, {"audit_right": "PASS", "audit_wrong": "FAIL"}, "was damaged")


def damaged_runtime_object(c):
    """Every library links the runtime's object: a truncated one failed every new build."""
    proj, cache = make_project(c.work / "proj-object"), c.work / "cache-object"
    r, doc, folder = c.run("object-first", c.host(proj, cache))
    obj, lib = c.only(cache / "references", "reference_context-*.o"), c.only(cache / "references", "audit_double-*.so")
    if obj is None or lib is None:
        c.probe(False, "the runtime object and the library are in the cache", str(sorted(os.listdir(cache / "references"))))
        return
    os.truncate(obj, 100)
    os.unlink(lib)  # the library is built again, linking the object
    r, doc, folder = c.run("truncated-object", c.host(proj, cache))
    c.expect_run("truncated runtime object", r, doc, folder, 1, {"audit_right": "PASS", "audit_wrong": "FAIL"},
                 "reference runtime object")


def damaged_kernel_caches(c):
    """The worker's caches: a compiled kernel, the host prelude's precompiled header (a truncated
    one failed every host compile: COMPILE_ERROR), a prelude header edited in the cache."""
    proj, cache = make_project(c.work / "proj-kernel"), c.work / "cache-kernel"
    c.run("kernel-first", c.host(proj, cache))
    gch = c.only(cache / "host-prelude", "*/include/hk_host.h.gch")
    header = c.only(cache / "host-prelude", "*/include/hk_host.h")
    bins = sorted(cache.glob("*.bin"))
    if gch is None or header is None or not bins:
        c.probe(False, "the prelude, its precompiled header and compiled kernels are in the cache", str(sorted(os.listdir(cache))))
        return
    os.truncate(gch, 5000)
    for b in bins:
        os.unlink(b)  # compiled again: with the prelude, which is checked when a compile uses it
    r, doc, folder = c.run("truncated-gch", c.host(proj, cache))
    # A repair is noted on the case that found the damage: the first of the worker's cases, in an
    # order that follows the last run's durations.
    c.expect_run("truncated precompiled prelude", r, doc, folder, 1, {"audit_right": "PASS", "audit_wrong": "FAIL"},
                 "precompiled header", note_kernel=None)
    with open(header, "a") as f:
        f.write("\n#error edited in the cache\n")
    for b in cache.glob("*.bin"):
        os.unlink(b)
    r, doc, folder = c.run("edited-prelude", c.host(proj, cache))
    c.expect_run("edited prelude header", r, doc, folder, 1, {"audit_right": "PASS", "audit_wrong": "FAIL"}, "differed from hkcheck's",
                 note_kernel=None)
    for b in cache.glob("*.bin"):
        os.truncate(b, 100)
    r, doc, folder = c.run("truncated-kernel", c.host(proj, cache))
    c.expect_run("truncated compiled kernel", r, doc, folder, 1, {"audit_right": "PASS", "audit_wrong": "FAIL"}, "cached compile",
                 note_kernel=None)


def endless_reference_project(c, name):
    """A project whose reference #includes a FIFO nobody writes: g++ waits forever."""
    proj = make_project(c.work / name)
    fifo = proj / "references" / "never.h"
    os.mkfifo(fifo)
    (proj / "references" / "audit_double.cpp").write_text(f'#include "{fifo}"\n' + reference(2.0))
    return proj


def endless_reference_compile(c):
    """A reference compile that never ended hung the run, ignored --timeout and SIGINT; SIGKILL of
    hkcheck left cc1plus running."""
    proj = endless_reference_project(c, "proj-endless")
    t0 = time.monotonic()
    r, doc, folder = c.run("compile-timeout", c.host(proj, c.warm_cache(), "--compile-timeout", "5", "audit_right"), bound=120)
    c.probe(not r.timed_out and time.monotonic() - t0 < 90, "a reference compile stops at --compile-timeout",
            f"{time.monotonic() - t0:.0f} s, {c.h.describe_rc(r.rc)}", folder)
    msg = " ".join(cs.get("message", "") for cs in (doc or {}).get("cases", []))
    c.probe("audit_double.cpp" in msg and "took longer than 5 s" in msg, "the case's error names the reference file and the limit",
            msg[:1000], folder)
    c.probe(r.rc == 1 and c.verdicts(doc).get("audit_right") == "ERROR", "the case is ERROR, the run exits 1",
            f"{c.h.describe_rc(r.rc)} {c.verdicts(doc)}", folder)
    for sig, rc in ((signal.SIGINT, 130), (signal.SIGKILL, None)):
        interrupted_compile(c, proj, sig, rc)


def interrupted_compile(c, proj, sig, rc):
    name = signal.Signals(sig).name
    c.n += 1
    folder = c.work / f"{c.n:02d}-{name}-while-compiling"
    folder.mkdir()
    tag = c.audit.new_tag("cache-sig")
    p = c.h.start_hk(c.audit, [str(a) for a in c.host(proj, c.warm_cache(), "audit_right")] + ["--out", str(folder / "out")],
                     tag, c.work, stdout=open(folder / "stdout.txt", "wb"), stderr=open(folder / "stderr.txt", "wb"))
    compilers = c.wait_for_compiler(str(proj / "references" / "audit_double.cpp"))
    if not compilers:
        c.h.kill_group(p.pid)
        p.wait()
        c.probe(False, f"{name} while compiling: the reference compile starts", "", folder)
        return
    t0 = time.monotonic()
    os.kill(p.pid, sig)  # hkcheck alone, as `kill` would, not its group
    try:
        got = p.wait(timeout=15)
    except Exception:
        c.h.kill_group(p.pid)
        got = p.wait()
    if rc is not None:
        c.probe(got == rc and time.monotonic() - t0 < 10, f"{name} while compiling a reference: exit {rc} within 10 s",
                f"{c.h.describe_rc(got)} after {time.monotonic() - t0:.1f} s", folder)
    left = c.h.leftovers(tag, grace=5)
    c.probe(not left, f"{name} to hkcheck while compiling: the compiler (cc1plus) dies too", f"alive: {left[:4]}", folder)


def project_overrides_builtin(c):
    """A project's reference named like a built-in one was ignored (or a duplicate error)."""
    proj = make_project(c.work / "proj-override")
    halved = (Path(c.h.REPO) / "references" / "softmax.cpp").read_text().replace(
        "out.row(r) /= out.row(r).sum();", "out.row(r) /= 2 * out.row(r).sum();")
    (proj / "references" / "softmax_halved.cpp").write_text(halved)
    doc = json.loads((Path(c.h.REPO) / "manifests" / "softmax.json").read_text())
    doc = c.h.absolutize(doc, Path(c.h.REPO) / "manifests" / "softmax.json")
    (proj / "manifests" / "softmax.json").write_text(json.dumps(doc))
    r, res, folder = c.run("override", c.host(proj, c.warm_cache(), "softmax", "-k", ONE_SOFTMAX_CASE))
    c.probe(r.rc == 1 and set(c.verdicts(res).values()) == {"FAIL"}, "the project's softmax (halved) judges, not the built-in one",
            f"{c.h.describe_rc(r.rc)} {c.verdicts(res)}\n{r.stderr[-2000:]}", folder)
    notes = c.notes(res, "softmax")
    c.probe(any("overrides the built-in one" in n for n in notes), "the override is noted on the case", json.dumps(notes), folder)


def binary_of_another_checkout(c):
    """A binary built in one checkout saw every reference twice in another (exit 2, 130 errors)."""
    repo = Path(c.h.REPO)
    checkout, bin_dir = c.work / "other-checkout", c.work / "other-bin"
    for sub in ("manifests", "kernels", "references"):
        shutil.copytree(repo / sub, checkout / sub)
    bin_dir.mkdir()
    binary = bin_dir / "hkcheck"
    shutil.copy2(c.audit.hkcheck, binary)
    r, _, folder = c.run("other-checkout-list", ["list", "--root", checkout], binary=binary)
    c.probe(r.rc == 0 and "is defined in" not in r.stderr, "a binary from another checkout lists this one's cases (no duplicates)",
            f"{c.h.describe_rc(r.rc)}, {r.stderr.count('is defined in')} duplicate-reference errors\n{r.stderr[-1500:]}", folder)
    softmax = checkout / "references" / "softmax.cpp"
    softmax.write_text(softmax.read_text().replace("out.row(r) /= out.row(r).sum();", "out.row(r) /= 2 * out.row(r).sum();"))
    r, res, folder = c.run("other-checkout-run", ["--backend", "host", "--jobs", "1", "--no-repro", "--root", checkout,
                                                  "--cache-dir", c.warm_cache(), "softmax", "-k", ONE_SOFTMAX_CASE], binary=binary)
    got = set(c.verdicts(res).values())
    c.probe(r.rc == 1 and got == {"FAIL"}, "it judges with that checkout's references (its halved softmax: FAIL)",
            f"{c.h.describe_rc(r.rc)} {got}\n{r.stderr[-1500:]}", folder)


ATTACKS = [damaged_reference_library, damaged_runtime_object, damaged_kernel_caches, endless_reference_compile,
           project_overrides_builtin, binary_of_another_checkout]


def part_caches(audit, args, h):
    t0 = time.monotonic()
    p0, f0 = audit.passed, audit.failed
    c = Caches(audit, args, h)
    for attack in ATTACKS:
        print(f"caches: {attack.__name__}", flush=True)
        try:
            attack(c)
        except Exception as e:  # an attack that could not be carried out is a finding, not a crash of the audit
            c.probe(False, f"{attack.__name__}: the attack could not be carried out", f"{type(e).__name__}: {e}")
    print(f"part caches: {audit.passed - p0} held, {audit.failed - f0} findings, {time.monotonic() - t0:.0f} s", flush=True)
