// CPU references for kernels/attention_paged/: pa_decode, pa_prefill, chunked_pa_prefill,
// pa_mqa_logits, fp8_mqa_logits. Double precision; the prefills take blocks of query rows at a
// time with Eigen products (attention_common.h); layouts as in the kernels' header comments (paged
// cache [num_blocks, page_size, Hkv, D], block_tables [B, max_blocks]).
#include <cmath>
#include <functional>
#include <limits>
#include <tuple>
#include <vector>

#include "attention_common.h"
#include "reference.h"

namespace {

using hk::ref::Context;
using Row = std::function<const double*(int)>;  // key index -> D contiguous values

int I(Context& ctx, const char* n) { return static_cast<int>(ctx.integer(n)); }
double ninf() { return -std::numeric_limits<double>::infinity(); }

// The kernels' scale: the f32 they receive, or 1/sqrt(D) (in f32) when <= 0.
double scale_of(Context& ctx, int D) {
  const float s = static_cast<float>(ctx.num("scale"));
  return s > 0.f ? static_cast<double>(s) : static_cast<double>(1.f / std::sqrt(static_cast<float>(D)));
}

// out[0..D) = sum_{j < n} softmax(scale q·k_j) v_j; n = 0 gives 0.
void attend(const double* q, int D, int n, const Row& k, const Row& v, double scale, double* out) {
  for (int d = 0; d < D; ++d) out[d] = 0.0;
  if (n <= 0) return;
  std::vector<double> s(static_cast<size_t>(n));
  double m = ninf(), sum = 0.0;
  for (int j = 0; j < n; ++j) {
    const double* kr = k(j);
    double dot = 0.0;
    for (int d = 0; d < D; ++d) dot += q[d] * kr[d];
    s[j] = dot * scale;
    m = std::max(m, s[j]);
  }
  for (int j = 0; j < n; ++j) {
    const double p = std::exp(s[j] - m);
    sum += p;
    const double* vr = v(j);
    for (int d = 0; d < D; ++d) out[d] += p * vr[d];
  }
  for (int d = 0; d < D; ++d) out[d] /= sum;
}

// Row j of sequence b, kv head h, of a paged cache [num_blocks, page, H, D].
Row paged(Context& ctx, const char* cache, int b, int h) {
  const double* base = ctx.tensor(cache).data.data();
  const double* table = ctx.tensor("block_tables").data.data();
  const int page = I(ctx, "page"), MB = I(ctx, "max_blocks"), H = I(ctx, "Hkv"), D = I(ctx, "D");
  return [=](int j) {
    const long long pg = static_cast<long long>(table[(long long)b * MB + j / page]);
    return base + ((pg * page + j % page) * H + h) * static_cast<long long>(D);
  };
}

// Query rows per block of the prefills: P (rows x keys) stays a few MB per thread.
constexpr int kRowBlock = 128;

// Calls run(b, h, i0, i1) for every batch b, query head h and block [i0, i1) of its rows(b)
// query rows, from ctx's threads; each call writes only the output rows of its block.
void row_blocks(Context& ctx, int B, int Hq, const std::function<int(int)>& rows,
                const std::function<void(int, int, int, int)>& run) {
  std::vector<std::tuple<int, int, int>> tasks;  // b, h, first row
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < Hq; ++h)
      for (int i0 = 0; i0 < rows(b); i0 += kRowBlock) tasks.emplace_back(b, h, i0);
  ctx.parallel_for(static_cast<int64_t>(tasks.size()), [&](int64_t t) {
    const auto [b, h, i0] = tasks[static_cast<size_t>(t)];
    run(b, h, i0, std::min(rows(b), i0 + kRowBlock));
  });
}

