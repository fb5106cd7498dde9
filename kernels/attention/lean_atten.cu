// Lean (stream-K) decode attention: the work of all (batch, kv head) pairs is cut into units of
// 64 keys and the units are spread evenly over a fixed grid, whatever the sequence lengths; a
// pair split over several blocks is reduced by the last of them to finish (one launch).
//
//   lean_atten(out, q, k, v, seq_lens, ws_o, ws_lse, counters, B, Hq, Hkv, max_seq, scale)
//     q [B, Hq, D], out [B, Hq, D] (T): one decode query per sequence
//     k/v [B, max_seq, Hkv, D] (T); seq_lens [B] i32, 1 <= L_b <= max_seq
//   lean_atten_paged(out, q, k_cache, v_cache, block_table, seq_lens, ws_o, ws_lse, counters, B,
//                    Hq, Hkv, max_blocks, page, scale)
//     k_cache/v_cache [num_blocks, page, Hkv, D] (T); block_table [B, max_blocks] i32: key j of
//     sequence b is row j % page of cache block block_table[b, j / page]
//   out[b, h] = sum_{j < L_b} softmax_j(scale * q[b, h]·k_j) v_j, scale <= 0 means 1/sqrt(D).
//   Scratch: ws_o [gridDim.x, 2, 16, D] f32, ws_lse [gridDim.x, 2, 16] f32 (partials; contents
//   are not part of the result); counters [B * Hkv] i32, all 0 before the launch and left 0.
//   G = Hq / Hkv must be <= 16 (traps otherwise).
// Work: pair p = b * Hkv + kv head has n_p = ceil(L_b / 64) units; units are numbered pair by
// pair, U in all, and block g takes units [g*U/NB, (g+1)*U/NB) (NB = gridDim.x). A pair whose
// units all fall in one block is written directly. Otherwise each block holding some of its
// units writes a partial (normalized output and lse) to its slot (g, 0) if that is its first
// piece, else (g, 1) (its last), then counts itself in counters[p]; the block that arrives last
// merges the partials in block order (deterministic), writes out and resets the counter.
// Grid: (NB); block: 128 threads; static shared memory: DecTile (45.3 KiB at D = 128) + 4 B.
#include "hkcheck.h"
#include "fwd_block.h"

using namespace hk_attn;

constexpr int kUnit = DecTile::BN;  // keys per work unit

struct ContigSrc {  // K/V of (b, kv head) in [B, max_seq, Hkv, D]
  const T *k, *v;
  int max_seq, Hkv;
  HK_DEVICE ContigKV<T> at(int b, int hk) const {
    const long long off = ((long long)b * max_seq * Hkv + hk) * HEAD_DIM;
    return ContigKV<T>{k + off, v + off, (long long)Hkv * HEAD_DIM};
  }
};

struct PagedKV {  // key j at row j % page of cache block table[j / page]
  const T *k, *v;
  const i32* table;  // this sequence's row of the block table
  int page, Hkv, hk;
  HK_DEVICE long long off(int j) const {
    return (((long long)table[j / page] * page + j % page) * Hkv + hk) * HEAD_DIM;
  }
  HK_DEVICE const T* k_row(int j) const { return k + off(j); }
  HK_DEVICE const T* v_row(int j) const { return v + off(j); }
};

struct PagedSrc {
  const T *k, *v;
  const i32* block_table;
  int max_blocks, page, Hkv;
  HK_DEVICE PagedKV at(int b, int hk) const {
    return PagedKV{k, v, block_table + (long long)b * max_blocks, page, Hkv, hk};
  }
};

struct LeanPlan {
  const i32* lens;
  int Hkv, P, NB;
  long long U;
  HK_DEVICE int units(int p) const { return hk::ceil_div((int)lens[p / Hkv], kUnit); }
  HK_DEVICE long long start(int g) const { return (long long)g * U / NB; }
  // Blocks whose range meets [u0, u0 + n): the contributors of a pair, and their count.
  HK_DEVICE bool meets(int g, long long u0, int n) const {
    return start(g) < start(g + 1) && start(g) < u0 + n && start(g + 1) > u0;
  }
};

// Merge the partials of pair p (units from u0, n of them) into out. Every thread calls.
HK_DEVICE void lean_reduce(const DecTile& t, const LeanPlan& pl, long long u0, int n,
                           const f32* ws_o, const f32* ws_lse, T* out_row, bool valid) {
  LseMerge mg;
  mg.init();
  float acc[DecTile::DPT];
  for (int c = 0; c < DecTile::DPT; ++c) acc[c] = 0.f;
  for (int g = 0; g < pl.NB; ++g) {
    if (!pl.meets(g, u0, n)) continue;
    const long long slot = (long long)g * 2 + (pl.start(g) >= u0 ? 0 : 1);
    const volatile f32* o = ws_o + (slot * DecTile::BM + t.row) * HEAD_DIM;
    float w;
    const float alpha = mg.add(((const volatile f32*)ws_lse)[slot * DecTile::BM + t.row], &w);
    for (int c = 0; c < DecTile::DPT; ++c) acc[c] = acc[c] * alpha + (w > 0.f ? w * o[t.col(c)] : 0.f);
  }
  if (valid)
    for (int c = 0; c < DecTile::DPT; ++c) out_row[t.col(c)] = hk::from_f32<T>(acc[c] * mg.inv_sum());
}

