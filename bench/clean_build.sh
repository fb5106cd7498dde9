#!/usr/bin/env bash
# The README's build figure, measured: one clean configure + build with an empty compiler cache,
# as a newcomer's first build is. Prints the wall and CPU seconds, the cores and the load around
# it, so a figure quoted in the README carries the conditions it was taken under.
#   bench/clean_build.sh [BUILD_DIR] [cmake options...]
# BUILD_DIR (default: a new temporary folder) must not exist yet or be empty.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-$(mktemp -d /tmp/hkcheck-clean-build.XXXXXX)}"
shift || true
if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
  echo "clean_build: $dir is not empty; give a new folder" >&2
  exit 2
fi
cache="$(mktemp -d /tmp/hkcheck-clean-ccache.XXXXXX)"
trap 'rm -rf "$cache"' EXIT
export CCACHE_DIR="$cache"   # empty: every unit compiles, none is a cache hit
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s.%N)
# `time` of a subshell gives the children's CPU seconds, which the compilers are.
TIMEFORMAT='%U %S'
mkdir -p "$dir"
logs="$(mktemp -d /tmp/hkcheck-clean-build-logs.XXXXXX)"  # not in the tree, not in the build folder
cpu=$( { time (cmake -S . -B "$dir" "$@" >"$logs/configure.log" 2>&1 &&
               cmake --build "$dir" -j"$(nproc)" >"$logs/build.log" 2>&1) ; } 2>&1 ) || {
  echo "clean_build: the build failed; see $logs/configure.log and $logs/build.log" >&2
  exit 1
}
end=$(date +%s.%N)
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
read -r user sys <<<"$cpu"
units=$(grep -c 'Building CXX object' "$logs/build.log" || true)
awk -v s="$start" -v e="$end" -v u="$user" -v y="$sys" -v n="$(nproc)" -v units="$units" \
    -v lb="$load_before" -v la="$load_after" -v d="$dir" 'BEGIN {
  printf "clean build of %s: %.0f s wall, %.0f CPU-s (user+sys), %d cores, %d compiled objects\n",
         d, e - s, u + y, n, units
  printf "load average before: %s; after: %s; compiler cache: empty\n", lb, la
}'
