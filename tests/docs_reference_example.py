"""docs/references.md's worked example, run as written: its kernel, manifest entry and reference
are taken from the page's code blocks into a fresh project, and the host backend must PASS every
case (3). Usage: docs_reference_example.py HKCHECK REPO WORK"""
import json
import pathlib
import re
import shutil
import subprocess
import sys

hkcheck, repo, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
page = (repo / "docs" / "references.md").read_text()
blocks = dict((lang, text) for lang, text in re.findall(r"```(\w+)\n(.*?)```", page, re.S))
shutil.rmtree(work, ignore_errors=True)
for folder in ("kernels", "references", "manifests"):
    (work / folder).mkdir(parents=True)
(work / "kernels" / "row_sumsq.cu").write_text(blocks["cuda"])
(work / "references" / "row_sumsq.cpp").write_text(blocks["cpp"])
(work / "manifests" / "row_sumsq.json").write_text(json.dumps({"hkcheck_manifest": 1, "kernels": [json.loads(blocks["json"])]}))
run = subprocess.run([hkcheck, "--backend", "host", "--jobs", "1", "--no-repro", "--out", str(work / "out")], cwd=work,
                     capture_output=True, text=True)
results = json.loads((work / "out" / "test_results.json").read_text()) if (work / "out" / "test_results.json").exists() else {}
statuses = [c["status"] for c in results.get("cases", [])]
if run.returncode != 0 or statuses != ["PASS"] * 3:
    sys.exit(f"the page's example: exit {run.returncode}, {statuses}\n{run.stdout}{run.stderr}")
print("docs/references.md's example: 3 PASS")
