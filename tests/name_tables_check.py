#!/usr/bin/env python3
"""Names hkcheck keeps in a table are spelled in that table only: a backend, its vendor and its
compiler in the rows of src/platform/backend_table.cpp (and the prelude sets its rows name, in
backend_open.cpp); the reasons of a verdict (SKIP HW_LIMIT, ...) in src/model/status.cpp. Code elsewhere asks a row (backend_row, find_backend, on_cpu,
backend_for_arch, ...) instead of comparing strings, so a fourth backend is one row and a folder
under backends/; a reason is Reason::HW_LIMIT, whose table says what it means. A string literal
that is exactly such a name, outside its table (for backends, also backends/ and prelude/), fails
here.

  name_tables_check.py REPO

A literal that only looks like one (a JSON field "host", a header prefix "cuda") is marked by a
comment saying "not a backend name" (or "not backend names") on its line or on a line above in
the same statement.
"""
import os
import re
import sys

# (what the names are, the names, where they may be spelled, where to ask instead)
TABLES = [
    ("backend", ["cuda", "hip", "hip5", "host", "nvidia", "amd", "nvrtc", "hiprtc", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                 "ROCR_VISIBLE_DEVICES", "HK_BACKEND_CUDA", "HK_BACKEND_HIP", "HK_BACKEND_HOST"],
     ("platform/backend_table.cpp", "platform/backend_open.cpp", "backends/", "prelude/"), "a row of platform/backend_table.h"),
    ("reason", ["HW_LIMIT", "TOO_LARGE", "TIER", "NOT_FOR_VENDOR", "GPU_ONLY", "NO_DEVICE", "EMPTY_CASE", "SETUP_TIMEOUT", "MEMORY_LIMIT"],
     ("model/status.cpp",), "reason_name(Reason::...) of model/status.h"),
]
MARKER = re.compile(r"not (a )?(backend|reason) names?")


def code_and_comments(text):
    """Each line as (code with comments removed, its comments), string literals kept in code."""
    code, comments, i, n = [""], [""], 0, len(text)
    in_block = False
    while i < n:
        c = text[i]
        if c == "\n":
            code.append(""); comments.append(""); i += 1
        elif in_block:
            end = text.find("*/", i)
            stop = n if end < 0 else end
            nl = text.find("\n", i, stop)
            if nl >= 0:
                comments[-1] += text[i:nl]; i = nl
            else:
                comments[-1] += text[i:stop]; i = stop + 2; in_block = False
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            comments[-1] += text[i:end]; i = end
        elif text.startswith("/*", i):
            in_block = True; i += 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            code[-1] += text[i:j + 1]; i = j + 1
        else:
            code[-1] += c; i += 1
    return list(zip(code, comments))


def findings(rel, text, what, literal, ask):
    out, marked = [], False
    for number, (code, comment) in enumerate(code_and_comments(text), 1):
        if MARKER.search(comment):
            marked = True
        if not marked:
            for m in literal.finditer(code):
                out.append(f"src/{rel}:{number}: \"{m.group(1)}\" outside the {what} table: ask {ask} "
                           f"(or mark a literal that is no {what}'s name)")
        if code.rstrip().endswith((";", "{", "}")):
            marked = False
    return out


def main():
    src = os.path.join(sys.argv[1], "src")
    problems = []
    for what, names, allowed, ask in TABLES:
        literal = re.compile(r'"(' + "|".join(names) + r')"')
        for folder, _, files in os.walk(src):
            for name in sorted(files):
                rel = os.path.relpath(os.path.join(folder, name), src)
                if name.endswith((".h", ".cpp")) and not rel.startswith(allowed):
                    problems += findings(rel, open(os.path.join(folder, name), errors="replace").read(), what, literal, ask)
    for p in problems:
        print(p)
    print(f"{len(problems)} name(s) outside their tables")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
