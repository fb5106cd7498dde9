#!/usr/bin/env bash
# The reference cache and the longest-first order on the host backend, in one run:
#   1. one kernel, cold (empty cache), then rerun after an edit to its kernel source: with the
#      reference cache (references read back) and without it (--no-ref-cache, computed again);
#   2. the whole corpus (--all, --tier small): warm compile cache, references computed
#      (--no-ref-cache) against references read back.
# Prints each wall time and the ratios. Usage:
#   bench/reference_cache.sh [KERNEL] [HKCHECK]   (defaults: gdr_chunk_fwd_o, build/hkcheck)
# HKCHECK_BENCH_ALL=0 skips part 2 (it takes minutes on two cores).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kernel="${1:-gdr_chunk_fwd_o}"
hk="$(realpath "${2:-$root/build/hkcheck}")"
work="$(mktemp -d "${TMPDIR:-/tmp}/hk-refcache-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# A scratch copy of the project, whose kernel sources can be edited.
cp -r "$root/manifests" "$root/kernels" "$work/"
[ -d "$root/references" ] && cp -r "$root/references" "$work/"

wall() {  # seconds a run of hkcheck takes; its verdicts go to $work/out-<label>
  local label="$1"; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$hk" --backend host --no-repro --manifests "$work/manifests" --out "$work/out-$label" "$@" >/dev/null 2>"$work/$label.log" || true
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}
same_verdicts() {  # "same verdicts", or what differs (hkcheck diff) on stderr
  if "$hk" diff "$work/out-$1" "$work/out-$2" --fail-on change >"$work/diff-$2.txt" 2>&1; then echo "same verdicts"
  else echo "VERDICTS DIFFER"; grep -E "^(FAIL|PASS|TIMEOUT|CRASH|ERROR|SKIP)|→|->" "$work/diff-$2.txt" | head -20 >&2; fi
}
cached() { grep -o '"reference_cached": *true' "$work/out-$1/test_results.json" | wc -l; }
edit_kernel() {  # a comment appended: a new compile, the same references
  local src
  src=$(python3 -c "import json,sys
for k in json.load(open(sys.argv[1]))['kernels']:
    if k['name']==sys.argv[2]: print(k['source'])" "$(grep -l "\"$kernel\"" "$work"/manifests/*.json | head -1)" "$kernel")
  echo "// edited $(date +%s%N)" >> "$work/manifests/$src"
}

echo "== one kernel: $kernel (host backend, $(nproc) cores)"
cold=$(wall cold --cache-dir "$work/cache" "$kernel")
edit_kernel
warm=$(wall edited --cache-dir "$work/cache" "$kernel")
edit_kernel
nocache=$(wall edited-no-ref-cache --cache-dir "$work/cache" --no-ref-cache "$kernel")
same=$(same_verdicts cold edited)
printf '  cold (empty cache)                        %8.2f s\n' "$cold"
printf '  after an edit, references computed        %8.2f s   (--no-ref-cache)\n' "$nocache"
printf '  after an edit, references read back       %8.2f s   (%s of them; %s)\n' "$warm" "$(cached edited)" "$same"
printf '  ratio: computed / read back               %8.2fx\n' "$(echo "$nocache / $warm" | bc -l)"
printf '  ratio: cold / read back                   %8.2fx\n' "$(echo "$cold / $warm" | bc -l)"

if [ "${HKCHECK_BENCH_ALL:-1}" != 0 ]; then
  echo "== --all --tier small"
  allcold=$(wall all-cold --cache-dir "$work/cache" --all --tier small)
  allnoref=$(wall all-no-ref-cache --cache-dir "$work/cache" --all --tier small --no-ref-cache)
  allwarm=$(wall all-warm --cache-dir "$work/cache" --all --tier small)
  same=$(same_verdicts all-no-ref-cache all-warm)
  printf '  first run (compiles, references computed) %8.2f s\n' "$allcold"
  printf '  warm compiles, references computed        %8.2f s   (--no-ref-cache)\n' "$allnoref"
  printf '  warm compiles, references read back       %8.2f s   (%s of them; %s)\n' "$allwarm" "$(cached all-warm)" "$same"
  printf '  ratio: computed / read back               %8.2fx\n' "$(echo "$allnoref / $allwarm" | bc -l)"
  printf '  ratio: first run / warm                   %8.2fx\n' "$(echo "$allcold / $allwarm" | bc -l)"
fi
