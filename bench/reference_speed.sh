#!/usr/bin/env bash
# The CPU side of the heaviest cases, side by side: each case's inputs generated with 1 thread and
# with every core, and its reference run with 1 thread and with every core (bench/reference_bench.cpp
# checks that both give the same outputs bit for bit). With --baseline, also the scalar reference
# each fast one replaced (tests/fixtures/scalar_references), on 1 thread, and how far apart they are.
#
#   bench/reference_speed.sh [--build DIR] [--threads N] [--baseline] [--quick] [KERNEL/CASE ...]
#
# --quick takes the small tier's biggest cases of the same references instead of the large tier's
# (seconds instead of minutes on 2 cores). Run from the repository root after building with
# -DHKCHECK_TESTS=ON (the reference_bench target).
set -euo pipefail
build=build threads=$(nproc) baseline=() quick=0 cases=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --baseline) baseline=(--baseline tests/fixtures/scalar_references --max-rel 1e-12); shift ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n 2,11p "$0"; exit 0 ;;
    *) cases+=("$1"); shift ;;
  esac
done
if [[ ${#cases[@]} -eq 0 && $quick -eq 1 ]]; then
  cases=(gdr_chunk_fwd_o/f32_var2_C32_H1_128x128 gdr_chunk_delta_h_fwd/f32_var2_C32_H1_128x128
         gdr_chunk_pipeline/bf16_var3_C16_H2_128x128 pa_prefill/equal_len chunked_pa_prefill/gqa/D=128
         sage_attention/gqa/D=128,causal=1 flash_attn_bwd/mqa)
elif [[ ${#cases[@]} -eq 0 ]]; then
  # The references that took longest on the GPU machines (issue 29), largest case each.
  cases=(gdr_chunk_fwd_o/f32_var4_H32_128x128_C64 chunked_pa_prefill/large_b4 sage_attention/large_causal
         pa_prefill/large_b4 gdr_chunk_pipeline/f32_var4_H32_128x128_C64 gdr_fused_recurrent_fwd/f32_var4_H32_128x128
         gdr_chunk_delta_h_fwd/f32_var4_H32_128x128_C64 mha_onekernel_bwd/large_causal)
fi
echo "reference_speed: $(nproc) cores, threads 1 and $threads, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
exec "$build/tests/reference_bench" --manifests manifests --threads "1,$threads" "${baseline[@]}" -- "${cases[@]}"
