// Copies n floats through a per-thread tile of TILE registers. tile_copy_overrun fills its tile
// one step too far (k <= TILE): the write lands past the array, in whatever the compiler put
// after it. On a GPU it goes unseen (the tile is registers, or local memory beside other
// variables); the host backend's bounds check stops the kernel and names the line.
// tile_copy is the same kernel without the bug, the control.
#include "hkcheck.h"

#define TILE 4

HK_DEVICE void copy_tile(float* out, const float* x, int n, int fill) {
  const int base = (blockIdx.x * blockDim.x + threadIdx.x) * TILE;
  float tile[TILE];
  for (int k = 0; k < fill; ++k) tile[k] = base + k < n ? x[base + k] : 0.f;
  for (int k = 0; k < TILE; ++k)
    if (base + k < n) out[base + k] = tile[k];
}

HK_KERNEL void tile_copy(float* out, const float* x, int n) { copy_tile(out, x, n, TILE); }

HK_KERNEL void tile_copy_overrun(float* out, const float* x, int n) { copy_tile(out, x, n, TILE + 1); }
