// Dense feed-forward blocks in one launch (modules ff_fused_gated, ff_fused_ungated):
//   ff_fused_gated(x, w1, w3, w2, out, T, H, I):   h = silu(x . w1^T) * (x . w3^T);  out = h . w2^T
//   ff_fused_ungated(x, w1, w2, out, T, H, I):     h = gelu_erf(x . w1^T);           out = h . w2^T
// x [T, H] bf16, w1 and w3 [I, H] bf16, w2 [H, I] bf16, out [T, H] bf16, all row-major. The
// intermediate h is rounded to bf16 (as an unfused pair of GEMMs would store it) and kept in
// shared memory; products and sums in f32.
// A block owns FF_BM token rows (a define, 2, 4 or 8). Phase 1 sweeps the I columns of h in
// tiles of 64 (gated: 64 gate + 64 up columns in one 128-wide tile of the gemm_tile.h core),
// writing bf16 h[FF_BM, I] into shared memory; phase 2 sweeps the H columns of out in tiles of
// 128, reading h from shared memory. Dynamic shared memory: FF_SHARED = 160000 bytes, the core's
// double-buffered f32 staging (Cfg<FF_BM, 128, 32, 1, 4>: 34304 B for FF_BM 4) then h, so
// FF_BM * I * 2 + staging <= 160000 (I <= 15711 for FF_BM 4); a larger I writes nothing.
// Grid: (ceil(T / FF_BM)); block: FF_BM * 32 threads (any warp size: no warp collectives).
#include "hkcheck.h"
#include "../gemm/gemm_tile.h"

#ifndef FF_BM
#define FF_BM 4
#endif
constexpr int FF_SHARED = 160000;
using Tile = gemm::Cfg<FF_BM, 128, 32, 1, 4>;
constexpr int HALF = Tile::BN / 2;
static_assert(Tile::TN == 4, "gate and up columns pair as acc[0][j] and acc[0][j + 2]");

HK_DEVICE float silu(float g) { return g / (1.0f + expf(-g)); }
HK_DEVICE float gelu_erf(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)); }

// Phase 2: out[m0 .. m0 + FF_BM) = h . w2^T, h [FF_BM, I] bf16 in shared memory.
HK_DEVICE void down_proj(float* stage, const bf16* h, const bf16* __restrict__ w2, bf16* __restrict__ out, int m0,
                         int T, int H, int I) {
  for (int n0 = 0; n0 < H; n0 += Tile::BN) {
    float acc[Tile::TM][Tile::TN];
    gemm::mainloop<Tile>(
        acc, stage, m0, n0, T, H, 0, I, [&](int m, int k) { return hk::to_f32(h[(m - m0) * I + k]); },
        [&](int n, int k) { return hk::to_f32(w2[(i64)n * I + k]); });
    gemm::epilogue<Tile>(acc, m0, n0, T, H, [&](int m, int n, float v) { out[(i64)m * H + n] = hk::from_f32<bf16>(v); });
  }
}

HK_DEVICE bool fits(int I) { return Tile::SMEM_BYTES + (i64)FF_BM * I * 2 <= FF_SHARED; }

HK_KERNEL void ff_fused_gated(const bf16* __restrict__ x, const bf16* __restrict__ w1, const bf16* __restrict__ w3,
                              const bf16* __restrict__ w2, bf16* __restrict__ out, int T, int H, int I) {
  HK_DYNAMIC_SHARED(float, stage);
  bf16* h = reinterpret_cast<bf16*>(stage + Tile::SMEM_BYTES / 4);
  if (!fits(I)) return;
  const int m0 = blockIdx.x * FF_BM;
  auto load_x = [&](int m, int k) { return hk::to_f32(x[(i64)m * H + k]); };
  for (int c0 = 0; c0 < I; c0 += HALF) {
    // Tile column r < 64: gate row c0 + r of w1; r >= 64: up row c0 + r - 64 of w3.
    auto load_w = [&](int r, int k) {
      const int c = c0 + r % HALF;
      if (c >= I) return 0.0f;
      return hk::to_f32((r < HALF ? w1 : w3)[(i64)c * H + k]);
    };
    float acc[Tile::TM][Tile::TN];
    gemm::mainloop<Tile>(acc, stage, m0, 0, T, Tile::BN, 0, H, load_x, load_w);
    const int m = gemm::row_of<Tile>(m0, 0);
    for (int j = 0; j < Tile::TN / 2 && m < T; ++j) {
      const int c = c0 + gemm::col_of<Tile>(0, j);
      if (c < I) h[(m - m0) * I + c] = hk::from_f32<bf16>(silu(acc[0][j]) * acc[0][j + Tile::TN / 2]);
    }
  }
  __syncthreads();  // h complete before phase 2 reads it
  down_proj(stage, h, w2, out, m0, T, H, I);
}

HK_KERNEL void ff_fused_ungated(const bf16* __restrict__ x, const bf16* __restrict__ w1, const bf16* __restrict__ w2,
                                bf16* __restrict__ out, int T, int H, int I) {
  HK_DYNAMIC_SHARED(float, stage);
  bf16* h = reinterpret_cast<bf16*>(stage + Tile::SMEM_BYTES / 4);
  if (!fits(I)) return;
  const int m0 = blockIdx.x * FF_BM;
  for (int c0 = 0; c0 < I; c0 += Tile::BN) {
    float acc[Tile::TM][Tile::TN];
    gemm::mainloop<Tile>(
        acc, stage, m0, c0, T, I, 0, H, [&](int m, int k) { return hk::to_f32(x[(i64)m * H + k]); },
        [&](int n, int k) { return hk::to_f32(w1[(i64)n * H + k]); });
    gemm::epilogue<Tile>(acc, m0, c0, T, I,
                         [&](int m, int n, float v) { h[(m - m0) * I + n] = hk::from_f32<bf16>(gelu_erf(v)); });
  }
  __syncthreads();
  down_proj(stage, h, w2, out, m0, T, H, I);
}
