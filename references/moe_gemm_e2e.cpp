// CPU references for kernels/moe_gemm/gmm.cu (grouped GEMM) and kernels/moe_gemm/moe_op_e2e.cu
// (a whole MoE layer), in double precision; intermediates the kernel stores in bf16 are rounded
// the same way here.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "reference.h"

namespace {

using hk::ref::Context;
using hk::ref::RowMatrix;

double silu(double g) { return g / (1.0 + std::exp(-g)); }

// The topk experts of largest logit (ties: lower id) and their softmax weights.
void route(const double* logits, int64_t E, int64_t topk, bool renormalize, std::vector<int64_t>& sel,
           std::vector<double>& weight) {
  std::vector<int64_t> order(E);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  const double mx = logits[order[0]];
  double sum = 0;
  for (int64_t e = 0; e < E; ++e) sum += std::exp(logits[e] - mx);
  sel.assign(order.begin(), order.begin() + topk);
  weight.clear();
  double chosen = 0;
  for (int64_t e : sel) {
    weight.push_back(std::exp(logits[e] - mx) / sum);
    chosen += weight.back();
  }
  if (renormalize)
    for (double& w : weight) w /= chosen;
}

}  // namespace

// out[m, :] = x[m, :] * w[g(m)], w [G, K, N]; group_sizes must sum to M.
HK_REFERENCE(gmm) {
  const int64_t M = ctx.integer("M"), N = ctx.integer("N"), K = ctx.integer("K"), G = ctx.integer("G");
  const auto& sizes = ctx.tensor("group_sizes").data;
  if (std::accumulate(sizes.begin(), sizes.end(), 0.0) != static_cast<double>(M))
    throw std::runtime_error("group_sizes do not sum to M: the manifest case is wrong");
  auto x = ctx.matrix("x", M, K);
  auto w = ctx.matrix("w", G * K, N);
  auto out = ctx.matrix("out", M, N);
  int64_t start = 0;
  for (int64_t g = 0; g < G; ++g) {
    const int64_t size = static_cast<int64_t>(sizes[g]);
    if (size == 0) continue;
    const RowMatrix y = x.middleRows(start, size) * w.middleRows(g * K, K);
    for (int64_t r = 0; r < size; ++r)
      for (int64_t n = 0; n < N; ++n) out(start + r, n) = ctx.round_to("out", y(r, n));
    start += size;
  }
}

// Route, SwiGLU up (h rounded to bf16 like the kernel's), down, combine; one token at a time.
HK_REFERENCE(moe_op_e2e) {
  const int64_t T = ctx.integer("T"), H = ctx.integer("H"), I = ctx.integer("I"), E = ctx.integer("E");
  const int64_t topk = ctx.integer("topk");
  const bool renormalize = ctx.integer("renormalize") != 0;
  auto x = ctx.matrix("x", T, H);
  auto logits = ctx.matrix("router_logits", T, E);
  auto w_up = ctx.matrix("w_up", E * 2 * I, H);
  auto w_down = ctx.matrix("w_down", E * H, I);
  auto out = ctx.matrix("out", T, H);
  std::vector<int64_t> sel;
  std::vector<double> weight;
  for (int64_t t = 0; t < T; ++t) {
    route(&logits(t, 0), E, topk, renormalize, sel, weight);
    Eigen::VectorXd y = Eigen::VectorXd::Zero(H);
    for (int64_t k = 0; k < topk; ++k) {
      const int64_t e = sel[k];
      const Eigen::VectorXd gu = w_up.middleRows(e * 2 * I, 2 * I) * x.row(t).transpose();
      Eigen::VectorXd h(I);
      for (int64_t i = 0; i < I; ++i) h(i) = ctx.round_to("x", silu(gu(i)) * gu(I + i));  // bf16, as x
      y += weight[k] * (w_down.middleRows(e * H, H) * h);
    }
    for (int64_t j = 0; j < H; ++j) out(t, j) = ctx.round_to("out", y(j));
  }
}
