// Per-expert token counts from a routing bitmatrix, in one launch.
//
//   sum_bitmatrix_rows_fused(bitmatrix [T, W] u32 (i32 in the manifest), counts [E] i32,
//                            partials [NBLK, E] i32, ticket [1] i32 (workspace), T_, E, ROWS)
//   W = ceil_div(E, 32); bit e % 32 of word e / 32 of row t is set when token t routes to
//   expert e; bits of the last word at e >= E are ignored (they may hold anything).
//   NBLK = ceil_div(T, ROWS) = gridDim.x: block b owns rows [b * ROWS, min(T, (b + 1) * ROWS)).
//   partials[b, e] = number of rows of block b with bit e set
//   counts[e]      = sum_b partials[b, e]  (the number of tokens routed to e)
// ticket must be 0 at the launch and is 0 again at its end: every block takes a ticket after
// writing its partials, and the last one sums the partials of all blocks into counts (in block
// order: integers, so the result is exact and deterministic) and resets the ticket.
//
// Grid: NBLK blocks; block: any multiple of HK_WARP_SIZE up to 1024. Thread j of a block counts
// experts j, j + blockDim, ...: the threads of a warp read the same 32-bit word (a broadcast).
#include "hkcheck.h"

HK_KERNEL void sum_bitmatrix_rows_fused(const i32* __restrict__ bitmatrix, i32* __restrict__ counts,
                                        i32* partials, i32* ticket, i32 num_tokens, i32 E, i32 ROWS) {
  const i32 W = (E + 31) / 32;
  const i32 r0 = (i32)blockIdx.x * ROWS;
  const i32 r1 = min(num_tokens, r0 + ROWS);
  for (i32 e = threadIdx.x; e < E; e += blockDim.x) {
    i32 c = 0;
    for (i32 r = r0; r < r1; ++r) c += (i32)(((u32)bitmatrix[(i64)r * W + e / 32] >> (e % 32)) & 1u);
    partials[(i64)blockIdx.x * E + e] = c;
  }

  __shared__ i32 is_last;
  __threadfence();  // this block's partials are visible device-wide before its ticket
  __syncthreads();
  if (threadIdx.x == 0) is_last = atomicAdd(ticket, 1) == (i32)gridDim.x - 1;
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  const volatile i32* vp = partials;  // written by other blocks: bypass any stale cached copy
  for (i32 e = threadIdx.x; e < E; e += blockDim.x) {
    i32 c = 0;
    for (i32 b = 0; b < (i32)gridDim.x; ++b) c += vp[(i64)b * E + e];
    counts[e] = c;
  }
  if (threadIdx.x == 0) ticket[0] = 0;
}
