#!/usr/bin/env python3
"""Checks examples/ci/hkcheck.yml, the GitHub Actions workflow docs/ci.md shows: valid YAML (no key
twice), and what makes it work as pasted. Usage: ci_example_check.py REPO_DIR"""
import re
import sys
from pathlib import Path

try:
    import yaml
except ImportError:
    sys.exit("PyYAML is missing (Debian: python3-yaml; .ci/install-deps installs it)")


class StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML keeps the last)."""


def no_duplicates(loader, node, deep=False):
    keys = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in keys:
            raise yaml.constructor.ConstructorError(None, None, f"key {key!r} given twice", key_node.start_mark)
        keys.add(key)
    return loader.construct_mapping(node, deep)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, no_duplicates)

problems = []


def check(ok, what):
    if not ok:
        problems.append(what)
    return ok


def runs(job):
    """Each step's shell text, '' for a step that uses an action."""
    return [s.get("run", "") for s in job.get("steps", [])]


def uses_hkcheck(text):
    return re.search(r"build/hkcheck\b", text) is not None


def main():
    repo = Path(sys.argv[1])
    path = repo / "examples/ci/hkcheck.yml"
    text = path.read_text()
    doc = yaml.load(text, Loader=StrictLoader)
    # YAML 1.1 reads a bare `on` as true: GitHub reads the key as "on".
    triggers = doc.get("on", doc.get(True))
    check(isinstance(triggers, dict) and "pull_request" in triggers, "on: has no pull_request trigger")
    perms = doc.get("permissions") or {}
    check(perms.get("contents") == "read", "permissions: contents is not read")
    check(perms.get("pull-requests") == "write", "permissions: pull-requests is not write (the comment)")
    jobs = doc.get("jobs") or {}

    gpu = [n for n, j in jobs.items() if "self-hosted" in (j.get("runs-on") or [])]
    host = [n for n, j in jobs.items() if any("--backend host" in r for r in runs(j))]
    check(gpu, "no job on a self-hosted GPU runner")
    check(host, "no job on the host backend")
    for name in gpu + host:
        strategy = jobs[name].get("strategy") or {}
        check("matrix" in strategy, f"job {name}: no matrix")
        check(strategy.get("fail-fast") is False, f"job {name}: no fail-fast: false")

    for name, job in jobs.items():
        steps = runs(job)
        users = [i for i, r in enumerate(steps) if uses_hkcheck(r)]
        if not users:
            continue
        builds = [i for i, r in enumerate(steps) if "cmake --build" in r]
        check(builds and builds[0] < users[0], f"job {name}: runs hkcheck before any step builds it")
        checkout = [i for i, s in enumerate(job["steps"]) if str(s.get("uses", "")).startswith("actions/checkout@")]
        check(checkout and checkout[0] < users[0], f"job {name}: no checkout before hkcheck")
        installs = [i for i, r in enumerate(steps) if ".ci/install-deps" in r or "apt-get install" in r]
        check(installs and installs[0] < users[0], f"job {name}: nothing installs hkcheck's dependencies before it is built")

    everything = "\n".join(r for j in jobs.values() for r in runs(j))
    for name in gpu + host:
        shard_runs = [r for r in runs(jobs[name]) if "--shard " in r]
        check(shard_runs, f"job {name}: no --shard")
        for r in shard_runs:
            check("--junit" in r, f"job {name}: no --junit")
            # --shard-durations only where its file was found: a missing one is exit 2.
            if "--shard-durations" in r:
                check(re.search(r'\[ -f "?\$\w+/test_results.json|\[ -f "?[\w/.-]+/test_results.json', r) is not None,
                      f"job {name}: --shard-durations is used without checking that its file exists")
        uploads = [s for s in jobs[name]["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
        check(uploads and all("always()" in str(s.get("if", "")) for s in uploads),
              f"job {name}: results not uploaded with if: always()")
    # Every committed folder the workflow names exists.
    for m in re.finditer(r"\bresults/[\w.-]+(?:/[\w.-]+)*", text):
        check((repo / m.group(0)).exists(), f"{m.group(0)} is named but not in the repository")

    compare = [n for n, j in jobs.items() if any("hkcheck merge" in r for r in runs(j))]
    if check(len(compare) == 1, "no single job merges the shards"):
        job = jobs[compare[0]]
        needs = job.get("needs") or []
        check(set(gpu + host) <= set(needs if isinstance(needs, list) else [needs]), "the merge job does not need the run jobs")
        check("always()" in str(job.get("if", "")), "the merge job does not run when a shard failed (if: always())")
        steps = job["steps"]
        merge_at = next(i for i, s in enumerate(steps) if "hkcheck merge" in s.get("run", ""))
        # Merge and diff exit 1 when a case fails: every later step must still run.
        for s in steps[merge_at + 1:]:
            what = s.get("name") or s.get("uses") or s.get("run", "")[:60]
            check("always()" in str(s.get("if", "")), f"step '{what}' is skipped once merge or diff fails")
        check(any(re.search(r"hkcheck diff \S+ \S+ .*--md", r) for r in runs(job)), "no diff with --md")
        check(any("junit" in str(s.get("with", {})) for s in steps), "no JUnit report step")
        check(any("diff.md" in str(s) and "comment" in str(s).lower() for s in steps[merge_at + 1:]), "diff.md is not posted as a comment")
    check("--all" in everything, "no run of every manifest")

    # docs/ci.md shows this very file.
    docs = (repo / "docs/ci.md").read_text()
    blocks = re.findall(r"^```yaml\n(.*?)^```$", docs, re.S | re.M)
    check(text in blocks, "docs/ci.md has no yaml block equal to examples/ci/hkcheck.yml")

    for p in problems:
        print(f"{path}: {p}")
    print(f"{path}: {'ok' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
