#!/usr/bin/env python3
"""How much of an hkcheck run is harness overhead, and does reusing workers change any verdict?

Why this exists: hkcheck used to start a fresh worker process (and GPU context) for every case,
so a full run spent most of its wall time starting processes, not compiling or running kernels.
The default `--isolation worker` lets one worker run many cases. This bench runs the whole suite
three times in one go -- strict (`--isolation case`), default with a cold kernel cache, default
again with that cache warm -- checks that strict and default reach the same verdict for every
case, and sets each wall time beside a floor: what the run cannot go below on this machine.
With --torch it also times a pytest-style PyTorch harness (one fresh python per case) for scale.

    bench/overhead.py [--hkcheck build/hkcheck] [--keep DIR] [--torch] [...] [-- HKCHECK_ARGS...]

Exit code: 0 verdicts agree, 1 some case's verdict differs, 2 an hkcheck run wrote no results.
Standard library only. See bench/README.md.
"""
import argparse, json, os, shlex, shutil, socket, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
# 3 ops x 2 sizes (big, tiny): OP ROWS COLS DTYPE, as bench/torch_case.py takes them.
TORCH_CASES = [("rmsnorm", 4096, 4096, "bf16"), ("rmsnorm", 1, 128, "f32"),
               ("silu_and_mul", 4096, 4096, "bf16"), ("silu_and_mul", 1, 128, "f32"),
               ("softmax", 1024, 32000, "f32"), ("softmax", 1, 128, "bf16")]
# The timings_ms fields that are real work, not overhead: compiling, the kernel, and the CPU side of
# checking (building the inputs, the reference, comparing the outputs).
PARTS = ("compile", "kernel", "reference", "inputs", "compare")


def parse_args(argv):
    # Everything after a lone "--" goes unchanged to every hkcheck run (e.g. --backend host --jobs 4).
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                epilog="Arguments after -- are passed to every hkcheck run.")
    p.add_argument("--hkcheck", default="build/hkcheck", help="the hkcheck binary (default: %(default)s)")
    p.add_argument("--manifests", default="manifests", help="manifest folder (default: %(default)s)")
    p.add_argument("--skip-strict", action="store_true", help="skip the slow --isolation case run")
    p.add_argument("--keep", metavar="DIR", help="copy each run's test_results.json/.md and log into DIR/<run>, write DIR/bench.json")
    p.add_argument("--context-s", type=float, help="per-worker startup seconds for the floor (default: measured from the strict run)")
    p.add_argument("--devices", type=int, default=1, help="GPUs the runs use (default: %(default)s)")
    p.add_argument("--cores", type=int, default=os.cpu_count(), help="CPU cores for the floor (default: os.cpu_count() = %(default)s)")
    p.add_argument("--torch", action="store_true", help="also time the PyTorch per-process baseline (needs torch with CUDA)")
    p.add_argument("--python", default=sys.executable, help="interpreter for the torch baseline (default: %(default)s)")
    a = p.parse_args(argv)
    a.extra = extra
    return a


def ms(case, part):
    v = (case.get("timings_ms") or {}).get(part)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0


def run_hkcheck(name, cmd, out, tmp):
    """Runs one suite, timed from outside; hkcheck's own output goes to a log (progress is long)."""
    log = os.path.join(tmp, name + ".log")
    print(f"bench: {name}: {shlex.join(cmd)}\n       (progress: tail -f {log})", file=sys.stderr, flush=True)
    with open(log, "w") as f:
        t0 = time.monotonic()
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode
        wall = time.monotonic() - t0
    path = os.path.join(out, "test_results.json")
    if not os.path.exists(path):  # exit 1 only means a case failed; no results file means the run itself failed
        with open(log) as f:
            tail = f.read()[-2000:]
        print(f"bench: {name}: hkcheck exited {rc} and wrote no {path}; its output ends:\n{tail}", file=sys.stderr)
        sys.exit(2)
    if rc not in (0, 1):
        print(f"bench: warning: {name}: hkcheck exited {rc}", file=sys.stderr)
    with open(path) as f:
        cases = json.load(f)["cases"]
    n = len(cases)
    sums = {p: sum(ms(c, p) for c in cases) for p in PARTS}
    return {"name": name, "command": shlex.join(cmd), "exit_code": rc, "_out": out, "_log": log,
            "cases": n, "wall_s": wall, "sum_ms": sums,
            "compile_cached": sum(1 for c in cases if (c.get("timings_ms") or {}).get("compile_cached")),
            "overhead_ms_per_case": (wall * 1000 - sum(sums.values())) / n if n else None,
            # per case, what is neither compile, kernel nor reference: process start + GPU context in strict mode
            "_rest_s": [(ms(c, "wall") - sum(ms(c, p) for p in PARTS)) / 1000 for c in cases if ms(c, "wall") > 0],
            # worker starts (process + device context) the run paid, in seconds
            "_starts_s": [ms(c, "worker_start") / 1000 for c in cases if ms(c, "worker_start") > 0],
            "_verdicts": {(c["kernel"], c["case"]): c["status"] for c in cases}}


