#!/usr/bin/env bash
# What a GPU machine run of hkcheck does, stage by stage, so that the committed results under
# results/<gpu>/ come from one known command. Each stage writes its logs and results into OUTDIR.
#   bench/gpu_run.sh OUTDIR build checks     # build, unit tests, --all and the known-bad corpus
#   bench/gpu_run.sh OUTDIR coldwarm         # --all with empty caches, then warm; both diffed
#   bench/gpu_run.sh OUTDIR seeds            # every manifest with seeds 0..2, and a seed-dependent bug
#   bench/gpu_run.sh OUTDIR ci               # docs/ci.md on this GPU: seed diff, broken-kernel diff, shards, --time
#   bench/gpu_run.sh OUTDIR bench            # bench/overhead.py: strict vs default, floor, torch
#   bench/gpu_run.sh OUTDIR speed            # bench/speed.sh: cold, warm, edited-kernel reruns, 1 vs every GPU, host tier
#   bench/gpu_run.sh OUTDIR verify           # the known-bad corpus (racecheck) and the unit tests, no --all
#   bench/gpu_run.sh OUTDIR cpu              # where a cold run's CPU-seconds go, and each part alone
#   bench/gpu_run.sh OUTDIR timeline         # a cold run's busy cores second by second, its console stamped
#   HKCHECK_OLD_REFERENCES=DIR bench/gpu_run.sh OUTDIR refs_ab   # cold --all with these references and older ones
#   bench/gpu_run.sh OUTDIR sanitizers       # the known-bad corpus under each compute-sanitizer tool, the four side by side
#   bench/gpu_run.sh OUTDIR timed            # --all, then --all --time twice: the verdicts must not change
#   bench/gpu_run.sh OUTDIR host_code        # tests/fixtures/host_code_files on the GPU and compiled for sm_90
#   bench/gpu_run.sh OUTDIR root_compiles    # under root: NVRTC reads as the compile user (audit probe, a private project on the GPU)
#   bench/gpu_run.sh OUTDIR struct_args      # examples/struct_args_project on the GPU: a struct argument checked against cuFuncGetParamInfo
#   bench/gpu_run.sh OUTDIR examples         # install hkcheck, run examples/kernel_project (and the HIP project's CUDA file) from its folder
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
mkdir -p "$out"
jobs=$(nproc)
cache=${HKCHECK_GPU_CACHE:-/tmp/hkcheck-gpu-cache}
for stage in "$@"; do
  case "$stage" in
    build)
      # HKCHECK_CMAKE_ARGS: e.g. -DLIBCLANG_INCLUDE_DIR=... where libclang-14-dev is not installed.
      { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DHKCHECK_TESTS=ON -DHKCHECK_GIT_COMMIT="${HKCHECK_GIT_COMMIT:-unknown}" ${HKCHECK_CMAKE_ARGS:-} &&
        cmake --build build-gpu -j"$jobs"; } >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
      ;;
    checks)
      # --all first, then the known-bad corpus, then the unit tests (the host-backend corpus runs
      # are CI's; here the GPU runs matter): a stage cut short by a time limit loses the least.
      rm -rf "$out/all" "$out/known_bad"
      /usr/bin/time -v build-gpu/hkcheck --all --out "$out/all" --no-repro --cache-dir "$cache" --junit "$out/all/junit.xml" >"$out/all.log" 2>&1
      tail -3 "$out/all.log"; grep -E "Elapsed|Maximum resident" "$out/all.log"
      # Under racecheck: the corpus holds a reduction whose race gives right sums on a GPU and
      # that only the tool's report fails (kb_tree_sum_missing_barrier).
      build-gpu/hkcheck --manifests tests/known_bad --out "$out/known_bad" --cache-dir "$cache" --sanitize=racecheck >"$out/known_bad.log" 2>&1
      tail -2 "$out/known_bad.log"
      build-gpu/tests/known_bad_check "$out/known_bad/test_results.json" tests/known_bad
      build-gpu/hkcheck --diff results/h100/test_results.json "$out/all/test_results.json" | tail -3
      build-gpu/tests/hkcheck_tests --gtest_brief=1 >"$out/unit_tests.log" 2>&1
      tail -3 "$out/unit_tests.log"
      ;;
    sanitizers)
      # Every case of the known-bad corpus under memcheck, racecheck, synccheck and initcheck: the
      # twins must pass (no API error of hkcheck's own in a report) and known_bad_check find 0 problems.
      for tool in memcheck racecheck synccheck initcheck; do
        rm -rf "$out/known_bad_$tool"
        build-gpu/hkcheck --manifests tests/known_bad --out "$out/known_bad_$tool" --cache-dir "$cache-$tool" --no-repro \
          --sanitize=$tool >"$out/known_bad_$tool.log" 2>&1 &
      done
      wait
      for tool in memcheck racecheck synccheck initcheck; do
        echo "known_bad under $tool: $(tail -1 "$out/known_bad_$tool.log")"
        build-gpu/tests/known_bad_check "$out/known_bad_$tool/test_results.json" tests/known_bad > "$out/known_bad_check_$tool.txt" 2>&1
        echo "known_bad_check ($tool) exit $?: $(tail -1 "$out/known_bad_check_$tool.txt")"
      done
      ;;
    host_code)
      # Kernel files with their host code beside the kernels (tests/fixtures/host_code_files), on
      # the GPU and compiled by NVRTC for sm_90: each kernel's device part, its verdict.
      rm -rf "$out/host_code" "$out/host_code_compile"
      (cd tests/fixtures/host_code_files && ../../../build-gpu/hkcheck --out "$out/host_code" --no-repro --cache-dir "$cache") >"$out/host_code.log" 2>&1
      tail -4 "$out/host_code.log"
      (cd tests/fixtures/host_code_files && ../../../build-gpu/hkcheck --compile-only --arch sm_90 --out "$out/host_code_compile" --no-repro) >"$out/host_code_compile.log" 2>&1
      tail -3 "$out/host_code_compile.log"
      ;;
    root_compiles)
      # Under root, NVRTC in the GPU workers and in the compile workers reads as the compile user
      # (src/backends/rtc_compile_user.h): the audit's environment part (its in-process compiler
      # probe compile-only), then examples/kernel_project run on the GPU from a 0700 home, with a
      # kernel added that includes a file only root may read.
      python3 tests/audit/audit.py --part environment --hkcheck build-gpu/hkcheck --work /tmp/hk-audit-env >"$out/audit_environment.log" 2>&1
      tail -1 "$out/audit_environment.log"; grep FINDING "$out/audit_environment.log"
      home=$(mktemp -d /tmp/hk-private-XXXXXX) && chmod 700 "$home" && cp -r examples/kernel_project "$home/project"
      printf 'not C++ at all: GPU_SECRET_XYZZY\n' >"$home/secret.h" && chmod 600 "$home/secret.h"
      python3 - "$home" <<'PY'
