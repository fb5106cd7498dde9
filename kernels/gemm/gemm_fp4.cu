// GEMMs with OCP MX fp4 weights (modules gemm_a16wfp4, gemm_a8wfp4, gemm_afp4wfp4):
//   gemm_a16wfp4(A, B, C, b_scales, M, N, K):            C = A * deq(B)^T
//   gemm_a8wfp4(A, B, a_scale, b_scales, C, M, N, K):     C = a_scale[m] * (A * deq(B)^T)
//     (b_scales is inserted after the report's a_scale)
//   gemm_afp4wfp4(A, B, C, a_scales, b_scales, M, N, K):  C = deq(A) * deq(B)^T
//     (the two scale tensors are appended after C)
// A: [M, K] bf16 (a16), fp8e4m3 (a8, a_scale [M] f32 per row) or MX fp4 (afp4);
// B: [N, K] MX fp4 (weight layout). MX fp4 = fp4e2m1 packed two per byte along K (mx_fp4.h) with
// e8m0 scales [rows, ceil(K / 32)]; deq(x)[r, k] = e2m1 value * 2^(scale bits - 127), exact in f32.
// C: [M, N] bf16, row-major. Elements are dequantized to f32 as they are staged into shared
// memory (gemm_tile.h); products and sums are f32. K even (rows of whole bytes) is the common
// case; odd K also works, as the packing is in flat element order.
// Grid: (ceil(N / 128), ceil(M / 128)); block: 256; dynamic shared memory: 160000 bytes (132096
// used by the double-buffered f32 stages).
#include "hkcheck.h"
#include "gemm_tile.h"
#include "mx_fp4.h"

using Tile = gemm::Default;

HK_KERNEL void gemm_a16wfp4(const bf16* __restrict__ A, const fp4e2m1x2* __restrict__ B, bf16* __restrict__ C,
                            const e8m0* __restrict__ b_scales, int M, int N, int K) {
  HK_DYNAMIC_SHARED(float, smem);
  gemm::run<Tile>(
      smem, M, N, K, [&](int m, int k) { return hk::to_f32(A[(i64)m * K + k]); },
      [&](int n, int k) { return gemm::mx_fp4_at(B, b_scales, n, k, K); },
      [&](int m, int n, float acc) { C[(i64)m * N + n] = hk::from_f32<bf16>(acc); });
}

HK_KERNEL void gemm_a8wfp4(const fp8e4m3* __restrict__ A, const fp4e2m1x2* __restrict__ B,
                           const f32* __restrict__ a_scale, const e8m0* __restrict__ b_scales, bf16* __restrict__ C,
                           int M, int N, int K) {
  HK_DYNAMIC_SHARED(float, smem);
  gemm::run<Tile>(
      smem, M, N, K, [&](int m, int k) { return hk::to_f32(A[(i64)m * K + k]); },
      [&](int n, int k) { return gemm::mx_fp4_at(B, b_scales, n, k, K); },
      [&](int m, int n, float acc) { C[(i64)m * N + n] = hk::from_f32<bf16>(acc * a_scale[m]); });
}

HK_KERNEL void gemm_afp4wfp4(const fp4e2m1x2* __restrict__ A, const fp4e2m1x2* __restrict__ B, bf16* __restrict__ C,
                             const e8m0* __restrict__ a_scales, const e8m0* __restrict__ b_scales, int M, int N,
                             int K) {
  HK_DYNAMIC_SHARED(float, smem);
  gemm::run<Tile>(
      smem, M, N, K, [&](int m, int k) { return gemm::mx_fp4_at(A, a_scales, m, k, K); },
      [&](int n, int k) { return gemm::mx_fp4_at(B, b_scales, n, k, K); },
      [&](int m, int n, float acc) { C[(i64)m * N + n] = hk::from_f32<bf16>(acc); });
}
