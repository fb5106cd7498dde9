"""Part "reports" of the audit (tests/audit/README.md): reports that kernel output cannot break,
and files outside the run that a run cannot touch.

- A run of tests/audit/reports/hostile.json: a kernel prints bytes that are not UTF-8, control
  characters, XML and markdown meant to close a code block, start headings, mention someone and
  carry HTML, then aborts; a file that does not compile quotes the same in its log; cases and
  tensors are named to collide (`.w` and `_.w`, `p/q` and `p_q`) or to be too long for a file
  name (a 256-byte kernel name, a 300-byte case name). junit.xml must parse, test_results.md,
  .json and results.jsonl must be UTF-8, the markdown's code blocks must close where hkcheck
  closes them with no heading, mention or HTML of the kernel's outside them, and every case must
  get a repro folder of its own.
- Symbolic links planted in --out (results.jsonl, .hkcheck.lock, test_results.md, repro,
  repro/<kernel>) must not be followed: what they point at stays as it was; a resumed journal
  that is a link is refused.
- An --out inside the manifests folder is refused; a results folder found there is not read.
- A kernel source with mode 0600 outside the project keeps 0600 in its repro copy.
"""
import json
import os
import re
import shutil
import stat
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "reports"
PART = "reports"
NOT_UTF8 = b"\xff\xfe\xc0\x80"  # put in the copy of broken.cu: the compiler's log quotes them


def part_reports(audit, args, run_hk, fresh_folder):
    work = fresh_folder(audit, PART)
    p0, f0 = audit.passed, audit.failed
    common = ["--backend", "host", "--jobs", "1", "--timeout", "60", "--cache-dir", str(audit.work / "cache")]
    ctx = Context(audit, run_hk, common)
    manifests = ctx.fixture_copy(work / "hostile")
    hostile_output(ctx, work / "hostile", manifests)
    symlinks_in_out(ctx, work / "links", manifests)
    out_inside_manifests(ctx, work / "inside", manifests)
    private_source(ctx, work / "private")
    print(f"part reports: {audit.passed - p0} held, {audit.failed - f0} findings", flush=True)


class Context:
    def __init__(self, audit, run_hk, common):
        self.audit, self.run_hk, self.common = audit, run_hk, common

    def probe(self, ok, what, why="", keep=None):
        if ok:
            self.audit.held(what)
        else:
            self.audit.finding(PART, f"{what}: {why}" if why else what, keep=keep)

    def run(self, folder, args, label, limit=600, command=()):
        folder.mkdir(parents=True, exist_ok=True)
        r = self.run_hk(self.audit, list(command) + self.common + [str(a) for a in args], self.audit.new_tag(label), folder, limit)
        (folder / f"{label}.stderr.txt").write_text(r.stderr)
        (folder / f"{label}.command.txt").write_text(" ".join(r.cmd) + "\n")
        return r

    def fixture_copy(self, folder):
        """The fixture's manifests, with bytes that are not UTF-8 in the broken file's #error line."""
        dest = folder / "manifests"
        shutil.copytree(FIXTURE, dest)
        broken = dest / "broken.cu"
        broken.write_bytes(broken.read_bytes().replace(b"NOT_UTF8", NOT_UTF8))
        return dest


# ---------------------------------------------------------------------------------------------
# Reports


def strip_code_spans(line):
    """The line without its inline code spans (a run of N backticks up to the next run of N)."""
    out, i = "", 0
    while i < len(line):
        if line[i] != "`":
            out += line[i]
            i += 1
            continue
        n = len(line[i:]) - len(line[i:].lstrip("`"))
        m = re.compile(r"(?<!`)" + "`" * n + r"(?!`)").search(line, i + n)
        if not m:
            out += line[i:i + n]
            i += n
            continue
        i = m.end()
    return out


def markdown_problems(text):
    """What in the markdown escaped hkcheck's quoting: a code block left open, a heading it did not
    write, a mention or raw HTML outside code, a carriage return."""
    problems = []
    if "\r" in text:
        problems.append("a carriage return (a line break to a markdown reader)")
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r" {0,3}(`{3,}|~{3,})(.*)$", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                fence = None
            continue
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = m.group(1)
            continue
        prose = strip_code_spans(line)
        if re.match(r" {0,3}#{1,6}( |$)", line) and not re.match(r"(# hkcheck results$|## [A-Z]|### )", line):
            problems.append(f"line {n}: a heading hkcheck did not write: {line[:80]!r}")
        if re.match(r" {0,3}#{1,6} +Injected", line):
            problems.append(f"line {n}: the kernel's heading: {line[:80]!r}")
        if re.search(r"@[A-Za-z0-9]", prose):
            problems.append(f"line {n}: a mention: {line[:80]!r}")
        if re.search(r"<[A-Za-z/!?]", prose):
            problems.append(f"line {n}: raw HTML: {line[:80]!r}")
    if fence:
        problems.append(f"a code block opened with {fence} is never closed")
    return problems


