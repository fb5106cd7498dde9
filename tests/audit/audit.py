#!/usr/bin/env python3
"""A repeatable robustness audit of hkcheck: malformed manifests, signals, misbehaving kernels, reports.

    python3 tests/audit/audit.py [--part manifests|signals|kernels|reports|verdicts|caches|run_record|limits|environment|all] [--count N] [--seed S]

Standard library only. Runs build/hkcheck with the host backend (no GPU needed), under
`nice -n 10` and `--jobs 1`. Scratch output goes to --work (default /tmp/audit); a variant or run
that shows a problem is kept under WORK/findings/. Every check is a "probe": it holds, or it is a
finding (one line each, starting with FINDING). The last line is `audit: N passed, M failed` and
the exit status is 1 when M > 0. tests/audit/README.md says what each part checks.
"""
import argparse
import copy
import json
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import attacks_reports
import attacks_run_record

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
BAD_STDERR = ("terminate called", "Segmentation fault", "Aborted", "core dumped", "AddressSanitizer")
DOCUMENTED_EXITS = (0, 1, 2, 3)
TAG_VAR = "HKCHECK_AUDIT_TAG"
MEM_LIMIT = 16 << 30  # address space of each hkcheck of part "manifests" (and its workers)


# ---------------------------------------------------------------------------------------------
# Bookkeeping


class Audit:
    def __init__(self, work, hkcheck, verbose):
        self.work = Path(work)
        self.hkcheck = str(hkcheck)
        self.verbose = verbose
        self.passed = 0
        self.failed = 0
        self.limits = 0
        self.findings_dir = self.work / "findings"
        self.findings_dir.mkdir(parents=True, exist_ok=True)
        self.tag_counter = 0

    def held(self, what=""):
        self.passed += 1
        if self.verbose and what:
            print(f"  ok: {what}", flush=True)

    def finding(self, part, what, keep=None, extra=None):
        """Records a probe that found a problem; copies `keep` (a folder or file) into findings/."""
        self.failed += 1
        n = self.failed
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", what)[:60].strip("_")
        dest = self.findings_dir / f"{part}-{n:03d}-{slug}"
        dest.mkdir(parents=True, exist_ok=True)
        if keep is not None and Path(keep).exists():
            target = dest / Path(keep).name
            try:
                if Path(keep).is_dir():
                    shutil.copytree(keep, target, symlinks=True, dirs_exist_ok=True, ignore=_ignore_big)
                else:
                    shutil.copy2(keep, target)
            except (OSError, shutil.Error) as e:
                (dest / "copy_error.txt").write_text(str(e))
        (dest / "finding.txt").write_text(what + "\n" + (extra or "") + "\n")
        print(f"FINDING [{part}] {what}  (kept in {dest})", flush=True)

    def limit(self, part, what):
        """A probe that hit a documented limit of hkcheck (not counted as held or failed)."""
        self.limits += 1
        print(f"LIMIT [{part}] {what}", flush=True)

    def new_tag(self, label):
        self.tag_counter += 1
        return f"hkaudit-{os.getpid()}-{self.tag_counter}-{label}"


def _ignore_big(folder, names):
    out = []
    for n in names:
        p = os.path.join(folder, n)
        try:
            st = os.lstat(p)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_size > (8 << 20):
            out.append(n)
        if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode):
            out.append(n)  # FIFOs and devices are not copied
    return out


# ---------------------------------------------------------------------------------------------
# Running hkcheck and finding what it left running


class Result:
    def __init__(self):
        self.rc = None  # exit code; negative: killed by that signal
        self.timed_out = False
        self.stdout = ""
        self.stderr = ""
        self.elapsed = 0.0
        self.cmd = []


def hk_env(tag, tmpdir=None):
    env = dict(os.environ)
    env[TAG_VAR] = tag
    env["NO_COLOR"] = "1"
    if tmpdir:
        env["TMPDIR"] = str(tmpdir)
    return env


def start_hk(audit, args, tag, cwd, tmpdir=None, stdout=None, stderr=None, mem_limit=None):
    cmd = ["nice", "-n", "10", audit.hkcheck] + [str(a) for a in args]

    def limit():
        if mem_limit:  # a manifest that makes hkcheck read /dev/zero must not take the machine's memory
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))

    p = subprocess.Popen(cmd, cwd=str(cwd), env=hk_env(tag, tmpdir), stdin=subprocess.DEVNULL, preexec_fn=limit,
                         stdout=stdout if stdout is not None else subprocess.PIPE,
                         stderr=stderr if stderr is not None else subprocess.PIPE,
                         start_new_session=True)  # its own process group, as a shell job would be
    p.audit_cmd = cmd
    return p


def run_hk(audit, args, tag, cwd, limit, tmpdir=None, mem_limit=None):
    r = Result()
    t0 = time.monotonic()
    p = start_hk(audit, args, tag, cwd, tmpdir, mem_limit=mem_limit)
    r.cmd = p.audit_cmd
    try:
        out, err = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        r.timed_out = True
        kill_group(p.pid)
        out, err = p.communicate()
    r.elapsed = time.monotonic() - t0
    r.rc = p.returncode
    r.stdout = out.decode("utf-8", "replace") if out else ""
    r.stderr = err.decode("utf-8", "replace") if err else ""
    return r


def kill_group(pid):
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            pass


def tagged_processes(tag):
    """Processes whose environment carries `tag`: everything hkcheck and its workers started,
    including children that left the process group and session, or exec'd another program."""
    found = []
    needle = f"{TAG_VAR}={tag}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read()
            if needle not in env.split(b"\0"):
                continue
            with open(f"/proc/{entry}/stat", "rb") as f:
                st = f.read().decode("utf-8", "replace")
            if st[st.rfind(")") + 2:].startswith("Z"):
                continue  # a zombie: it has ended
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
            found.append((int(entry), cmdline))
        except OSError:
            continue
    return found


def leftovers(tag, grace=1.0):
    """Processes of a run still alive `grace` seconds after it ended; they are killed (by pid:
    the audit started them) after being reported."""
    deadline = time.monotonic() + grace
    left = tagged_processes(tag)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = tagged_processes(tag)
    for pid, _ in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return left


def describe_rc(rc):
    if rc is None:
        return "no exit"
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit {rc}"


def load_json(path):
    try:
        with open(path, "rb") as f:
            return json.load(f), None
    except (OSError, ValueError) as e:
        return None, str(e)


def list_cases(audit, manifests_dir, cwd, tag):
    """Runs `hkcheck list`; returns (Result, [(kernel, [case, ...]), ...])."""
    r = run_hk(audit, ["list", "--manifests", manifests_dir], tag, cwd, 60, mem_limit=MEM_LIMIT)
    kernels = []
    for line in r.stdout.splitlines():
        if not line.strip():
            continue
        if line.startswith("  "):
            if kernels:
                kernels[-1][1].append(line[2:])
        else:
            kernels.append((line.split("  (")[0], []))
    return r, kernels


def exact_glob(text):
    """A -k pattern that matches exactly `text` as a whole id (hkcheck's globs take [c])."""
    out = "".join(f"[{c}]" if c in "*?[]\\" else c for c in text)
    if out == text:  # no glob character: make it a glob, so that it is not a substring match
        out = out[:-1] + f"[{out[-1]}]"
    return out


# ---------------------------------------------------------------------------------------------
# Part 1: malformed manifests

RAW = "\u0001RAW:"  # a string value replaced by raw JSON text after dumping


def raw(text):
    return RAW + text + "\u0001"


def dump_with_raw(doc):
    text = json.dumps(doc, indent=1, ensure_ascii=False)
    return re.sub(r'"\\u0001RAW:(.*?)\\u0001"', lambda m: json.loads('"' + m.group(1) + '"'), text).encode("utf-8")


