#!/usr/bin/env bash
# Where a run's time goes on a GPU machine, side by side, measured in this one invocation:
#   cold --all (empty caches; and again with no compiles ahead of the workers), warm --all (the
#   same caches), one kernel rerun after an edit to its kernel (its references read back),
#   --devices 0 against every GPU (warm, and warm with every passing kernel timed over 50
#   launches: a load the GPU sets the pace of), the host backend's small tier on this machine's
#   cores, and the floor (the sum of kernel times plus one context per GPU). Prints every wall
#   time and the ratios; keeps each run's results under OUT.
#   bench/speed.sh OUT [HKCHECK]        (default build-gpu/hkcheck)
# Needs python3 (standard library) and, for the multi-GPU row, more than one visible GPU.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(realpath -m "$1")"
hk="$(realpath "${2:-$root/build-gpu/hkcheck}")"
mkdir -p "$out"
cache="$out/cache"
rm -rf "$cache" "$out/cache_no_ahead" "$out"/runs
mkdir -p "$out/runs"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)

wall() {  # wall seconds of one hkcheck run; results in $out/runs/LABEL
  local label="$1"; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$hk" --no-repro --cache-dir "$cache" --out "$out/runs/$label" "$@" >"$out/runs/$label.log" 2>&1
  echo "$label exit $?" >>"$out/exits.txt"
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1 - $t0:.2f}')"
}
sum_of() {  # sum of one timings_ms field over a run's cases, in seconds
  python3 - "$out/runs/$1/test_results.json" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"{sum(c.get('timings_ms', {}).get(sys.argv[2], 0) or 0 for c in d['cases']) / 1000:.2f}")
EOF
}
cached_refs() { grep -o '"reference_cached": *true' "$out/runs/$1/test_results.json" | wc -l; }
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
same() { "$hk" diff "$out/runs/$1" "$out/runs/$2" --fail-on change >"$out/diff_$1_$2.txt" 2>&1 && echo "same verdicts" || echo "VERDICTS DIFFER (diff_$1_$2.txt)"; }

# Every run works on one scratch copy of the project (its kernels are edited below), so that
# they share their caches; the built-in references are found beside the binary.
edit_root="$out/edited_project"
rm -rf "$edit_root" && mkdir -p "$edit_root" && cp -r "$root/manifests" "$root/kernels" "$edit_root/"
: >"$out/exits.txt"
# Cold means NVRTC's own cache too (CUDA 12.9+, on by default where a driver is): off for it.
cold=$(CUDA_CACHE_DISABLE=1 wall cold --root "$edit_root" --all --devices 0)
# The same cold run with every worker compiling its own kernels, none ahead of them
# (src/run/compile_ahead.h), on caches of its own.
cold_no_ahead=$(CUDA_CACHE_DISABLE=1 HKCHECK_COMPILE_AHEAD=0 cache="$out/cache_no_ahead" wall cold_no_ahead --root "$edit_root" --all --devices 0)
warm=$(wall warm --root "$edit_root" --all --devices 0)
# The same warm run with every input made on the CPU (HKCHECK_DEVICE_INPUTS=0), as before the
# GPU made them (src/worker/device_inputs.h).
export HKCHECK_DEVICE_INPUTS=0
warm_cpu=$(wall warm_cpu_inputs --root "$edit_root" --all --devices 0)
unset HKCHECK_DEVICE_INPUTS

# One kernel edited (a comment appended: a new compile, the same inputs and references).
rerun_rows=""
for kernel in gdr_chunk_fwd_o chunked_pa_prefill sage_attention pa_prefill; do
  src=$(python3 - "$edit_root/manifests" "$kernel" <<'EOF'
import json, pathlib, sys
for p in sorted(pathlib.Path(sys.argv[1]).rglob("*.json")):
    for k in json.load(open(p)).get("kernels", []):
        if k.get("name") == sys.argv[2]:
            print((p.parent / k["source"]).resolve()); sys.exit(0)
EOF
)
  [ -n "$src" ] || continue
  echo "// edited $(date +%s%N)" >>"$src"
  # NVRTC's own cache drops comments from its key: off, so that the rerun compiles as after an
  # edit of the kernel's code, whatever ran before it.
  t=$(CUDA_CACHE_DISABLE=1 wall "edit_$kernel" --root "$edit_root" --devices 0 "$kernel")
  rerun_rows+=$(printf '  %-22s rerun after an edit %7.2f s  (%s references read back)' "$kernel" "$t" "$(cached_refs "edit_$kernel")")$'\n'