// Packed queries q [total_q, Hq, D]; keys of sequence b via key(b, kv head) with sk(b) keys; the
// queries are the last sq keys' positions (bottom-right causal).
void packed_causal(Context& ctx, const std::function<Row(int, int, bool)>& key,
                   const std::function<int(int, int)>& sk_of) {
  const int Hq = I(ctx, "Hq"), Hkv = I(ctx, "Hkv"), D = I(ctx, "D"), G = Hq / Hkv;
  const double scale = scale_of(ctx, D);
  const auto& cq = ctx.tensor("cu_seqlens_q").data;
  const int B = static_cast<int>(cq.size()) - 1;
  const double* q = ctx.tensor("q").data.data();
  double* out = ctx.tensor("out").data.data();
  const auto sq_of = [&](int b) { return static_cast<int>(cq[b + 1]) - static_cast<int>(cq[b]); };
  row_blocks(ctx, B, Hq, sq_of, [&](int b, int h, int i0, int i1) {
    const int q0 = static_cast<int>(cq[b]), sq = sq_of(b), sk = sk_of(b, sq);
    attn_ref::RowSet rs;
    for (int i = i0; i < i1; ++i) {
      const long long off = ((long long)(q0 + i) * Hq + h) * D;
      rs.add(q + off, out + off, nullptr, std::max(0, std::min(sk, i + sk - sq + 1)));
    }
    attn_ref::attend_rows(rs, D, key(b, h / G, false), key(b, h / G, true), scale);
  });
}

// logits [B, H, max_blocks * page]: scale * kscale(j) * q·k_j for j < seq_len, -inf beyond.
void mqa_logits(Context& ctx, bool with_kscale) {
  const int B = I(ctx, "B"), H = I(ctx, "Hq"), D = I(ctx, "D"), page = I(ctx, "page"),
            MB = I(ctx, "max_blocks");
  const double scale = static_cast<float>(ctx.num("scale"));
  const double* q = ctx.tensor("q").data.data();
  const double* k = ctx.tensor("k_cache").data.data();
  const double* table = ctx.tensor("block_tables").data.data();
  const double* lens = ctx.tensor("seq_lens").data.data();
  const double* ks = with_kscale ? ctx.tensor("k_scales").data.data() : nullptr;
  double* out = ctx.tensor("logits").data.data();
  const long long W = (long long)MB * page;
  ctx.parallel_for((int64_t)B * H, [&](int64_t i) {
    const int b = static_cast<int>(i / H), h = static_cast<int>(i % H);
    for (long long j = 0; j < W; ++j) {
        double& o = out[((long long)b * H + h) * W + j];
        if (j >= static_cast<long long>(lens[b])) { o = ninf(); continue; }
        const long long slot = static_cast<long long>(table[(long long)b * MB + j / page]) * page + j % page;
        const double* qr = q + ((long long)b * H + h) * D;
        double dot = 0.0;
        for (int d = 0; d < D; ++d) dot += qr[d] * k[slot * D + d];
        o = scale * (ks ? ks[slot] : 1.0) * dot;
    }
  });
}

}  // namespace

HK_REFERENCE(pa_ref_decode) {
  const int B = I(ctx, "B"), Hq = I(ctx, "Hq"), Hkv = I(ctx, "Hkv"), D = I(ctx, "D"), G = Hq / Hkv;
  const double scale = scale_of(ctx, D);
  const double* lens = ctx.tensor("seq_lens").data.data();
  const double* q = ctx.tensor("q").data.data();
  double* out = ctx.tensor("out").data.data();
  ctx.parallel_for((int64_t)B * Hq, [&](int64_t i) {
    const int b = static_cast<int>(i / Hq), h = static_cast<int>(i % Hq);
    attend(q + i * D, D, static_cast<int>(lens[b]), paged(ctx, "k_cache", b, h / G), paged(ctx, "v_cache", b, h / G), scale, out + i * D);
  });
}

HK_REFERENCE(pa_ref_prefill) {
  const double* lens = ctx.tensor("seq_lens").data.data();
  packed_causal(
      ctx, [&](int b, int h, bool v) { return paged(ctx, v ? "v_cache" : "k_cache", b, h); },
      [&](int b, int) { return static_cast<int>(lens[b]); });
}

