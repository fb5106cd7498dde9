// References for kernels/conv1d/: causal depthwise conv1d (channels-first), optionally with
// bias + SiLU, and the q|k|v split variants (decode update with a rolling state, and prefill).
#include <cmath>

#include "reference.h"

namespace {

using hk::ref::Context;
using hk::ref::Tensor;

double silu(double v) { return v / (1.0 + std::exp(-v)); }

// out[b,c,t] = sum_k w[c,k] * x[b,c,t-(K-1)+k] (+ bias[c], then SiLU) for x [B, C, L],
// w [C, K]; calls emit(b, c, t, value) for every output.
template <typename Emit>
void causal_conv(const Tensor& x, const Tensor& w, const Tensor* bias, bool silu_act, Emit emit) {
  const int64_t B = x.dim(0), C = x.dim(1), L = x.dim(2), K = w.dim(1);
  if (w.dim(0) != C) throw std::runtime_error("causal_conv1d: weight is not [C, K]");
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c = 0; c < C; ++c) {
      const double* xr = x.data.data() + (b * C + c) * L;
      const double* wr = w.data.data() + c * K;
      for (int64_t t = 0; t < L; ++t) {
        double acc = bias ? bias->data[c] : 0.0;
        for (int64_t k = 0; k < K; ++k) {
          const int64_t ti = t - (K - 1) + k;
          if (ti >= 0) acc += wr[k] * xr[ti];
        }
        emit(b, c, t, silu_act ? silu(acc) : acc);
      }
    }
}

// Routes fused channel c of [B, Cq+Ck+Cv, L] into q, k or v ([B, Cx, L] each).
struct SplitQKV {
  Tensor &q, &k, &v;
  int64_t Cq, Ck, Cv, L;
  SplitQKV(Context& ctx, int64_t L_)
      : q(ctx.tensor("q")), k(ctx.tensor("k")), v(ctx.tensor("v")),
        Cq(q.dim(1)), Ck(k.dim(1)), Cv(v.dim(1)), L(L_) {}
  void operator()(int64_t b, int64_t c, int64_t t, double val) {
    if (c < Cq) q.data[(b * Cq + c) * L + t] = val;
    else if (c < Cq + Ck) k.data[(b * Ck + (c - Cq)) * L + t] = val;
    else v.data[(b * Cv + (c - Cq - Ck)) * L + t] = val;
  }
};

}  // namespace

HK_REFERENCE(causal_conv1d_fwd) {
  const Tensor& x = ctx.tensor("x");
  Tensor& out = ctx.tensor("out");
  const int64_t C = x.dim(1), L = x.dim(2);
  causal_conv(x, ctx.tensor("w"), nullptr, false,
              [&](int64_t b, int64_t c, int64_t t, double v) { out.data[(b * C + c) * L + t] = v; });
}

HK_REFERENCE(causal_conv1d_bias_silu_fwd) {
  const Tensor& x = ctx.tensor("x");
  Tensor& out = ctx.tensor("out");
  const int64_t C = x.dim(1), L = x.dim(2);
  causal_conv(x, ctx.tensor("w"), &ctx.tensor("bias"), true,
              [&](int64_t b, int64_t c, int64_t t, double v) { out.data[(b * C + c) * L + t] = v; });
}

HK_REFERENCE(causal_conv1d_fwd_split) {
  const Tensor& x = ctx.tensor("x");
  SplitQKV split(ctx, x.dim(2));
  if (split.Cq + split.Ck + split.Cv != x.dim(1)) throw std::runtime_error("causal_conv1d_fwd_split: C != Cq+Ck+Cv");
  causal_conv(x, ctx.tensor("w"), &ctx.tensor("bias"), true, split);
}

// Decode step: window = [state[b,c,:], x[b,c]] (K taps); out = SiLU(w . window + bias), and the
// state becomes window[1:], i.e. the last K-1 inputs including the new token.
HK_REFERENCE(causal_conv1d_update_split_qkv) {
  const Tensor& x = ctx.tensor("x");
  const Tensor& w = ctx.tensor("w");
  const Tensor& bias = ctx.tensor("bias");
  Tensor& state = ctx.tensor("conv_state");
  const int64_t B = x.dim(0), C = x.dim(1), K = w.dim(1);
  if (state.dim(2) != K - 1) throw std::runtime_error("causal_conv1d_update_split_qkv: state is not [B, C, K-1]");
  SplitQKV split(ctx, 1);
  std::vector<double> win(static_cast<size_t>(K));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c = 0; c < C; ++c) {
      double* st = state.data.data() + (b * C + c) * (K - 1);
      for (int64_t j = 0; j < K - 1; ++j) win[j] = st[j];
      win[K - 1] = x.data[b * C + c];
      double acc = bias.data[c];
      for (int64_t j = 0; j < K; ++j) acc += w.data[c * K + j] * win[j];
      for (int64_t j = 0; j < K - 1; ++j) st[j] = win[j + 1];
      split(b, c, 0, silu(acc));
    }
}
