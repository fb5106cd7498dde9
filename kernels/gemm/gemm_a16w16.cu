// 16-bit GEMM with a weight matrix (module gemm_a16w16):
//   gemm_a16w16(A, B, C, M, N, K):         C[m, n] = sum_k A[m, k] * B[n, k], rounded to T
//   gemm_a16w16_atomic(A, B, C, M, N, K):  C[m, n] += sum_k A[m, k] * B[n, k], C in f32, split-K
// A: [M, K] T, B: [N, K] T (row n is output column n: "weight" layout), C: [M, N] row-major.
// T is bf16 or f16 (the manifest's define); products and sums are f32 (gemm_tile.h).
// Grid: (ceil(N / 128), ceil(M / 128), S); block: 256 (gemm::Default::THREADS); dynamic shared
// memory: 160000 bytes, of which the double-buffered f32 A and B stages use 132096.
// The atomic variant splits K into S = gridDim.z contiguous chunks (a multiple of the 64-wide K
// stage each); every chunk atomically adds its partial tile into C, so C holds whatever the
// caller put there plus the product (zero it first for a plain product). The order of the S
// additions is not fixed: the last bits of C vary from run to run.
#include "hkcheck.h"
#include "gemm_tile.h"

using Tile = gemm::Default;

HK_KERNEL void gemm_a16w16(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, int M, int N,
                           int K) {
  HK_DYNAMIC_SHARED(float, smem);
  gemm::run<Tile>(
      smem, M, N, K, [&](int m, int k) { return hk::to_f32(A[(i64)m * K + k]); },
      [&](int n, int k) { return hk::to_f32(B[(i64)n * K + k]); },
      [&](int m, int n, float acc) { C[(i64)m * N + n] = hk::from_f32<T>(acc); });
}

HK_KERNEL void gemm_a16w16_atomic(const T* __restrict__ A, const T* __restrict__ B, f32* __restrict__ C, int M,
                                  int N, int K) {
  HK_DYNAMIC_SHARED(float, smem);
  const int splits = gridDim.z;
  // Chunks are whole stages so that no stage straddles two chunks.
  const int chunk = hk::ceil_div(hk::ceil_div(K, splits), Tile::BK) * Tile::BK;
  const int k_begin = blockIdx.z * chunk;
  const int k_end = min(K, k_begin + chunk);
  if (k_begin >= k_end) return;  // the whole block leaves: no barrier is left waiting
  const int m0 = blockIdx.y * Tile::BM, n0 = blockIdx.x * Tile::BN;
  float acc[Tile::TM][Tile::TN];
  gemm::mainloop<Tile>(
      acc, smem, m0, n0, M, N, k_begin, k_end, [&](int m, int k) { return hk::to_f32(A[(i64)m * K + k]); },
      [&](int n, int k) { return hk::to_f32(B[(i64)n * K + k]); });
  gemm::epilogue<Tile>(acc, m0, n0, M, N, [&](int m, int n, float v) { atomicAdd(&C[(i64)m * N + n], v); });
}
