// Batched GEMMs with OCP MX fp4 weights (modules batched_gemm_a16wfp4, batched_gemm_afp4wfp4).
// For every batch b < Bt (blockIdx.z):
//   batched_gemm_a16wfp4(A, B, C, b_scales, M, N, K):            C[b] = A[b] * deq(B[b])^T
//   batched_gemm_afp4wfp4(A, B, C, a_scales, b_scales, M, N, K):  C[b] = deq(A[b]) * deq(B[b])^T
//   (the scale tensors are appended after C)
// A: [Bt, M, K] bf16 or MX fp4; B: [Bt, N, K] MX fp4 (weight layout); C: [Bt, M, N] bf16.
// MX fp4 (mx_fp4.h): fp4e2m1 packed two per byte in flat order along K, e8m0 scales
// [Bt, rows, ceil(K / 32)], one per 32 elements of a row; batch b's rows are rows
// [b * rows, (b + 1) * rows) of the [Bt * rows, K] view, so the flat indexing carries over.
// Dequantized as staged into shared memory (exact in f32); sums f32; one rounding to bf16.
// Grid: (ceil(N / 128), ceil(M / 128), Bt); block: 256; dynamic shared memory: 160000 bytes
// (132096 used by the double-buffered f32 stages of gemm_tile.h).
#include "hkcheck.h"
#include "gemm_tile.h"
#include "mx_fp4.h"

using Tile = gemm::Default;

HK_KERNEL void batched_gemm_a16wfp4(const bf16* __restrict__ A, const fp4e2m1x2* __restrict__ B, bf16* __restrict__ C,
                                    const e8m0* __restrict__ b_scales, int M, int N, int K) {
  HK_DYNAMIC_SHARED(float, smem);
  const i64 b = blockIdx.z;
  const bf16* Ab = A + b * M * K;
  bf16* Cb = C + b * M * N;
  gemm::run<Tile>(
      smem, M, N, K, [&](int m, int k) { return hk::to_f32(Ab[(i64)m * K + k]); },
      [&](int n, int k) { return gemm::mx_fp4_at(B, b_scales, b * N + n, k, K); },
      [&](int m, int n, float acc) { Cb[(i64)m * N + n] = hk::from_f32<bf16>(acc); });
}

HK_KERNEL void batched_gemm_afp4wfp4(const fp4e2m1x2* __restrict__ A, const fp4e2m1x2* __restrict__ B,
                                     bf16* __restrict__ C, const e8m0* __restrict__ a_scales,
                                     const e8m0* __restrict__ b_scales, int M, int N, int K) {
  HK_DYNAMIC_SHARED(float, smem);
  const i64 b = blockIdx.z;
  bf16* Cb = C + b * M * N;
  gemm::run<Tile>(
      smem, M, N, K, [&](int m, int k) { return gemm::mx_fp4_at(A, a_scales, b * M + m, k, K); },
      [&](int n, int k) { return gemm::mx_fp4_at(B, b_scales, b * N + n, k, K); },
      [&](int m, int n, float acc) { Cb[(i64)m * N + n] = hk::from_f32<bf16>(acc); });
}
