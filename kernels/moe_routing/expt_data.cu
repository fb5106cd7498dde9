// MoE expert data: from the per-expert token histogram, the offsets and tile map that a grouped
// (ragged) matmul over BM-row tiles needs, in one launch.
//
//   expt_data_compute(hist [E] i32, token_offs [E + 1] i32, tile_counts [E] i32,
//                     tile_offs [E + 1] i32, tile_map [MAX_TILES] i32, E, BM, MAX_TILES)
//   token_offs[e]  = sum_{e' < e} hist[e']                  (token_offs[E]: all tokens)
//   tile_counts[e] = ceil_div(hist[e], BM)                  (an expert with no token: 0)
//   tile_offs[e]   = sum_{e' < e} tile_counts[e']           (tile_offs[E]: all tiles)
//   tile_map[i]    = (j << 16) | e for tile i = tile_offs[e] + j, j < tile_counts[e]: tile i is
//                    block j of expert e (rows token_offs[e] + j * BM ... of the sorted tokens);
//                    -1 for i >= tile_offs[E] (unused tiles, up to MAX_TILES)
//   Requires E < 65536 and every tile_counts[e] < 32768 (the packing), hist[e] >= 0, and
//   MAX_TILES >= tile_offs[E] (tiles past MAX_TILES are not written).
//
//   expt_data_tile_map(hist [E] i32, tile_map [MAX_TILES] i32, E, BM, MAX_TILES)
//   the same tile_map alone, over a grid of any size: each block redoes the (short) scan of
//   the E tile counts in shared memory and writes the tiles blockIdx.x * blockDim.x + j, with a
//   grid-wide stride, so a long map is written by many blocks.
//
// expt_data_compute: grid 1 block. Both: block any multiple of HK_WARP_SIZE up to 1024; dynamic
// shared memory 4 * (E + 1) bytes (the tile offsets, for the tile -> expert search).
#include "hkcheck.h"
#include "routing_common.h"

namespace {

// Exclusive scans of hist and of its tile counts, in chunks of blockDim.x (any E). The tile
// offsets go to s_tile_offs[0..E]; the global outputs are written when not null. Returns the
// number of tiles.
HK_DEVICE i32 scan_expert_data(const i32* __restrict__ hist, i32 E, i32 BM, i32* s_tile_offs, i32* token_offs,
                               i32* tile_counts, i32* tile_offs) {
  const i32 tid = (i32)threadIdx.x;
  i32 tok_carry = 0, tile_carry = 0;
  for (i32 c0 = 0; c0 < E; c0 += (i32)blockDim.x) {
    const i32 e = c0 + tid;
    const i32 h = e < E ? hist[e] : 0;
    const i32 tiles = hk::ceil_div(h, BM);
    i32 tok_tot, tile_tot;
    const i32 tok_excl = moe::block_exclusive_scan(h, tok_tot);
    const i32 tile_excl = moe::block_exclusive_scan(tiles, tile_tot);
    if (e < E) {
      s_tile_offs[e] = tile_carry + tile_excl;
      if (token_offs) {
        token_offs[e] = tok_carry + tok_excl;
        tile_counts[e] = tiles;
        tile_offs[e] = tile_carry + tile_excl;
      }
    }
    tok_carry += tok_tot;
    tile_carry += tile_tot;
  }
  if (tid == 0) {
    s_tile_offs[E] = tile_carry;
    if (token_offs) { token_offs[E] = tok_carry; tile_offs[E] = tile_carry; }
  }
  __syncthreads();
  return tile_carry;
}

// tile_map[i] for i = first, first + stride, ... < MAX_TILES. Tile i's expert is the largest e
// with tile_offs[e] <= i (experts without tiles share the next one's offset).
HK_DEVICE void write_tile_map(const i32* s_tile_offs, i32 E, i32 tiles, i32* __restrict__ tile_map, i32 first,
                              i32 stride, i32 MAX_TILES) {
  for (i32 i = first; i < MAX_TILES; i += stride) {
    i32 v = -1;
    if (i < tiles) {
      i32 lo = 0, hi = E - 1;
      while (lo < hi) {
        const i32 mid = (lo + hi + 1) / 2;
        if (s_tile_offs[mid] <= i) lo = mid; else hi = mid - 1;
      }
      v = ((i - s_tile_offs[lo]) << 16) | lo;
    }
    tile_map[i] = v;
  }
}

}  // namespace

HK_KERNEL void expt_data_compute(const i32* __restrict__ hist, i32* __restrict__ token_offs,
                                 i32* __restrict__ tile_counts, i32* __restrict__ tile_offs,
                                 i32* __restrict__ tile_map, i32 E, i32 BM, i32 MAX_TILES) {
  HK_DYNAMIC_SHARED(i32, s_tile_offs);
  const i32 tiles = scan_expert_data(hist, E, BM, s_tile_offs, token_offs, tile_counts, tile_offs);
  write_tile_map(s_tile_offs, E, tiles, tile_map, (i32)threadIdx.x, (i32)blockDim.x, MAX_TILES);
}

HK_KERNEL void expt_data_tile_map(const i32* __restrict__ hist, i32* __restrict__ tile_map, i32 E, i32 BM,
                                  i32 MAX_TILES) {
  HK_DYNAMIC_SHARED(i32, s_tile_offs);
  const i32 tiles = scan_expert_data(hist, E, BM, s_tile_offs, nullptr, nullptr, nullptr);
  write_tile_map(s_tile_offs, E, tiles, tile_map, (i32)(blockIdx.x * blockDim.x + threadIdx.x),
                 (i32)(gridDim.x * blockDim.x), MAX_TILES);
}
