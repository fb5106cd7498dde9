// Index helpers built from cu_seqlens [N + 1] (i32, non-decreasing, cu_seqlens[0] = 0), chunk size C.
//
//   gdr_prepare_lens(lens, cu_seqlens, N):               lens [N]: cu_seqlens[n+1] - cu_seqlens[n]
//   gdr_prepare_position_ids(pos, cu_seqlens, N, Ttot):  pos [Ttot]: t - cu_seqlens[n] for the n holding t
//   gdr_prepare_chunk_offsets(offs, cu_seqlens, N, C):   offs [N + 1]: offs[0] = 0,
//                                                        offs[n+1] = offs[n] + ceil(lens[n] / C)
//   gdr_prepare_chunk_indices(idx, cu_seqlens, N, C, NT): idx [NT, 2]: for global chunk i (in
//       sequence order), idx[i] = (n, c): chunk c of sequence n. NT = offs[N].
// All i32. Grid and block: any (1-D grid-stride loops over the output).
#include "hkcheck.h"
#include "gdr_common.h"

#define GDR_FOR(i, n) for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (i64)gridDim.x * blockDim.x)

HK_KERNEL void gdr_prepare_lens(i32* __restrict__ lens, const i32* __restrict__ cu_seqlens, i32 N) {
  GDR_FOR(n, N) lens[n] = cu_seqlens[n + 1] - cu_seqlens[n];
}

HK_KERNEL void gdr_prepare_position_ids(i32* __restrict__ pos, const i32* __restrict__ cu_seqlens, i32 N, i32 Ttot) {
  GDR_FOR(t, Ttot) {
    i32 lo = 0, hi = N - 1;  // the last n with cu_seqlens[n] <= t (empty sequences skipped)
    while (lo < hi) {
      const i32 mid = (lo + hi + 1) / 2;
      if (cu_seqlens[mid] <= t) lo = mid;
      else hi = mid - 1;
    }
    pos[t] = (i32)t - cu_seqlens[lo];
  }
}

HK_KERNEL void gdr_prepare_chunk_offsets(i32* __restrict__ offs, const i32* __restrict__ cu_seqlens, i32 N, i32 C) {
  GDR_FOR(n, N + 1) offs[n] = gdr_chunk_offset(cu_seqlens, (i32)n, C);
}

HK_KERNEL void gdr_prepare_chunk_indices(i32* __restrict__ idx, const i32* __restrict__ cu_seqlens, i32 N, i32 C, i32 NT) {
  GDR_FOR(i, NT) {
    GdrChunk ch;
    if (gdr_locate_chunk(cu_seqlens, N, C, (i32)i, ch)) {
      idx[2 * i] = ch.seq;
      idx[2 * i + 1] = (i32)i - ch.first_chunk;
    }
  }
}