EDGE_NUMBERS = ["0", "-1", "1e999", "-1e999", "-1e308", "1e308", "9223372036854775807", "9223372036854775808",
                "18446744073709551616", "-9223372036854775809", "1e-320", "NaN", "Infinity", "-Infinity", "1.5",
                "-0", "4294967296", "2147483648", "1e30", "123456789012345678901234567890"]
TYPE_SAMPLES = [("number", 7), ("string", "seven"), ("array", [1, "a"]), ("object", {"a": 1}), ("null", None),
                ("bool", True), ("empty string", ""), ("empty array", []), ("empty object", {})]
BAD_EXPRESSIONS = ["ceil_div(", "1/0", "0/0", "0%0", "n%0", "7 % 0", "log2(-1)", "log2(0)", "sqrt(-1)", "pow(2, 1e6)",
                   "pow(10, 400)", "foo(1)", "no_such_param", "$dtype", "${", "${}", "$", "1 +", "min(1)", "max(1,2,3)",
                   "floor()", "9223372036854775807 + 1", "-9223372036854775807 - 1", "(-9223372036854775807 - 1) % -1",
                   "(-9223372036854775807 - 1) / -1", "2**3", "1e999", "-1e999", "1e999 - 1e999", "0.5", "-1", "- - - 1",
                   ")(", "((1)", "1)", "\u0000", "1 2", "ceil_div(1, 0)", "ceil_div(-9223372036854775807 - 1, -1)",
                   "min(0/0, 1)", "4294967296 * 4294967296", "9223372036854775807 * 2", "--1", "1e-320", "nan", "inf",
                   "\u00e9", "M" * 4096, "1" * 5000, "ceil_div(" * 2000 + "1" + ")" * 2000]
UNKNOWN = {"dtype": ["f33", "float", "F32", "bfloat16", "", "$nope", "${dtype", "i128", "f8", "fp4", "e8m0x"],
           "role": ["outin", "IN", "", "input", "temp"],
           "kind": ["gaussian", "", "NORMAL", "random", "file"],
           "compare": ["sorted", {"rule": "nope"}, {"rule": "indices"}, {"rule": "indices", "into": "nope"},
                       {"rule": "indices", "into": 5}, {"rule": "unordered", "extra": 1}, {}, ["unordered"]],
           "status": ["BROKEN", "PASS", "XFAIL", "NOT_RUN", "", "fail", "SKIP", "TIER"],
           "tier": ["huge", "", "LARGE", 1],
           "arg_dtype": ["f16", "bf16", "i8", "f128", "ptr", ""]}


def json_paths(node, prefix=()):
    yield prefix, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from json_paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from json_paths(v, prefix + (i,))


