// CPU references for the MoE GEMMs of kernels/moe_gemm/ (moe_gemm, moe_gelu, moe_silu_fused,
// moe_a8w8, moe_a8w8_blockscale, moe_a8w4, moe_a4w4, moe_mxfp4, moe_mxfp4_silu_fused), in
// double precision. The routing layout is the one of kernels/moe_gemm/moe_layout.h: each slot's
// expert is read from sorted_token_ids / expert_ids / num_tokens_post_padded (and the layout is
// checked: every slot exactly once). Activations and weights are dequantized exactly as their
// format says (scales multiplied in double, exact), multiplied with Eigen, the activation and
// the routing weight applied in double, and the result rounded once to out's dtype.
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference.h"

namespace {

using hk::ref::Context;
using hk::ref::RowMatrix;

// Expert of each slot s in [0, T * topk), from the align-block layout.
std::vector<int> slot_experts(Context& ctx, int64_t num_slots) {
  const auto& ids = ctx.tensor("sorted_token_ids").data;
  const auto& experts = ctx.tensor("expert_ids").data;
  const int64_t bm = ctx.integer("BLOCK_M"), E = ctx.integer("E");
  const int64_t valid = static_cast<int64_t>(ctx.tensor("num_tokens_post_padded").data.at(0));
  std::vector<int> ex(num_slots, -1);
  for (int64_t p = 0; p < valid && p < static_cast<int64_t>(ids.size()); ++p) {
    const int64_t s = static_cast<int64_t>(ids[p]);
    if (s < 0 || s >= num_slots) continue;  // padding
    const int e = static_cast<int>(experts.at(p / bm));
    if (e < 0 || e >= E) throw std::runtime_error("expert_ids out of range");
    if (ex[s] != -1) throw std::runtime_error("slot listed twice in sorted_token_ids");
    ex[s] = e;
  }
  for (int64_t s = 0; s < num_slots; ++s)
    if (ex[s] < 0) throw std::runtime_error("slot missing from sorted_token_ids: the manifest's layout is invalid");
  return ex;
}

enum class Act { None, Gelu, SwiGlu };

double silu(double g) { return g / (1.0 + std::exp(-g)); }
double gelu_erf(double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); }

// The weight of the expert a thread works on: one buffer per thread, so that 64 experts' weights
// do not fault in 64 fresh copies of 64 MB (the page zeroing took as long as the products).
thread_local RowMatrix expert_weight;

// out[s, n] for every slot: X [T, H] dequantized activations, weight(e, W) puts the dequantized
// [R, H] weight of expert e in W (R = N, or 2N for SwiGLU: gate rows then up rows). One expert
// per index of ctx.parallel_for (its weight dequantized, multiplied and stored there): each
// expert writes only the rows of its own slots, and its product is the same whichever thread
// runs it.
void moe_forward(Context& ctx, const RowMatrix& X, const std::function<void(int, RowMatrix&)>& weight, Act act) {
  const int64_t T = ctx.integer("T"), topk = ctx.integer("topk"), E = ctx.integer("E"), N = ctx.integer("N");
  const bool mul = ctx.integer("mul") != 0;
  const auto ex = slot_experts(ctx, T * topk);
  const auto& tw = ctx.tensor("topk_weights").data;
  auto out = ctx.matrix("out", T * topk, N);
  std::vector<std::vector<int64_t>> slots_of(E);
  for (int64_t s = 0; s < T * topk; ++s) slots_of[ex[s]].push_back(s);
  ctx.parallel_for(E, [&](int64_t e) {
    const std::vector<int64_t>& slots = slots_of[e];
    if (slots.empty()) return;
    RowMatrix Xe(static_cast<Eigen::Index>(slots.size()), X.cols());
    for (size_t i = 0; i < slots.size(); ++i) Xe.row(i) = X.row(slots[i] / topk);
    weight(static_cast<int>(e), expert_weight);
    const RowMatrix Y = Xe * expert_weight.transpose();
    for (size_t i = 0; i < slots.size(); ++i) {
      for (int64_t n = 0; n < N; ++n) {
        double v = Y(i, n);
        if (act == Act::Gelu) v = gelu_erf(v);
        if (act == Act::SwiGlu) v = silu(v) * Y(i, N + n);
        if (mul) v *= tw[slots[i]];
        out(slots[i], n) = ctx.round_to("out", v);
      }
    }
  });
  expert_weight = RowMatrix();  // the helper threads' buffers went with them; this thread's goes now
}

int64_t rows_of(Context& ctx, Act act) { return (act == Act::SwiGlu ? 2 : 1) * ctx.integer("N"); }

// Rows [e * R, (e + 1) * R) of a [E * R, H] view of tensor `name` (a view: assigned, it copies).
auto expert_rows(Context& ctx, const std::string& name, int e, int64_t R, int64_t H) {
  return ctx.matrix(name, ctx.tensor(name).numel() / H, H).middleRows(e * R, R);
}