HK_REFERENCE(pa_ref_chunked_prefill) {
  const double* ctxl = ctx.tensor("ctx_lens").data.data();
  const auto& cq = ctx.tensor("cu_seqlens_q").data;
  const int Hkv = I(ctx, "Hkv"), D = I(ctx, "D");
  packed_causal(
      ctx,
      [&](int b, int h, bool v) -> Row {
        const Row cache = paged(ctx, v ? "v_cache" : "k_cache", b, h);
        const double* fresh = ctx.tensor(v ? "v" : "k").data.data();
        const int n = static_cast<int>(ctxl[b]);
        const long long q0 = static_cast<long long>(cq[b]);
        return [=](int j) { return j < n ? cache(j) : fresh + ((q0 + j - n) * Hkv + h) * D; };
      },
      [&](int b, int sq) { return static_cast<int>(ctxl[b]) + sq; });
}

HK_REFERENCE(pa_ref_mqa_logits) { mqa_logits(ctx, false); }
HK_REFERENCE(pa_ref_fp8_mqa_logits) { mqa_logits(ctx, true); }

// sage_attention: q = q_int8 * q_scale[b, h, i / qblk], k = k_int8 * k_scale[b, hk, j / kblk], then
// dense attention (bottom-right causal when asked) with v [B, Sk, Hkv, D].
HK_REFERENCE(pa_ref_sage_attention) {
  const int B = I(ctx, "B"), Sq = I(ctx, "Sq"), Sk = I(ctx, "Sk"), Hq = I(ctx, "Hq"),
            Hkv = I(ctx, "Hkv"), D = I(ctx, "D"), G = Hq / Hkv, qb = I(ctx, "qblk"), kb = I(ctx, "kblk");
  const int nqb = (Sq + qb - 1) / qb, nkb = (Sk + kb - 1) / kb;
  const bool causal = ctx.integer("causal") != 0;
  const double scale = scale_of(ctx, D);
  const auto& qi = ctx.tensor("q_int8").data;
  const auto& ki = ctx.tensor("k_int8").data;
  const auto& qs = ctx.tensor("q_scale").data;
  const auto& ks = ctx.tensor("k_scale").data;
  const double* v = ctx.tensor("v").data.data();
  double* out = ctx.tensor("out").data.data();
  std::vector<double> k(ki.size());
  ctx.parallel_for((int64_t)B * Sk, [&](int64_t bj) {
    const int b = static_cast<int>(bj / Sk), j = static_cast<int>(bj % Sk);
    for (int h = 0; h < Hkv; ++h)
      for (int d = 0; d < D; ++d) {
        const long long o = ((long long)bj * Hkv + h) * D + d;
        k[o] = ki[o] * ks[((long long)b * Hkv + h) * nkb + j / kb];
      }
  });
  row_blocks(ctx, B, Hq, [&](int) { return Sq; }, [&](int b, int h, int i0, int i1) {
    const long long kv0 = (long long)b * Sk * Hkv * D + (long long)(h / G) * D;
    const Row kr = [&, kv0](int j) { return k.data() + kv0 + (long long)j * Hkv * D; };
    const Row vr = [=](int j) { return v + kv0 + (long long)j * Hkv * D; };
    std::vector<double> q(static_cast<size_t>(i1 - i0) * D);
    attn_ref::RowSet rs;
    for (int i = i0; i < i1; ++i) {
      const long long o = (((long long)b * Sq + i) * Hq + h) * D;
      const double s = qs[((long long)b * Hq + h) * nqb + i / qb];
      double* qr = q.data() + (long long)(i - i0) * D;
      for (int d = 0; d < D; ++d) qr[d] = qi[o + d] * s;
      rs.add(qr, out + o, nullptr, causal ? std::max(0, std::min(Sk, i + Sk - Sq + 1)) : Sk);
    }
    attn_ref::attend_rows(rs, D, kr, vr, scale);
  });
}
