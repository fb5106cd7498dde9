#!/usr/bin/env python3
"""Every `hkcheck ...` command the README shows is run, in its order, and must do what its line
says, with no GPU: a README line that stops working fails this test.

  readme_commands.py HKCHECK REPO WORK

Each line runs in WORK/project, a slice of the repository's corpus (the kernels the README names:
rmsnorm, silu and silu_and_mul, with every kernel source and reference), so a line that means
"every kernel" stays seconds long. Rewritten for a machine without a GPU, as the issue asks:
  - a GPU backend (`--backend cuda`) becomes `--backend host`, and a run with no backend gets it;
    `--compile-only`, `list`, `diff` and `merge` take none;
  - `--device N` and `--devices L` go: the host backend has no device index;
  - `--out`, `--resume` and `--junit` folders go under WORK/out (a folder a later line names is
    the one an earlier line wrote); `--last-failed DIR` and `diff A B` read an earlier line's
    folder (given or the default `results/<device>`), else the committed results;
  - `--root ../my_kernels` is a copy of examples/kernel_project beside the slice.
A run must exit 0 and check something (a test_results.json without FAIL, or what the line's mode
prints); the lines that ask for a GPU tool (`--sanitize`) must say that it needs one.
"""
import json
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import time

SLICE = {"norm.json": ["rmsnorm"], "activation.json": ["silu", "silu_and_mul"]}
GPU_ONLY = {"--sanitize": "compute-sanitizer needs the CUDA backend"}
PATH_OPTIONS = ("--out", "--resume", "--junit", "--junitxml")


def readme_commands(readme):
    """(line number, words) of each indented code line that starts with `hkcheck`."""
    out = []
    for n, line in enumerate(readme.read_text().splitlines(), 1):
        if line.startswith("    hkcheck") and (len(line) == 11 or line[11] == " "):
            out.append((n, line.strip(), shlex.split(line, comments=True)))
    return out


def make_project(repo, work):
    project = work / "project"
    (project / "manifests").mkdir(parents=True)
    for folder in ("kernels", "references"):
        shutil.copytree(repo / folder, project / folder)
    shutil.copy(repo / "hkcheck.json", project)
    for name, kernels in SLICE.items():
        doc = json.loads((repo / "manifests" / name).read_text())
        doc["kernels"] = [k for k in doc["kernels"] if k["name"] in kernels]
        assert len(doc["kernels"]) == len(kernels), f"{name} no longer holds {kernels}"
        (project / "manifests" / name).write_text(json.dumps(doc, indent=1))
    shutil.copytree(repo / "examples" / "kernel_project", work / "my_kernels")
    return project


def read_folder(folder, repo, work, written):
    """A results folder a line reads: the one an earlier line wrote, else the committed one."""
    if folder in written:
        return str(work / "out" / folder)
    if (work / "project" / folder).exists():  # an earlier line's default folder, results/<device>
        return str(work / "project" / folder)
    return str(repo / folder)


def mode_of(words):
    """The line's mode word (list, diff, merge, mutate), or None for a run."""
    return next((w for w in words[1:] if w in ("list", "diff", "merge", "mutate")), None)


def rewrite(words, hkcheck, repo, work, written):
    """The line as it runs here, and the folder its results go to (None: the default)."""
    args, out, i = [], None, 1
    mode = mode_of(words)
    while i < len(words):
        w = words[i]
        name, eq, value = w.partition("=")
        if w in ("--device", "--devices", "--backend"):  # the GPU's; the host backend is added below
            i += 2
            continue
        if w in PATH_OPTIONS or (eq and name in PATH_OPTIONS):
            folder = value if eq else words[i + 1]
            place = str(work / "out" / folder)
            written.add(folder)
            if name == "--out":
                out = place
            args += [name, place] if eq else [w, place]
            i += 1 if eq else 2
            continue
        if w == "--last-failed" and i + 1 < len(words) and "/" in words[i + 1]:
            folder = words[i + 1]
            args += [w, read_folder(folder, repo, work, written)]
            i += 2
            continue
        if mode == "diff" and "/" in w and not w.startswith("-"):
            args.append(read_folder(w, repo, work, written))
            i += 1
            continue
        args.append(w)
        i += 1
    if mode not in ("list", "diff", "merge") and "--compile-only" not in words:
        args = ["--backend", "host"] + args
    return [hkcheck] + args, out


def results_of(folder):
    path = pathlib.Path(folder) / "test_results.json"
    if not path.exists():
        return None
    return [c["status"] for c in json.loads(path.read_text())["cases"]]


def check(words, proc, out, project):
    """What is wrong with the line's run, or None."""
    text = proc.stdout
    gpu_tool = next((need for opt, need in GPU_ONLY.items() if any(w.split("=")[0] == opt for w in words)), None)
    if proc.returncode != 0:
        return f"exit {proc.returncode}"
    if gpu_tool:
        return None if gpu_tool in text else f"it does not say '{gpu_tool}'"
    mode = mode_of(words)
    if mode == "list" or "--list" in words or "--collect-only" in words:
        return None if "rmsnorm" in text else "the listing does not name rmsnorm"
    if mode == "diff":
        return None if text.strip() else "the diff printed nothing"
    if mode == "mutate":
        return None if "mutant" in text else "mutate said nothing of mutants"
    if "no failed cases in the last run" in text:
        return None  # --lf after a green run: what the README says it does
    if "--resume" in words:
        return None if "cases" in text else "the resume printed no summary"
    statuses = results_of(out) if out else None
    if statuses is None:  # the default folder: the newest results under the project
        found = sorted((project / "results").glob("*/test_results.json"), key=os.path.getmtime)
        statuses = results_of(found[-1].parent) if found else None
    if not statuses:
        return "no test_results.json with cases"
    if "FAIL" in statuses or "PASS" not in statuses:
        return f"verdicts {sorted(set(statuses))}"
    return None


def main():
    hkcheck, repo, work = str(pathlib.Path(sys.argv[1]).resolve()), pathlib.Path(sys.argv[2]).resolve(), pathlib.Path(sys.argv[3]).resolve()
    shutil.rmtree(work, ignore_errors=True)
    project = make_project(repo, work)
    env = dict(os.environ, NO_COLOR="1")
    env.pop("HKCHECK_OUT", None)
    commands = readme_commands(repo / "README.md")
    problems, written = [], set()
    for n, line, words in commands:
        argv, out = rewrite(words, hkcheck, repo, work, written)
        start = time.monotonic()
        proc = subprocess.run(argv, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1200)
        problem = check(words, proc, out, project)
        print(f"README:{n}: {'ok' if problem is None else 'FAILED'} in {time.monotonic() - start:.1f} s: {shlex.join(argv[1:])}")
        if problem:
            problems.append(f"README:{n}: {line}\n  ran: {shlex.join(argv)}\n  {problem}\n" + proc.stdout[-2000:])
    if len(commands) < 20:
        problems.append(f"only {len(commands)} hkcheck lines found in the README: has its layout changed?")
    for p in problems:
        print(p)
    print(f"{len(commands)} README command(s), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