def compare(a, b):
    keys = sorted(set(a) | set(b))
    diffs = [(k, c, a.get((k, c), "missing"), b.get((k, c), "missing")) for k, c in keys if a.get((k, c)) != b.get((k, c))]
    return len(keys), diffs


def torch_baseline(args):
    if not args.torch:
        return {"skipped": "not asked for (--torch)"}
    probe = subprocess.run([args.python, "-c", "import torch; assert torch.cuda.is_available(), 'no CUDA device'"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        lines = (probe.stderr or probe.stdout).strip().splitlines()
        return {"skipped": lines[-1] if lines else f"probe exited {probe.returncode}"}
    cases = []
    for case in TORCH_CASES:
        # A fresh interpreter per case, as a harness that isolates each test in its own process does.
        cmd = [args.python, os.path.join(HERE, "torch_case.py"), *map(str, case)]
        t0 = time.monotonic()
        r = subprocess.run(cmd, capture_output=True, text=True)
        dt = time.monotonic() - t0
        line = (r.stdout.strip().splitlines() or [f"ERROR exit {r.returncode}: " + r.stderr.strip()[-300:]])[-1]
        cases.append({"command": shlex.join(cmd), "seconds": dt, "exit_code": r.returncode, "result": line})
    return {"cases": cases, "passed": sum(1 for c in cases if c["exit_code"] == 0),
            "mean_s_per_case": statistics.mean(c["seconds"] for c in cases)}


def div(a, b):
    return a / b if a is not None and b else None


def f(x, spec=".3f"):
    return "n/a" if x is None else format(x, spec)


def report(b):
    L = [f"hkcheck overhead bench  --  host {b['host']}, os.cpu_count() {b['cpu_count']}, cores used {b['cores']}, devices {b['devices']}",
         f"hkcheck: {b['hkcheck_version']}", "commands:"]
    L += [f"  {r['name']:<13}{r['command']}" for r in b["runs"].values() if r]
    L += ["", f"  {'run':<13}{'cases':>6}{'wall s':>10}{'overhead ms/case':>18}{'compile ms':>12}{'kernel ms':>11}{'reference ms':>14}{'inputs ms':>11}{'compare ms':>12}{'cached':>8}  exit"]
    for name, r in b["runs"].items():
        if not r:
            L.append(f"  {name:<13}{'n/a':>6}{'n/a':>10}{'n/a':>18}   (skipped: --skip-strict)")
            continue
        s = r["sum_ms"]
        L.append(f"  {name:<13}{r['cases']:>6}{r['wall_s']:>10.2f}{f(r['overhead_ms_per_case'], '.2f'):>18}"
                 f"{s['compile']:>12.1f}{s['kernel']:>11.1f}{s['reference']:>14.1f}{s['inputs']:>11.1f}{s['compare']:>12.1f}{r['compile_cached']:>8}  {r['exit_code']}")
    v = b["verdicts"]
    L.append("")
    if v["compared"] is None:
        L.append("verdicts: strict vs default: n/a (strict run skipped)")
    else:
        L.append(f"verdicts: strict vs default: {v['compared']} cases compared, {len(v['differences'])} differ")
        L += [f"  DIFFERS {d['kernel']} / {d['case']}: strict {d['strict']}, default {d['default']}" for d in v["differences"]]
    fl = b["floor"]
    L += ["", f"floor: {f(fl['seconds'], '.2f')} s = context {f(fl['context_s'])} s/worker start ({fl['context_from']}) x {b['devices']} device(s)"
              f" + kernel {fl['kernel_s']:.3f} s + reference {fl['reference_s']:.3f} s / {b['cores']} cores"
              f" + compile {fl['compile_s']:.3f} s / {b['cores']} cores   (sums from the default cold run)",
          f"floor with the CPU check work: {f(fl['with_checks_s'], '.2f')} s = floor + (inputs {fl['inputs_s']:.3f} s"
          f" + compare {fl['compare_s']:.3f} s) / {b['cores']} cores",
          f"with the warm cache's own sums: floor {f(fl['warm_seconds'], '.2f')} s, with the CPU check work {f(fl['warm_with_checks_s'], '.2f')} s",
          "ratios:"]
    L += [f"  {k:<48}{f(x, '.2f')}" for k, x in b["ratios"].items()]
    t = b["torch"]
    L.append("")
    if "skipped" in t:
        L.append(f"torch baseline: skipped ({t['skipped']})")
    else:
        L.append(f"torch baseline: {len(t['cases'])} cases ({t['passed']} PASS), one fresh python each: mean {t['mean_s_per_case']:.3f} s/case"
                 f" vs hkcheck default {f(b['default_s_per_case'])} s/case")
        L += [f"  {c['seconds']:>7.3f} s  {c['result']}" for c in t["cases"]]
    return "\n".join(L)


def main():
    args = parse_args(sys.argv[1:])
    if not shutil.which(args.hkcheck):
        print(f"bench: {args.hkcheck}: no such executable (build it, or pass --hkcheck PATH)", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="hkcheck-bench-")
    try:
        ver = subprocess.run([args.hkcheck, "--version"], capture_output=True, text=True)
        base = [args.hkcheck, "--all", "--manifests", args.manifests, "--no-repro"]
        # Each cold run gets a cache folder of its own, so neither compiles into the other's cache.
        plan = [("strict", ["--isolation", "case", "--cache-dir", os.path.join(tmp, "cache_strict")]),
                ("default", ["--cache-dir", os.path.join(tmp, "cache_default")]),
                ("default_warm", ["--cache-dir", os.path.join(tmp, "cache_default")])]  # the cache default just filled
        runs = {}
        for name, opts in plan:
            if name == "strict" and args.skip_strict:
                runs[name] = None
                continue
            out = os.path.join(tmp, name)
            runs[name] = run_hkcheck(name, base + opts + ["--out", out] + args.extra, out, tmp)
        strict, cold, warm = runs["strict"], runs["default"], runs["default_warm"]

        compared, diffs = compare(strict["_verdicts"], cold["_verdicts"]) if strict else (None, [])
        if args.context_s is not None:
            context_s, context_from = args.context_s, "--context-s"
        elif strict and strict["_starts_s"]:
            # The fastest start is one that did not queue behind other workers' contexts: the
            # cost the floor's single context pays.
            context_s = min(strict["_starts_s"])
            context_from = (f"the fastest of {len(strict['_starts_s'])} worker starts of the strict run;"
                            f" their median, with {args.devices} GPU(s) shared by the workers, {statistics.median(strict['_starts_s']):.3f} s")
        elif strict and strict["_rest_s"]:
            context_s = statistics.median(strict["_rest_s"])
            context_from = f"median over {len(strict['_rest_s'])} strict cases of wall - compile - kernel - reference"
        else:
            context_s, context_from = None, "unknown: no strict run; give --context-s"
        def floors(run):
            """The floor as defined (context per device + kernels + references and compiles over the
            cores) and the floor that also spreads building inputs and comparing outputs, which the
            run cannot skip either (for big tensors it outweighs the references)."""
            sec = {p: run["sum_ms"][p] / 1000 for p in PARTS}
            if context_s is None:
                return sec, None, None
            base = context_s * args.devices + sec["kernel"] + (sec["reference"] + sec["compile"]) / args.cores
            return sec, base, base + (sec["inputs"] + sec["compare"]) / args.cores

        sec, floor, floor_checks = floors(cold)
        _, warm_floor, warm_floor_checks = floors(warm)
        default_pc = div(cold["wall_s"], cold["cases"])
        torch = torch_baseline(args)
        b = {"host": socket.gethostname(), "cpu_count": os.cpu_count(), "cores": args.cores, "devices": args.devices,
             "hkcheck_version": (ver.stdout or ver.stderr).strip() or f"(--version exited {ver.returncode})",
             "manifests": args.manifests, "extra_args": args.extra,
             "runs": {k: ({x: y for x, y in r.items() if not x.startswith("_")} if r else None) for k, r in runs.items()},
             "verdicts": {"compared": compared,
                          "differences": [{"kernel": k, "case": c, "strict": s, "default": d} for k, c, s, d in diffs]},
             "floor": {"seconds": floor, "context_s": context_s, "context_from": context_from,
                       "kernel_s": sec["kernel"], "reference_s": sec["reference"], "compile_s": sec["compile"],
                       "inputs_s": sec["inputs"], "compare_s": sec["compare"], "with_checks_s": floor_checks,
                       "warm_seconds": warm_floor, "warm_with_checks_s": warm_floor_checks},
             "default_s_per_case": default_pc,
             "ratios": {"default / floor (cold cache)": div(cold["wall_s"], floor),
                        "default_warm / floor (warm cache)": div(warm["wall_s"], warm_floor),
                        "default / floor with checks (cold cache)": div(cold["wall_s"], floor_checks),
                        "default_warm / floor with checks (warm cache)": div(warm["wall_s"], warm_floor_checks),
                        "strict / default": div(strict and strict["wall_s"], cold["wall_s"]),
                        "torch / default (s per case)": div(torch.get("mean_s_per_case"), default_pc)},
             "torch": torch}
        print(report(b))

        if args.keep:
            for name, r in runs.items():
                if r:
                    dest = os.path.join(args.keep, name)
                    os.makedirs(dest, exist_ok=True)
                    for src in ("test_results.json", "test_results.md"):
                        if os.path.exists(os.path.join(r["_out"], src)):
                            shutil.copy(os.path.join(r["_out"], src), dest)
                    shutil.copy(r["_log"], os.path.join(dest, "hkcheck.log"))
            with open(os.path.join(args.keep, "bench.json"), "w") as fh:
                json.dump(b, fh, indent=1)
        return 1 if diffs else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
