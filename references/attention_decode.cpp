// CPU references for kernels/attention/ decode-style kernels: split-KV decode (split and
// combine phases), lean attention (contiguous and paged), pod attention. Double precision.
#include <cmath>

#include "attention_common.h"
#include "reference.h"

namespace {

using hk::ref::Context;
using namespace attn_ref;

int I(Context& ctx, const char* n) { return static_cast<int>(ctx.integer(n)); }

// flash_attn_fwd_decode_split: per split s of c = ceil(L/NS) keys, the split's own softmax.
void decode_split(Context& ctx) {
  const int B = I(ctx, "B"), Sq = I(ctx, "Sq"), Hq = I(ctx, "Hq"), Hkv = I(ctx, "Hkv"),
            D = I(ctx, "D"), NS = I(ctx, "NS"), max_seq = I(ctx, "max_seq"), G = Hq / Hkv;
  const double scale = scale_of(ctx, D);
  const auto& lens = ctx.tensor("cache_seqlens").data;
  const double* q = ctx.tensor("q").data.data();
  double* o = ctx.tensor("o_part").data.data();
  double* lse = ctx.tensor("lse_part").data.data();
  const hk::ref::Tensor &kt = ctx.tensor("k"), &vt = ctx.tensor("v");
  ctx.parallel_for((int64_t)B * Hq, [&](int64_t bh) {  // each (b, h) writes its own rows' splits
    const int b = static_cast<int>(bh / Hq), h = static_cast<int>(bh % Hq);
    const int L = (int)lens[b], c = (L + NS - 1) / NS;
    const Row k = contig(kt, (long long)b * max_seq, Hkv, h / G, D), v = contig(vt, (long long)b * max_seq, Hkv, h / G, D);
    for (int i = 0; i < Sq; ++i) {
      const long long row = ((long long)b * Sq + i) * Hq + h;
      const int hi = causal_hi(i, Sq, L, true);
      for (int s = 0; s < NS; ++s) {
        const int j0 = std::min(s * c, L), j1 = std::min(std::min((s + 1) * c, L), hi);
        attend(q + row * D, D, j0, j1, k, v, scale, o + (row * NS + s) * D, lse + row * NS + s);
      }
    }
  });
}

// flash_attn_fwd_decode_combine: out = sum_s w_s o_s / sum_s w_s, w_s = exp(lse_s - max lse).
void decode_combine(Context& ctx) {
  const int B = I(ctx, "B"), Sq = I(ctx, "Sq"), Hq = I(ctx, "Hq"), D = I(ctx, "D"), NS = I(ctx, "NS");
  const double* op = ctx.tensor("o_part").data.data();
  const double* lp = ctx.tensor("lse_part").data.data();
  double* out = ctx.tensor("out").data.data();
  double* lse = ctx.tensor("lse").data.data();
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < Sq; ++i)
      for (int h = 0; h < Hq; ++h) {
        const long long row = ((long long)b * Sq + i) * Hq + h;
        double m = neg_inf();
        for (int s = 0; s < NS; ++s) m = std::max(m, lp[row * NS + s]);
        double sum = 0.0;
        for (int d = 0; d < D; ++d) out[row * D + d] = 0.0;
        for (int s = 0; s < NS; ++s) {
          const double w = std::exp(lp[row * NS + s] - m);
          sum += w;
          for (int d = 0; d < D; ++d) out[row * D + d] += w * op[(row * NS + s) * D + d];
        }
        for (int d = 0; d < D; ++d) out[row * D + d] /= sum;
        lse[((long long)b * Hq + h) * Sq + i] = m + std::log(sum);
      }
}