def utf8_problem(path):
    try:
        Path(path).read_bytes().decode("utf-8")
        return ""
    except OSError as e:
        return str(e)
    except UnicodeDecodeError as e:
        return f"not UTF-8: {e}"


def hostile_output(ctx, folder, manifests):
    out, junit = folder / "out", folder / "junit.xml"
    r = ctx.run(folder, ["--manifests", manifests, "--out", out, "--junit", junit], "hostile")
    ctx.probe(r.rc == 1, "hostile output: the run ends with exit 1 (cases failed)", f"exit {r.rc}", keep=folder)
    ctx.probe("\x1b" not in r.stderr, "hostile output: no escape character of a kernel's reaches the terminal", keep=folder)
    try:
        ET.parse(junit)
        ctx.probe(True, "hostile output: junit.xml is well-formed XML")
    except (OSError, ET.ParseError) as e:
        ctx.probe(False, "hostile output: junit.xml is well-formed XML", str(e), keep=folder)
    for name in ("test_results.md", "test_results.json", "results.jsonl"):
        why = utf8_problem(out / name)
        ctx.probe(not why, f"hostile output: {name} is UTF-8", why, keep=folder)
    md = (out / "test_results.md").read_bytes().decode("utf-8", "replace") if (out / "test_results.md").exists() else ""
    problems = markdown_problems(md)
    ctx.probe(md and not problems, "hostile output: test_results.md keeps the kernel's text inside code and inert",
              "; ".join(problems[:6]), keep=folder)
    try:
        doc = json.loads((out / "test_results.json").read_bytes())
    except (OSError, ValueError) as e:
        ctx.probe(False, "hostile output: test_results.json parses", str(e), keep=folder)
        return
    cases = doc.get("cases", [])
    crash = next((c for c in cases if c.get("kernel") == "hostile_printf"), {})
    ctx.probe("\\xff" in crash.get("message", ""), "hostile output: the bytes that are not UTF-8 are escaped as \\xNN, not lost",
              repr(crash.get("message", "")[:200]), keep=folder)
    repro_folders(ctx, folder, out, cases)


def repro_folders(ctx, folder, out, cases):
    failed = [c for c in cases if c.get("status") not in ("PASS", "SKIP")]
    repros = [c.get("repro") or "" for c in failed]
    ctx.probe(len(failed) == 11 and all(repros) and len(set(repros)) == len(repros),
              f"repro: each of the {len(failed)} failed cases has a repro folder of its own (11 expected)",
              f"{sum(1 for x in repros if x)} repro folders, {len(set(repros))} distinct", keep=folder)
    for c, rel in zip(failed, repros):
        if not rel:
            continue
        d = out / rel
        too_long = [p for p in Path(rel).parts if len(p.encode()) > 255]
        try:
            m = json.loads((d / "manifest.json").read_text())
            names = [k["name"] for k in m["kernels"]], [cs["name"] for cs in m["kernels"][0]["cases"]]
        except (OSError, ValueError, KeyError, IndexError) as e:
            names = str(e)
        ctx.probe(not too_long and names == ([c["kernel"]], [c["case"]]),
                  f"repro of {c['kernel'][:40]} / {c['case'][:40]!r}: its own one-case manifest",
                  f"names {too_long or names}", keep=folder)
    plain = next((c for c in failed if c.get("kernel") == "_.w" and c.get("case") == "plain"), None)
    if plain and plain.get("repro"):
        inputs = out / plain["repro"] / "inputs"
        held = sorted(tensor_name(p) for p in inputs.glob("*.hkt")) if inputs.is_dir() else []
        ctx.probe(held == ["p/q", "p_q", "x"], "repro: tensors p/q and p_q get input files of their own", f"inputs hold {held}",
                  keep=folder)


def tensor_name(path):
    raw = path.read_bytes()
    n = int.from_bytes(raw[8:12], "little")
    return json.loads(raw[12:12 + n])["name"]


# ---------------------------------------------------------------------------------------------
# Files outside the run


def plant(link, target):
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)


