// Grouped GEMM (module gmm): rows of x are split into G consecutive groups, group g taking the
// next group_sizes[g] rows (sizes >= 0, zeros allowed, sum = M), and multiplied by its own w[g]:
//   gmm(group_sizes, x, w, out, M, N, K, G)
//     out[m, n] = sum_k x[m, k] * w[g(m), k, n], rounded to T
// group_sizes [G] i32, x [M, K] T, w [G, K, N] T (K-major, as grouped-GEMM libraries take it),
// out [M, N] T; T is bf16 or f16 (define); f32 products and sums.
// Grid: (ceil(N / 64), ceil(M / 64) + G): each group needs ceil(size / 64) row tiles, at most
// ceil(M / 64) + G over all groups; block y finds its (group, row tile) by a prefix sum over
// group_sizes that every thread computes alike, and blocks past the last tile exit. Block 256;
// the gemm_tile.h core <64, 64, 32, 4, 4>: 33280 bytes of dynamic shared memory (fits 64 KiB).
#include "hkcheck.h"
#include "../gemm/gemm_tile.h"

using Tile = gemm::Cfg<64, 64, 32, 4, 4>;

HK_KERNEL void gmm(const i32* __restrict__ group_sizes, const T* __restrict__ x, const T* __restrict__ w,
                   T* __restrict__ out, int M, int N, int K, int G) {
  HK_DYNAMIC_SHARED(float, smem);
  // The block's group g and its rows [m0, m_end).
  int g = -1, m0 = 0, m_end = 0;
  for (int i = 0, start = 0, tile = 0; i < G; ++i) {
    const int size = group_sizes[i], tiles = (size + Tile::BM - 1) / Tile::BM;
    if ((int)blockIdx.y < tile + tiles) {
      g = i;
      m0 = start + ((int)blockIdx.y - tile) * Tile::BM;
      m_end = start + size < M ? start + size : M;  // never past x, whatever group_sizes says
      break;
    }
    start += size;
    tile += tiles;
  }
  if (g < 0 || m0 >= m_end) return;  // uniform over the block
  const T* wg = w + (i64)g * K * N;
  const int n0 = blockIdx.x * Tile::BN;
  float acc[Tile::TM][Tile::TN];
  gemm::mainloop<Tile>(
      acc, smem, m0, n0, m_end, N, 0, K, [&](int m, int k) { return hk::to_f32(x[(i64)m * K + k]); },
      [&](int n, int k) { return hk::to_f32(wg[(i64)k * N + n]); });
  gemm::epilogue<Tile>(acc, m0, n0, m_end, N,
                       [&](int m, int n, float v) { out[(i64)m * N + n] = hk::from_f32<T>(v); });
}
