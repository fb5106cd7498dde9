// CPU references for the chunked (prefill) GDN kernels (kernels/gdr/: chunk_kkt, solve_tril,
// recompute_w_u, chunk_delta_h, chunk_fwd_o, chunk_pipeline), in double precision. Notation and
// layouts: kernels/gdr/gdr_common.h.
#include <algorithm>
#include <cmath>

#include "gdr_ref.h"

namespace {

using gdr::Chunk;
using gdr::Context;
using gdr::data;

// Row-major [len x len] block of one chunk and head.
using Block = std::vector<double>;

// A of one chunk: beta_r (k_r . k_c) exp(gc_r - gc_c) for c < r.
Block kkt(Context& ctx, const Chunk& ch, int64_t h, const std::vector<double>& gc) {
  const auto &k = data(ctx, "k"), &beta = data(ctx, "beta");
  const int64_t H = ctx.integer("H"), Dk = ctx.integer("Dk"), L = ch.len;
  Block A(L * L, 0.0);
  for (int64_t r = 0; r < L; ++r)
    for (int64_t c = 0; c < r; ++c) {
      const int64_t tr = (ch.bos + r) * H + h, tc = (ch.bos + c) * H + h;
      A[r * L + c] = beta[tr] * gdr::dot(&k[tr * Dk], &k[tc * Dk], Dk) * std::exp(gc[tr] - gc[tc]);
    }
  return A;
}

// (I + A)^-1 of a strictly lower triangular A (its diagonal and upper part ignored).
Block tril_inverse(const Block& A, int64_t L) {
  Block X(L * L, 0.0);
  for (int64_t i = 0; i < L; ++i) {
    X[i * L + i] = 1.0;
    for (int64_t j = 0; j < i; ++j) {
      double s = 0;
      for (int64_t m = j; m < i; ++m) s += A[i * L + m] * X[m * L + j];
      X[i * L + j] = -s;
    }
  }
  return X;
}

// Writes a chunk's block into a [Ttot, H, C] tensor (zeros in the columns past len).
void store_block(std::vector<double>& out, const Block& B, const Chunk& ch, int64_t h, int64_t H, int64_t C) {
  for (int64_t r = 0; r < ch.len; ++r)
    for (int64_t c = 0; c < C; ++c) out[((ch.bos + r) * H + h) * C + c] = c < ch.len ? B[r * ch.len + c] : 0.0;
}

Block load_block(const std::vector<double>& in, const Chunk& ch, int64_t h, int64_t H, int64_t C) {
  Block B(ch.len * ch.len);
  for (int64_t r = 0; r < ch.len; ++r)
    for (int64_t c = 0; c < ch.len; ++c) B[r * ch.len + c] = in[((ch.bos + r) * H + h) * C + c];
  return B;
}

// Chunk-local cumsum of g [Ttot, H].
std::vector<double> cumsum_g(Context& ctx, const std::vector<double>& g) {
  std::vector<double> gc(g.size());
  const int64_t H = ctx.integer("H");
  for (const Chunk& ch : gdr::chunks(gdr::cu_seqlens(ctx), ctx.integer("C")))
    for (int64_t h = 0; h < H; ++h) {
      double s = 0;
      for (int64_t r = 0; r < ch.len; ++r) gc[(ch.bos + r) * H + h] = s += g[(ch.bos + r) * H + h];
    }
  return gc;
}

// For every chunk and head: out <- f(A of the chunk) (A from gc).
template <typename F>
void per_chunk_A(Context& ctx, const std::vector<double>& gc, const std::string& out_name, F f) {
  const int64_t H = ctx.integer("H"), C = ctx.integer("C");
  auto& out = data(ctx, out_name);
  const auto all = gdr::chunks(gdr::cu_seqlens(ctx), C);
  ctx.parallel_for(static_cast<int64_t>(all.size()) * H, [&](int64_t i) {
    const Chunk& ch = all[static_cast<size_t>(i / H)];
    store_block(out, f(kkt(ctx, ch, i % H, gc), ch.len), ch, i % H, H, C);
  });
}

Block identity(const Block& A, int64_t) { return A; }

}  // namespace

HK_REFERENCE(gdr_chunk_scaled_dot_kkt) { per_chunk_A(ctx, data(ctx, "gc"), "A", identity); }

HK_REFERENCE(gdr_fused_cumsum_kkt) {
  data(ctx, "gc") = cumsum_g(ctx, data(ctx, "g"));
  per_chunk_A(ctx, data(ctx, "gc"), "A", identity);
}

HK_REFERENCE(gdr_chunk_compute_A) { per_chunk_A(ctx, data(ctx, "gc"), "Ai", tril_inverse); }

HK_REFERENCE(gdr_solve_tril) {
  const int64_t H = ctx.integer("H"), C = ctx.integer("C");
  const auto& A = data(ctx, "A");
  auto& Ai = data(ctx, "Ai");
  const auto all = gdr::chunks(gdr::cu_seqlens(ctx), C);
  ctx.parallel_for(static_cast<int64_t>(all.size()) * H, [&](int64_t i) {
    const Chunk& ch = all[static_cast<size_t>(i / H)];
    store_block(Ai, tril_inverse(load_block(A, ch, i % H, H, C), ch.len), ch, i % H, H, C);
  });
}

