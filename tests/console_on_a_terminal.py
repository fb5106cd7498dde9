"""The console on a real terminal of 80 columns (a pseudo-terminal, as tmux gives): no line runs
into the status line, no status or case line is longer than the terminal (a wrapped one would
split a verdict, and the next redraw would land on its second half),
a failing case's line starts with its verdict, and nothing
is written over text that was not cleared first. Usage: console_on_a_terminal.py HKCHECK REPO WORK"""
import fcntl
import os
import pathlib
import pty
import re
import shutil
import struct
import subprocess
import sys
import termios

COLUMNS = 80
hkcheck, repo, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)

master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, COLUMNS, 0, 0))
env = dict(os.environ, TERM="xterm", NO_COLOR="")
proc = subprocess.Popen([hkcheck, "--backend", "host", "--jobs", "1", "--no-repro", "--manifests", str(repo / "tests/fixtures/mutate_unscored"),
                         "--out", str(work / "out")], stdin=slave, stdout=slave, stderr=slave, env=env, cwd=work)
os.close(slave)
raw = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    raw += chunk
proc.wait()
text = raw.decode("utf-8", "replace")

# A terminal of COLUMNS columns: carriage return, line feed, erase to the end of the line, colours.
lines, line, col, problems = [], [], 0, []
i = 0
while i < len(text):
    c = text[i]
    if c == "\x1b":
        m = re.match(r"\x1b\[([0-9;]*)([A-Za-z])", text[i:])
        if m and m.group(2) == "K":
            del line[col:]
        i += len(m.group(0)) if m else 1
        continue
    if c == "\r":
        col = 0
    elif c == "\n":
        lines.append("".join(line))
        line, col = [], 0
    else:
        if col >= COLUMNS:  # the terminal wraps: a message may, a status or case line must not
            if re.match(r"(\[\d+/\d+\]|(PASS|FAIL|CRASH|TIMEOUT|SKIP|COMPILE_ERROR|ERROR|FLAKY|LEAK|XFAIL|XPASS|NOT_RUN) )", "".join(line)):
                problems.append(f"a status or case line wraps: {''.join(line)!r}")
            lines.append("".join(line))
            line, col = [], 0
        if col < len(line) and line[col] != " ":
            problems.append(f"written over text not cleared: {''.join(line)!r} at column {col}")
        if col < len(line):
            line[col] = c
        else:
            line.append(c)
        col += 1
    i += 1
if line:
    lines.append("".join(line))

for l in lines:
    if re.search(r"\[\d+/\d+\]", l) and "hkcheck:" in l:
        problems.append(f"a message ran into the status line: {l!r}")
fail_lines = [l for l in lines if "no_passing_case/rows=2,n=40" in l and not l.startswith("  ")]
if not fail_lines or not fail_lines[0].startswith("FAIL "):
    problems.append(f"the failing case's line should start with its verdict: {fail_lines}")
if proc.returncode != 1:
    problems.append(f"exit {proc.returncode}, expected 1 (one case fails)")
if problems:
    sys.exit("\n".join(problems[:10]) + "\n--- the screen:\n" + "\n".join(lines))
print(f"{len(lines)} lines on a {COLUMNS}-column terminal, none run into another, no status or case line wrapped")
