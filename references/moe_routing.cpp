// CPU references for kernels/moe_routing/ (manifests/moe_routing.json), in double precision.
// Every output here is exact: integers, or floats computed by the kernel's own formula, which
// the manifest compares at the f32 default tolerance.
//
// Tie rule: the kernels order experts by logit descending with ties to the smaller index, and
// so do these references. The selection compares the stored input values (exact in f32 and in
// double alike), so the reference picks the very ids the kernel must; the manifest still judges
// the top-k ids of moe_topk and moe_routing by the "indices" rule (the logits they select).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "reference.h"

namespace {

using hk::ref::Context;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::vector<double>& out(Context& ctx, const char* name) { return ctx.tensor(name).data; }

// moe_align_block_size over the flat slot ids (kernels/moe_routing/moe_align_block_size.cu):
// a stable counting sort of the slots by expert, each group padded to BM with the sentinel N.
void align_reference(Context& ctx, const std::vector<int64_t>& ids, int64_t E, int64_t BM, bool with_cumsum,
                     bool with_hist) {
  const int64_t N = static_cast<int64_t>(ids.size());
  std::vector<int64_t> cnt(static_cast<size_t>(E), 0), start(static_cast<size_t>(E + 1), 0);
  for (int64_t e : ids)
    if (e >= 0 && e < E) ++cnt[static_cast<size_t>(e)];
  for (int64_t e = 0; e < E; ++e) start[e + 1] = start[e] + ceil_div(cnt[e], BM) * BM;
  const int64_t total = start[E];

  auto& sorted = out(ctx, "sorted_token_ids");
  std::fill(sorted.begin(), sorted.end(), static_cast<double>(N));
  std::vector<int64_t> next(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < N; ++i)
    if (ids[i] >= 0 && ids[i] < E) sorted[static_cast<size_t>(next[ids[i]]++)] = static_cast<double>(i);

  auto& experts = out(ctx, "expert_ids");
  std::fill(experts.begin(), experts.end(), -1.0);
  for (int64_t e = 0; e < E; ++e)
    for (int64_t b = start[e] / BM; b < start[e + 1] / BM; ++b) experts[static_cast<size_t>(b)] = static_cast<double>(e);

  out(ctx, "num_tokens_post_padded").assign(1, static_cast<double>(total));
  if (with_cumsum) {
    auto& cs = out(ctx, "cumsum");
    for (int64_t e = 0; e <= E; ++e) cs[static_cast<size_t>(e)] = static_cast<double>(start[e]);
  }
  if (with_hist) {
    auto& h = out(ctx, "hist");
    for (int64_t e = 0; e < E; ++e) h[static_cast<size_t>(e)] = static_cast<double>(cnt[e]);
  }
}

// Softmax over each row of `logits`, top K by logit (ties to the smaller index), weights the
// probabilities of the K, renormalized to sum 1 when asked. Returns the flat ids.
std::vector<int64_t> softmax_topk_reference(Context& ctx, const char* logits_name) {
  auto g = ctx.matrix(logits_name);
  const int64_t K = ctx.integer("K");
  const bool renorm = ctx.integer("renormalize") != 0;
  auto ids = ctx.matrix("topk_ids", g.rows(), K);
  auto weights = ctx.matrix("topk_weights", g.rows(), K);
  std::vector<int64_t> order(static_cast<size_t>(g.cols())), flat;
  for (Eigen::Index t = 0; t < g.rows(); ++t) {
    const double m = g.row(t).maxCoeff();
    const double s = (g.row(t).array() - m).exp().sum();
    std::iota(order.begin(), order.end(), int64_t{0});
    std::partial_sort(order.begin(), order.begin() + K, order.end(), [&](int64_t a, int64_t b) {
      return g(t, a) > g(t, b) || (g(t, a) == g(t, b) && a < b);
    });
    double psum = 0;
    for (int64_t k = 0; k < K; ++k) psum += std::exp(g(t, order[k]) - m) / s;
    for (int64_t k = 0; k < K; ++k) {
      const double p = std::exp(g(t, order[k]) - m) / s;
      ids(t, k) = static_cast<double>(order[k]);
      weights(t, k) = renorm ? p / psum : p;
      flat.push_back(order[k]);
    }
  }
  return flat;
}

}  // namespace

HK_REFERENCE(moe_routing_align_block_size) {
  std::vector<int64_t> ids;
  for (double v : ctx.tensor("topk_ids").data) ids.push_back(static_cast<int64_t>(v));
  align_reference(ctx, ids, ctx.integer("E"), ctx.integer("BM"), true, false);
}

HK_REFERENCE(moe_routing_topk_softmax) { softmax_topk_reference(ctx, "gating_output"); }

