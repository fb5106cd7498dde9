// Gated 16-bit GEMM, SwiGLU style (module gemm_a16w16_gated):
//   gemm_a16w16_gated(A, B, C, M, N, K):
//     g[m, n] = sum_k A[m, k] * B[n, k]        rows [0, N) of B are the GATE
//     u[m, n] = sum_k A[m, k] * B[N + n, k]    rows [N, 2N) of B are the up projection
//     C[m, n] = silu(g) * u = g / (1 + exp(-g)) * u, rounded to T
// A: [M, K] T, B: [2N, K] T, C: [M, N] T, row-major; T bf16 or f16; all arithmetic in f32.
// A block computes 64 output columns: its 128-wide tile holds the 64 gate columns then the
// matching 64 up columns, so with gemm_tile.h's strided thread layout the thread holding g at
// acc[i][j] holds its u at acc[i][j + TN / 2] and the epilogue needs no exchange.
// Grid: (ceil(N / 64), ceil(M / 128)); block: 256; dynamic shared memory: 160000 bytes (132096
// used by the double-buffered f32 stages).
#include "hkcheck.h"
#include "gemm_tile.h"

using Tile = gemm::Default;
constexpr int HALF = Tile::BN / 2;
static_assert(Tile::TN % 2 == 0, "gate and up columns must fall in the same thread");

HK_KERNEL void gemm_a16w16_gated(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, int M,
                                 int N, int K) {
  HK_DYNAMIC_SHARED(float, smem);
  const int m0 = blockIdx.y * Tile::BM;
  const int n0 = blockIdx.x * Tile::BN;  // in the tile's own column space
  const int c0 = blockIdx.x * HALF;      // first output column of the block
  // Tile column r: r < 64 gate row c0 + r, else up row N + c0 + r - 64.
  auto load_b = [&](int n, int k) {
    const int r = n - n0, c = c0 + r % HALF;
    if (c >= N) return 0.0f;
    const i64 row = r < HALF ? c : (i64)N + c;
    return hk::to_f32(B[row * K + k]);
  };
  float acc[Tile::TM][Tile::TN];
  gemm::mainloop<Tile>(
      acc, smem, m0, n0, M, n0 + Tile::BN, 0, K, [&](int m, int k) { return hk::to_f32(A[(i64)m * K + k]); },
      load_b);
  for (int i = 0; i < Tile::TM; ++i) {
    const int m = gemm::row_of<Tile>(m0, i);
    if (m >= M) continue;
    for (int j = 0; j < Tile::TN / 2; ++j) {
      const int c = c0 + gemm::col_of<Tile>(n0, j) - n0;
      if (c >= N) continue;
      const float g = acc[i][j], u = acc[i][j + Tile::TN / 2];
      C[(i64)m * N + c] = hk::from_f32<T>(g / (1.0f + expf(-g)) * u);
    }
  }
}
