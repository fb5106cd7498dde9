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
  for (const Chunk& ch : gdr::chunks(gdr::cu_seqlens(ctx), C))
    for (int64_t h = 0; h < H; ++h) store_block(out, f(kkt(ctx, ch, h, gc), ch.len), ch, h, H, C);
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
  for (const Chunk& ch : gdr::chunks(gdr::cu_seqlens(ctx), C))
    for (int64_t h = 0; h < H; ++h) store_block(Ai, tril_inverse(load_block(A, ch, h, H, C), ch.len), ch, h, H, C);
}

HK_REFERENCE(gdr_recompute_w_u) {
  const int64_t H = ctx.integer("H"), C = ctx.integer("C"), Dk = ctx.integer("Dk"), Dv = ctx.integer("Dv");
  const auto &k = data(ctx, "k"), &v = data(ctx, "v"), &beta = data(ctx, "beta"), &gc = data(ctx, "gc");
  const auto& Ai = data(ctx, "Ai");
  auto &w = data(ctx, "w"), &u = data(ctx, "u");
  for (const Chunk& ch : gdr::chunks(gdr::cu_seqlens(ctx), C))
    for (int64_t h = 0; h < H; ++h)
      for (int64_t r = 0; r < ch.len; ++r) {
        const int64_t tr = (ch.bos + r) * H + h;
        for (int64_t d = 0; d < Dk; ++d) w[tr * Dk + d] = 0;
        for (int64_t d = 0; d < Dv; ++d) u[tr * Dv + d] = 0;
        for (int64_t s = 0; s <= r; ++s) {
          const int64_t ts = (ch.bos + s) * H + h;
          const double a = Ai[tr * C + s] * beta[ts];
          for (int64_t d = 0; d < Dk; ++d) w[tr * Dk + d] += a * std::exp(gc[ts]) * k[ts * Dk + d];
          for (int64_t d = 0; d < Dv; ++d) u[tr * Dv + d] += a * v[ts * Dv + d];
        }
      }
}

HK_REFERENCE(gdr_chunk_delta_h_fwd) {
  const int64_t H = ctx.integer("H"), C = ctx.integer("C"), Dk = ctx.integer("Dk"), Dv = ctx.integer("Dv");
  const auto &k = data(ctx, "k"), &w = data(ctx, "w"), &u = data(ctx, "u"), &gc = data(ctx, "gc");
  const auto& h0 = data(ctx, "h0");
  auto &hs = data(ctx, "h"), &v_new = data(ctx, "v_new"), &ht = data(ctx, "ht");
  const auto cu = gdr::cu_seqlens(ctx);
  const auto all = gdr::chunks(cu, C);
  for (size_t n = 0; n + 1 < cu.size(); ++n)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t st = (static_cast<int64_t>(n) * H + h) * Dk * Dv;
      std::vector<double> S(h0.begin() + st, h0.begin() + st + Dk * Dv);
      for (size_t c = 0; c < all.size(); ++c) {
        const Chunk& ch = all[c];
        if (ch.seq != static_cast<int64_t>(n)) continue;
        std::copy(S.begin(), S.end(), hs.begin() + (static_cast<int64_t>(c) * H + h) * Dk * Dv);
        for (int64_t r = 0; r < ch.len; ++r) {
          const int64_t t = (ch.bos + r) * H + h;
          for (int64_t j = 0; j < Dv; ++j) {
            double wh = 0;
            for (int64_t i = 0; i < Dk; ++i) wh += w[t * Dk + i] * S[i * Dv + j];
            v_new[t * Dv + j] = u[t * Dv + j] - wh;
          }
        }
        const double g_last = gc[(ch.bos + ch.len - 1) * H + h];
        for (double& s : S) s *= std::exp(g_last);
        for (int64_t r = 0; r < ch.len; ++r) {
          const int64_t t = (ch.bos + r) * H + h;
          const double d = std::exp(g_last - gc[t]);
          for (int64_t i = 0; i < Dk; ++i)
            for (int64_t j = 0; j < Dv; ++j) S[i * Dv + j] += k[t * Dk + i] * d * v_new[t * Dv + j];
        }
      }
      std::copy(S.begin(), S.end(), ht.begin() + st);
    }
}

HK_REFERENCE(gdr_chunk_fwd_o) {
  const int64_t H = ctx.integer("H"), C = ctx.integer("C"), Dk = ctx.integer("Dk"), Dv = ctx.integer("Dv");
  const auto &q = data(ctx, "q"), &k = data(ctx, "k"), &v_new = data(ctx, "v_new"), &gc = data(ctx, "gc");
  const auto& hs = data(ctx, "h");
  auto& o = data(ctx, "o");
  const double scale = gdr::scale_of(ctx);
  const auto all = gdr::chunks(gdr::cu_seqlens(ctx), C);
  for (size_t c = 0; c < all.size(); ++c)
    for (int64_t h = 0; h < H; ++h) {
      const Chunk& ch = all[c];
      const double* S = &hs[(static_cast<int64_t>(c) * H + h) * Dk * Dv];
      for (int64_t r = 0; r < ch.len; ++r) {
        const int64_t tr = (ch.bos + r) * H + h;
        for (int64_t j = 0; j < Dv; ++j) {
          double qh = 0;
          for (int64_t i = 0; i < Dk; ++i) qh += q[tr * Dk + i] * S[i * Dv + j];
          double acc = qh * std::exp(gc[tr]);
          for (int64_t s = 0; s <= r; ++s) {
            const int64_t ts = (ch.bos + s) * H + h;
            acc += gdr::dot(&q[tr * Dk], &k[ts * Dk], Dk) * std::exp(gc[tr] - gc[ts]) * v_new[ts * Dv + j];
          }
          o[tr * Dv + j] = scale * acc;
        }
      }
    }
}

// The whole chunked forward equals the token-by-token recurrence; v_new is its u_t.
HK_REFERENCE(gdr_chunk_pipeline) {
  const auto &g = data(ctx, "g"), &beta = data(ctx, "beta");
  gdr::recurrence(
      ctx, [&](int64_t th, int64_t, double& gt, double& bt) { gt = g[th]; bt = beta[th]; }, false,
      data(ctx, "v_new").data());
}
