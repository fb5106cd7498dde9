// Device helpers shared by the MoE routing kernels of this folder (kernels/moe_routing/):
//   block_exclusive_scan   exclusive prefix sum of one i32 per thread over the block
//   scan_chunked           the same over n >= 0 values, in chunks of blockDim.x, with a carry
//   softmax_topk_row       one warp: softmax of a row of E logits, its top K, optional renorm
//   align_block_size       one block: group the flat (token, k) slots by expert (stable
//                          counting sort), each group padded to a multiple of BM
// All need blockDim.x to be a multiple of HK_WARP_SIZE, at most 1024 (and at most
// HK_WARP_SIZE^2, which 1024 always is), and every thread of the block to call them.
#pragma once
#include "hkcheck.h"

namespace moe {

// Inclusive prefix sum within the warp (Hillis-Steele over shuffles).
HK_DEVICE i32 warp_inclusive_scan(i32 v) {
  const int lane = hk::lane_id();
  for (int d = 1; d < HK_WARP_SIZE; d *= 2) {
    const i32 o = hk::shfl(v, lane >= d ? lane - d : 0);
    if (lane >= d) v += o;
  }
  return v;
}

// Exclusive prefix sum of v over the block, in thread order; total gets the block's sum.
HK_DEVICE i32 block_exclusive_scan(i32 v, i32& total) {
  __shared__ i32 warp_tot[1024 / 32];
  const int nwarps = (int)(blockDim.x / HK_WARP_SIZE);
  const i32 inc = warp_inclusive_scan(v);
  __syncthreads();  // warp_tot may still be read by a previous call
  if (hk::lane_id() == HK_WARP_SIZE - 1) warp_tot[hk::warp_id()] = inc;
  __syncthreads();
  const i32 w = warp_inclusive_scan(hk::lane_id() < nwarps ? warp_tot[hk::lane_id()] : 0);
  const i32 before = hk::warp_id() > 0 ? hk::shfl(w, hk::warp_id() - 1) : 0;
  total = hk::shfl(w, nwarps - 1);
  return before + inc - v;
}

// Sorts (value, index) pairs: larger value first, ties to the smaller index.
HK_DEVICE bool before(float av, i32 ai, float bv, i32 bi) { return av > bv || (av == bv && ai < bi); }

// One warp routes one row of E logits (any T that hk::to_f32 reads):
//   p[e] = exp(x[e] - max x) / sum_j exp(x[j] - max x)          (f32)
//   ids[k], k < K: the experts in (logit descending, index ascending) order
//   weights[k] = p[ids[k]], or p[ids[k]] / sum_k' p[ids[k']] when renorm != 0
// Selection compares the logits themselves (exact), not the rounded probabilities. Each round
// every lane finds its best own element ordered strictly after the previous winner, so the
// read-only row needs no marking. Lane 0 writes; requires K <= E.
template <typename T>
HK_DEVICE void softmax_topk_row(const T* __restrict__ x, i32 E, i32 K, i32 renorm, f32* __restrict__ weights,
                                i32* __restrict__ ids) {
  const int lane = hk::lane_id();
  float m = -__int_as_float(0x7f800000);
  for (i32 e = lane; e < E; e += HK_WARP_SIZE) m = fmaxf(m, hk::to_f32(x[e]));
  m = hk::warp_max(m);
  float s = 0.0f;
  for (i32 e = lane; e < E; e += HK_WARP_SIZE) s += expf(hk::to_f32(x[e]) - m);
  s = hk::warp_sum(s);

  float lv = __int_as_float(0x7f800000), psum = 0.0f;
  i32 li = -1;
  for (i32 k = 0; k < K; ++k) {
    float bv = -__int_as_float(0x7f800000);
    i32 bi = 0x7fffffff;
    for (i32 e = lane; e < E; e += HK_WARP_SIZE) {
      const float v = hk::to_f32(x[e]);
      if (before(lv, li, v, e) && before(v, e, bv, bi)) { bv = v; bi = e; }
    }
    for (int d = HK_WARP_SIZE / 2; d > 0; d /= 2) {
      const float ov = hk::shfl_xor(bv, d);
      const i32 oi = hk::shfl_xor(bi, d);
      if (before(ov, oi, bv, bi)) { bv = ov; bi = oi; }
    }
    const float p = expf(bv - m) / s;
    psum += p;
    if (lane == 0) { ids[k] = bi; weights[k] = p; }
    lv = bv;
    li = bi;
  }
  if (renorm && lane == 0)  // lane 0 rereads only what it wrote itself
    for (i32 k = 0; k < K; ++k) weights[k] = weights[k] / psum;
}

// Shared memory align_block_size needs, in i32 (the manifests size it with block / 32 warps,
// an upper bound on either warp size).
HK_DEVICE i32 align_smem_words(i32 E) { return 2 * E + 1 + (i32)(blockDim.x / HK_WARP_SIZE) * E; }

// Phase 1 of align_block_size: counts per expert (into base), the padded exclusive scan (into
// start[0..E] and base, the next free position of each group), hist and cumsum. Returns the
// padded total.
HK_DEVICE i32 align_count_and_scan(const volatile i32* ids, i32 N, i32 E, i32 BM, i32* start, i32* base,
                                   i32* __restrict__ cumsum, i32* __restrict__ hist) {
  const i32 B = (i32)blockDim.x, tid = (i32)threadIdx.x;
  for (i32 i = tid; i < N; i += B) {
    const i32 e = ids[i];
    if (e >= 0 && e < E) atomicAdd(&base[e], 1);  // integer counts: any order gives the same
  }
  __syncthreads();
  i32 carry = 0;
  for (i32 c0 = 0; c0 < E; c0 += B) {  // chunks of B experts, so any E
    const i32 e = c0 + tid;
    const i32 cnt = e < E ? base[e] : 0;
    i32 tot;
    const i32 excl = block_exclusive_scan(hk::ceil_div(cnt, BM) * BM, tot);
    if (e < E) {
      start[e] = carry + excl;
      base[e] = carry + excl;
      if (hist) hist[e] = cnt;
    }
    carry += tot;
  }
  if (tid == 0) start[E] = carry;
  __syncthreads();
  if (cumsum)
    for (i32 e = tid; e <= E; e += B) cumsum[e] = start[e];
  return carry;
}

// expert_ids[b] for every block b < blocks_cap: the largest e with start[e] <= b * BM (empty
// groups share the next group's start), or -1 past the padded total.
HK_DEVICE void align_expert_ids(const i32* start, i32 E, i32 BM, i32 total, i32* __restrict__ expert_ids,
                                i32 blocks_cap) {
  for (i32 b = (i32)threadIdx.x; b < blocks_cap; b += (i32)blockDim.x) {
    i32 owner = -1;
    if (b * BM < total) {
      i32 lo = 0, hi = E - 1;
      while (lo < hi) {
        const i32 mid = (lo + hi + 1) / 2;
        if (start[mid] <= b * BM) lo = mid; else hi = mid - 1;
      }
      owner = lo;
    }
    expert_ids[b] = owner;
  }
}

// Phase 3: places the slots, one chunk of B consecutive slots at a time, in slot order. Within a
// warp, the lanes holding the same expert find each other with one ballot per bit of the id; a
// lane's rank is the number of such lanes below it, and the warps before it in the chunk add
// their counts (wcnt). base[e] then moves past the chunk's slots of e.
HK_DEVICE void align_place(const volatile i32* ids, i32 N, i32 E, i32* base, i32* wcnt, i32* __restrict__ sorted) {
  const i32 B = (i32)blockDim.x, tid = (i32)threadIdx.x;
  const int nwarps = (int)(blockDim.x / HK_WARP_SIZE), lane = hk::lane_id(), warp = hk::warp_id();
  int bits = 0;
  while ((1 << bits) < E) ++bits;
  const u64 below = (lane == 0) ? 0ull : (~0ull >> (64 - lane));
  for (i32 c0 = 0; c0 < N; c0 += B) {
    const i32 i = c0 + tid;
    const i32 e = i < N ? ids[i] : -1;
    const bool valid = e >= 0 && e < E;
    u64 peers = hk::ballot(valid);
    for (int b = 0; b < bits; ++b) {
      const u64 m = hk::ballot((e >> b) & 1);
      peers &= ((e >> b) & 1) ? m : ~m;
    }
    const i32 rank = __popcll(peers & below);
    if (valid && rank == 0) wcnt[warp * E + e] = __popcll(peers);
    __syncthreads();
    if (valid) {
      i32 off = base[e] + rank;
      for (int w = 0; w < warp; ++w) off += wcnt[w * E + e];
      sorted[off] = i;
    }
    __syncthreads();
    for (i32 x = tid; x < E; x += B)
      for (int w = 0; w < nwarps; ++w) { base[x] += wcnt[w * E + x]; wcnt[w * E + x] = 0; }
    __syncthreads();
  }
}

// One block does it all. ids: N = T * topk flat slot ids (i = t * topk + k); a slot whose id is
// outside [0, E) is dropped (not placed, not counted). With cnt[e] the slots of expert e and
// pad[e] = ceil(cnt[e] / BM) * BM:
//   start[e]       = sum_{e' < e} pad[e']; written to cumsum[0..E] when cumsum is not null
//                    (cumsum[E] = num_post[0] = sum of all pad)
//   sorted[start[e] + j], j < cnt[e]: the j-th slot index of expert e in increasing slot order
//                    (a stable counting sort); the rest of the group, and every position from
//                    num_post[0] to sorted_cap, holds the sentinel N
//   expert_ids[b]  = the expert owning positions [b * BM, (b + 1) * BM), for b < num_post / BM;
//                    -1 for the other blocks up to blocks_cap
//   hist[e]        = cnt[e] when hist is not null
// ids is read through volatile so that a last block may read slots other blocks wrote.
// smem: align_smem_words(E) i32.
HK_DEVICE void align_block_size(const volatile i32* ids, i32 N, i32 E, i32 BM, i32* __restrict__ sorted,
                                i32 sorted_cap, i32* __restrict__ expert_ids, i32 blocks_cap,
                                i32* __restrict__ num_post, i32* __restrict__ cumsum, i32* __restrict__ hist,
                                i32* smem) {
  const i32 B = (i32)blockDim.x, tid = (i32)threadIdx.x;
  const i32 nwarps = (i32)(blockDim.x / HK_WARP_SIZE);
  i32* start = smem;          // [E + 1]
  i32* base = smem + E + 1;   // [E]: count, then the next free position of each group
  i32* wcnt = base + E;       // [nwarps * E]: slots of each expert per warp, in one chunk
  for (i32 i = tid; i < E + nwarps * E; i += B) base[i] = 0;
  for (i32 i = tid; i < sorted_cap; i += B) sorted[i] = N;  // padding and tail: the sentinel
  __syncthreads();
  const i32 total = align_count_and_scan(ids, N, E, BM, start, base, cumsum, hist);
  if (tid == 0) num_post[0] = total;
  align_expert_ids(start, E, BM, total, expert_ids, blocks_cap);
  align_place(ids, N, E, base, wcnt, sorted);  // after the sentinel fill: a barrier lies between
}

}  // namespace moe
