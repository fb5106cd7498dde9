#!/usr/bin/env python3
"""src/ is filed by layers: a folder includes only itself and the folders below it, and no two
units (a .h with its .cpp) include each other round a loop. A change that breaks either fails here.

  layering_check.py REPO

The order, top to bottom, is LAYERS; the README's "Layout" says what each folder holds. Nothing is
allowed to break either rule: a type one layer too high moves down, a unit that both uses a type
and is used by its readers splits into the type and the part that reads it (model/manifest.h and
model/manifest_load.h, model/case_plan.h and model/plan_case.h).
"""
import os
import re
import sys

LAYERS = ["app", "report", "run", "worker", "refs", "backends", "compile", "select", "check", "contracts", "model",
          "platform", "process", "util"]

def layer_of(path):
    return path.split("/")[0]


def includes(src):
    """{src-relative file: [src-relative files it includes]} for every file outside prelude/."""
    out = {}
    for folder, _, files in os.walk(src):
        for name in files:
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, src)
            if rel.startswith("prelude/") or not name.endswith((".h", ".cpp")):
                continue
            found = []
            for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(full, errors="replace").read(), re.M):
                if os.path.exists(os.path.join(src, inc)):
                    found.append(inc)
                elif os.path.exists(os.path.join(folder, inc)):
                    found.append("file-relative:" + inc)
            out[rel] = found
    return out


def unit(path):
    return re.sub(r"\.(h|cpp)$", "", path)


def loops(graph):
    """Strongly connected sets of more than one unit (Tarjan's algorithm, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = counter[0]; counter[0] += 1; stack.append(start); on.add(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]; counter[0] += 1; stack.append(nxt); on.add(nxt)
                    work.append((nxt, iter(graph.get(nxt, ()))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(tuple(sorted(comp)))
    return out


def main():
    src = os.path.join(sys.argv[1], "src")
    problems = []
    for folder in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, folder)) and folder != "prelude" and folder not in LAYERS:
            problems.append(f"src/{folder}/ is in no layer: add it to LAYERS here and to the README's layout")
    for name in os.listdir(src):
        if os.path.isfile(os.path.join(src, name)):
            problems.append(f"src/{name} lies in no layer folder")
    found_upward, graph = set(), {}
    for rel, incs in sorted(includes(src).items()):
        for inc in incs:
            if inc.startswith("file-relative:"):
                problems.append(f"src/{rel} includes \"{inc.split(':', 1)[1]}\" relative to itself: name it from src/")
                continue
            graph.setdefault(unit(rel), set()).add(unit(inc))
            a, b = layer_of(rel), layer_of(inc)
            if a in LAYERS and b in LAYERS and LAYERS.index(b) < LAYERS.index(a):
                found_upward.add((rel, inc))
    for rel, inc in sorted(found_upward):
        problems.append(f"src/{rel} includes {inc}: {layer_of(inc)}/ lies above {layer_of(rel)}/ (LAYERS); move the part it needs down")
    for u in graph:
        graph[u].discard(u)
    found_loops = set(loops(graph))
    for comp in sorted(found_loops):
        problems.append(f"these units include each other round a loop: {', '.join(comp)}")
    for p in problems:
        print(p)
    print(f"{len(found_upward)} upward include(s), {len(found_loops)} loop(s), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
