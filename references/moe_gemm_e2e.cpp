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

// out[m, :] = x[m, :] * w[g(m)], w [G, K, N]; group_sizes must sum to M. One group per index of
// ctx.parallel_for: each writes only its own rows.
HK_REFERENCE(gmm) {
  const int64_t M = ctx.integer("M"), N = ctx.integer("N"), K = ctx.integer("K"), G = ctx.integer("G");
  const auto& sizes = ctx.tensor("group_sizes").data;
  if (std::accumulate(sizes.begin(), sizes.end(), 0.0) != static_cast<double>(M))
    throw std::runtime_error("group_sizes do not sum to M: the manifest case is wrong");
  auto x = ctx.matrix("x", M, K);
  auto w = ctx.matrix("w", G * K, N);
  auto out = ctx.matrix("out", M, N);
  std::vector<int64_t> start(G + 1, 0);
  for (int64_t g = 0; g < G; ++g) start[g + 1] = start[g] + static_cast<int64_t>(sizes[g]);
  ctx.parallel_for(G, [&](int64_t g) {
    const int64_t size = start[g + 1] - start[g];
    if (size == 0) return;
    const RowMatrix y = x.middleRows(start[g], size) * w.middleRows(g * K, K);
    for (int64_t r = 0; r < size; ++r)
      for (int64_t n = 0; n < N; ++n) out(start[g] + r, n) = ctx.round_to("out", y(r, n));
  });
}

// Route, SwiGLU up (h rounded to bf16 like the kernel's), down, combine. The tokens routed to an
// expert go through it as one GEMM (one expert per index of ctx.parallel_for, writing only its
// own (token, k) rows of `expert_out`); then each token sums its k rows in order.
HK_REFERENCE(moe_op_e2e) {
  const int64_t T = ctx.integer("T"), H = ctx.integer("H"), I = ctx.integer("I"), E = ctx.integer("E");
  const int64_t topk = ctx.integer("topk");
  const bool renormalize = ctx.integer("renormalize") != 0;
  auto x = ctx.matrix("x", T, H);
  auto logits = ctx.matrix("router_logits", T, E);
  auto w_up = ctx.matrix("w_up", E * 2 * I, H);
  auto w_down = ctx.matrix("w_down", E * H, I);
  auto out = ctx.matrix("out", T, H);
  std::vector<std::vector<int64_t>> sel(T);
  std::vector<std::vector<double>> weight(T);
  std::vector<std::vector<int64_t>> slots_of(E);  // slot t * topk + k of each expert
  for (int64_t t = 0; t < T; ++t) {
    route(&logits(t, 0), E, topk, renormalize, sel[t], weight[t]);
    for (int64_t k = 0; k < topk; ++k) slots_of[sel[t][k]].push_back(t * topk + k);
  }
  RowMatrix expert_out(T * topk, H);
  ctx.parallel_for(E, [&](int64_t e) {
    const std::vector<int64_t>& slots = slots_of[e];
    if (slots.empty()) return;
    RowMatrix xe(static_cast<Eigen::Index>(slots.size()), H);
    for (size_t i = 0; i < slots.size(); ++i) xe.row(i) = x.row(slots[i] / topk);
    const RowMatrix gu = xe * w_up.middleRows(e * 2 * I, 2 * I).transpose();
    RowMatrix h(xe.rows(), I);
    for (Eigen::Index r = 0; r < h.rows(); ++r)
      for (int64_t i = 0; i < I; ++i) h(r, i) = ctx.round_to("x", silu(gu(r, i)) * gu(r, I + i));  // bf16, as x
    const RowMatrix y = h * w_down.middleRows(e * H, H).transpose();
    for (size_t i = 0; i < slots.size(); ++i) expert_out.row(slots[i]) = y.row(i);
  });
  ctx.parallel_for(T, [&](int64_t t) {
    Eigen::VectorXd y = Eigen::VectorXd::Zero(H);
    for (int64_t k = 0; k < topk; ++k) y += weight[t][k] * expert_out.row(t * topk + k).transpose();
    for (int64_t j = 0; j < H; ++j) out(t, j) = ctx.round_to("out", y(j));
  });
}