// lean_atten(_paged): one query per (b, h) over the L_b keys; k_row maps (b, kv head) to keys.
void lean(Context& ctx, const std::function<Row(const char*, int, int)>& keys) {
  const int B = I(ctx, "B"), Hq = I(ctx, "Hq"), Hkv = I(ctx, "Hkv"), D = I(ctx, "D"), G = Hq / Hkv;
  const double scale = scale_of(ctx, D);
  const auto& lens = ctx.tensor("seq_lens").data;
  const double* q = ctx.tensor("q").data.data();
  double* out = ctx.tensor("out").data.data();
  ctx.parallel_for((int64_t)B * Hq, [&](int64_t row) {  // each (b, h) writes its own output row
    const int b = static_cast<int>(row / Hq), h = static_cast<int>(row % Hq);
    attend(q + row * D, D, 0, (int)lens[b], keys("k", b, h / G), keys("v", b, h / G), scale, out + row * D, nullptr);
  });
  for (auto& c : ctx.tensor("counters").data) c = 0;  // the kernel leaves them as it found them
}

Row contig_keys(Context& ctx, const char* name, int b, int hk) {
  return contig(ctx.tensor(name), (long long)b * I(ctx, "max_seq"), I(ctx, "Hkv"), hk, I(ctx, "D"));
}

Row paged_keys(Context& ctx, const char* name, int b, int hk) {
  const double* cache = ctx.tensor(std::string(name) + "_cache").data.data();
  const double* table = ctx.tensor("block_table").data.data();
  const long long page = I(ctx, "page"), Hkv = I(ctx, "Hkv"), D = I(ctx, "D"), mb = I(ctx, "max_blocks");
  return [=](int j) {
    const long long blk = static_cast<long long>(table[b * mb + j / page]);
    return cache + ((blk * page + j % page) * Hkv + hk) * D;
  };
}

// pod_attn: a causal prefill batch (Sp x Sp) and a decode batch (one query, seq_lens_d keys).
void pod(Context& ctx) {
  const int Bp = I(ctx, "Bp"), Sp = I(ctx, "Sp"), Bd = I(ctx, "Bd"), max_seq = I(ctx, "max_seq_d"),
            Hq = I(ctx, "Hq"), Hkv = I(ctx, "Hkv"), D = I(ctx, "D"), G = Hq / Hkv;
  const double scale = scale_of(ctx, D);
  const double* qp = ctx.tensor("q_p").data.data();
  double* op = ctx.tensor("out_p").data.data();
  ctx.parallel_for(Bp * Hq, [&](int64_t index) {
    const int bh = static_cast<int>(index);
    const int b = bh / Hq, h = bh % Hq;
    RowSet rs;
    for (int i = 0; i < Sp; ++i) {
      const long long off = (((long long)b * Sp + i) * Hq + h) * D;
      rs.add(qp + off, op + off, nullptr, i + 1);
    }
    attend_rows(rs, D, contig(ctx.tensor("k_p"), (long long)b * Sp, Hkv, h / G, D),
                contig(ctx.tensor("v_p"), (long long)b * Sp, Hkv, h / G, D), scale);
  });
  const auto& lens = ctx.tensor("seq_lens_d").data;
  const double* qd = ctx.tensor("q_d").data.data();
  double* od = ctx.tensor("out_d").data.data();
  const hk::ref::Tensor &kd = ctx.tensor("k_d"), &vd = ctx.tensor("v_d");
  ctx.parallel_for((int64_t)Bd * Hq, [&](int64_t row) {  // each (b, h) writes its own output row
    const int b = static_cast<int>(row / Hq), h = static_cast<int>(row % Hq);
    const Row k = contig(kd, (long long)b * max_seq, Hkv, h / G, D), v = contig(vd, (long long)b * max_seq, Hkv, h / G, D);
    attend(qd + row * D, D, 0, (int)lens[b], k, v, scale, od + row * D, nullptr);
  });
}

}  // namespace

HK_REFERENCE(attn_decode_split) { decode_split(ctx); }
HK_REFERENCE(attn_decode_combine) { decode_combine(ctx); }
HK_REFERENCE(attn_lean) {
  lean(ctx, [&](const char* n, int b, int hk) { return contig_keys(ctx, n, b, hk); });
}
HK_REFERENCE(attn_lean_paged) {
  lean(ctx, [&](const char* n, int b, int hk) { return paged_keys(ctx, n, b, hk); });
}
HK_REFERENCE(attn_pod) { pod(ctx); }
