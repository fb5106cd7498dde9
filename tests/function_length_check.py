#!/usr/bin/env python3
"""No function in src/ runs over 80 lines (the device prelude aside): a function that long does
several things, and each should have a name. A function is a body at namespace or class scope in
a .cpp or .h file (a free function, a member, a method defined in its class; a lambda counts as
part of the function around it), counted from the line of its opening brace to its closing one.

  function_length_check.py REPO
"""
import os
import re
import sys

LIMIT = 80

HEADER_NOT_FUNCTION = re.compile(r"^\s*(namespace|class|struct|enum|union|extern \"C\")\b|=\s*\{?\s*$|=\s*\{")


def strip(text):
    """The text with comments, string and character literals blanked, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i); j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2); j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j)); i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + (m.group(1) if m else "") + '"', i)
            end = n if end < 0 else end + len(m.group(1) if m else "") + 2
            out.append('""' + "\n" * text.count("\n", i, end)); i = end
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(q + q); i = j + 1
        else:
            out.append(text[i]); i += 1
    return "".join(out)


def functions(path):
    """(name, lines) of each function body at namespace scope."""
    lines = strip(open(path, errors="replace").read()).split("\n")
    found, depth, scopes, start, header = [], 0, [], None, ""
    for number, line in enumerate(lines, 1):
        for ch in line:
            if ch == "{":
                if start is None:
                    head = header + line[: line.index("{")] if "{" in line else header
                    is_scope = bool(HEADER_NOT_FUNCTION.search(head.split(";")[-1]))
                    if is_scope:
                        scopes.append(depth)
                    else:
                        start, name = (number, re.sub(r"\s+", " ", head.split(";")[-1]).strip()), None
                        start_depth = depth
                depth += 1
            elif ch == "}":
                depth -= 1
                if start is not None and depth == start_depth:
                    found.append((start[1], number - start[0] + 1))
                    start = None
                elif scopes and scopes[-1] == depth:
                    scopes.pop()
        if start is None:
            header = (header + " " + line) if line.strip() and not line.strip().endswith((";", "}")) else ""
            header = header[-400:]
    return found


def short_name(signature):
    m = re.search(r"([A-Za-z_][\w:~]*(?:operator\S*)?)\s*\(", signature)
    return m.group(1) if m else signature[:60]


def main():
    src = os.path.join(sys.argv[1], "src")
    problems, seen = [], {}
    for folder, _, files in os.walk(src):
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(folder, name), src)
            if not name.endswith((".cpp", ".h")) or rel.startswith("prelude/"):
                continue
            for signature, length in functions(os.path.join(folder, name)):
                if length <= LIMIT:
                    continue
                key = f"{rel}:{short_name(signature)}"
                seen[key] = max(seen.get(key, 0), length)
    for key, length in sorted(seen.items()):
        problems.append(f"src/{key}: {length} lines, over {LIMIT}: give its parts names of their own")
    for p in problems:
        print(p)
    print(f"{len(seen)} function(s) over {LIMIT} lines")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
