// CPU references for the KV-cache kernels (kernels/kv_cache/).
#include "reference.h"

#include <algorithm>

// fused_kv_cache: k_cache/v_cache arrive holding their initial values; only the rows of mapped
// slots (0 <= slot < num_slots) are overwritten with the token's K / V row. Negative slots
// (padding) are skipped.
HK_REFERENCE(fused_kv_cache) {
  const auto& k = ctx.tensor("k");
  const auto& v = ctx.tensor("v");
  const auto& slots = ctx.tensor("slot_mapping");
  auto& k_cache = ctx.tensor("k_cache");
  auto& v_cache = ctx.tensor("v_cache");
  const int64_t tokens = k.dim(0);
  const int64_t row = k.numel() / std::max<int64_t>(tokens, 1);  // H * D
  const int64_t num_slots = k_cache.numel() / row;
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t slot = static_cast<int64_t>(slots.data[t]);
    if (slot < 0 || slot >= num_slots) continue;
    std::copy_n(k.data.begin() + t * row, row, k_cache.data.begin() + slot * row);
    std::copy_n(v.data.begin() + t * row, row, v_cache.data.begin() + slot * row);
  }
}