import json, sys
home = sys.argv[1]
m = f"{home}/project/manifests/" + __import__("os").listdir(f"{home}/project/manifests")[0]
doc = json.load(open(m))
k = dict(doc["kernels"][0])
src = f"{home}/project/manifests/" + (k["source"]["cuda"] if isinstance(k["source"], dict) else k["source"])
open(f"{home}/project/kernels/leak.cu", "w").write(f'#include "{home}/secret.h"\n' + open(src).read())
doc["kernels"].append(dict(k, name="leak", source="../kernels/leak.cu"))
json.dump(doc, open(m, "w"))
PY
      rm -rf "$out/private_project"
      (cd "$home/project" && "$OLDPWD/build-gpu/hkcheck" --out "$out/private_project" --no-repro --cache-dir "$home/cache") >"$out/private_project.log" 2>&1
      echo "private project exit code: $?"; tail -2 "$out/private_project.log"
      grep -rl XYZZY "$out/private_project" "$out/private_project.log" && echo "the secret reached the results" || echo "the secret is in no result"
      ;;
    struct_args)
      # The struct argument's size is checked against the driver's parameter info, then passed
      # whole; the description that forgets the empty members must be the declared ERROR.
      rm -rf "$out/struct_args"
      (cd examples/struct_args_project && ../../build-gpu/hkcheck --out "$out/struct_args" --no-repro --cache-dir "$cache") >"$out/struct_args.log" 2>&1
      tail -6 "$out/struct_args.log"
      ;;
    timed)
      # --time's launches come after the verdict with a limit of their own: two timed runs give
      # the verdicts of the untimed one, case by case.
      rm -rf "$out/untimed" "$out/timed1" "$out/timed2"
      build-gpu/hkcheck --all --out "$out/untimed" --no-repro --cache-dir "$cache" >"$out/untimed.log" 2>&1; tail -1 "$out/untimed.log"
      for run in timed1 timed2; do
        build-gpu/hkcheck --all --time --out "$out/$run" --no-repro --cache-dir "$cache" >"$out/$run.log" 2>&1; tail -1 "$out/$run.log"
      done
      python3 - "$out" <<'PY'