def get_at(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def _copy_path(doc, path):
    """A copy of doc in which the containers along path are new (the rest is shared)."""
    root = copy.copy(doc)
    node = root
    for p in path:
        child = copy.copy(node[p])
        node[p] = child
        node = child
    return root


def set_at(doc, path, value):
    doc = _copy_path(doc, path[:-1])
    get_at(doc, path[:-1])[path[-1]] = value
    return doc


def del_at(doc, path):
    doc = _copy_path(doc, path[:-1])
    del get_at(doc, path[:-1])[path[-1]]
    return doc


def pstr(path):
    return "/" + "/".join(str(p) for p in path)


def absolutize(doc, manifest_path):
    """The manifest's relative paths made absolute, so that it can move to another folder."""
    doc = copy.deepcopy(doc)
    base = manifest_path.parent
    for k in doc.get("kernels", []):
        if not isinstance(k, dict):
            continue
        for key in ("source", "reference_source"):
            if isinstance(k.get(key), str):
                k[key] = str((base / k[key]).resolve())
        if isinstance(k.get("include_dirs"), list):
            k["include_dirs"] = [str((base / d).resolve()) if isinstance(d, str) else d for d in k["include_dirs"]]
    return doc


class Variant:
    def __init__(self, desc, files, run=False, setup=None, check=None):
        self.desc = desc
        self.files = files  # {name: bytes}: the manifests of the folder
        self.run = run  # always give it a real run
        self.setup = setup  # callable(folder) for sources, links, FIFOs
        self.check = check  # callable(folder) -> problem text or None, after the run


def make_variants(manifests, rng, count):
    """Deterministic malformed variants of the real manifests, cycling through the categories so
    that any --count covers all of them."""
    cats = {}

    def add(cat, v):
        cats.setdefault(cat, []).append(v)

    for mpath, doc in manifests:
        name = mpath.name
        base = absolutize(doc, mpath)
        paths = list(json_paths(base))
        k0 = base["kernels"][0]
        kp = ("kernels", 0)
        one = lambda d, desc, **kw: Variant(f"{name}: {desc}", {name: d}, **kw)  # noqa: E731 (dumped when written)

        # deleting each field of the first kernel, its first tensor, arg, case, launch, init
        for path, node in paths:
            if path and isinstance(path[-1], str) and len(path) <= 5:
                add("delete", one(del_at(base, path), f"delete {pstr(path)}"))
        # a value of another type at each path
        for path, node in paths:
            if not path:
                continue
            for tname, sample in TYPE_SAMPLES:
                if type(sample) is type(node) and sample == node:
                    continue
                add("type", one(set_at(base, path, sample), f"{pstr(path)} becomes {tname}"))
        # numbers at the edges, written as raw text, wherever a number or an expression stands
        numeric_keys = ("shared", "value", "timeout", "repeat", "low", "high", "mean", "std", "start", "step", "mod",
                        "atol", "rtol", "ulps", "hard_ulps", "max_mismatch_fraction", "block", "max_rel_l2",
                        "hkcheck_manifest")
        for path, node in paths:
            if not path:
                continue
            is_number = isinstance(node, (int, float)) and not isinstance(node, bool)
            is_expr = isinstance(node, str) and len(path) >= 2 and path[-2] in ("shape", "grid", "block")
            if is_number or is_expr or path[-1] in numeric_keys:
                for tok in EDGE_NUMBERS:
                    add("edge-number", one(set_at(base, path, raw(tok)), f"{pstr(path)} = {tok} (raw JSON text)"))
        # expressions that do not evaluate
        for path, node in paths:
            if len(path) >= 2 and (path[-2] in ("shape", "grid", "block") or path[-1] in ("shared", "value", "high", "low")):
                for e in BAD_EXPRESSIONS:
                    add("expression", one(set_at(base, path, e), f"{pstr(path)} = expression {e[:40]!r}"))
        # huge strings
        mib = "a" * (1 << 20)
        for path, node in paths:
            if isinstance(node, str) and path:
                add("huge-string", one(set_at(base, path, mib), f"{pstr(path)} = a 1 MiB string"))
        for key in ("name", "entry", "reference"):
            add("huge-string", one(set_at(base, kp + (key,), mib), f"kernel {key} of 1 MiB"))
        add("huge-string", one(set_at(base, kp + ("params",), dict(k0.get("params", {}), **{mib: 1})), "a param named by 1 MiB"))
        # deep nesting
        deep_expr = "(" * 100000 + "1" + ")" * 100000
        for key in ("grid", "block"):
            add("deep", one(set_at(base, kp + ("launch", key), [deep_expr]), f"launch.{key}: 100,000 nested parentheses"))
        add("deep", one(set_at(base, kp + ("tensors", 0, "shape"), [deep_expr]), "shape: 100,000 nested parentheses"))
        add("deep", one(set_at(base, kp + ("launch", "shared"), "-" * 100000 + "1"), "shared: 100,000 unary minus"))
        add("deep", one(set_at(base, kp + ("launch", "shared"), "1" + "+1" * 100000), "shared: 100,000 additions"))
        for path in (kp + ("params",), kp + ("cases",), kp + ("args",), ("kernels",), kp + ("tensors", 0, "shape")):
            d = set_at(base, path, raw("[" * 10000 + "]" * 10000))
            add("deep", one(d, f"{pstr(path)}: 10,000 nested JSON arrays"))
            d = set_at(base, path, raw('{"a":' * 10000 + "1" + "}" * 10000))
            add("deep", one(d, f"{pstr(path)}: 10,000 nested JSON objects"))
        add("deep", Variant(f"{name}: 100,000 nested JSON arrays, unclosed", {name: b"[" * 100000}))
        add("deep", Variant(f"{name}: 1,000,000 nested JSON arrays", {name: b"[" * 1000000 + b"]" * 1000000}))
        # unknown enumerations
        for path, node in paths:
            last = path[-1] if path else None
            if last == "dtype" and len(path) >= 2 and path[-3] == "tensors":
                for v in UNKNOWN["dtype"]:
                    add("unknown", one(set_at(base, path, v), f"{pstr(path)} = dtype {v!r}"))
            elif last == "dtype" and len(path) >= 2 and path[-3] == "args":
                for v in UNKNOWN["arg_dtype"]:
                    add("unknown", one(set_at(base, path, v), f"{pstr(path)} = scalar dtype {v!r}"))
            elif last == "role":
                for v in UNKNOWN["role"]:
                    add("unknown", one(set_at(base, path, v), f"{pstr(path)} = role {v!r}"))
            elif last == "kind":
                for v in UNKNOWN["kind"]:
                    add("unknown", one(set_at(base, path, v), f"{pstr(path)} = generator {v!r}"))
            elif last == "compare":
                for v in UNKNOWN["compare"]:
                    add("unknown", one(set_at(base, path, v), f"{pstr(path)} = compare {v!r}"))
            elif last == "status":
                for v in UNKNOWN["status"]:
                    add("unknown", one(set_at(base, path, v), f"{pstr(path)} = expect status {v!r}"))
        for v in UNKNOWN["compare"]:
            t = kp + ("tensors", len(k0["tensors"]) - 1, "compare")
            add("unknown", one(set_at(base, t, v), f"{pstr(t)} = compare {v!r}"))
        for v in UNKNOWN["status"]:
            add("unknown", one(set_at(base, kp + ("expect",), {"status": v, "why": "audit"}), f"expect status {v!r}"))
        for v in UNKNOWN["tier"]:
            add("unknown", one(set_at(base, kp + ("cases", 0, "tier"), v), f"case tier {v!r}"))
        add("unknown", one(set_at(base, kp + ("tensors", 0, "init"), {"kind": "normal", "bogus": 1}), "generator with an unknown field"))
        add("unknown", one(set_at(base, kp + ("bogus_field",), 1), "unknown kernel field"))
        add("unknown", one(set_at(base, ("bogus_field",), 1), "unknown top-level field"))
        add("unknown", one(set_at(base, kp + ("expect",), [{"status": "FAIL", "why": "a"}, {"status": "CRASH", "why": "b"}]),
                           "two expects without arch"))
        add("unknown", one(set_at(base, kp + ("expect",), {"status": "FAIL"}), "expect without why"))
        add("unknown", one(set_at(base, kp + ("expect",), {"status": "FAIL", "why": ""}), "expect with an empty why"))
        add("unknown", one(set_at(base, kp + ("expect",), {"status": "FAIL", "why": "x", "arch": 90}), "expect arch a number"))
        # shapes whose product overflows int64, and other impossible shapes
        t0 = kp + ("tensors", 0, "shape")
        for shape in (["4294967296", "4294967296"], [9223372036854775807, 2], ["3037000500", "3037000500"],
                      [2 ** 40, 2 ** 40, 2 ** 40], ["-1"], [-5, 3], ["0.5"], [1.5], ["1e30"], [], [0], [0, "1e999"],
                      [1] * 64, ["9223372036854775807"], ["2147483648", "2147483648", "2147483648"]):
            add("shape", one(set_at(base, t0, shape), f"shape {json.dumps(shape)[:60]}"))
            add("shape", one(set_at(base, kp + ("tensors", len(k0["tensors"]) - 1, "shape"), shape),
                             f"output shape {json.dumps(shape)[:60]}"))
        # launch configurations
        for key, vals in (("grid", [[], [0], [-1], [1, 1, 1, 1], ["2147483648"], [2 ** 63], ["1e999"], [1.5]]),
                          ("block", [[], [0], [1 << 30], [1025], [32, 32, 2], [1, 1, 1, 1], [-256], ["0.5"]]),
                          ("shared", [-1, 2 ** 63, "1e999", 1 << 40, "0.5", "-0"])):
            for v in vals:
                add("launch", one(set_at(base, kp + ("launch", key), v), f"launch.{key} = {json.dumps(v)}",
                                  run=key != "grid" or v != [2 ** 63]))
        # sweeps: many axes, huge axes, empty axes
        for axes in (20, 24, 40):
            sweep = {f"ax{i:02d}": [1, 2] for i in range(axes)}
            add("sweep", one(set_at(base, kp + ("cases",), [{"sweep": sweep}]), f"a sweep of {axes} axes (2^{axes} cases)"))
        add("sweep", one(set_at(base, kp + ("cases",), [{"sweep": {"n": list(range(200000))}}]), "a sweep axis of 200,000 values"))
        add("sweep", one(set_at(base, kp + ("cases",), [{"sweep": {"n": []}}]), "a sweep axis with no value"))
        add("sweep", one(set_at(base, kp + ("cases",), [{"sweep": {}}]), "a sweep of no axis"))
        add("sweep", one(set_at(base, kp + ("cases",), [{"sweep": {"n": [{"a": 1}, [1]]}}]), "sweep values objects and arrays"))
        add("sweep", one(set_at(base, kp + ("cases",), []), "no case at all"))
        add("sweep", one(set_at(base, kp + ("cases",), [{"name": "a"}, {"name": "a"}]), "two cases of the same name"))
        add("sweep", one(set_at(base, kp + ("cases",), [{"name": "x" * 5000, "params": {}}]), "a case name of 5000 characters"))
        add("sweep", one(set_at(base, kp + ("cases",), [{"name": "a/b*c?[d] \u00e9\n\t\"'", "params": {}}]),
                         "a case name with glob, quote and control characters", run=True))
        # tensors and args
        add("tensors", one(set_at(base, kp + ("tensors",), k0["tensors"] + [k0["tensors"][0]]), "two tensors of the same name"))
        add("tensors", one(set_at(base, kp + ("tensors",), []), "no tensor"))
        add("tensors", one(set_at(base, kp + ("args",), k0["args"] + ["no_such_tensor"]), "an argument naming no tensor"))
        add("tensors", one(set_at(base, kp + ("args",), k0["args"] * 200), "the arguments 200 times over", run=True))
        add("tensors", one(set_at(base, kp + ("args",), []), "no argument", run=True))
        add("tensors", one(set_at(base, kp + ("args",), k0["args"] + [{"dtype": "i32"}]), "a scalar argument without value"))
        add("tensors", one(set_at(base, kp + ("tensors",), [dict(t, name=f"t{i}") for i in range(3000) for t in k0["tensors"][:1]]),
                           "3000 tensors"))
        # kernel-level fields
        for key, vals in (("timeout", [0, -1, 1e-9, "5", raw("1e999"), raw("NaN")]),
                          ("repeat", [0, 1001, 1.5, -1, raw("9223372036854775808"), "2"]),
                          ("gpu_only", ["", 5, None]),
                          ("options", [5, [5], ["-DX=1"] * 2000, [""]]),
                          ("include_dirs", ["/", ["/dev/zero"], [5], ["/nonexistent/dir"], ["/proc"]]),
                          ("defines", [[], {"A B": "1"}, {"": "1"}, {"T": 5}, {"T": None}, {"T": "$missing"}, {"T": "${dtype"},
                                       {"T": "f32\nint x;"}]),
                          ("reference", ["no_such_reference", "", "../../etc/passwd"]),
                          ("entry", ["no_such_entry", "", "a b", "rmsnorm<", "extern \"C\" void x()"]),
                          ("name", ["", "a b", "a/b", "*", "../x", "\u00e9", "a" * 300]),
                          ("hkcheck_manifest", [2, "1", 1.0, 0, None])):
            for v in vals:
                path = ("hkcheck_manifest",) if key == "hkcheck_manifest" else kp + (key,)
                shown = v[len(RAW):-1] + " (raw JSON text)" if isinstance(v, str) and v.startswith(RAW) else json.dumps(v)[:60]
                add("fields", one(set_at(base, path, v), f"{key} = {shown}",
                                  run=key in ("timeout", "repeat", "defines", "entry", "name")))
        # defines that would run a command, were the compiler started through a shell
        for i, v in enumerate(["1; touch {p}", "$(touch {p})", "`touch {p}`", "1' ; touch {p} ; '", '1" ; touch {p} ; "',
                               "1 && touch {p}", "x\ntouch {p}"]):
            marker = f"/tmp/audit/manifests/pwned-{name}-{i}"
            d = set_at(base, kp + ("defines",), dict(k0.get("defines", {}), AUDIT=v.format(p=marker)))
            add("injection", one(d, f"define AUDIT={v.format(p='MARKER')!r} (shell injection?)", run=True,
                                 check=(lambda m: lambda folder: f"{m} was created: a define ran a shell command" if os.path.exists(m) else None)(marker)))
        # sources
        for key in ("source", "reference_source"):
            for label, value, setup in (
                    ("a directory", "{d}/adir", lambda d: os.mkdir(f"{d}/adir")),
                    ("a missing file", "{d}/missing.cu", None),
                    ("/dev/zero", "/dev/zero", None),
                    ("/dev/urandom", "/dev/urandom", None),
                    ("a symlink loop", "{d}/loop.cu", lambda d: (os.symlink(f"{d}/loop2.cu", f"{d}/loop.cu"), os.symlink(f"{d}/loop.cu", f"{d}/loop2.cu"))),
                    ("a path longer than PATH_MAX", "{d}/" + "x" * 5000 + ".cu", None),
                    ("a component longer than NAME_MAX", "{d}/" + "y" * 300 + "/k.cu", None),
                    ("a FIFO with no writer", "{d}/fifo.cu", lambda d: os.mkfifo(f"{d}/fifo.cu")),
                    ("an empty string", "", None),
                    ("the manifest itself", "{d}/" + name, None),
                    ("a binary file", "{d}/bin.cu", lambda d: Path(f"{d}/bin.cu").write_bytes(bytes(range(256)) * 64)),
                    ("an empty file", "{d}/empty.cu", lambda d: Path(f"{d}/empty.cu").write_bytes(b"")),
                    ("a name with a NUL byte", "a\u0000b.cu", None),
                    ("/proc/self/mem", "/proc/self/mem", None)):
                if key == "reference_source" and label in ("a component longer than NAME_MAX", "the manifest itself"):
                    continue
                add("source", Variant(f"{name}: {key} is {label}", {name: b""}, run=True,
                                      setup=(lambda key, value, setup, d0: lambda folder: _source_variant(folder, d0, key, value, setup))(key, value, setup, base)))
        # truncated, not UTF-8, not JSON at all
        text = dump_with_raw(base)
        for cut in sorted(rng.sample(range(1, len(text)), min(8, len(text) - 1))):
            add("bytes", Variant(f"{name}: truncated at byte {cut} of {len(text)}", {name: text[:cut]}))
        for label, data in ((b"invalid UTF-8 in a name", text.replace(b'"' + k0["name"].encode() + b'"', b'"\xff\xfe\xc0\x80"', 1)),
                            (b"invalid UTF-8 in the entry", text.replace(b'"' + k0["entry"].encode() + b'"', b'"ok\xed\xa0\x80"', 1)),
                            (b"a lone surrogate escape in a name", text.replace(b'"' + k0["name"].encode() + b'"', b'"\\ud800x"', 1)),
                            (b"a NUL escape in a name", text.replace(b'"' + k0["name"].encode() + b'"', b'"a\\u0000b"', 1)),
                            (b"a UTF-8 byte-order mark", b"\xef\xbb\xbf" + text),
                            (b"UTF-16", text.decode("utf-8").encode("utf-16")),
                            (b"a NUL byte in the middle", text[:len(text) // 2] + b"\0" + text[len(text) // 2:]),
                            (b"an empty file", b""),
                            (b"only whitespace", b" \n\t\r\n"),
                            (b"null", b"null"), (b"an array", b"[]"), (b"an empty object", b"{}"),
                            (b"a number", b"1e999"), (b"a string", b'"manifest"'),
                            (b"a comment before it", b"// comment\n" + text),
                            (b"a trailing comma", text.rstrip()[:-1] + b",}"),
                            (b"two documents", text + text),
                            (b"garbage after it", text + b"garbage"),
                            (b"duplicate keys", text.replace(b'"name":', b'"name": "dup", "name":', 1)),
                            (b"CRLF line ends", text.replace(b"\n", b"\r\n")),
                            (b"random bytes", bytes(rng.randrange(256) for _ in range(4096)))):
            add("bytes", Variant(f"{name}: {label.decode()}", {name: data}))
        # several manifests in one folder
        add("multi", Variant(f"{name}: the same manifest twice (duplicate kernel names across two files)",
                             {name: text, "copy_" + name: text}, run=True))
        add("multi", Variant(f"{name}: a kernel twice in one manifest",
                             {name: dump_with_raw(set_at(base, ("kernels",), base["kernels"] + [k0]))}, run=True))
        add("multi", Variant(f"{name}: beside a broken manifest", {name: text, "broken.json": b"{"}, run=True))
        add("multi", Variant(f"{name}: beside a directory named *.json", {name: text}, run=True,
                             setup=lambda folder: os.mkdir(folder / "dir.json")))
        add("multi", Variant(f"{name}: beside a FIFO named *.json", {name: text}, run=True,
                             setup=lambda folder: os.mkfifo(folder / "fifo.json")))
        add("multi", Variant(f"{name}: beside a symlink loop named *.json", {name: text},
                             setup=lambda folder: (os.symlink(folder / "b.json", folder / "a.json"), os.symlink(folder / "a.json", folder / "b.json"))))
        add("multi", Variant(f"{name}: beside /dev/zero linked as *.json", {name: text},
                             setup=lambda folder: os.symlink("/dev/zero", folder / "zero.json")))
        add("multi", Variant(f"{name}: 1,000 kernels", {name: dump_with_raw(set_at(base, ("kernels",),
                             [dict(k0, name=f"k{i}") for i in range(1000)]))}))

    # within a category, one variant of each kind (its description without the manifest's name
    # and numbers) before a second of any; then the categories interleaved, so that any count
    # covers every category and, as far as it goes, every kind
    order = sorted(cats)
    for c in order:
        kinds = {}
        for v in cats[c]:
            kinds.setdefault(re.sub(r"\d+", "#", v.desc.split(": ", 1)[-1]), []).append(v)
        groups = list(kinds.values())
        rng.shuffle(groups)
        for g in groups:
            rng.shuffle(g)
        spread = []
        while any(groups):
            for g in groups:
                if g:
                    spread.append(g.pop())
        cats[c] = spread[::-1]  # taken from the end
    out, i = [], 0
    while len(out) < count and any(cats[c] for c in order):
        c = order[i % len(order)]
        if cats[c]:
            out.append((c, cats[c].pop()))
        i += 1
    return out


def _source_variant(folder, doc, key, value, setup):
    if setup:
        setup(str(folder))
    value = value.replace("{d}", str(folder))
    d = copy.deepcopy(doc)
    d["kernels"][0][key] = value
    if key == "reference_source":
        d["kernels"] = d["kernels"][:1]
    return d


def fresh_folder(audit, name):
    """The part's scratch folder under --work, emptied."""
    work = audit.work / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    return work


def part_manifests(audit, args):
    t0 = time.monotonic()
    p0, f0 = audit.passed, audit.failed
    work = fresh_folder(audit, "manifests")
    real = []
    for m in sorted((REPO / "manifests").glob("*.json")):
        doc, err = load_json(m)
        if doc is None or not isinstance(doc, dict) or not doc.get("kernels"):
            print(f"  (skipping {m.name}: not a loadable manifest: {err})")
            continue
        real.append((m, doc))
    rng = random.Random(args.seed)
    variants = make_variants(real, rng, args.count)
    print(f"manifests: {len(variants)} variants of {len(real)} manifests (seed {args.seed})", flush=True)
    # which variants also get a real run: every --run-every'th and those marked for one (sources,
    # injections, several files), spread evenly over the list when there are more than --max-runs
    wanted = [i for i, (_, v) in enumerate(variants) if v.run or i % args.run_every == 0]
    if len(wanted) > args.max_runs:
        step = len(wanted) / args.max_runs
        wanted = [wanted[int(k * step)] for k in range(args.max_runs)]
    wanted = set(wanted)
    runs = 0
    exits = {"list": {}, "run": {}}
    cache = audit.work / "cache"
    for i, (cat, v) in enumerate(variants):
        folder = work / f"v{i:04d}"
        mdir = folder / "m"
        mdir.mkdir(parents=True)
        for fname, data in v.files.items():
            (mdir / fname).write_bytes(data if isinstance(data, bytes) else dump_with_raw(data))
        if v.setup:
            doc = v.setup(mdir)
            if isinstance(doc, dict):
                (mdir / next(iter(v.files))).write_bytes(dump_with_raw(doc))
        (folder / "variant.txt").write_text(f"{cat}: {v.desc}\n")
        names = sorted(os.listdir(mdir))  # an error may name any file of the folder
        tag = audit.new_tag(f"m{i}")
        label = f"[{cat}] {v.desc}"
        r, kernels = list_cases(audit, mdir, REPO, tag)
        probe_run(audit, "manifests", label + " (list)", r, names, folder, tag)
        exits["list"][describe_rc(r.rc)] = exits["list"].get(describe_rc(r.rc), 0) + 1
        if i in wanted:
            runs += 1
            sel = []  # no kernel listed: a run of the folder (which has nothing valid to run)
            with_cases = [(k, cs) for k, cs in kernels if cs]
            if with_cases:
                k, cs = with_cases[0]
                cid = f"{k}/{cs[0]}"
                if len(cid) < 4000:
                    sel = ["-k", exact_glob(cid)]
                elif len(k) < 4000:
                    sel = [exact_glob(k), "-x"]
                else:
                    sel = None  # a name too long for a command line: list only
            if sel is not None:
                out = folder / "out"
                tmp = folder / "tmp"
                tmp.mkdir()
                rr = run_hk(audit, ["--backend", "host", "--jobs", "1", "--timeout", "20", "--manifests", mdir, "--out", out,
                                    "--cache-dir", cache, "--no-repro"] + sel, tag, REPO, 60, tmpdir=tmp, mem_limit=MEM_LIMIT)
                probe_run(audit, "manifests", label + " (run)", rr, names, folder, tag, out=out, check=v.check)
                exits["run"][describe_rc(rr.rc)] = exits["run"].get(describe_rc(rr.rc), 0) + 1
        if (i + 1) % 100 == 0:
            print(f"  ... {i + 1}/{len(variants)} variants, {runs} runs, {time.monotonic() - t0:.0f} s", flush=True)
        if (folder / "keep").exists() is False and not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"  exit codes: list {dict(sorted(exits['list'].items()))}; run {dict(sorted(exits['run'].items()))}")
    print(f"part manifests: {len(variants)} variants, {runs} runs; {audit.passed - p0} held, {audit.failed - f0} findings, "
          f"{time.monotonic() - t0:.0f} s", flush=True)


def probe_run(audit, part, label, r, manifest_names, folder, tag, out=None, check=None):
    problems = []
    if r.timed_out:
        problems.append(f"no exit within 60 s (killed)")
    elif r.rc < 0:
        problems.append(f"died by a signal ({describe_rc(r.rc)})")
    elif r.rc not in DOCUMENTED_EXITS:
        problems.append(f"undocumented exit code {r.rc}")
    for bad in BAD_STDERR:
        if bad in r.stderr:
            problems.append(f"stderr holds {bad!r}")
    if r.rc == 2 and not any(n in r.stderr for n in manifest_names):
        problems.append("exit 2 but the message names no manifest file")
    if out is not None and (Path(out) / "test_results.json").exists():
        doc, err = load_json(Path(out) / "test_results.json")
        if doc is None:
            problems.append(f"test_results.json does not parse: {err}")
    left = leftovers(tag, grace=0.5 if out is not None else 0.0)
    if left:
        problems.append(f"{len(left)} process(es) outlived it: {left[0][1][:120]}")
    if check:
        p = check(folder)
        if p:
            problems.append(p)
    if problems:
        (folder / "keep").touch()
        (folder / "command.txt").write_text(" ".join(map(shlex_quote, r.cmd)) + f"\n(cwd {REPO})\n")
        (folder / "stderr.txt").write_text(r.stderr[-200000:])
        (folder / "stdout.txt").write_text(r.stdout[-20000:])
        audit.finding(part, f"{label}: {'; '.join(problems)} [{describe_rc(r.rc)} in {r.elapsed:.1f} s]", keep=folder,
                      extra="command: " + " ".join(map(shlex_quote, r.cmd)) + f"\ncwd: {REPO}\nstderr tail:\n{r.stderr[-3000:]}")
    else:
        audit.held(label)


def shlex_quote(s):
    import shlex
    s = str(s)
    return shlex.quote(s) if len(s) < 300 else shlex.quote(s[:300]) + "...(long)"


# ---------------------------------------------------------------------------------------------
# Part 2: signals


def results_cases(out):
    doc, err = load_json(Path(out) / "test_results.json")
    if doc is None:
        return None, err
    try:
        cases = {(c["kernel"], c["case"]): c for c in doc["cases"]}
        return (doc, cases), None
    except (KeyError, TypeError) as e:
        return None, f"unexpected layout: {e}"


def journal_cases(out):
    done = set()
    try:
        with open(Path(out) / "results.jsonl", "rb") as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get("type") == "case":
                    done.add((rec["result"]["kernel"], rec["result"]["case"]))
    except OSError:
        pass
    return done


def part_signals(audit, args):
    t0 = time.monotonic()
    p0, f0 = audit.passed, audit.failed
    work = fresh_folder(audit, "signals")
    cache = audit.work / "cache"
    kernels = args.signal_kernels.split(",")
    base_args = ["--backend", "host", "--jobs", "1", "--cache-dir", cache] + args.signal_args.split() + kernels

    # the uninterrupted run, twice: once to fill the compile cache, once to time it
    baseline = None
    for attempt in range(2):
        out = work / f"baseline{attempt}"
        tag = audit.new_tag("sigbase")
        r = run_hk(audit, base_args + ["--out", out], tag, REPO, 300, tmpdir=None)
        leftovers(tag)
        got, err = results_cases(out)
        if got is None or r.rc not in (0, 1):
            audit.finding("signals", f"the uninterrupted run of {kernels} did not work: {describe_rc(r.rc)}, {err}", keep=out,
                          extra=r.stderr[-3000:])
            return
        baseline = (got[1], r.rc, r.elapsed)
    verdicts = {k: c["status"] for k, c in baseline[0].items()}
    total = len(verdicts)
    wall = baseline[2]
    print(f"signals: baseline {total} cases of {','.join(kernels)}, exit {baseline[1]}, {wall:.1f} s uninterrupted", flush=True)

    # (label, [(delay after start, signal, to group?)], extra args)
    span = max(wall, 1.0)
    probes = [
        ("SIGINT at 0.05 s", [(0.05, signal.SIGINT, False)], []),
        ("SIGINT at 0.3 s", [(0.3, signal.SIGINT, False)], []),
        ("SIGINT at 1 s", [(1.0, signal.SIGINT, False)], []),
        ("SIGINT at 3 s", [(3.0, signal.SIGINT, False)], []),
        ("SIGINT at 1/3 of the run", [(span / 3, signal.SIGINT, False)], []),
        ("SIGINT at 0.9 of the run", [(span * 0.9, signal.SIGINT, False)], []),
        ("SIGTERM at 0.1 s", [(0.1, signal.SIGTERM, False)], []),
        ("SIGTERM at 2 s", [(2.0, signal.SIGTERM, False)], []),
        ("SIGTERM at 5 s", [(5.0, signal.SIGTERM, False)], []),
        ("SIGTERM at 1/2 of the run", [(span / 2, signal.SIGTERM, False)], []),
        ("SIGTERM to the process then its group (timeout) at 0.2 s",
         [(0.2, signal.SIGTERM, False), (0.2, signal.SIGTERM, True)], []),
        ("SIGTERM to the process then its group (timeout) at 2/3 of the run",
         [(span * 2 / 3, signal.SIGTERM, False), (span * 2 / 3, signal.SIGTERM, True)], []),
        ("two SIGINTs in a row at 0.4 s", [(0.4, signal.SIGINT, False), (0.45, signal.SIGINT, False)], []),
        ("two SIGINTs at once at 1/4 of the run", [(span / 4, signal.SIGINT, False), (span / 4, signal.SIGINT, False)], []),
        ("two SIGINTs 10 ms apart at 1 s", [(1.0, signal.SIGINT, False), (1.01, signal.SIGINT, False)], []),
        ("two SIGTERMs 10 ms apart at 2 s", [(2.0, signal.SIGTERM, False), (2.01, signal.SIGTERM, False)], []),
        ("SIGINT to the process group (Ctrl-C) at 1/2 of the run", [(span / 2, signal.SIGINT, True)], []),
        ("SIGTERM during compilation (--no-cache) at 0.5 s", [(0.5, signal.SIGTERM, False)], ["--no-cache"]),
        ("SIGINT during compilation (--no-cache) at 1.5 s", [(1.5, signal.SIGINT, False)], ["--no-cache"]),
        ("SIGINT after the run finished", [(span + 3.0, signal.SIGINT, False)], []),
    ]
    for n, (label, sends, extra) in enumerate(probes):
        signal_probe(audit, work / f"p{n:02d}", label, sends, base_args + extra, verdicts, total, baseline[1])

    concurrent_probe(audit, work / "two_runs", base_args, verdicts, baseline[1], span)
    print(f"part signals: {len(probes) + 1} scenarios; {audit.passed - p0} held, {audit.failed - f0} findings, "
          f"{time.monotonic() - t0:.0f} s", flush=True)


def signal_probe(audit, folder, label, sends, run_args, verdicts, total, base_rc):
    folder.mkdir(parents=True)
    out = folder / "out"
    tag = audit.new_tag("sig")
    errf = open(folder / "stderr.txt", "wb")
    outf = open(folder / "stdout.txt", "wb")
    p = start_hk(audit, run_args + ["--out", out], tag, REPO, stdout=outf, stderr=errf)
    cmd = p.audit_cmd
    t_start = time.monotonic()
    finished_first = False
    last_signal = None
    for delay, sig, group in sends:
        while time.monotonic() - t_start < delay:
            time.sleep(0.005)
        if p.poll() is not None:
            finished_first = True
            break
        try:
            os.killpg(p.pid, sig) if group else os.kill(p.pid, sig)
        except ProcessLookupError:
            finished_first = True
        last_signal = (sig, time.monotonic())
    problems = []
    try:
        rc = p.wait(timeout=10 if last_signal else 300)
    except subprocess.TimeoutExpired:
        problems.append("no exit within 10 s of the signal")
        kill_group(p.pid)
        rc = p.wait()
    errf.close()
    outf.close()
    stderr = (folder / "stderr.txt").read_text(errors="replace")
    first_sig = sends[0][1]
    want = {signal.SIGINT: 130, signal.SIGTERM: 143}[first_sig]
    if not problems:
        if finished_first and rc == base_rc:
            pass
        elif rc != want and not (rc == base_rc and journal_complete(out, verdicts)):
            problems.append(f"exit {describe_rc(rc)}, expected {want}")
    for bad in BAD_STDERR:
        if bad in stderr:
            problems.append(f"stderr holds {bad!r}")
    got, err = results_cases(out)
    if got is None:
        problems.append(f"test_results.json missing or unreadable: {err}")
    else:
        doc, cases = got
        summ = doc.get("summary", {})
        if summ.get("total") != total or len(cases) != total:
            problems.append(f"summary total {summ.get('total')} ({len(cases)} records), {total} cases selected")
        done = journal_cases(out)
        for key, c in cases.items():
            if key not in verdicts:
                problems.append(f"unknown case {key}")
            elif key not in done and c["status"] != "NOT_RUN":
                problems.append(f"{key[0]}/{key[1]} not finished (not in the journal) but {c['status']}")
            elif key in done and c["status"] != verdicts[key] and c["status"] != "NOT_RUN":
                problems.append(f"{key[0]}/{key[1]} {c['status']}, uninterrupted {verdicts[key]}")
    left = leftovers(tag)
    if left:
        problems.append(f"{len(left)} process(es) outlived the run: {left[0][1][:150]}")
    # --resume finishes with the same verdicts
    if got is not None:
        rtag = audit.new_tag("resume")
        r = run_hk(audit, ["--resume", out, "--jobs", "1", "--cache-dir", audit.work / "cache"], rtag, REPO, 300)
        (folder / "resume_stderr.txt").write_text(r.stderr)
        if r.timed_out or r.rc != base_rc:
            problems.append(f"--resume: {describe_rc(r.rc)}{' (timed out)' if r.timed_out else ''}, expected {base_rc}")
        got2, err2 = results_cases(out)
        if got2 is None:
            problems.append(f"--resume left no readable test_results.json: {err2}")
        else:
            diffs = [f"{k[0]}/{k[1]}: {got2[1].get(k, {}).get('status')} vs {v}" for k, v in verdicts.items()
                     if got2[1].get(k, {}).get("status") != v]
            if diffs or len(got2[1]) != total:
                problems.append(f"--resume verdicts differ from the uninterrupted run's: {diffs[:3]} ({len(diffs)} differ, {len(got2[1])} records)")
        left = leftovers(rtag)
        if left:
            problems.append(f"{len(left)} process(es) outlived the resumed run")
    counts = ""
    if got is not None:
        not_run = sum(1 for c in got[1].values() if c["status"] == "NOT_RUN")
        counts = f", {len(got[1]) - not_run} finished, {not_run} NOT_RUN"
    what = f"{label} ({'the run finished first, ' if finished_first else ''}{describe_rc(rc)}{counts})"
    if problems:
        (folder / "command.txt").write_text(" ".join(map(shlex_quote, cmd)) + f"\n(cwd {REPO}); signals: {sends}\n")
        audit.finding("signals", f"{what}: {'; '.join(problems)}", keep=folder)
    else:
        audit.held(what)
        print(f"  held: {what}", flush=True)


def journal_complete(out, verdicts):
    return set(verdicts) <= journal_cases(out)


def concurrent_probe(audit, folder, run_args, verdicts, base_rc, span):
    """Two runs into one --out: the second must be refused clearly, the first must finish intact."""
    folder.mkdir(parents=True)
    out = folder / "out"
    tag1, tag2 = audit.new_tag("first"), audit.new_tag("second")
    e1 = open(folder / "first_stderr.txt", "wb")
    p1 = start_hk(audit, run_args + ["--out", out], tag1, REPO, stdout=subprocess.DEVNULL, stderr=e1)
    time.sleep(min(0.5, span / 4))
    r2 = run_hk(audit, run_args + ["--out", out], tag2, REPO, 60)
    (folder / "second_stderr.txt").write_text(r2.stderr)
    problems = []
    if p1.poll() is not None:
        problems.append("(the first run had already finished when the second started: the probe proves little)")
    if r2.timed_out or r2.rc in (0, 1, None) or r2.rc < 0:
        problems.append(f"the second run was not refused ({describe_rc(r2.rc)})")
    elif str(out) not in r2.stderr:
        problems.append("the second run's refusal does not name the folder")
    try:
        rc1 = p1.wait(timeout=300)
    except subprocess.TimeoutExpired:
        kill_group(p1.pid)
        rc1 = p1.wait()
        problems.append("the first run did not finish")
    e1.close()
    if rc1 != base_rc:
        problems.append(f"the first run ended with {describe_rc(rc1)}, expected {base_rc}")
    got, err = results_cases(out)
    if got is None:
        problems.append(f"the first run's test_results.json: {err}")
    else:
        diffs = [k for k, v in verdicts.items() if got[1].get(k, {}).get("status") != v]
        if diffs or len(got[1]) != len(verdicts):
            problems.append(f"the first run's results differ from the uninterrupted run's ({len(diffs)} cases)")
    lines = 0
    try:
        with open(out / "results.jsonl", "rb") as f:
            recs = [json.loads(x) for x in f if x.strip()]
        runs = [x for x in recs if x.get("type") == "run"]
        cases = [x for x in recs if x.get("type") == "case"]
        lines = len(cases)
        if len(runs) != 1 or len(cases) != len(verdicts):
            problems.append(f"the journal holds {len(runs)} run header(s) and {len(cases)} case lines for {len(verdicts)} cases")
    except (OSError, ValueError) as e:
        problems.append(f"the journal: {e}")
    for tag in (tag1, tag2):
        left = leftovers(tag)
        if left:
            problems.append(f"{len(left)} process(es) outlived a run")
    label = f"two runs into one --out ({describe_rc(r2.rc)} for the second; first {describe_rc(rc1)}, {lines} journal lines)"
    if problems:
        audit.finding("signals", f"{label}: {'; '.join(problems)}", keep=folder)
    else:
        audit.held(label)
        print(f"  held: {label}", flush=True)


# ---------------------------------------------------------------------------------------------
# Part 3: misbehaving kernels

# Verdicts besides the declared one that are also right for a kernel (the declared one is the
# best; these are not bugs of hkcheck). Empty for most.
ALSO_RIGHT = {
    # 300 MiB without a line end: the parent gives up on the protocol; how it says so may vary.
    "audit_flood_protocol_noline": {"CRASH", "ERROR", "TIMEOUT"},
    # reads every writable mapping of its process while the launch's other threads may unmap theirs
    "audit_forge_scan": {"CRASH"},
}
CONTROLS = ("audit_control_first", "audit_control_last")
SIGNAL_PARENT = ("audit_kill_parent_term", "audit_kill_parent_int")
# Forgers whose forged PASS, if accepted, keeps a worker that then dies or misbehaves: the case
# after them would be blamed for it (LEAK). Each gets a run of its own. They look for the request
# id in their own process's memory: a host kernel runs in a kernel process forked before any
# request, so there is none (part "verdicts" attacks the boundary itself).
FORGERS = ("audit_forge_scan_exit", "audit_forge_scan")


def part_kernels(audit, args):
    t0 = time.monotonic()
    p0, f0 = audit.passed, audit.failed
    work = fresh_folder(audit, "kernels")
    mdir = HERE / "kernels"
    manifest, err = load_json(mdir / "misbehaving.json")
    if manifest is None:
        audit.finding("kernels", f"tests/audit/kernels/misbehaving.json does not load: {err}")
        return
    kernels = manifest["kernels"]
    expect = {k["name"]: (k.get("expect") or {}).get("status") for k in kernels}
    timeout = args.kernel_timeout
    main = [k["name"] for k in kernels if k["name"] not in SIGNAL_PARENT + FORGERS]
    n_timeout = sum(1 for k in main if expect[k] == "TIMEOUT")
    # a bound: compiling the four files and the reference, every case's own time (a TIMEOUT the
    # timeout and the kill, any other a few seconds: a fresh worker, the 300 MiB floods)
    bound = 120 + n_timeout * (timeout + 5) + (len(main) - n_timeout) * 5
    print(f"kernels: {len(kernels)} misbehaving kernels; main run of {len(main)} with --timeout {timeout}, bound {bound:.0f} s",
          flush=True)
    run_kernel_set(audit, work / "main", mdir, main, expect, timeout, bound, "main run")
    # A kernel that signals hkcheck itself gets a run of its own (between the two controls), so
    # that what it does to the run cannot hide the other probes.
    for k in SIGNAL_PARENT + FORGERS:
        sel = ["audit_control_first", k, "audit_control_last"] if k in SIGNAL_PARENT else [k]
        run_kernel_set(audit, work / k, mdir, sel, expect, timeout, 60 + timeout * 3, f"run of {k}")
    print(f"part kernels: {audit.passed - p0} held, {audit.failed - f0} findings, {time.monotonic() - t0:.0f} s", flush=True)


def one_kernel_repro(folder, mdir, kernel, timeout):
    """A folder that reproduces one kernel's finding: a manifest of that kernel alone (between
    the two controls for a kernel that signals hkcheck), its source, and the command."""
    manifest, _ = load_json(mdir / "misbehaving.json")
    by_name = {k["name"]: k for k in manifest["kernels"]}
    sel = ["audit_control_first", kernel, "audit_control_last"] if kernel in SIGNAL_PARENT else [kernel]  # as audited
    dest = folder / f"repro_{kernel}"
    shutil.rmtree(dest, ignore_errors=True)
    (dest / "manifests").mkdir(parents=True)
    for n in sel:
        shutil.copy2(mdir / by_name[n]["source"], dest / "manifests" / by_name[n]["source"])
    (dest / "manifests" / "one.json").write_text(json.dumps({"hkcheck_manifest": 1, "kernels": [by_name[n] for n in sel]}, indent=1))
    script = (f"#!/bin/sh\n# reproduces the finding: sh rerun.sh (from anywhere)\n"
              f"d=$(cd \"$(dirname \"$0\")\" && pwd)\nrm -rf \"$d/out\"; mkdir -p \"$d/tmp\"\n"
              f"cd {REPO} && TMPDIR=\"$d/tmp\" build/hkcheck --backend host --jobs 1 --timeout {timeout:g} "
              f"--manifests \"$d/manifests\" --out \"$d/out\"\necho \"exit=$?\"\n")
    (dest / "rerun.sh").write_text(script)
    return dest


def tmp_entries(tmp):
    # hkcheck-references-<uid> is the compiled references' cache (src/refs/runtime_references.cpp): kept on purpose
    return sorted(n for n in os.listdir(tmp) if "hkcheck" in n and not n.startswith("hkcheck-references-"))


def run_kernel_set(audit, folder, mdir, names, expect, timeout, bound, label):
    folder.mkdir(parents=True)
    out = folder / "out"
    tmp = folder / "tmp"  # the run's own TMPDIR ("audit" in its path lets audit_rm_tmp act)
    tmp.mkdir()
    before = tmp_entries(tmp)
    tag = audit.new_tag("kern")
    r = run_hk(audit, ["--backend", "host", "--jobs", "1", "--timeout", str(timeout), "--manifests", mdir, "--out", out,
                       "--cache-dir", audit.work / "cache"] + names, tag, REPO, bound, tmpdir=tmp)
    (folder / "stderr.txt").write_text(r.stderr)
    (folder / "command.txt").write_text(" ".join(map(shlex_quote, r.cmd)) + f"\n(cwd {REPO}, TMPDIR={tmp})\n")
    def probe(ok, what, why="", kernel=None):
        if ok:
            audit.held(what)
        else:
            keep = one_kernel_repro(folder, mdir, kernel, timeout) if kernel else folder
            audit.finding("kernels", f"{label}: {what}{': ' + why if why else ''}", keep=keep)

    probe(not r.timed_out, f"finishes within {bound:.0f} s", f"killed after {r.elapsed:.0f} s")
    got, err = results_cases(out)
    probe(got is not None, "test_results.json parses", err or "")
    md = out / "test_results.md"
    probe(md.exists() and md.stat().st_size > 0, "test_results.md written")
    jl_ok, jl_err = True, ""
    try:
        with open(out / "results.jsonl", "rb") as f:
            for n, line in enumerate(f, 1):
                json.loads(line)
    except (OSError, ValueError) as e:
        jl_ok, jl_err = False, str(e)
    probe(jl_ok, "results.jsonl parses", jl_err)
    if got is not None:
        doc, cases = got
        interrupted = doc.get("run", {}).get("interrupted")
        probe(interrupted is None and r.rc in (0, 1), "the run ends by itself (exit 0 or 1, not interrupted)",
              f"{describe_rc(r.rc)}, run.interrupted {interrupted}")
        all_good = all((c.get("status") == "PASS") if k in CONTROLS else (c.get("status") == "XFAIL")
                       for (k, _), c in cases.items())
        if interrupted is None and r.rc in (0, 1):
            probe(r.rc == (0 if all_good else 1), "its exit code agrees with the verdicts",
                  f"{describe_rc(r.rc)} with {'all' if all_good else 'not all'} cases XFAIL/PASS")
        by_kernel = {k: c for (k, _), c in cases.items()}
        probe(doc.get("summary", {}).get("total") == len(names) and len(cases) == len(names),
              f"every one of the {len(names)} cases has a record", f"{len(cases)} records, summary {doc.get('summary', {}).get('total')}")
        for name in names:
            c = by_kernel.get(name)
            if c is None:
                probe(False, f"{name}: has a verdict", "no record", kernel=name)
                continue
            st, actual = c.get("status"), c.get("actual_status")
            if name in CONTROLS:
                probe(st == "PASS", f"{name} (a correct kernel) PASS", f"{st}: {c.get('message', '')[:200]}",
                      kernel=next((n for n in names if n in SIGNAL_PARENT), None))
                continue
            want = expect.get(name)
            if st in ("PASS", "XPASS"):
                forged = any("forged" in n for n in c.get("notes", []))
                probe(False, f"{name}: not PASS", f"{st}{' (a forged result was accepted)' if forged else ''}", kernel=name)
            elif st == "XFAIL" or st in ALSO_RIGHT.get(name, ()) or actual in ALSO_RIGHT.get(name, ()):
                probe(True, f"{name}: {st}")
            else:
                probe(False, f"{name}: the declared {want}", f"got {st} ({c.get('message', '')[:160]})", kernel=name)
    # nothing the kernels started outlives the run
    left = leftovers(tag)
    probe(not left, "no process outlives the run", "; ".join(f"{pid} {cmd[:100]}" for pid, cmd in left))
    after = tmp_entries(tmp)
    probe(after == before, "no hkcheck leftovers in the run's TMPDIR", f"left: {[n for n in after if n not in before][:5]}")
    print(f"  {label}: {describe_rc(r.rc)} in {r.elapsed:.1f} s", flush=True)


# ---------------------------------------------------------------------------------------------


def part_caches(audit, args):
    import attacks_caches  # beside this file; it takes this module's helpers
    attacks_caches.part_caches(audit, args, sys.modules[__name__])


def snapshot_binary(path, work):
    """A copy of the binary under test, so that a rebuild of build/ during the audit (another
    user's cmake) neither fails a probe with "Permission denied" nor mixes two binaries."""
    dest = work / "bin" / "hkcheck"
    dest.parent.mkdir(parents=True, exist_ok=True)
    for attempt in range(20):
        before = os.stat(path)
        shutil.copy2(path, dest)
        after = os.stat(path)
        ok = (before.st_mtime_ns, before.st_size) == (after.st_mtime_ns, after.st_size)
        if ok and subprocess.run([str(dest), "--version"], capture_output=True).returncode == 0:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(after.st_mtime))
            print(f"audit: testing a copy of {path} (built {stamp} UTC, {after.st_size} bytes) at {dest}", flush=True)
            return str(dest)
        time.sleep(3)
    sys.exit(f"audit: could not take a stable copy of {path} (is it being rebuilt?)")


# The parts, in the order "all" runs them; the later ones live in modules of their own.
PART_NAMES = ["manifests", "signals", "kernels", "reports", "verdicts", "caches", "run_record", "limits", "environment"]


def part_function(name):
    return {
        "manifests": part_manifests,
        "signals": part_signals,
        "kernels": part_kernels,
        "reports": lambda a, g: attacks_reports.part_reports(a, g, run_hk, fresh_folder),
        "verdicts": lambda a, g: __import__("attacks_verdicts").part_verdicts(a, g),
        "caches": part_caches,
        "run_record": lambda a, g: attacks_run_record.part_run_record(a, g, sys.modules[__name__]),
        "limits": lambda a, g: __import__("attacks_limits").part_limits(a, g),
        "environment": lambda a, g: __import__("attacks_environment").part_environment(a, g, sys.modules[__name__]),
    }[name]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=PART_NAMES + ["all"], default="all")
    ap.add_argument("--count", type=int, default=1000, help="malformed manifest variants (default 1000)")
    ap.add_argument("--seed", type=int, default=20261124, help="seed of the manifest mutations")
    ap.add_argument("--run-every", type=int, default=10, help="give every Nth variant a real host run (default 10)")
    ap.add_argument("--max-runs", type=int, default=70, help="at most this many real runs in part manifests")
    ap.add_argument("--signal-kernels", default="silu,gelu,rmsnorm", help="kernels of the signal runs")
    ap.add_argument("--signal-args", default="--isolation case --seeds 0..1",
                    help="more options of the signal runs (default: a fresh worker per case, two seeds: a run of seconds)")
    ap.add_argument("--kernel-timeout", type=float, default=5, help="--timeout of the misbehaving kernels' run")
    ap.add_argument("--hkcheck", default=str(REPO / "build" / "hkcheck"))
    ap.add_argument("--work", default="/tmp/audit", help="scratch folder (findings/ kept there)")
    ap.add_argument("--keep", action="store_true", help="keep every variant's folder, not only findings")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every probe that held")
    args = ap.parse_args()
    if not os.access(args.hkcheck, os.X_OK):
        sys.exit(f"audit: no hkcheck at {args.hkcheck}")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    args.hkcheck = snapshot_binary(args.hkcheck, work)
    for old in (work / "findings").glob("*"):  # the last audit's findings (other entries there are kept)
        if old.name.split("-")[0] in PART_NAMES:
            shutil.rmtree(old, ignore_errors=True)
    audit = Audit(work, args.hkcheck, args.verbose)
    t0 = time.monotonic()
    parts = PART_NAMES if args.part == "all" else [args.part]
    for part in parts:
        part_function(part)(audit, args)
    print(f"audit took {time.monotonic() - t0:.0f} s; findings in {audit.findings_dir}" if audit.failed else
          f"audit took {time.monotonic() - t0:.0f} s")
    if audit.limits:
        print(f"audit: {audit.limits} probe(s) hit a documented limit (LIMIT lines above)")
    print(f"audit: {audit.passed} passed, {audit.failed} failed")
    sys.exit(1 if audit.failed else 0)


if __name__ == "__main__":
    main()
