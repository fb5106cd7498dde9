// 8-bit GEMMs with a per-row scale on A and a per-column scale on B:
//   gemm_a8w8(A, B, a_scale, b_scale, C, M, N, K)                  (module gemm_a8w8)
//   gemm_a8w8_per_token_scale(A, B, C, a_scale, b_scale, M, N, K)  (module gemm_a8w8_per_token_scale)
//     C[m, n] = a_scale[m] * b_scale[n] * sum_k A[m, k] * B[n, k], rounded to bf16
// A: [M, K] TQ, B: [N, K] TQ (weight layout), a_scale: [M] f32 (per token / row),
// b_scale: [N] f32 (per output channel), C: [M, N] bf16, all row-major.
// TQ (define) is i8 or fp8e4m3. The raw 8-bit values are multiplied and summed in f32 (exact
// for int8 while |partial sums| < 2^24) and the two scales are applied once, in the epilogue.
// Grid: (ceil(N / 128), ceil(M / 128)); block: 256; dynamic shared memory: 160000 bytes (132096
// used by the double-buffered f32 stages of gemm_tile.h).
#include "hkcheck.h"
#include "gemm_tile.h"

using Tile = gemm::Default;

HK_DEVICE void a8w8_scaled(float* smem, const TQ* __restrict__ A, const TQ* __restrict__ B,
                           const f32* __restrict__ a_scale, const f32* __restrict__ b_scale, bf16* __restrict__ C,
                           int M, int N, int K) {
  gemm::run<Tile>(
      smem, M, N, K, [&](int m, int k) { return hk::to_f32(A[(i64)m * K + k]); },
      [&](int n, int k) { return hk::to_f32(B[(i64)n * K + k]); },
      [&](int m, int n, float acc) { C[(i64)m * N + n] = hk::from_f32<bf16>(acc * a_scale[m] * b_scale[n]); });
}

HK_KERNEL void gemm_a8w8(const TQ* __restrict__ A, const TQ* __restrict__ B, const f32* __restrict__ a_scale,
                         const f32* __restrict__ b_scale, bf16* __restrict__ C, int M, int N, int K) {
  HK_DYNAMIC_SHARED(float, smem);
  a8w8_scaled(smem, A, B, a_scale, b_scale, C, M, N, K);
}

HK_KERNEL void gemm_a8w8_per_token_scale(const TQ* __restrict__ A, const TQ* __restrict__ B, bf16* __restrict__ C,
                                         const f32* __restrict__ a_scale, const f32* __restrict__ b_scale, int M,
                                         int N, int K) {
  HK_DYNAMIC_SHARED(float, smem);
  a8w8_scaled(smem, A, B, a_scale, b_scale, C, M, N, K);
}