def symlinks_in_out(ctx, folder, manifests):
    victim = folder / "victim"
    (victim / "repro_dir" / "_.w" / "plain").mkdir(parents=True)
    (victim / "repro_dir" / "_.w" / "plain" / "keep.txt").write_text("keep\n")
    (victim / "kernel_dir" / "plain").mkdir(parents=True)
    (victim / "kernel_dir" / "plain" / "keep.txt").write_text("keep\n")
    for name in ("journal.txt", "lock.txt", "md.txt"):
        (victim / name).write_text("precious\n")
    out = folder / "out"
    plant(out / "results.jsonl", victim / "journal.txt")
    plant(out / ".hkcheck.lock", victim / "lock.txt")
    plant(out / "test_results.md", victim / "md.txt")
    plant(out / "repro", victim / "repro_dir")
    r = ctx.run(folder, ["--manifests", manifests, "--out", out, "_.w/plain"], "links")
    ctx.probe(r.rc == 1, "links in --out: the run goes on (exit 1, its case failed)", f"exit {r.rc}", keep=folder)
    for name in ("journal.txt", "lock.txt", "md.txt"):
        ctx.probe((victim / name).read_text() == "precious\n", f"links in --out: {name} reached through a link is untouched", keep=folder)
    ctx.probe((victim / "repro_dir" / "_.w" / "plain" / "keep.txt").exists(), "links in --out: a folder reached through repro/ is not deleted",
              keep=folder)
    ctx.probe((out / "repro" / "_.w" / "plain" / "manifest.json").exists() and not (out / "repro").is_symlink(),
              "links in --out: the repro folder is written in --out itself", keep=folder)
    ctx.probe("symbolic link" in r.stderr, "links in --out: hkcheck says it removed a link", keep=folder)

    out2 = folder / "out2"
    plant(out2 / "repro" / "_.w", victim / "kernel_dir")
    r = ctx.run(folder, ["--manifests", manifests, "--out", out2, "_.w/plain"], "nested")
    ctx.probe((victim / "kernel_dir" / "plain" / "keep.txt").exists(), "links in --out: a folder reached through repro/<kernel> is not deleted",
              f"exit {r.rc}", keep=folder)

    # A resumed journal that is a link is refused, and what it points at is not appended to.
    (victim / "journal2.txt").write_bytes((out / "results.jsonl").read_bytes())
    (out / "results.jsonl").unlink()
    plant(out / "results.jsonl", victim / "journal2.txt")
    before = (victim / "journal2.txt").read_bytes()
    r = ctx.run(folder, ["--resume", out], "resume")
    ctx.probe(r.rc == 2 and (victim / "journal2.txt").read_bytes() == before, "links in --out: --resume refuses a journal that is a link",
              f"exit {r.rc}, {'changed' if (victim / 'journal2.txt').read_bytes() != before else 'unchanged'}", keep=folder)


def out_inside_manifests(ctx, folder, manifests):
    m = folder / "manifests"
    shutil.copytree(manifests, m)
    r = ctx.run(folder, ["--manifests", m, "--out", m / "results", "_.w/plain"], "inside")
    ctx.probe(r.rc == 2 and not (m / "results" / "repro").exists(), "--out inside the manifests folder is refused (exit 2)",
              f"exit {r.rc}", keep=folder)
    # A results folder already there (an older run's) is not read as manifests.
    old = m / "old_results"
    (old / "repro" / "_.w" / "plain").mkdir(parents=True)
    (old / ".hkcheck.lock").write_text("")
    shutil.copy(m / "hostile.json", old / "repro" / "_.w" / "plain" / "manifest.json")
    r = ctx.run(folder, ["--manifests", m], "list", command=["list"])
    ctx.probe(r.rc == 0 and r.stdout.count("_.w  (") == 1, "a results folder inside the manifests folder is not read as manifests",
              f"exit {r.rc}: {r.stderr[:200]}", keep=folder)


def private_source(ctx, folder):
    src = folder / "elsewhere" / "private.cu"
    src.parent.mkdir(parents=True)
    shutil.copy(FIXTURE / "hostile.cu", src)
    os.chmod(src, 0o600)
    doc = json.loads((FIXTURE / "hostile.json").read_text())
    k = next(k for k in doc["kernels"] if k["name"] == "_.w")
    k["source"] = str(src)
    (folder / "manifests").mkdir()
    (folder / "manifests" / "private.json").write_text(json.dumps({"hkcheck_manifest": 1, "kernels": [k]}))
    out = folder / "out"
    r = ctx.run(folder, ["--manifests", folder / "manifests", "--out", out, "_.w/plain"], "private")
    copy = out / "repro" / "_.w" / "plain" / "private.cu"
    mode = stat.S_IMODE(copy.stat().st_mode) if copy.exists() else None
    ctx.probe(mode == 0o600, "a private source (0600) keeps its mode in the repro copy",
              f"exit {r.rc}, mode {oct(mode) if mode is not None else 'no copy'}", keep=folder)
