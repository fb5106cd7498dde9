// Block-scaled fp8 GEMMs (DeepSeek-style 128-wide scale blocks):
//   gemm_a8w8_blockscale(A, B, C, a_scale, b_scale, M, N, K)   (module gemm_a8w8_blockscale)
//     C[m, n] = sum_k (A[m, k] * a_scale[m, k / 128]) * (B[n, k] * b_scale[n / 128, k / 128])
//   gemm_a16w8_blockscale(A, B, C, b_scale, M, N, K)           (module gemm_a16w8_blockscale)
//     C[m, n] = sum_k A[m, k] * (B[n, k] * b_scale[n / 128, k / 128])
// A: [M, K] fp8e4m3 (bf16 for a16w8), a_scale: [M, ceil(K / 128)] f32 (per token and K block),
// B: [N, K] fp8e4m3 (weight layout), b_scale: [ceil(N / 128), ceil(K / 128)] f32 (per 128 x 128
// block of B), C: [M, N] bf16, all row-major. Scales vary along K, so each element is dequantized
// (value x scale, in f32) as it is staged into shared memory; the sum is f32.
// Grid: (ceil(N / 128), ceil(M / 128)); block: 256; dynamic shared memory: 160000 bytes (132096
// used by the double-buffered f32 stages of gemm_tile.h).
#include "hkcheck.h"
#include "gemm_tile.h"

using Tile = gemm::Default;
constexpr int QB = 128;  // scale block along K (and along N for B)

HK_KERNEL void gemm_a8w8_blockscale(const fp8e4m3* __restrict__ A, const fp8e4m3* __restrict__ B,
                                    bf16* __restrict__ C, const f32* __restrict__ a_scale,
                                    const f32* __restrict__ b_scale, int M, int N, int K) {
  HK_DYNAMIC_SHARED(float, smem);
  const int kb = hk::ceil_div(K, QB);
  gemm::run<Tile>(
      smem, M, N, K,
      [&](int m, int k) { return hk::to_f32(A[(i64)m * K + k]) * a_scale[(i64)m * kb + k / QB]; },
      [&](int n, int k) { return hk::to_f32(B[(i64)n * K + k]) * b_scale[(i64)(n / QB) * kb + k / QB]; },
      [&](int m, int n, float acc) { C[(i64)m * N + n] = hk::from_f32<bf16>(acc); });
}

HK_KERNEL void gemm_a16w8_blockscale(const bf16* __restrict__ A, const fp8e4m3* __restrict__ B,
                                     bf16* __restrict__ C, const f32* __restrict__ b_scale, int M, int N, int K) {
  HK_DYNAMIC_SHARED(float, smem);
  const int kb = hk::ceil_div(K, QB);
  gemm::run<Tile>(
      smem, M, N, K, [&](int m, int k) { return hk::to_f32(A[(i64)m * K + k]); },
      [&](int n, int k) { return hk::to_f32(B[(i64)n * K + k]) * b_scale[(i64)(n / QB) * kb + k / QB]; },
      [&](int m, int n, float acc) { C[(i64)m * N + n] = hk::from_f32<bf16>(acc); });
}