done

multi=""
if [ "$gpus" -gt 1 ]; then
  all=$(seq -s, 0 $((gpus - 1)))
  one_a=$(wall one_gpu --root "$edit_root" --all --devices 0)
  many=$(wall "gpus_$gpus" --root "$edit_root" --all --devices "$all")
  one_b=$(wall one_gpu_again --root "$edit_root" --all --devices 0)
  multi="$gpus GPUs $many s against one GPU $one_a s / $one_b s: $(python3 -c "print(f'{min($one_a,$one_b)/$many:.2f}')")x ($(same one_gpu "gpus_$gpus"))"
  # A load the GPU sets the pace of: every passing case's kernel timed over 50 launches.
  # --timeout 120: the slowest kernels' 52 launches outlast the default 30 s per case.
  timed_one=$(wall timed_one_gpu --root "$edit_root" --all --devices 0 --time --time-launches 50 --timeout 120)
  timed_many=$(wall "timed_gpus_$gpus" --root "$edit_root" --all --devices "$all" --time --time-launches 50 --timeout 120)
  multi+=$'\n'"GPU-bound (--all --time --time-launches 50): $gpus GPUs $timed_many s against one GPU $timed_one s: $(ratio "$timed_one" "$timed_many")x ($(same timed_one_gpu "timed_gpus_$gpus"))"
fi
host=$(wall host_small --root "$edit_root" --all --backend host --tier small)

kernel_s=$(sum_of warm kernel)
# One worker's start (process and context): the runs above start theirs before the probe, where no
# case is charged for it; a case run alone in a fresh worker is.
wall context --root "$edit_root" --devices 0 --isolation case 'silu/dtype=f32,n=1' >/dev/null
starts=$(python3 - "$out/runs/context/test_results.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
starts = sorted(c["timings_ms"].get("worker_start", 0) or 0 for c in d["cases"] if c.get("timings_ms"))
print(f"{max(starts) / 1000 if starts else 0:.2f}")
EOF
)
floor=$(python3 -c "print(f'{$kernel_s + $starts:.2f}')")

{
  echo "# hkcheck speed on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x$gpus, $(nproc) cores, ${HKCHECK_GIT_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  printf 'cold --all (empty caches)     %8.2f s   (Σ reference %s s, Σ inputs %s s, Σ compile %s s)\n' "$cold" "$(sum_of cold reference)" "$(sum_of cold inputs)" "$(sum_of cold compile)"
  printf 'cold, no compiles ahead       %8.2f s   (Σ compile %s s; compiles ahead %sx faster; %s)\n' "$cold_no_ahead" "$(sum_of cold_no_ahead compile)" "$(ratio "$cold_no_ahead" "$cold")" "$(same cold cold_no_ahead)"
  printf 'warm --all                    %8.2f s   (Σ reference %s s, %s references read back; %s)\n' "$warm" "$(sum_of warm reference)" "$(cached_refs warm)" "$(same cold warm)"
  printf 'warm, inputs made on the CPU  %8.2f s   (Σ inputs %s s against %s s made on the GPU: %sx the wall; %s)\n' "$warm_cpu" "$(sum_of warm_cpu_inputs inputs)" "$(sum_of warm inputs)" "$(ratio "$warm_cpu" "$warm")" "$(same warm warm_cpu_inputs)"
  printf '%s' "$rerun_rows"
  [ -n "$multi" ] && echo "$multi"
  printf 'host backend --tier small     %8.2f s   (%s cores)\n' "$host" "$(nproc)"
  printf 'floor                         %8.2f s   (Σ kernel %s s + one context %s s)\n' "$floor" "$kernel_s" "$starts"
  echo "cold / warm $(ratio "$cold" "$warm")x; warm / floor $(ratio "$warm" "$floor")x"
  cat "$out/exits.txt"
} | tee "$out/speed.txt"
