#!/usr/bin/env python3
"""The console of a run, as a user sees it: with stderr a pipe (one line per case), with -q (the
summary only), with --durations, and on a terminal (a pseudo-terminal: one status line rewritten
in place). The fixture's kernel fails for some seeds, so every mode must end with the list of the
cases that did not pass.

usage: console_check.py HKCHECK MANIFESTS OUT_DIR
"""
import os
import pty
import re
import select
import subprocess
import sys
import time

HKCHECK, MANIFESTS, OUT = sys.argv[1:4]
BASE = ["--backend", "host", "--seeds", "0..9", "--jobs", "1", "--no-repro", "--manifests", MANIFESTS]
failures = []


def check(cond, what, text):
    if not cond:
        failures.append(f"{what}\n--- output ---\n{text}\n---")


def run_piped(extra, out):
    p = subprocess.run([HKCHECK, *BASE, "--out", out, *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def run_on_terminal(extra, out):
    """Runs with stdout and stderr on a pseudo-terminal; returns the exit code, the raw output and
    the seconds until the first byte came."""
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm"
        os.execv(HKCHECK, [HKCHECK, *BASE, "--out", out, *extra])
    start, first, chunks = time.monotonic(), None, []
    while True:
        ready, _, _ = select.select([fd], [], [], 120)
        if not ready:
            break
        try:
            data = os.read(fd, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        if first is None:
            first = time.monotonic() - start
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode("utf-8", "replace"), first


# Not a terminal: one line per case, the closing list, the summary.
rc, text = run_piped([], OUT + "/piped")
check(rc == 1, f"a run with failing seeds exits 1, got {rc}", text)
check(text.splitlines()[0].startswith("hkcheck: 10 cases of 1 kernels selected"), "the first line says what was selected", text)
check(len(re.findall(r"^\[\s*\d+/10\] rare_input_bug", text, re.M)) == 10, "one line per case", text)
check("\r" not in text and "\033[K" not in text, "no status line when stderr is not a terminal", text)
listed = re.search(r"hkcheck: cases that did not pass:\n((?:  .*\n)+)", text)
check(listed is not None and "FAIL rare_input_bug/n=64 seed=" in listed.group(1), "the closing list names a failing case", text)
check(re.search(r"^hkcheck: 10 cases: \d+ PASS, \d+ FAIL", text, re.M) is not None, "the summary line", text)

# -q: the summary and nothing per case.
rc, text = run_piped(["-q"], OUT + "/quiet")
check(rc == 1, f"-q keeps the exit code, got {rc}", text)
check(re.search(r"^\[", text, re.M) is None and "cases that did not pass" not in text, "-q prints no case", text)
check(re.search(r"^hkcheck: 10 cases: ", text, re.M) is not None, "-q prints the summary", text)

# --durations 3: the three slowest, slowest first.
rc, text = run_piped(["--durations", "3"], OUT + "/durations")
block = re.search(r"hkcheck: the 3 slowest cases:\n((?:\s+[\d.]+ s  .*\n){3})", text)
check(block is not None, "--durations 3 lists three cases", text)
if block:
    times = [float(t) for t in re.findall(r"([\d.]+) s  ", block.group(1))]
    check(times == sorted(times, reverse=True), "slowest first", text)

# A terminal: the status line is drawn in place, the failures stay above it, and the run ends with
# the closing list; the first output comes within a second.
rc, text, first = run_on_terminal([], OUT + "/terminal")
check(rc == 1, f"on a terminal the exit code is the same, got {rc}", text)
check(first is not None and first < 1.0, f"the first output within a second (came after {first} s)", text)
check(re.search(r"\r\033\[K\[\d+/10\] .*elapsed, ETA", text) is not None, "a status line with done/total, elapsed and ETA", text)
# On a terminal a case's line is its verdict first (coloured), then its id: it fits the width.
case_lines = len(re.findall(r"(?:^|\n|\033\[K)(?:\033\[\d+m)?FAIL(?:\033\[0m)? rare_input_bug/", text))
check(0 < case_lines < 10, f"only the cases that did not pass get a line of their own ({case_lines} did)", text)
check(re.search(r"cases that did not pass:\r?\n  FAIL rare_input_bug/", text) is not None, "the closing list on a terminal", text)

# -v on a terminal: one line per case again.
rc, text, _ = run_on_terminal(["-v"], OUT + "/verbose")
check(len(re.findall(r"\[\s+\d+/10\] rare_input_bug", text)) == 10 and "\033[K" not in text, "-v prints one line per case", text)

for f in failures:
    print("FAILED:", f)
print("console checks:", "all passed" if not failures else f"{len(failures)} failed")
sys.exit(1 if failures else 0)