import json, sys
def verdicts(run):
    return {(c["kernel"], c["case"]): c["status"] for c in json.load(open(f"{sys.argv[1]}/{run}/test_results.json"))["cases"]}
base = verdicts("untimed")
for run in ("timed1", "timed2"):
    other = verdicts(run)
    diff = [f"{k[0]} / {k[1]}: {base.get(k)} untimed, {other.get(k)} {run}" for k in sorted(set(base) | set(other)) if base.get(k) != other.get(k)]
    print(f"{run}: {len(other)} cases, {len(diff)} verdicts differ from the untimed run's {len(base)}")
    for d in diff[:20]: print("  " + d)
PY
      ;;
    coldwarm)
      # The committed run: --all with empty caches (results/<gpu>/), then again with the caches
      # it filled (results/<gpu>/warm/, and twice more: warm runs vary by a second or two); the
      # verdicts must be the same. Then the cold run again with no compiles ahead of the workers
      # (HKCHECK_COMPILE_AHEAD=0, src/run/compile_ahead.h) on caches of its own, for the ratio. Cold
      # means NVRTC's own cache too (CUDA 12.9+, on by default where a driver is): it made a second
      # "cold" run's compiles 6x faster. CUDA_CACHE_DISABLE=1 turns it off for the cold runs.
      rm -rf "$out/all" "$out/warm" "$out/warm2" "$out/warm3" "$out/cold_no_ahead" "$cache" "$cache-no-ahead"
      fmt="wall %e s, user %U s, sys %S s, max RSS %M KB"
      CUDA_CACHE_DISABLE=1 /usr/bin/time -f "cold --all $fmt" build-gpu/hkcheck --all --out "$out/all" --no-repro --cache-dir "$cache" --junit "$out/all/junit.xml" >"$out/all.log" 2>&1
      tail -4 "$out/all.log"
      /usr/bin/time -f "warm --all $fmt" build-gpu/hkcheck --all --out "$out/warm" --no-repro --cache-dir "$cache" --junit "$out/warm/junit.xml" >"$out/warm.log" 2>&1
      tail -4 "$out/warm.log"
      for run in warm2 warm3; do
        /usr/bin/time -f "$run --all $fmt" build-gpu/hkcheck --all --out "$out/$run" --no-repro --cache-dir "$cache" >"$out/$run.log" 2>&1
        tail -1 "$out/$run.log"
      done
      CUDA_CACHE_DISABLE=1 HKCHECK_COMPILE_AHEAD=0 /usr/bin/time -f "cold --all, no compiles ahead, $fmt" build-gpu/hkcheck --all --out "$out/cold_no_ahead" --no-repro --cache-dir "$cache-no-ahead" >"$out/cold_no_ahead.log" 2>&1
      tail -2 "$out/cold_no_ahead.log"
      # The same warm run with every input made on the CPU, as before the device generator.
      rm -rf "$out/warm_cpu_inputs"
      HKCHECK_DEVICE_INPUTS=0 /usr/bin/time -f "warm --all, inputs made on the CPU, $fmt" build-gpu/hkcheck --all --out "$out/warm_cpu_inputs" --no-repro --cache-dir "$cache" >"$out/warm_cpu_inputs.log" 2>&1
      tail -2 "$out/warm_cpu_inputs.log"
      for run in all warm warm_cpu_inputs cold_no_ahead; do python3 bench/where_time_goes.py "$out/$run/test_results.json" 8 >"$out/where_$run.txt"; head -2 "$out/where_$run.txt"; done
      build-gpu/hkcheck diff "$out/warm" "$out/warm_cpu_inputs" --fail-on change >"$out/diff_warm_cpu_inputs.txt" 2>&1; echo "diff warm vs warm with CPU inputs: exit $?"
      build-gpu/hkcheck diff "$out/all" "$out/warm" --fail-on change >"$out/diff_cold_warm.txt" 2>&1; echo "diff cold warm: exit $?"
      build-gpu/hkcheck diff "$out/all" "$out/cold_no_ahead" --fail-on change >"$out/diff_cold_no_ahead.txt" 2>&1; echo "diff cold vs cold with no compiles ahead: exit $?"
      build-gpu/hkcheck diff results/h100/test_results.json "$out/all/test_results.json" --fail-on change >"$out/diff_committed_cold.txt" 2>&1
      echo "diff committed run vs cold: exit $?"; tail -3 "$out/diff_committed_cold.txt"
      ;;
    seeds)
      # Every manifest with three seeds, and the case that fails for some seeds only.
      rm -rf "$out/seeds" "$out/seed_sweep"
      build-gpu/hkcheck --all --seeds 0..2 --out "$out/seeds" --no-repro --cache-dir "$cache" >"$out/seeds.log" 2>&1
      tail -2 "$out/seeds.log"
      build-gpu/hkcheck --manifests tests/fixtures/seed_sweep --seeds 0..9 --out "$out/seed_sweep" --no-repro --cache-dir "$cache" >"$out/seed_sweep.log" 2>&1
      tail -2 "$out/seed_sweep.log"; grep -A4 "Fails for some" "$out/seed_sweep/test_results.md"
      ;;
    ci)
      # What docs/ci.md promises, on this GPU: two seeds diffed (no regression), a broken
      # kernel diffed against the good run (the regression named, exit 1), two shards merged
      # equal to the full run, and a --time run. Needs the checks stage's $out/all.
      rm -rf "$out/seed7" "$out/broken" "$out/shard1" "$out/shard2" "$out/merged" "$out/timed" "$out/broken_project"
      build-gpu/hkcheck --all --seed 7 --out "$out/seed7" --no-repro --cache-dir "$cache" >"$out/seed7.log" 2>&1
      build-gpu/hkcheck diff "$out/all" "$out/seed7" --md "$out/diff_seeds.md" --json "$out/diff_seeds.json" >/dev/null
      echo "diff of seeds 0 and 7: exit $?"; sed -n 7p "$out/diff_seeds.md"
      # rmsnorm with its eps ignored: wrong only where mean(x^2) is small, as a real slip would be.
      # Manifests and kernels only: the built-in references are found beside the binary.
      mkdir -p "$out/broken_project" && cp -r manifests kernels "$out/broken_project/"
      sed -i 's|rsqrtf(ss / (float)D + eps)|rsqrtf(ss / (float)D + eps * 1e6f)|' "$out/broken_project/kernels/norm/rmsnorm.cu"
      build-gpu/hkcheck --root "$out/broken_project" rmsnorm --out "$out/broken" --no-repro --cache-dir "$cache" >"$out/broken.log" 2>&1
      echo "broken rmsnorm run: exit $?"
      build-gpu/hkcheck diff "$out/all" "$out/broken" --md "$out/diff_broken.md" --json "$out/diff_broken.json" >/dev/null
      echo "diff good vs broken: exit $?"; sed -n 7,14p "$out/diff_broken.md"
      for k in 1 2; do
        build-gpu/hkcheck --all --shard $k/2 --shard-durations "$out/all" --out "$out/shard$k" --no-repro --cache-dir "$cache" >"$out/shard$k.log" 2>&1
        tail -2 "$out/shard$k.log" | head -1
      done
      build-gpu/hkcheck merge "$out/merged" "$out/shard1" "$out/shard2"
      build-gpu/hkcheck diff "$out/all" "$out/merged" --fail-on change --md "$out/diff_merged.md" >/dev/null
      echo "diff full vs merged shards: exit $?"; sed -n 7p "$out/diff_merged.md"
      /usr/bin/time -f "timed run wall %e s" build-gpu/hkcheck --all --time --out "$out/timed" --no-repro --cache-dir "$cache" >"$out/timed.log" 2>&1
      tail -3 "$out/timed.log"; grep -A8 "## Kernel times" "$out/timed/test_results.md"
      ;;
    examples)
      # As a team would: an installed hkcheck, run from the project's own folder.
      prefix="$out/install"
      cmake --install build-gpu --prefix "$prefix" >"$out/install.log" 2>&1 || { tail -20 "$out/install.log"; exit 1; }
      rm -rf "$out/examples"
      (cd examples/kernel_project && "$prefix/bin/hkcheck" --out "$out/examples" --cache-dir "$cache") >"$out/examples.log" 2>&1
      echo "examples exit code: $?"; tail -2 "$out/examples.log"
      # The HIP project on an NVIDIA GPU: its kernel with a CUDA file too runs its .cu, and the
      # AMD-only kernels ({"hip": ...}) are SKIP NOT_FOR_VENDOR.
      rm -rf "$out/examples_hip"
      (cd examples/hip_kernel_project && "$prefix/bin/hkcheck" --out "$out/examples_hip" --cache-dir "$cache") >"$out/examples_hip.log" 2>&1
      echo "hip project on this GPU: exit $?"; tail -2 "$out/examples_hip.log"
      ;;
    speed)
      bench/speed.sh "$out/speed" build-gpu/hkcheck
      ;;
    cpu)
      # Where a cold run's CPU-seconds go, by kind of process (bench/cpu_by_process.py), then a
      # warm run, a warm run that computes every reference again, and every configuration's
      # NVRTC compile alone (--compile-only): the parts of the cold run, each measured by itself.
      rm -rf "$out/cpu" "$cache-cpu" "$cache-cpu-co"; mkdir -p "$out/cpu"
      sample() { local name=$1; shift; python3 bench/cpu_by_process.py --out "$out/cpu/$name.txt" --timeline "$out/cpu/$name.timeline.txt" -- "$@" >"$out/cpu/$name.log" 2>&1; echo "== $name"; cat "$out/cpu/$name.txt"; }
      run_all=(build-gpu/hkcheck --all --no-repro --cache-dir "$cache-cpu")
      CUDA_CACHE_DISABLE=1 sample cold "${run_all[@]}" --out "$out/cpu/cold"
      sample warm "${run_all[@]}" --out "$out/cpu/warm"
      sample warm_no_ref_cache "${run_all[@]}" --out "$out/cpu/warm_no_ref_cache" --no-ref-cache
      CUDA_CACHE_DISABLE=1 sample compile_only build-gpu/hkcheck --compile-only --all --arch sm_90 --cache-dir "$cache-cpu-co" --out "$out/cpu/compile_only"
      for run in cold warm warm_no_ref_cache; do python3 bench/where_time_goes.py "$out/cpu/$run/test_results.json" 8 >"$out/cpu/where_$run.txt"; head -2 "$out/cpu/where_$run.txt"; done
      ;;
    timeline)
      # A cold --all under the CPU sampler, with the cores each kind kept busy second by second and
      # the console's lines stamped with the second they came: where a cold run leaves cores idle.
      rm -rf "$out/timeline" "$cache-timeline"; mkdir -p "$out/timeline"
      stamp='import sys, time
