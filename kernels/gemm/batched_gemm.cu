// Batched GEMMs with a bias (modules batched_gemm_bf16, batched_gemm_a8w8, batched_gemm_a8w8_ptgq).
// For every batch b < Bt (blockIdx.z), C[b] = epilogue(A[b] * B[b]^T):
//   batched_gemm_bf16(A, B, C, bias, M, N, K, bias_stride):
//     C[b, m, n] = sum_k A[b, m, k] B[b, n, k] + bias[b * bias_stride + n]
//   batched_gemm_a8w8(A, B, a_scale, b_scale, C, bias, M, N, K, bias_stride):
//     C[b, m, n] = a_scale[b, m] * b_scale[b, n] * sum_k A[b, m, k] B[b, n, k] + bias[...]
//   batched_gemm_a8w8_ptgq(A, B, a_scale, b_scale, C, bias, M, N, K, bias_stride):
//     per-token-group quantized A: a_scale [Bt, M, ceil(K / 128)], one per (row, 128-wide K group);
//     C[b, m, n] = b_scale[b, n] * sum_k (A[b, m, k] * a_scale[b, m, k / 128]) B[b, n, k] + bias[...]
//     (the argument order is batched_gemm_a8w8's)
// A: [Bt, M, K], B: [Bt, N, K] (weight layout), C: [Bt, M, N] bf16, all row-major; A and B are bf16
// (batched_gemm_bf16) or TQ = i8 / fp8e4m3 (the a8w8 kernels, a define); a_scale [Bt, M] and
// b_scale [Bt, N] f32 (per row / per output channel of each batch). bias is bf16, [N] shared by
// every batch (bias_stride 0) or [Bt, N] (bias_stride N). Sums in f32, scales and bias in the
// f32 epilogue, one rounding to bf16.
// Grid: (ceil(N / 128), ceil(M / 128), Bt); block: 256; dynamic shared memory: 160000 bytes
// (132096 used by the double-buffered f32 stages of gemm_tile.h).
#include "hkcheck.h"
#include "gemm_tile.h"

using Tile = gemm::Default;
constexpr int GROUP = 128;  // ptgq: K group of one a_scale

HK_KERNEL void batched_gemm_bf16(const bf16* __restrict__ A, const bf16* __restrict__ B, bf16* __restrict__ C,
                                 const bf16* __restrict__ bias, int M, int N, int K, int bias_stride) {
  HK_DYNAMIC_SHARED(float, smem);
  const i64 b = blockIdx.z;
  const bf16* Ab = A + b * M * K;
  const bf16* Bb = B + b * N * K;
  bf16* Cb = C + b * M * N;
  const bf16* biasb = bias + b * bias_stride;
  gemm::run<Tile>(
      smem, M, N, K, [&](int m, int k) { return hk::to_f32(Ab[(i64)m * K + k]); },
      [&](int n, int k) { return hk::to_f32(Bb[(i64)n * K + k]); },
      [&](int m, int n, float acc) { Cb[(i64)m * N + n] = hk::from_f32<bf16>(acc + hk::to_f32(biasb[n])); });
}

HK_KERNEL void batched_gemm_a8w8(const TQ* __restrict__ A, const TQ* __restrict__ B, const f32* __restrict__ a_scale,
                                 const f32* __restrict__ b_scale, bf16* __restrict__ C, const bf16* __restrict__ bias,
                                 int M, int N, int K, int bias_stride) {
  HK_DYNAMIC_SHARED(float, smem);
  const i64 b = blockIdx.z;
  const TQ* Ab = A + b * M * K;
  const TQ* Bb = B + b * N * K;
  const f32* sa = a_scale + b * M;
  const f32* sb = b_scale + b * N;
  bf16* Cb = C + b * M * N;
  const bf16* biasb = bias + b * bias_stride;
  gemm::run<Tile>(
      smem, M, N, K, [&](int m, int k) { return hk::to_f32(Ab[(i64)m * K + k]); },
      [&](int n, int k) { return hk::to_f32(Bb[(i64)n * K + k]); },
      [&](int m, int n, float acc) {
        Cb[(i64)m * N + n] = hk::from_f32<bf16>(acc * sa[m] * sb[n] + hk::to_f32(biasb[n]));
      });
}

HK_KERNEL void batched_gemm_a8w8_ptgq(const TQ* __restrict__ A, const TQ* __restrict__ B,
                                      const f32* __restrict__ a_scale, const f32* __restrict__ b_scale,
                                      bf16* __restrict__ C, const bf16* __restrict__ bias, int M, int N, int K,
                                      int bias_stride) {
  HK_DYNAMIC_SHARED(float, smem);
  const i64 b = blockIdx.z;
  const int groups = hk::ceil_div(K, GROUP);
  const TQ* Ab = A + b * M * K;
  const TQ* Bb = B + b * N * K;
  const f32* sa = a_scale + b * M * groups;
  const f32* sb = b_scale + b * N;
  bf16* Cb = C + b * M * N;
  const bf16* biasb = bias + b * bias_stride;
  gemm::run<Tile>(
      smem, M, N, K,
      [&](int m, int k) { return hk::to_f32(Ab[(i64)m * K + k]) * sa[(i64)m * groups + k / GROUP]; },
      [&](int n, int k) { return hk::to_f32(Bb[(i64)n * K + k]); },
      [&](int m, int n, float acc) { Cb[(i64)m * N + n] = hk::from_f32<bf16>(acc * sb[n] + hk::to_f32(biasb[n])); });
}
