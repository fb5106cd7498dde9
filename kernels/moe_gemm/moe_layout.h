// The MoE routing layout and the tile every MoE GEMM of kernels/moe_gemm/ shares.
//
// Layout (all row-major):
//   x                       [T, H]            activations, one row per token
//   w                       [E, N, H]         expert weights, row n of expert e is output channel n
//   topk_weights            [T, topk] f32     routing weight of slot s = t * topk + k
//   sorted_token_ids        [P] i32           the "align block size" layout a routing kernel
//                                             writes: P = NB * BLOCK_M, block b (positions
//                                             [b * BLOCK_M, (b + 1) * BLOCK_M)) holds slots s
//                                             routed to expert expert_ids[b]; an id >= T * topk
//                                             (the sentinel T * topk in a routing kernel's
//                                             output) is padding. Every slot appears once.
//   expert_ids              [NB] i32          expert of each block, in [0, E)
//   num_tokens_post_padded  [1] i32           valid prefix of sorted_token_ids (a multiple of
//                                             BLOCK_M); blocks at or past it do nothing
//   out                     [T, topk, N]      out[t, k, :] = x[t] . w[expert of slot s]^T
// Slot s = t * topk + k reads token row t = s / topk. The kernels need neither sorted blocks nor
// contiguous experts (only that each slot appears once), so the manifests make the layout with
// generators, valid by construction: sorted_token_ids = (s0 + i * step) mod P with gcd(step, P)
// = 1 (a permutation of [0, P), ids >= T * topk being padding scattered unevenly over blocks)
// and expert_ids = (e0 + b) mod (E - 1), so expert E - 1 gets no token and the others an uneven
// number of blocks and of valid rows. The references derive each slot's expert from the layout.
//
// Tile: one block per (64-wide N tile, align block): grid (ceil(Ncols / 64), NB), 256 threads,
// the gemm_tile.h core with BM = BLOCK_M (16, 32 or 64: a define), BN 64, BK 32, so at most
// 33280 B of staging; the block's BLOCK_M slot ids follow in shared memory (256 B more). The
// launch asks for MOE_SHARED = 33536 bytes of dynamic shared memory: well inside 64 KiB.
#pragma once
#include "hkcheck.h"
#include "../gemm/gemm_tile.h"

#ifndef BLOCK_M
#define BLOCK_M 64
#endif
static_assert(BLOCK_M == 16 || BLOCK_M == 32 || BLOCK_M == 64, "BLOCK_M must be 16, 32 or 64");

namespace moe {

using Tile = gemm::Cfg<BLOCK_M, 64, 32, BLOCK_M / 16, 4>;  // 256 threads
static_assert(Tile::THREADS == 256, "launch block is 256");
constexpr int SHARED_BYTES = gemm::Cfg<64, 64, 32, 4, 4>::SMEM_BYTES + 64 * 4;  // 33536
static_assert(Tile::SMEM_BYTES + BLOCK_M * 4 <= SHARED_BYTES, "tile does not fit MOE_SHARED");

struct Route {
  const i32* sorted_token_ids;
  const i32* expert_ids;
  const i32* num_tokens_post_padded;
  int num_slots;  // T * topk
  int topk;
};

// The block's view of its align block: expert and the slot of each tile row (-1: padding).
struct Block {
  int expert;
  const int* slot;  // [BLOCK_M], in shared memory
  HK_DEVICE bool valid(int m) const { return slot[m] >= 0; }
  HK_DEVICE int token(int m, int topk) const { return slot[m] / topk; }
};

// Loads the block's slots into shared memory (after the core's staging). Returns false, for
// every thread alike, when the block lies past num_tokens_post_padded.
HK_DEVICE bool load_block(const Route& r, float* smem, Block& blk) {
  const int b = blockIdx.y;
  if (b * BLOCK_M >= r.num_tokens_post_padded[0]) return false;
  int* slots = reinterpret_cast<int*>(smem + Tile::SMEM_BYTES / 4);
  for (int m = threadIdx.x; m < BLOCK_M; m += blockDim.x) {
    const int s = r.sorted_token_ids[(i64)b * BLOCK_M + m];
    slots[m] = (s >= 0 && s < r.num_slots) ? s : -1;
  }
  __syncthreads();
  blk.expert = r.expert_ids[b];
  blk.slot = slots;
  return true;
}

HK_DEVICE float silu(float g) { return g / (1.0f + expf(-g)); }
HK_DEVICE float gelu_erf(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)); }

