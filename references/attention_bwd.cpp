// CPU reference for kernels/attention_bwd/ (flash_attn_bwd, mha_fused_bwd, mha_onekernel_bwd):
// the attention backward with the given out and lse, in double precision. Layouts: q/out/dout
// [B, Sq, Hq, D], k/v [B, Sk, Hkv, D], lse [B, Hq, Sq]; dq/dk/dv like q/k/v. Bottom-right causal.
// For a visible (i, j): P = exp(scale q_i·k_j - lse_i), dP = dout_i·v_j, delta_i = dout_i·out_i,
// dS = P (dP - delta_i); dv_j += P dout_i, dk_j += scale dS q_i, dq_i += scale dS k_j (sums as
// Eigen products over each (batch, head)).
// attn_fwd_lse_ref is the forward pass the manifest derives out and lse from (docs/manifest.md,
// "Derived tensors"), with the same layouts, scale and causal alignment.
#include <algorithm>
#include <cmath>
#include <vector>

#include "attention_common.h"
#include "reference.h"

namespace {

using hk::ref::Context;

int I(Context& ctx, const char* n) { return static_cast<int>(ctx.integer(n)); }

// The scale the kernels use: the f32 they received, or 1/sqrt(D) computed in f32 when <= 0.
double kernel_scale(Context& ctx, int D) {
  const float s32 = static_cast<float>(ctx.num("scale"));
  return s32 > 0.f ? s32 : static_cast<double>(1.f / std::sqrt(static_cast<float>(D)));
}

// out [B, Sq, Hq, D] and lse [B, Hq, Sq] (natural log) of softmax(scale q k^T) v; a row that
// sees no key (causal, Sq > Sk) gets out 0 and lse -inf, which the backward skips.
void attention_fwd(Context& ctx) {
  const int B = I(ctx, "B"), Sq = I(ctx, "Sq"), Sk = I(ctx, "Sk"), Hq = I(ctx, "Hq"),
            Hkv = I(ctx, "Hkv"), D = I(ctx, "D"), G = Hq / Hkv;
  const bool causal = ctx.integer("causal") != 0;
  const double scale = kernel_scale(ctx, D);
  const double* q = ctx.tensor("q").data.data();
  double* out = ctx.tensor("out").data.data();
  double* lse = ctx.tensor("lse").data.data();
  const hk::ref::Tensor &kt = ctx.tensor("k"), &vt = ctx.tensor("v");
  // All the query rows of a (batch, head) at once, with Eigen products (attend_rows): the
  // backward kernels' large cases derive out and lse from here, and row by row it cost them more
  // CPU than their own reference.
  ctx.parallel_for((int64_t)B * Hq, [&](int64_t task) {
    const int b = static_cast<int>(task / Hq), h = static_cast<int>(task % Hq);
    const attn_ref::Row k = attn_ref::contig(kt, (long long)b * Sk, Hkv, h / G, D);
    const attn_ref::Row v = attn_ref::contig(vt, (long long)b * Sk, Hkv, h / G, D);
    attn_ref::RowSet rows;
    for (int i = 0; i < Sq; ++i) {
      const long long qi = (((long long)b * Sq + i) * Hq + h) * D;
      rows.add(q + qi, out + qi, lse + ((long long)b * Hq + h) * Sq + i, attn_ref::causal_hi(i, Sq, Sk, causal));
    }
    attn_ref::attend_rows(rows, D, k, v, scale);
  });
}

// Rows [tok0, tok0 + n) of head h of a [.., S, H, D] tensor, as an n x D matrix.
hk::ref::RowMatrix head_rows(const double* t, long long tok0, int n, int H, int h, int D) {
  hk::ref::RowMatrix m(n, D);
  for (int r = 0; r < n; ++r) m.row(r) = Eigen::Map<const Eigen::RowVectorXd>(t + ((tok0 + r) * H + h) * (long long)D, D);
  return m;
}

void attention_bwd(Context& ctx) {
  const int B = I(ctx, "B"), Sq = I(ctx, "Sq"), Sk = I(ctx, "Sk"), Hq = I(ctx, "Hq"),
            Hkv = I(ctx, "Hkv"), D = I(ctx, "D"), G = Hq / Hkv;
  const bool causal = ctx.integer("causal") != 0;
  const double scale = kernel_scale(ctx, D);
  const double *q = ctx.tensor("q").data.data(), *k = ctx.tensor("k").data.data(),
               *v = ctx.tensor("v").data.data(), *o = ctx.tensor("out").data.data(),
               *go = ctx.tensor("dout").data.data(), *lse = ctx.tensor("lse").data.data();
  double *dq = ctx.tensor("dq").data.data(), *dk = ctx.tensor("dk").data.data(), *dv = ctx.tensor("dv").data.data();
  using hk::ref::RowMatrix;
  // One task per (batch, kv head): it alone writes that head's dk, dv and its query heads' dq.
  // Per query head, with Eigen products: P and dS [Sq, Sk] (0 where j is not visible), then
  // dv += P^T dout, dk += (scale dS)^T q, dq = (scale dS) k.
  ctx.parallel_for((int64_t)B * Hkv, [&](int64_t task) {
    const int b = static_cast<int>(task / Hkv), kvh = static_cast<int>(task % Hkv);
    const RowMatrix K = head_rows(k, (long long)b * Sk, Sk, Hkv, kvh, D), V = head_rows(v, (long long)b * Sk, Sk, Hkv, kvh, D);
    RowMatrix dK = RowMatrix::Zero(Sk, D), dV = RowMatrix::Zero(Sk, D);
    for (int h = kvh * G; h < (kvh + 1) * G; ++h) {
      const RowMatrix Q = head_rows(q, (long long)b * Sq, Sq, Hq, h, D), dO = head_rows(go, (long long)b * Sq, Sq, Hq, h, D);
      const RowMatrix O = head_rows(o, (long long)b * Sq, Sq, Hq, h, D);
      RowMatrix P = Q * K.transpose(), dS = dO * V.transpose();
      for (int i = 0; i < Sq; ++i) {
        double delta = 0.0;
        for (int d = 0; d < D; ++d) delta += dO(i, d) * O(i, d);
        const int hi = causal ? std::max(0, std::min(Sk, i + Sk - Sq + 1)) : Sk;
        const double l = lse[((long long)b * Hq + h) * Sq + i];
        for (int j = 0; j < Sk; ++j) {
          const double p = j < hi ? std::exp(P(i, j) * scale - l) : 0.0;
          dS(i, j) = j < hi ? scale * (p * (dS(i, j) - delta)) : 0.0;
          P(i, j) = p;
        }
      }
      dV.noalias() += P.transpose() * dO;
      dK.noalias() += dS.transpose() * Q;
      const RowMatrix dQ = dS * K;
      for (int i = 0; i < Sq; ++i)
        Eigen::Map<Eigen::RowVectorXd>(dq + (((long long)b * Sq + i) * Hq + h) * D, D) = dQ.row(i);
    }
    for (int j = 0; j < Sk; ++j) {
      Eigen::Map<Eigen::RowVectorXd>(dk + (((long long)b * Sk + j) * Hkv + kvh) * D, D) = dK.row(j);
      Eigen::Map<Eigen::RowVectorXd>(dv + (((long long)b * Sk + j) * Hkv + kvh) * D, D) = dV.row(j);
    }
  });
}

}  // namespace

HK_REFERENCE(attn_bwd_ref) { attention_bwd(ctx); }
HK_REFERENCE(attn_fwd_lse_ref) { attention_fwd(ctx); }