// The whole router: softmax top-k, then the histogram and the align-block-size outputs of its ids.
HK_REFERENCE(moe_routing_router) {
  const std::vector<int64_t> ids = softmax_topk_reference(ctx, "logits");
  align_reference(ctx, ids, ctx.integer("E"), ctx.integer("BM"), false, true);
  out(ctx, "ticket").assign(1, 0.0);
}

// Bitmatrix [T, ceil(E/32)] of u32 words (stored as i32): per-block-of-ROWS-rows counts of
// each expert's bit, and their sum over all blocks. Bits at e >= E are ignored.
HK_REFERENCE(moe_routing_bitmatrix_counts) {
  const int64_t T = ctx.integer("T"), E = ctx.integer("E"), ROWS = ctx.integer("ROWS");
  const int64_t W = ceil_div(E, 32);
  const auto& bm = ctx.tensor("bitmatrix").data;
  auto& partials = out(ctx, "partials");
  auto& counts = out(ctx, "counts");
  std::fill(partials.begin(), partials.end(), 0.0);
  std::fill(counts.begin(), counts.end(), 0.0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t e = 0; e < E; ++e) {
      const auto word = static_cast<uint32_t>(static_cast<int32_t>(bm[static_cast<size_t>(t * W + e / 32)]));
      if ((word >> (e % 32)) & 1u) {
        partials[static_cast<size_t>((t / ROWS) * E + e)] += 1;
        counts[static_cast<size_t>(e)] += 1;
      }
    }
  out(ctx, "ticket").assign(1, 0.0);
}

// Expert data from a histogram: token offsets, tiles per expert, tile offsets, and the tile map
// (block_in_expert << 16 | expert, -1 past the last tile). Writes those of the four outputs the
// kernel has (expt_data_tile_map has only the map).
static void expt_data_reference(Context& ctx) {
  const int64_t E = ctx.integer("E"), BM = ctx.integer("BM");
  const auto& hist = ctx.tensor("hist").data;
  std::vector<double> token_offs(static_cast<size_t>(E + 1), 0.0), tile_counts(static_cast<size_t>(E), 0.0),
      tile_offs(static_cast<size_t>(E + 1), 0.0);
  auto& tile_map = out(ctx, "tile_map");
  std::fill(tile_map.begin(), tile_map.end(), -1.0);
  for (int64_t e = 0; e < E; ++e) {
    const auto h = static_cast<int64_t>(hist[static_cast<size_t>(e)]);
    const int64_t tiles = ceil_div(h, BM);
    tile_counts[e] = static_cast<double>(tiles);
    token_offs[e + 1] = token_offs[e] + static_cast<double>(h);
    tile_offs[e + 1] = tile_offs[e] + static_cast<double>(tiles);
    for (int64_t j = 0; j < tiles; ++j) {
      const auto i = static_cast<size_t>(tile_offs[e]) + static_cast<size_t>(j);
      if (i < tile_map.size()) tile_map[i] = static_cast<double>((j << 16) | e);
    }
  }
  if (ctx.tensors.count("token_offs")) {
    out(ctx, "token_offs") = token_offs;
    out(ctx, "tile_counts") = tile_counts;
    out(ctx, "tile_offs") = tile_offs;
  }
}

HK_REFERENCE(moe_routing_expt_data) { expt_data_reference(ctx); }
HK_REFERENCE(moe_routing_expt_tile_map) { expt_data_reference(ctx); }

// Router matmul, argmax (ties to the smaller index) and sigmoid gate. The manifest's inputs are
// exact in f32 arithmetic (see manifests/moe_routing.json), so these logits equal the kernel's.
HK_REFERENCE(moe_routing_sigmoid_top1) {
  auto x = ctx.matrix("x");
  auto w = ctx.matrix("w");
  auto ids = ctx.matrix("topk_ids", x.rows(), 1);
  auto weights = ctx.matrix("topk_weights", x.rows(), 1);
  // Blocks of 256 tokens on ctx's threads (w packed once per block), each writing its own rows.
  constexpr Eigen::Index kRows = 256;
  ctx.parallel_for((x.rows() + kRows - 1) / kRows, [&](int64_t block) {
    const Eigen::Index t0 = block * kRows, n = std::min(kRows, x.rows() - t0);
    const hk::ref::RowMatrix logits = x.middleRows(t0, n) * w.transpose();
    for (Eigen::Index r = 0; r < n; ++r) {
      Eigen::Index best = 0;
      for (Eigen::Index e = 1; e < logits.cols(); ++e)
        if (logits(r, e) > logits(r, best)) best = e;
      ids(t0 + r, 0) = static_cast<double>(best);
      weights(t0 + r, 0) = 1.0 / (1.0 + std::exp(-logits(r, best)));
    }
  });
}