// Runs the block's 64-column tile: acc = A_tile . B_tile^T over k in [0, K), where load_a(m, k)
// is only called for rows of a valid slot (padding rows are staged as 0) and load_b(n, k) for
// n < ncols (N for a plain tile; the gated tile passes n0 + 64 and bounds its rows itself).
template <class LA, class LB>
HK_DEVICE void mainloop(float (&acc)[Tile::TM][Tile::TN], float* smem, const Block& blk, int ncols, int K,
                        const LA& load_a, const LB& load_b) {
  const int n0 = blockIdx.x * Tile::BN;
  auto la = [&](int m, int k) { return blk.valid(m) ? load_a(m, k) : 0.0f; };
  gemm::mainloop<Tile>(acc, smem, 0, n0, BLOCK_M, ncols, 0, K, la, load_b);
}

// Plain epilogue: epi(slot, n, acc) for each valid row and n < N.
template <class E>
HK_DEVICE void epilogue(const float (&acc)[Tile::TM][Tile::TN], const Block& blk, int N, const E& epi) {
  const int n0 = blockIdx.x * Tile::BN;
  gemm::epilogue<Tile>(acc, 0, n0, BLOCK_M, N, [&](int m, int n, float v) {
    if (blk.valid(m)) epi(blk.slot[m], n, v);
  });
}

// Gated (SwiGLU) tile: block column tile x covers output channels [32x, 32x + 32); tile column
// r < 32 is gate row c = 32x + r of the expert's [2N, H] weight, r >= 32 its up row N + c. With
// the core's strided layout acc[i][j] (gate) and acc[i][j + 2] (up) are the same channel.
constexpr int HALF = Tile::BN / 2;
static_assert(Tile::TN == 4, "gate/up pairing assumes TN == 4");
// Maps a tile column n (core coordinates) to the weight row, or -1 past N.
HK_DEVICE int gated_row(int n, int N) {
  const int r = n - (int)blockIdx.x * Tile::BN, c = (int)blockIdx.x * HALF + r % HALF;
  if (c >= N) return -1;
  return r < HALF ? c : N + c;
}
template <class E>
HK_DEVICE void gated_epilogue(const float (&acc)[Tile::TM][Tile::TN], const Block& blk, int N, const E& epi) {
  const int n0 = blockIdx.x * Tile::BN;
  for (int i = 0; i < Tile::TM; ++i) {
    const int m = gemm::row_of<Tile>(0, i);
    if (!blk.valid(m)) continue;
    for (int j = 0; j < Tile::TN / 2; ++j) {
      const int c = (int)blockIdx.x * HALF + gemm::col_of<Tile>(n0, j) - n0;
      if (c < N) epi(blk.slot[m], c, silu(acc[i][j]) * acc[i][j + Tile::TN / 2]);
    }
  }
}

}  // namespace moe

// The start of every MoE GEMM entry: its block of the align layout (route, slots, expert), or
// return when the block is past num_tokens_post_padded; then the thread's accumulator. Needs
// the entry's arguments sorted_token_ids, expert_ids, num_tokens_post_padded, num_slots, topk.
#define MOE_BLOCK_OR_RETURN()                                                                    \
  HK_DYNAMIC_SHARED(float, smem);                                                                \
  const moe::Route route{sorted_token_ids, expert_ids, num_tokens_post_padded, num_slots, topk}; \
  moe::Block blk;                                                                                \
  if (!moe::load_block(route, smem, blk)) return;                                                \
  float acc[moe::Tile::TM][moe::Tile::TN]