struct LeanShared {
  DecTile::Smem tile;
  int is_last;  // this block merges the current pair
};

// Writes this block's partial of pair p to slot, counts the block in counters[p], and says
// whether it arrived last (then the counter is reset to 0). Every thread calls.
HK_DEVICE bool lean_arrive(LeanShared& sh, const DecTile& t, const LeanPlan& pl, int p, long long u0,
                           int n, long long slot, f32* ws_o, f32* ws_lse, i32* counters) {
  for (int c = 0; c < DecTile::DPT; ++c) ws_o[(slot * DecTile::BM + t.row) * HEAD_DIM + t.col(c)] = t.out(c);
  if (t.sub == 0) ws_lse[slot * DecTile::BM + t.row] = t.sm.lse();
  __threadfence();  // partials visible device-wide before this block is counted
  __syncthreads();
  if (threadIdx.x == 0) {
    int expected = 0;
    for (int g = 0; g < pl.NB; ++g) expected += pl.meets(g, u0, n) ? 1 : 0;
    sh.is_last = atomicAdd(&counters[p], 1) == expected - 1;
    if (sh.is_last) counters[p] = 0;  // every contributor has arrived: ready for the next launch
  }
  __syncthreads();
  return sh.is_last != 0;
}

// The shared memory is declared in the entries, not here: a static in a template (or inline)
// function is one object per process on the host backend (a GNU unique symbol), shared by the
// libraries of every HEAD_DIM, so its size would be that of whichever was loaded first.
template <class Src>
HK_DEVICE void lean_body(LeanShared& sh, T* out, const T* q, const Src& src, const i32* seq_lens,
                         f32* ws_o, f32* ws_lse, i32* counters, int B, int Hq, int Hkv, float scale) {
  DecTile::Smem& s = sh.tile;
  const int G = Hq / Hkv, g = blockIdx.x;
  if (G > DecTile::BM) __trap();
  LeanPlan pl{seq_lens, Hkv, B * Hkv, (int)gridDim.x, 0};
  for (int p = 0; p < pl.P; ++p) pl.U += pl.units(p);
  long long u = pl.start(g), u0 = 0;
  const long long uend = pl.start(g + 1);
  int p = 0;
  while (p < pl.P && u0 + pl.units(p) <= u) u0 += pl.units(p++);
  DecTile t;
  for (bool first = true; u < uend; first = false) {  // block-uniform loop over pieces
    const int n = pl.units(p), c0 = (int)(u - u0), c1 = (int)(uend - u0 < n ? uend - u0 : n);
    const int b = p / Hkv, hk = p % Hkv, L = seq_lens[b];
    const bool valid = (int)threadIdx.x / DecTile::TPR < G;
    const long long row = (long long)b * Hq + hk * G + (int)threadIdx.x / DecTile::TPR;
    __syncthreads();  // the previous piece is done with s
    t.begin(s, valid ? q + row * HEAD_DIM : (const T*)nullptr, softmax_qscale(scale), L);
    t.run(s, src.at(b, hk), c0 * kUnit, c1 * kUnit < L ? c1 * kUnit : L);
    if (c0 == 0 && c1 == n) {  // the whole pair in this block
      if (valid)
        for (int c = 0; c < DecTile::DPT; ++c) out[row * HEAD_DIM + t.col(c)] = hk::from_f32<T>(t.out(c));
    } else {
      const bool is_last = lean_arrive(sh, t, pl, p, u0, n, (long long)g * 2 + (first ? 0 : 1), ws_o, ws_lse, counters);
      if (is_last) {
        __threadfence();
        lean_reduce(t, pl, u0, n, ws_o, ws_lse, out + row * HEAD_DIM, valid);
      }
    }
    u = u0 + c1;
    if (c1 == n) u0 += pl.units(p++);
  }
}

HK_KERNEL void lean_atten(T* out, const T* q, const T* k, const T* v, const i32* seq_lens,
                          f32* ws_o, f32* ws_lse, i32* counters, i32 B, i32 Hq, i32 Hkv,
                          i32 max_seq, f32 scale) {
  __shared__ LeanShared sh;
  lean_body(sh, out, q, ContigSrc{k, v, max_seq, Hkv}, seq_lens, ws_o, ws_lse, counters, B, Hq, Hkv, scale);
}

HK_KERNEL void lean_atten_paged(T* out, const T* q, const T* k_cache, const T* v_cache,
                                const i32* block_table, const i32* seq_lens, f32* ws_o,
                                f32* ws_lse, i32* counters, i32 B, i32 Hq, i32 Hkv,
                                i32 max_blocks, i32 page, f32 scale) {
  __shared__ LeanShared sh;
  lean_body(sh, out, q, PagedSrc{k_cache, v_cache, block_table, max_blocks, page, Hkv}, seq_lens, ws_o,
            ws_lse, counters, B, Hq, Hkv, scale);
}
