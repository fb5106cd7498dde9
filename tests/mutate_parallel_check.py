"""hkcheck mutate gives the same report whatever --parallel: the same mutants, in the same
order, with the same outcomes, killers and diffs; only the times (and the --parallel it records)
differ, and the addresses a crash names (they differ from one run to the next whatever N).
Usage: mutate_parallel_check.py HKCHECK MANIFESTS OUT_DIR"""
import json
import re
import subprocess
import sys

TIMES = {"seconds", "wall_s", "started_at", "command", "parallel"}


def without_times(node):
    if isinstance(node, dict):
        return {k: without_times(v) for k, v in node.items() if k not in TIMES}
    if isinstance(node, list):
        return [without_times(v) for v in node]
    if isinstance(node, str):
        return re.sub(r"0x[0-9a-f]+", "0x?", node)
    return node


def mutate(hkcheck, manifests, out, parallel):
    cmd = [hkcheck, "mutate", "--backend", "host", "--seed", "1", "--jobs", "4", "--parallel", str(parallel),
           "--manifests", manifests, "--out", out]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr}")
    with open(out + "/mutation_report.json") as f:
        report = json.load(f)
    if report["parallel"] != parallel:
        sys.exit(f"{out}: the report says parallel {report['parallel']}, not {parallel}")
    return report


def main():
    hkcheck, manifests, out = sys.argv[1:4]
    one = mutate(hkcheck, manifests, out + "/parallel1", 1)
    four = mutate(hkcheck, manifests, out + "/parallel4", 4)
    ran = [m for k in one["kernels"] for m in k["mutants"] if m["outcome"] != "NOT_RUN"]
    if len(ran) < 4:
        sys.exit(f"only {len(ran)} mutant(s) ran: too few to tell an order")
    a, b = without_times(one), without_times(four)
    if a != b:
        for ka, kb in zip(a["kernels"], b["kernels"]):
            for ma, mb in zip(ka["mutants"], kb["mutants"]):
                if ma != mb:
                    print("differs:", json.dumps(ma), "\n   vs:", json.dumps(mb))
        sys.exit("the reports of --parallel 1 and --parallel 4 differ")
    print(f"{len(ran)} mutants, the same report with --parallel 1 and 4")


if __name__ == "__main__":
    main()
