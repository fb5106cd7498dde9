#!/usr/bin/env python3
"""Does a run spread over several GPUs of one host keep every verdict, and how much faster is it?

Why this exists: `--devices 0,1,...` gives each GPU its own pool of workers. This bench runs the
whole suite once to warm the kernel cache, then alternates one-GPU (`--devices 0`) and all-GPU
(`--devices 0,...,N-1`) runs, and prints the ratio of their median wall times, measured in this
one invocation. It checks that both reach the same verdict for every case and that every case of
the multi-GPU run records a device it was given (`placement.device`), and how many each got.

    bench/multi_gpu.py --devices N [--hkcheck build/hkcheck] [--rounds 3] [--keep DIR] [-- ARGS...]

Exit code: 0 verdicts agree and placements are sound, 1 otherwise, 2 a run wrote no results.
Standard library only.
"""
import argparse, collections, json, os, shutil, statistics, subprocess, sys, tempfile, time


def run(hkcheck, manifests, out, devices, extra):
    cmd = [hkcheck, "--all", "--manifests", manifests, "--out", out, "--no-repro", "--devices", devices] + extra
    t0 = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.monotonic() - t0
    path = os.path.join(out, "test_results.json")
    if not os.path.exists(path):
        print(proc.stdout[-3000:])
        sys.exit(2)
    with open(path) as f:
        return wall, json.load(f), proc.stdout


def verdicts(results):
    return {(c["kernel"], c["case"]): c["status"] for c in results["cases"]}


def main():
    extra = []
    argv = sys.argv[1:]
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--devices", type=int, required=True, help="GPUs on this host to spread over")
    p.add_argument("--hkcheck", default="build/hkcheck")
    p.add_argument("--manifests", default="manifests")
    p.add_argument("--rounds", type=int, default=3, help="timed runs of each kind (default: %(default)s)")
    p.add_argument("--keep", metavar="DIR", help="copy the last runs' results and a bench.json into DIR")
    a = p.parse_args(argv)
    all_devices = ",".join(str(d) for d in range(a.devices))
    tmp = tempfile.mkdtemp(prefix="hkcheck-multi-gpu-")
    run(a.hkcheck, a.manifests, os.path.join(tmp, "warm"), "0", extra)  # fills the kernel cache
    times = {"one": [], "all": []}
    last = {}
    for r in range(a.rounds):
        for kind, devs in (("one", "0"), ("all", all_devices)):
            wall, res, log = run(a.hkcheck, a.manifests, os.path.join(tmp, f"{kind}{r}"), devs, extra)
            times[kind].append(wall)
            last[kind] = (res, log, os.path.join(tmp, f"{kind}{r}"))
            print(f"round {r + 1} {kind:>3} (--devices {devs}): {wall:6.2f} s  {res['summary']['total']} cases")
    one, multi = statistics.median(times["one"]), statistics.median(times["all"])
    ok = True
    v_one, v_all = verdicts(last["one"][0]), verdicts(last["all"][0])
    differ = [k for k in v_one if v_one.get(k) != v_all.get(k)] + [k for k in v_all if k not in v_one]
    for k in differ[:20]:
        print(f"verdict differs: {k[0]} / {k[1]}: one GPU {v_one.get(k)}, {a.devices} GPUs {v_all.get(k)}")
    ok &= not differ
    per_device = collections.Counter()
    for c in last["all"][0]["cases"]:
        d = (c.get("placement") or {}).get("device", -1)
        per_device[d] += 1
        if d not in range(a.devices):
            ok = False
    print(f"cases per device in the {a.devices}-GPU run: " + ", ".join(f"{d}: {n}" for d, n in sorted(per_device.items())))
    print(f"median wall: one GPU {one:.2f} s, {a.devices} GPUs {multi:.2f} s; speedup {one / multi:.2f}x "
          f"({a.rounds} rounds each, warm cache); verdicts {'agree' if not differ else 'DIFFER'} on {len(v_one)} cases")
    if a.keep:
        for kind in ("one", "all"):
            dst = os.path.join(a.keep, kind)
            os.makedirs(dst, exist_ok=True)
            for f in ("test_results.json", "test_results.md"):
                shutil.copy(os.path.join(last[kind][2], f), dst)
        with open(os.path.join(a.keep, "bench.json"), "w") as f:
            json.dump({"devices": a.devices, "rounds": a.rounds, "wall_s": times, "median_one_s": one, "median_all_s": multi,
                       "speedup": one / multi, "verdicts_agree": not differ, "cases_per_device": per_device,
                       "device": last["all"][0]["run"]["device"]}, f, indent=2, default=str)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
