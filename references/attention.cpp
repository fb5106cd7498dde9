// CPU references for kernels/attention/ (prefill-style kernels): flash_attn_fwd (dense, varlen),
// prefill_attn, mha, extend_attn, unified_attn, hstu_attn. Double precision, one query row at a
// time (attention_common.h); layouts as in kernels/attention/online_softmax.h.
#include <algorithm>
#include <cmath>

#include "attention_common.h"
#include "reference.h"

namespace {

using hk::ref::Context;
using namespace attn_ref;

int I(Context& ctx, const char* n) { return static_cast<int>(ctx.integer(n)); }
bool flag(Context& ctx, const char* n) { return ctx.has(n) && ctx.integer(n) != 0; }
// A parameter that some kernels name otherwise (prefill's S, mha's H).
int I2(Context& ctx, const char* n, const char* alt) { return ctx.has(n) ? I(ctx, n) : I(ctx, alt); }

// Dense [B, Sq, Hq, D] x [B, Sk, Hkv, D]; lse [B, Hq, Sq] when the tensor is non-empty.
void dense(Context& ctx, bool causal) {
  const int B = I(ctx, "B"), Sq = I2(ctx, "Sq", "S"), Sk = I2(ctx, "Sk", "S"),
            Hq = I2(ctx, "Hq", "H"), Hkv = I2(ctx, "Hkv", "H"), D = I(ctx, "D"), G = Hq / Hkv;
  const double scale = scale_of(ctx, D);
  double* q = ctx.tensor("q").data.data();
  double* out = ctx.tensor("out").data.data();
  double* lse = ctx.has("with_lse") && flag(ctx, "with_lse") ? ctx.tensor("lse").data.data() : nullptr;
  ctx.parallel_for(B * Hq, [&](int64_t index) {
    const int bh = static_cast<int>(index);
    const int b = bh / Hq, h = bh % Hq;
    RowSet rs;
    for (int i = 0; i < Sq; ++i) {
      const long long off = (((long long)b * Sq + i) * Hq + h) * D;
      rs.add(q + off, out + off, lse ? lse + ((long long)b * Hq + h) * Sq + i : nullptr,
             causal_hi(i, Sq, Sk, causal));
    }
    attend_rows(rs, D, contig(ctx.tensor("k"), (long long)b * Sk, Hkv, h / G, D),
                contig(ctx.tensor("v"), (long long)b * Sk, Hkv, h / G, D), scale);
  });
}

// Packed tokens; cu_seqlens_q/k [B+1]; lse [Hq, total_q].
void varlen(Context& ctx) {
  const int Hq = I(ctx, "Hq"), Hkv = I(ctx, "Hkv"), D = I(ctx, "D"), G = Hq / Hkv;
  const double scale = scale_of(ctx, D);
  const auto& cq = ctx.tensor("cu_seqlens_q").data;
  const auto& ck = ctx.tensor("cu_seqlens_k").data;
  const int B = static_cast<int>(cq.size()) - 1;
  const long long total_q = static_cast<long long>(cq[B]);
  double* q = ctx.tensor("q").data.data();
  double* out = ctx.tensor("out").data.data();
  double* lse = flag(ctx, "with_lse") ? ctx.tensor("lse").data.data() : nullptr;
  ctx.parallel_for(B * Hq, [&](int64_t index) {
    const int bh = static_cast<int>(index);
    const int b = bh / Hq, h = bh % Hq;
    const int q0 = (int)cq[b], sq = (int)cq[b + 1] - q0, k0 = (int)ck[b], sk = (int)ck[b + 1] - k0;
    RowSet rs;
    for (int i = 0; i < sq; ++i) {
      const long long off = ((long long)(q0 + i) * Hq + h) * D;
      rs.add(q + off, out + off, lse ? lse + h * total_q + q0 + i : nullptr,
             causal_hi(i, sq, sk, flag(ctx, "causal")));
    }
    attend_rows(rs, D, contig(ctx.tensor("k"), k0, Hkv, h / G, D), contig(ctx.tensor("v"), k0, Hkv, h / G, D), scale);
  });
}

// extend_attn: keys of b are the cached prefix (P_b) then its n_b new tokens; bottom-right causal.
void extend(Context& ctx) {
  const int Hq = I(ctx, "Hq"), Hkv = I(ctx, "Hkv"), D = I(ctx, "D"), G = Hq / Hkv;
  const int max_prefix = I(ctx, "max_prefix");
  const double scale = scale_of(ctx, D);
  const auto& cq = ctx.tensor("cu_seqlens_q").data;
  const auto& pl = ctx.tensor("prefix_lens").data;
  const int B = static_cast<int>(cq.size()) - 1;
  auto& q = ctx.tensor("q");
  auto& out = ctx.tensor("out");
  ctx.parallel_for(B * Hq, [&](int64_t index) {
    const int bh = static_cast<int>(index);
    const int b = bh / Hq, h = bh % Hq;
    const int q0 = (int)cq[b], n = (int)cq[b + 1] - q0, P = (int)pl[b];
    const Row kc = contig(ctx.tensor("k_cache"), (long long)b * max_prefix, Hkv, h / G, D);
    const Row vc = contig(ctx.tensor("v_cache"), (long long)b * max_prefix, Hkv, h / G, D);
    const Row kn = contig(ctx.tensor("k_new"), q0, Hkv, h / G, D);
    const Row vn = contig(ctx.tensor("v_new"), q0, Hkv, h / G, D);
    RowSet rs;
    for (int i = 0; i < n; ++i) {
      const long long off = ((long long)(q0 + i) * Hq + h) * D;
      rs.add(q.data.data() + off, out.data.data() + off, nullptr, P + i + 1);
    }
    attend_rows(rs, D, [=](int j) { return j < P ? kc(j) : kn(j - P); },
                [=](int j) { return j < P ? vc(j) : vn(j - P); }, scale);
  });
}

// unified_attn: queries packed by cu_seqlens_q, keys seq_lens[b] of a [B, max_seq, Hkv, D] cache.
void unified(Context& ctx) {
  const int Hq = I(ctx, "Hq"), Hkv = I(ctx, "Hkv"), D = I(ctx, "D"), G = Hq / Hkv;
  const int max_seq = I(ctx, "max_seq");
  const double scale = scale_of(ctx, D);
  const auto& cq = ctx.tensor("cu_seqlens_q").data;
  const auto& sl = ctx.tensor("seq_lens").data;
  const int B = static_cast<int>(cq.size()) - 1;
  auto& q = ctx.tensor("q");
  auto& out = ctx.tensor("out");
  ctx.parallel_for(B * Hq, [&](int64_t index) {
    const int bh = static_cast<int>(index);
    const int b = bh / Hq, h = bh % Hq;
    const int q0 = (int)cq[b], n = (int)cq[b + 1] - q0, sk = (int)sl[b];
    RowSet rs;
    for (int i = 0; i < n; ++i) {
      const long long off = ((long long)(q0 + i) * Hq + h) * D;
      rs.add(q.data.data() + off, out.data.data() + off, nullptr, causal_hi(i, n, sk, true));
    }
    attend_rows(rs, D, contig(ctx.tensor("k_cache"), (long long)b * max_seq, Hkv, h / G, D),
                contig(ctx.tensor("v_cache"), (long long)b * max_seq, Hkv, h / G, D), scale);
  });
}

// hstu_attn: out = g * sum_{j visible} silu(alpha q·k_j + bias) / n v_j; alpha as the f32 the
// kernel gets. bias = rel_bias[clamp(p_i - j, -(P-1), P-1) + P-1] with P = max_pos > 0 and the
// query at p_i = i + Sk - Sq; g = u[b, i, h] elementwise when gate is set.
void hstu(Context& ctx) {
  const int B = I(ctx, "B"), Sq = I(ctx, "Sq"), Sk = I(ctx, "Sk"), H = I(ctx, "H"), D = I(ctx, "D");
  const double alpha = static_cast<double>(static_cast<float>(ctx.num("alpha")));
  const int max_len = I(ctx, "max_len"), P = ctx.has("max_pos") ? I(ctx, "max_pos") : 0;
  const double n = max_len > 0 ? max_len : Sk;
  const double* table = P > 0 ? ctx.tensor("rel_bias").data.data() : nullptr;
  const double* u = flag(ctx, "gate") ? ctx.tensor("u").data.data() : nullptr;
  auto& q = ctx.tensor("q");
  auto& out = ctx.tensor("out");
  PairBias bias = nullptr;
  if (table) bias = [=](int i, int j) {  // RowSet rows are the query rows i of one (b, h)
    const int rel = std::clamp(i + Sk - Sq - j, -(P - 1), P - 1);
    return table[rel + P - 1];
  };
  ctx.parallel_for(B * H, [&](int64_t index) {
    const int bh = static_cast<int>(index);
    const int b = bh / H, h = bh % H;
    RowSet rs;
    for (int i = 0; i < Sq; ++i) {
      const long long off = (((long long)b * Sq + i) * H + h) * D;
      rs.add(q.data.data() + off, out.data.data() + off, nullptr, causal_hi(i, Sq, Sk, flag(ctx, "causal")));
    }
    attend_rows(rs, D, contig(ctx.tensor("k"), (long long)b * Sk, H, h, D),
                contig(ctx.tensor("v"), (long long)b * Sk, H, h, D), alpha, 1.0 / n, bias);
    if (!u) return;
    for (int i = 0; i < Sq; ++i) {
      const long long off = (((long long)b * Sq + i) * H + h) * D;
      for (int d = 0; d < D; ++d) out.data[off + d] *= u[off + d];
    }
  });
}

}  // namespace

HK_REFERENCE(attn_flash_fwd) { dense(ctx, flag(ctx, "causal")); }
HK_REFERENCE(attn_flash_varlen_fwd) { varlen(ctx); }
HK_REFERENCE(attn_prefill) { dense(ctx, true); }
HK_REFERENCE(attn_mha) { dense(ctx, flag(ctx, "causal")); }
HK_REFERENCE(attn_extend) { extend(ctx); }
HK_REFERENCE(attn_unified) { unified(ctx); }
HK_REFERENCE(attn_hstu) { hstu(ctx); }