t0 = time.monotonic()
for line in sys.stdin: print(f"{time.monotonic() - t0:6.1f} {line}", end="", flush=True)'
      CUDA_CACHE_DISABLE=1 python3 bench/cpu_by_process.py --out "$out/timeline/cpu.txt" --timeline "$out/timeline/busy.txt" -- \
        bash -c "build-gpu/hkcheck --all --no-repro --cache-dir $cache-timeline --out $out/timeline/all 2>&1 | python3 -c '$stamp'" >"$out/timeline/console.log" 2>&1
      cat "$out/timeline/cpu.txt"; tail -2 "$out/timeline/console.log"
      python3 bench/where_time_goes.py "$out/timeline/all/test_results.json" 12 >"$out/timeline/where.txt"; grep -A12 "^CPU of" "$out/timeline/where.txt"
      ;;
    refs_ab)
      # Cold --all with this checkout's references and with the older ones in $HKCHECK_OLD_REFERENCES
      # (a copy of an earlier references/), same binary, in the order new, old, new: the first
      # run on a fresh machine is the slowest. Each under the CPU sampler, then diffed.
      old_refs=${HKCHECK_OLD_REFERENCES:?set HKCHECK_OLD_REFERENCES to an older references/ folder}
      old_project=/tmp/hkcheck-old-references-project
      rm -rf "$out/refs_ab" "$old_project" "$cache"-ab-*; mkdir -p "$out/refs_ab" "$old_project"
      cp -r manifests kernels "$old_project/" && cp -r "$old_refs" "$old_project/references"
      for run in new old new2; do
        root=.; [[ $run == old ]] && root=$old_project
        CUDA_CACHE_DISABLE=1 python3 bench/cpu_by_process.py --out "$out/refs_ab/$run.txt" -- build-gpu/hkcheck --root "$root" --all --no-repro \
          --cache-dir "$cache-ab-$run" --out "$out/refs_ab/$run" >"$out/refs_ab/$run.log" 2>&1
        echo "== cold, $run references"; tail -2 "$out/refs_ab/$run.txt"
        python3 bench/where_time_goes.py "$out/refs_ab/$run/test_results.json" 8 >"$out/refs_ab/where_$run.txt"; head -2 "$out/refs_ab/where_$run.txt"
      done
      for run in old new2; do
        build-gpu/hkcheck diff "$out/refs_ab/new" "$out/refs_ab/$run" --fail-on change >"$out/refs_ab/diff_new_$run.txt" 2>&1; echo "diff new vs $run: exit $?"
      done
      ;;
    verify)
      rm -rf "$out/known_bad"
      build-gpu/hkcheck --manifests tests/known_bad --out "$out/known_bad" --cache-dir "$cache" --sanitize=racecheck >"$out/known_bad.log" 2>&1
      tail -2 "$out/known_bad.log"
      build-gpu/tests/known_bad_check "$out/known_bad/test_results.json" tests/known_bad
      # Without libclang's library (libclang-14-dev) the tests that parse with it cannot run here.
      filter="*"
      ldconfig -p | grep -Eq "libclang(-[0-9]+)?\.so\.[0-9]+ " || filter="-ClangTokens.*:MutationOperators.*:Mutant.*:DevicePart.*:KernelFileCompile.*"
      build-gpu/tests/hkcheck_tests --gtest_brief=1 --gtest_filter="$filter" >"$out/unit_tests.log" 2>&1
      tail -3 "$out/unit_tests.log"
      # The host isolation tests need a process with no GPU library's threads: alone, afresh.
      build-gpu/tests/hkcheck_tests --gtest_brief=1 --gtest_filter="HostIsolation.*" >"$out/unit_tests_host_isolation.log" 2>&1
      tail -2 "$out/unit_tests_host_isolation.log"
      ;;
    bench)
      PYTHONUNBUFFERED=1 python3 bench/overhead.py --hkcheck build-gpu/hkcheck --keep "$out/bench" --torch 2>&1 | tee "$out/bench.txt"
      ;;
    *) echo "unknown stage $stage" >&2; exit 2 ;;
  esac
done
