// CPU references for kernels/attention_paged/indexer_logits.cu: pa_indexer_logits and
// fp8_indexer_logits, the sparse-attention indexer's weighted sum over heads of ReLU(q·k). Double
// precision, straight from the definition (layouts in the kernel's header comment).
#include <algorithm>
#include <limits>

#include "reference.h"

namespace {

using hk::ref::Context;

int I(Context& ctx, const char* n) { return static_cast<int>(ctx.integer(n)); }

// logits [B, max_blocks * page]: sum_h w[b, h] * relu(kscale(j) * q[b, h]·k_j) for j < seq_len,
// -inf beyond.
void indexer_logits(Context& ctx, bool with_kscale) {
  const int B = I(ctx, "B"), H = I(ctx, "Hq"), D = I(ctx, "D"), page = I(ctx, "page"),
            MB = I(ctx, "max_blocks");
  const double* q = ctx.tensor("q").data.data();
  const double* k = ctx.tensor("k_cache").data.data();
  const double* w = ctx.tensor("weights").data.data();
  const double* table = ctx.tensor("block_tables").data.data();
  const double* lens = ctx.tensor("seq_lens").data.data();
  const double* ks = with_kscale ? ctx.tensor("k_scales").data.data() : nullptr;
  double* out = ctx.tensor("logits").data.data();
  const long long W = (long long)MB * page;
  ctx.parallel_for((int64_t)B * W, [&](int64_t i) {
    const int b = static_cast<int>(i / W);
    const long long j = i % W;
    if (j >= static_cast<long long>(lens[b])) {
      out[i] = -std::numeric_limits<double>::infinity();
      return;
    }
    const long long slot = static_cast<long long>(table[(long long)b * MB + j / page]) * page + j % page;
    const double kscale = ks ? ks[slot] : 1.0;
    double sum = 0.0;
    for (int h = 0; h < H; ++h) {
      const double* qr = q + ((long long)b * H + h) * D;
      double dot = 0.0;
      for (int d = 0; d < D; ++d) dot += qr[d] * k[slot * D + d];
      sum += w[(long long)b * H + h] * std::max(kscale * dot, 0.0);
    }
    out[i] = sum;
  });
}

}  // namespace

HK_REFERENCE(pa_ref_indexer_logits) { indexer_logits(ctx, false); }
HK_REFERENCE(pa_ref_fp8_indexer_logits) { indexer_logits(ctx, true); }
