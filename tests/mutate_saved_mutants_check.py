"""Mutants saved with --save-mutants and run with --mutants (where libclang may be missing) give
the report of making them in place: the same mutants, outcomes, killers and diffs. A source edited
since the file was written, or a damaged file, is refused with exit 2, naming what is wrong.
Usage: mutate_saved_mutants_check.py HKCHECK MANIFESTS OUT_DIR"""
import json
import os
import shutil
import subprocess
import sys

from mutate_parallel_check import without_times


def hk(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def report(hkcheck, manifests, out, *extra):
    done = hk(hkcheck, "mutate", "--backend", "host", "--seed", "1", "--manifests", manifests, "--out", out, *extra)
    if done.returncode not in (0, 1):
        sys.exit(f"mutate {' '.join(extra)} exited {done.returncode}:\n{done.stderr}")
    with open(out + "/mutation_report.json") as f:
        return json.load(f)


def expect_refused(done, text, what):
    if done.returncode != 2 or text not in done.stderr:
        sys.exit(f"{what}: expected exit 2 naming '{text}', got {done.returncode}:\n{done.stderr}")


def main():
    hkcheck, manifests, out = sys.argv[1:4]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    saved = out + "/mutants.json"
    done = hk(hkcheck, "mutate", "--backend", "host", "--seed", "1", "--manifests", manifests, "--save-mutants", saved)
    if done.returncode != 0 or not os.path.exists(saved):
        sys.exit(f"--save-mutants exited {done.returncode}:\n{done.stderr}")
    made = report(hkcheck, manifests, out + "/made")
    read = report(hkcheck, manifests, out + "/read", "--mutants", saved)
    ran = [m for k in made["kernels"] for m in k["mutants"] if m["outcome"] != "NOT_RUN"]
    if len(ran) < 4:
        sys.exit(f"only {len(ran)} mutant(s) ran")
    if without_times(made)["kernels"] != without_times(read)["kernels"]:
        sys.exit("the mutants read back give another report than the mutants made in place")

    # The kernel source edited after the file was written: refused, not mutated at stale offsets.
    project = out + "/edited"  # the fixture's manifests and kernels live in one folder
    shutil.copytree(manifests, project)
    with open(saved) as f:
        first = json.load(f)["kernels"][0]
    source = os.path.join(project, os.path.basename(first["source"]))
    if not os.path.exists(source):
        sys.exit(f"cannot find {first['source']} in the copy")
    with open(source, "a") as f:
        f.write("\n// edited after the mutants were saved\n")
    edited = hk(hkcheck, "mutate", "--backend", "host", "--seed", "1", "--manifests", project, "--out", out + "/stale",
                "--mutants", saved, first["kernel"])
    expect_refused(edited, "another version", "an edited source")

    with open(out + "/damaged.json", "w") as f:
        f.write('{"schema": "hkcheck-mutants-1", "kernels": [{"kernel": "x"}]}')
    damaged = hk(hkcheck, "mutate", "--backend", "host", "--manifests", manifests, "--out", out + "/damaged", "--mutants", out + "/damaged.json")
    expect_refused(damaged, "damaged.json: not a mutants file", "a damaged file")
    print(f"{len(ran)} mutants, the same report made in place and read back; edited source and damaged file refused")


if __name__ == "__main__":
    main()
