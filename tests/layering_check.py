#!/usr/bin/env python3
"""src/ is filed by layers: a folder includes only itself and the folders below it, and no two
units (a .h with its .cpp) include each other round a loop. A change that breaks either fails here.

  layering_check.py REPO

The order, top to bottom, is LAYERS; the README's "Layout" says what each folder holds. UPWARD and
LOOPS list what the tree still breaks, each with its fix (issue: the layer redesign empties both).
An entry that no longer occurs fails too, so the lists only shrink.
"""
import os
import re
import sys

LAYERS = ["app", "report", "run", "worker", "refs", "backends", "compile", "select", "check", "contracts", "model",
          "platform", "process", "util"]

# includer -> included, each a type or a function one layer off.
UPWARD = {
    ("model/case_plan.h", "check/output_check.h"),         # CheckSpec, CheckPlan and the rules' fields and validate belong in model/
    ("model/manifest.h", "check/output_check.h"),          # the same: check/ keeps only each rule's run
}

# Units that include each other, as sorted tuples of unit names (path without .h/.cpp).
LOOPS = {
    ("check/metrics", "check/mismatch_view", "check/output_check", "check/rules/rules", "contracts/output_metrics", "contracts/result",
     "model/case_plan", "model/compile_target", "model/expectation", "model/kernel_entries", "model/manifest",
     "model/manifest_compile"),  # the rule table's planning half (CheckSpec, CheckPlan, validate) belongs in model/
}


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
    for rel, inc in sorted(found_upward - UPWARD):
        problems.append(f"src/{rel} includes {inc}: {layer_of(inc)}/ lies above {layer_of(rel)}/ (LAYERS); move the part it needs down")
    for rel, inc in sorted(UPWARD - found_upward):
        problems.append(f"UPWARD still lists {rel} -> {inc}, which is gone: take it out of the list")
    for u in graph:
        graph[u].discard(u)
    found_loops = set(loops(graph))
    for comp in sorted(found_loops - LOOPS):
        problems.append(f"these units include each other round a loop: {', '.join(comp)}")
    for comp in sorted(LOOPS - found_loops):
        problems.append(f"LOOPS still lists {comp}, which is gone: take it out of the list")
    for p in problems:
        print(p)
    print(f"{len(found_upward)} upward include(s) ({len(UPWARD)} allowed), {len(found_loops)} loop(s) ({len(LOOPS)} allowed), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