HK_REFERENCE(gdr_recompute_w_u) {
  const int64_t H = ctx.integer("H"), C = ctx.integer("C"), Dk = ctx.integer("Dk"), Dv = ctx.integer("Dv");
  const auto &k = data(ctx, "k"), &v = data(ctx, "v"), &beta = data(ctx, "beta"), &gc = data(ctx, "gc");
  const auto& Ai = data(ctx, "Ai");
  auto &w = data(ctx, "w"), &u = data(ctx, "u");
  const auto all = gdr::chunks(gdr::cu_seqlens(ctx), C);
  ctx.parallel_for(static_cast<int64_t>(all.size()) * H, [&](int64_t i) {
    const Chunk& ch = all[static_cast<size_t>(i / H)];
    const int64_t h = i % H;
    for (int64_t r = 0; r < ch.len; ++r) {
      const int64_t tr = (ch.bos + r) * H + h;
      for (int64_t d = 0; d < Dk; ++d) w[tr * Dk + d] = 0;
      for (int64_t d = 0; d < Dv; ++d) u[tr * Dv + d] = 0;
      for (int64_t s = 0; s <= r; ++s) {
        const int64_t ts = (ch.bos + s) * H + h;
        const double a = Ai[tr * C + s] * beta[ts];
        // One exp per (r, s), not per element: the same product, a * exp(gc) first, then * k.
        const double a_gate = a * std::exp(gc[ts]);
        for (int64_t d = 0; d < Dk; ++d) w[tr * Dk + d] += a_gate * k[ts * Dk + d];
        for (int64_t d = 0; d < Dv; ++d) u[tr * Dv + d] += a * v[ts * Dv + d];
      }
    }
  });
}

// Per sequence and head, chunk after chunk, with Eigen products: the state S entering each chunk
// is stored; v_new = U - W S; S = exp(g_last) S + K^T (exp(g_last - gc) * v_new).
HK_REFERENCE(gdr_chunk_delta_h_fwd) {
  const int64_t H = ctx.integer("H"), C = ctx.integer("C"), Dk = ctx.integer("Dk"), Dv = ctx.integer("Dv");
  const auto &k = data(ctx, "k"), &w = data(ctx, "w"), &u = data(ctx, "u"), &gc = data(ctx, "gc");
  const auto& h0 = data(ctx, "h0");
  auto &hs = data(ctx, "h"), &v_new = data(ctx, "v_new"), &ht = data(ctx, "ht");
  const auto cu = gdr::cu_seqlens(ctx);
  const auto all = gdr::chunks(cu, C);
  ctx.parallel_for(static_cast<int64_t>(cu.size() - 1) * H, [&](int64_t i) {
    const int64_t n = i / H, h = i % H;
    hk::ref::RowMatrix S = gdr::rows(h0, i * Dk, Dk, Dv, 1);
    for (size_t c = 0; c < all.size(); ++c) {
      const Chunk& ch = all[c];
      if (ch.seq != n) continue;
      const int64_t L = ch.len, t0 = ch.bos * H + h;
      gdr::rows(hs, (static_cast<int64_t>(c) * H + h) * Dk, Dk, Dv, 1) = S;
      gdr::Rows vn = gdr::rows(v_new, t0, L, Dv, H);
      vn = gdr::rows(u, t0, L, Dv, H) - gdr::rows(w, t0, L, Dk, H) * S;
      const double g_last = gc[t0 + (L - 1) * H];
      hk::ref::RowMatrix decayed = vn;
      for (int64_t r = 0; r < L; ++r) decayed.row(r) *= std::exp(g_last - gc[t0 + r * H]);
      S *= std::exp(g_last);
      S.noalias() += gdr::rows(k, t0, L, Dk, H).transpose() * decayed;
    }
    gdr::rows(ht, i * Dk, Dk, Dv, 1) = S;
  });
}

// Per chunk and head, with Eigen products: o = scale (exp(gc) * (Q S) + (tril(Q K^T) * decay) V_new).
HK_REFERENCE(gdr_chunk_fwd_o) {
  const int64_t H = ctx.integer("H"), C = ctx.integer("C"), Dk = ctx.integer("Dk"), Dv = ctx.integer("Dv");
  const auto &q = data(ctx, "q"), &k = data(ctx, "k"), &v_new = data(ctx, "v_new"), &gc = data(ctx, "gc");
  const auto& hs = data(ctx, "h");
  auto& o = data(ctx, "o");
  const double scale = gdr::scale_of(ctx);
  const auto all = gdr::chunks(gdr::cu_seqlens(ctx), C);
  ctx.parallel_for(static_cast<int64_t>(all.size()) * H, [&](int64_t i) {
    const int64_t c = i / H, h = i % H;
    const Chunk& ch = all[static_cast<size_t>(c)];
    const int64_t L = ch.len, t0 = ch.bos * H + h;
    const gdr::ConstRows Q = gdr::rows(q, t0, L, Dk, H), K = gdr::rows(k, t0, L, Dk, H), V = gdr::rows(v_new, t0, L, Dv, H);
    const gdr::ConstRows S = gdr::rows(hs, (c * H + h) * Dk, Dk, Dv, 1);
    hk::ref::RowMatrix P = Q * K.transpose();
    for (int64_t r = 0; r < L; ++r)
      for (int64_t s = 0; s < L; ++s) P(r, s) = s <= r ? P(r, s) * std::exp(gc[(t0 + r * H)] - gc[(t0 + s * H)]) : 0.0;
    hk::ref::RowMatrix O = Q * S;
    for (int64_t r = 0; r < L; ++r) O.row(r) *= std::exp(gc[t0 + r * H]);
    O.noalias() += P * V;
    gdr::rows(o, t0, L, Dv, H) = scale * O;
  });
}

// The whole chunked forward equals the token-by-token recurrence; v_new is its u_t.
HK_REFERENCE(gdr_chunk_pipeline) {
  const auto &g = data(ctx, "g"), &beta = data(ctx, "beta");
  gdr::recurrence(
      ctx, [&](int64_t th, int64_t, double& gt, double& bt) { gt = g[th]; bt = beta[th]; }, false,
      data(ctx, "v_new").data());
}