void bf16_moe(Context& ctx, Act act) {
  const int64_t T = ctx.integer("T"), H = ctx.integer("H"), R = rows_of(ctx, act);
  const RowMatrix X = ctx.matrix("x", T, H);
  moe_forward(ctx, X, [&](int e, RowMatrix& W) { W = expert_rows(ctx, "w", e, R, H); }, act);
}

// MX: values (already decoded from fp4 e2m1 by hkcheck) times their e8m0 scale per 32 along H.
void mx_moe(Context& ctx, Act act, bool mx_activations) {
  const int64_t T = ctx.integer("T"), H = ctx.integer("H"), R = rows_of(ctx, act), KB = (H + 31) / 32;
  RowMatrix X = ctx.matrix("x", T, H);
  if (mx_activations) hk::ref::scale_blocks(X, ctx.matrix("x_scale", T, KB), 1, 32);
  moe_forward(
      ctx, X,
      [&](int e, RowMatrix& W) {
        W = expert_rows(ctx, "w", e, R, H);
        hk::ref::scale_blocks(W, expert_rows(ctx, "w_scale", e, R, KB), 1, 32);
      },
      act);
}

// Signed int4 weights of expert e, packed two per byte along H (element 2i low nibble, 2i + 1
// high), into W.
void unpack_int4(Context& ctx, int e, int64_t R, int64_t H, RowMatrix& W) {
  const auto& bytes = ctx.tensor("w").data;
  W.resize(R, H);
  for (int64_t n = 0; n < R; ++n)
    for (int64_t k = 0; k < H; ++k) {
      const int64_t i = (e * R + n) * H + k;
      const int b = static_cast<int>(bytes.at(i / 2));
      const int q = (i & 1) ? (b >> 4) & 15 : b & 15;
      W(n, k) = q >= 8 ? q - 16 : q;
    }
}

}  // namespace

HK_REFERENCE(moe_gemm) { bf16_moe(ctx, Act::None); }
HK_REFERENCE(moe_gelu) { bf16_moe(ctx, Act::Gelu); }
HK_REFERENCE(moe_silu_fused) { bf16_moe(ctx, Act::SwiGlu); }

// int8 or fp8 x with x_scale [T] and w with w_scale [E, N]: per token and per (expert, channel).
HK_REFERENCE(moe_a8w8) {
  const int64_t T = ctx.integer("T"), H = ctx.integer("H"), N = ctx.integer("N");
  RowMatrix X = ctx.matrix("x", T, H);
  hk::ref::scale_blocks(X, ctx.matrix("x_scale", T, 1), 1, H);
  moe_forward(
      ctx, X,
      [&](int e, RowMatrix& W) {
        W = expert_rows(ctx, "w", e, N, H);
        hk::ref::scale_blocks(W, expert_rows(ctx, "w_scale", e, N, 1), 1, H);
      },
      Act::None);
}

// fp8 x with x_scale [T, ceil(H / 128)], fp8 w with w_scale [E, ceil(N / 128), ceil(H / 128)].
HK_REFERENCE(moe_a8w8_blockscale) {
  const int64_t T = ctx.integer("T"), H = ctx.integer("H"), N = ctx.integer("N");
  const int64_t KB = (H + 127) / 128, NB = (N + 127) / 128;
  RowMatrix X = ctx.matrix("x", T, H);
  hk::ref::scale_blocks(X, ctx.matrix("x_scale", T, KB), 1, 128);
  moe_forward(
      ctx, X,
      [&](int e, RowMatrix& W) {
        W = expert_rows(ctx, "w", e, N, H);
        hk::ref::scale_blocks(W, expert_rows(ctx, "w_scale", e, NB, KB), 128, 128);
      },
      Act::None);
}

// int8/fp8 x with x_scale [T]; int4 w with w_scale [E, N, ceil(H / GROUP)].
HK_REFERENCE(moe_a8w4) {
  const int64_t T = ctx.integer("T"), H = ctx.integer("H"), N = ctx.integer("N"), G = ctx.integer("GROUP");
  RowMatrix X = ctx.matrix("x", T, H);
  hk::ref::scale_blocks(X, ctx.matrix("x_scale", T, 1), 1, H);
  moe_forward(
      ctx, X,
      [&](int e, RowMatrix& W) {
        unpack_int4(ctx, e, N, H, W);
        hk::ref::scale_blocks(W, expert_rows(ctx, "w_scale", e, N, (H + G - 1) / G), 1, G);
      },
      Act::None);
}

HK_REFERENCE(moe_a4w4) { mx_moe(ctx, Act::None, true); }
HK_REFERENCE(moe_mxfp4) { mx_moe(ctx, Act::None, false); }
HK_REFERENCE(moe_mxfp4_silu_fused) { mx_moe(ctx, Act::SwiGlu, false); }
