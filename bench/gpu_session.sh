#!/usr/bin/env bash
# One device-machine call (about 8 minutes on the H200): build, the committed cold/warm runs,
# the stale-header test through NVRTC, the known-bad corpus under racecheck (compute-sanitizer
# follows the workers), and the unit tests on the GPU. Writes $OUT/log.txt and $OUT/results.tgz.
#   bench/gpu_session.sh COMMIT   (the commit to stamp: the machine's .git may be stale)
# The machine has no libclang headers: copy /usr/lib/llvm-14/include/clang-c into .device/
# (ignored) and carry .device with the call.
set -uo pipefail
O=$OUT; R=$O/r; mkdir -p "$R"
export HKCHECK_CMAKE_ARGS="-DLIBCLANG_INCLUDE_DIR=$PWD/.device" HKCHECK_GIT_COMMIT=$1
{ nvidia-smi -L; nproc; date -u; } > "$O/log.txt" 2>&1
bench/gpu_run.sh "$R" build coldwarm >> "$O/log.txt" 2>&1
echo "gpu_run exit $?" >> "$O/log.txt"
cmake -DHKCHECK="$PWD/build-gpu/hkcheck" -DFIXTURE="$PWD/tests/fixtures/header_edits" -DREPO="$PWD" -DBACKEND=cuda -DOUT=/tmp/she \
  -P tests/stale_header_verdicts.cmake > "$R/stale_headers_cuda.log" 2>&1
echo "stale headers through NVRTC (warm rerun and --resume after each header edit): exit $?" >> "$O/log.txt"
build-gpu/hkcheck --manifests tests/known_bad --out "$R/known_bad" --cache-dir /tmp/hkcheck-gpu-cache --sanitize=racecheck > "$R/known_bad.log" 2>&1
tail -2 "$R/known_bad.log" >> "$O/log.txt"
build-gpu/tests/known_bad_check "$R/known_bad/test_results.json" tests/known_bad >> "$O/log.txt" 2>&1
echo "known_bad_check exit $?" >> "$O/log.txt"
timeout 200 build-gpu/tests/hkcheck_tests --gtest_brief=1 > "$R/unit_tests.log" 2>&1
echo "unit tests exit $?" >> "$O/log.txt"; tail -4 "$R/unit_tests.log" >> "$O/log.txt"
date -u >> "$O/log.txt"
cd "$R" && tar czf "$O/results.tgz" --exclude='repro*' all warm warm2 warm3 cold_no_ahead warm_cpu_inputs known_bad ./*.txt ./*.log 2>>"$O/log.txt"
cat "$O/log.txt"
